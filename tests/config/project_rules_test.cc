// What an untrusted project file may set: only what tightens. Loosening keys are errors that
// name the file, the line and column, the key, and `safesh trust`; some keys never pass.
#include "config/project_rules.h"

#include <gtest/gtest.h>

#include "config/layers.h"
#include "config/temp_dir.h"
#include "util/sha256.h"

namespace safesh::config {
namespace {

using testing::TempDir;

TEST(ProjectRules, EveryKnownKeyIsClassified) {
  // A key added to settings.cc without a rule here would be refused in every project file.
  for (const auto& [section, key] : KnownSettingsKeys())
    EXPECT_TRUE(IsClassified(section, key)) << "[" << section << "] " << key;
  EXPECT_FALSE(IsClassified("sandbox", "no_such_key"));
}

TEST(ProjectRules, TighteningValuesAreAccepted) {
  std::string error;
  std::optional<SettingsFile> f = ParseSettingsFile(
      "[commands]\ndeny = [\"rm\"]\nask = [\"git push\"]\nallow = []\nauto_approve = []\n"
      "strict = true\n"
      "[sandbox]\nshell = \"required\"\nallow_network = false\nwritable_paths = []\n"
      "read_only_paths = [\"docs\"]\nblocked_paths = [\"secrets\"]\nscrub_env = [\"MY_*\"]\n"
      "env_allow = []\nallow_git_config = false\nallow_unix_sockets = []\n"
      "[tools]\nshell_timeout_seconds = 600\noutput_limit_bytes = 2048\n"
      "[approvals]\nheadless = \"deny\"\n"
      "[background]\nmax_running = 2\nmax_lifetime_seconds = 60\noutput_limit_bytes = 4096\n"
      "retain_finished = 3\n",
      "p.toml", &error);
  ASSERT_TRUE(f) << error;
  std::vector<Loosening> l = FindLoosening(*f);
  for (const Loosening& x : l)
    ADD_FAILURE() << x.what << " " << x.why;
}

struct Loose {
  const char* toml;
  const char* at;    // line:col of the key
  const char* what;  // the key and value as the message names them
  ProjectKey kind;
};

const std::vector<Loose>& LooseningCases() {
  static const std::vector<Loose> cases = {
      {"[commands]\nallow = [\"git\"]\n", "2:1", "[commands] allow = [\"git\"]",
       ProjectKey::kNeedsTrust},
      {"[commands]\nauto_approve = [\"ls *\", \"cat *\"]\n", "2:1",
       "[commands] auto_approve = [\"ls *\", ...]", ProjectKey::kNeedsTrust},
      {"[commands]\nstrict = false\n", "2:1", "[commands] strict = false", ProjectKey::kNeedsTrust},
      {"[sandbox]\nallow_network = true\n", "2:1", "[sandbox] allow_network = true",
       ProjectKey::kNever},
      {"[sandbox]\nwritable_paths = [\"/\"]\n", "2:1", "[sandbox] writable_paths = [\"/\"]",
       ProjectKey::kNever},
      {"[sandbox]\nenv_allow = [\"HOME\"]\n", "2:1", "[sandbox] env_allow = [\"HOME\"]",
       ProjectKey::kNever},
      {"[sandbox]\nallow_git_config = true\n", "2:1", "[sandbox] allow_git_config = true",
       ProjectKey::kNever},
      {"[sandbox]\nallow_unix_sockets = [\"/run/docker.sock\"]\n", "2:1",
       "[sandbox] allow_unix_sockets = [\"/run/docker.sock\"]", ProjectKey::kNever},
      {"[sandbox]\nroot_keeps_owner_rights = true\n", "2:1",
       "[sandbox] root_keeps_owner_rights = true", ProjectKey::kNever},
      {"[sandbox]\nmax_processes = 0\n", "2:1", "[sandbox] max_processes = 0", ProjectKey::kNever},
      {"[approvals]\nheadless = \"allow\"\n", "2:1", "[approvals] headless = \"allow\"",
       ProjectKey::kNeedsTrust},
      {"[sandbox]\nshell = \"off\"\n", "2:1", "[sandbox] shell = \"off\"", ProjectKey::kNever},
      {"[sandbox]\nshell = \"auto\"\n", "2:1", "[sandbox] shell = \"auto\"", ProjectKey::kNever},
      // Indented, after another key: the position is the key's own.
      {"[commands]\ndeny = [\"rm\"]\n  auto_approve = [\"ls\"]\n", "3:3",
       "[commands] auto_approve = [\"ls\"]", ProjectKey::kNeedsTrust},
  };
  return cases;
}

TEST(ProjectRules, EachLooseningKeyIsFoundWhereItIsWritten) {
  for (const Loose& c : LooseningCases()) {
    std::string error;
    std::optional<SettingsFile> f = ParseSettingsFile(c.toml, "p.toml", &error);
    ASSERT_TRUE(f) << error;
    std::vector<Loosening> l = FindLoosening(*f);
    ASSERT_EQ(l.size(), 1u) << c.toml;
    EXPECT_EQ(std::to_string(l[0].key.at.line) + ":" + std::to_string(l[0].key.at.column), c.at)
        << c.toml;
    EXPECT_EQ(l[0].what, c.what);
    EXPECT_EQ(l[0].kind, c.kind) << c.toml;
    EXPECT_FALSE(l[0].why.empty());
  }
}

// The same through LoadLayered: the error names file:line:col and the key, says how to trust,
// and no settings come back (so nothing runs).
TEST(ProjectRules, AnUntrustedProjectFileThatLoosensIsAnError) {
  for (const Loose& c : LooseningCases()) {
    TempDir dir;
    std::string ws = dir.path() + "/ws";
    std::string file = dir.Write("ws/.safesh/settings.toml", c.toml);
    LayerSources sources;
    sources.project_file = ProjectSettingsPath(ws);
    sources.trust_file = dir.path() + "/state/trust.json";
    std::string error;
    EXPECT_FALSE(LoadLayered(sources, &error)) << c.toml;
    EXPECT_NE(error.find(file + ":" + c.at + ": " + c.what), std::string::npos)
        << c.toml << " -> " << error;
    if (c.kind == ProjectKey::kNeedsTrust) {
      EXPECT_NE(error.find("you have not trusted it"), std::string::npos) << error;
      EXPECT_NE(error.find("run `safesh trust --workspace " + ws + "`"), std::string::npos)
          << error;
    } else {
      EXPECT_NE(error.find("can never set, trusted or not"), std::string::npos) << error;
    }
  }
}

// A repository's file must not be able to drive the person's terminal through an error.
TEST(ProjectRules, ErrorsShowNoControlCharactersFromTheFile) {
  for (const char* toml :
       {"\"\\u001b[2J\" = 1\n", "[commands]\n\"x\\u001b]0;t\\u0007\" = [\"a\"]\n",
        "[commands]\nauto_approve = [\"\\u001b[2Jls\"]\n", "[sandbox]\nshell = \"\\u001b[2J\"\n",
        "[commands]\ndeny = [\"re:(\\u001b\"]\n"}) {
    TempDir dir;
    dir.Write("ws/.safesh/settings.toml", toml);
    LayerSources sources;
    sources.project_file = ProjectSettingsPath(dir.path() + "/ws");
    sources.trust_file = dir.path() + "/state/trust.json";
    std::string error;
    EXPECT_FALSE(LoadLayered(sources, &error)) << toml;
    EXPECT_EQ(error.find('\x1b'), std::string::npos) << error;
    EXPECT_EQ(error.find('\x07'), std::string::npos) << error;
  }
}

TEST(ProjectRules, ThingsAProjectCanNeverSetStayRefusedWhenTrusted) {
  TempDir dir;
  std::string ws = dir.path() + "/ws";
  std::string text = "[sandbox]\nshell = \"off\"\n";
  dir.Write("ws/.safesh/settings.toml", text);
  LayerSources sources;
  sources.project_file = ProjectSettingsPath(ws);
  sources.trust_file = dir.path() + "/state/safesh/trust.json";
  std::string error;
  ASSERT_TRUE(UpdateTrustStore(
      sources.trust_file,
      [&](TrustStore* s) {
        s->files.push_back({ProjectTrustKey(sources.project_file), util::Sha256Hex(text), ""});
      },
      &error))
      << error;
  EXPECT_FALSE(LoadLayered(sources, &error));
  EXPECT_NE(error.find("[sandbox] shell = \"off\" runs commands without the sandbox"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("can never set, trusted or not"), std::string::npos) << error;
}

}  // namespace
}  // namespace safesh::config
