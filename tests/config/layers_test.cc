// Layering: defaults < user < project < --config < environment; lists accumulate, scalars
// override, and every value says where it came from.
#include "config/layers.h"

#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>

#include <gtest/gtest.h>

#include "config/temp_dir.h"
#include "exec/env.h"

namespace safesh::config {
namespace {

using testing::TempDir;

// The origins of `key` as "layer@file:line:col" (or "default").
std::vector<std::string> Origins(const LayeredSettings& l, const std::string& key) {
  std::vector<std::string> out;
  for (const Origin& o : l.origins.at(key))
    out.push_back(DescribeOrigin(o));
  return out;
}

struct LayerFiles {
  TempDir dir;
  LayerSources sources;
  LayerFiles() {
    sources.user_file = dir.path() + "/home/.config/safesh/settings.toml";
    sources.project_file = ProjectSettingsPath(dir.path() + "/ws");
    sources.trust_file = dir.path() + "/state/safesh/trust.json";
  }
  std::string User(const std::string& text) {
    return dir.Write("home/.config/safesh/settings.toml", text);
  }
  std::string Project(const std::string& text) {
    return dir.Write("ws/.safesh/settings.toml", text);
  }
  std::string Config(const std::string& text) {
    sources.config_file = dir.Write("config.toml", text);
    return sources.config_file;
  }
};

TEST(Layers, WithNoFileEverythingIsTheDefault) {
  LayerFiles t;
  std::string error;
  std::optional<LayeredSettings> l = LoadLayered(t.sources, &error);
  ASSERT_TRUE(l) << error;
  EXPECT_TRUE(l->files.empty());
  EXPECT_EQ(l->project, ProjectTrust::kNone);
  EXPECT_EQ(l->settings.sandbox.shell, "required");
  EXPECT_FALSE(l->settings.sandbox.scrub_env.has_value());  // exec's built-in list applies
  EXPECT_EQ(Origins(*l, "sandbox.shell"), std::vector<std::string>{"default"});
  EXPECT_TRUE(l->origins.at("commands.deny").empty());
  for (const EffectiveValue& v : EffectiveValues(*l)) {
    if (v.kind != EffectiveValue::kList) {
      ASSERT_EQ(v.origins.size(), 1u) << v.key;
      EXPECT_EQ(v.origins[0].layer, Layer::kDefault) << v.key;
    }
    if (v.key == "scrub_env") {
      EXPECT_EQ(v.list, exec::DefaultScrubGlobs());
    }
    if (v.key == "env_allow") {
      EXPECT_TRUE(v.unset);
    }
  }
}

// Every key settings.cc accepts is carried through the layers (a key the layers did not know
// would be read, checked, and then silently dropped).
TEST(Layers, EveryKnownKeyIsCarried) {
  LayerFiles t;
  std::string error;
  std::optional<LayeredSettings> l = LoadLayered(t.sources, &error);
  ASSERT_TRUE(l) << error;
  std::vector<std::pair<std::string, std::string>> carried;
  for (const EffectiveValue& v : EffectiveValues(*l))
    carried.emplace_back(v.section, v.key);
  for (const auto& [section, key] : KnownSettingsKeys()) {
    EXPECT_NE(std::find(carried.begin(), carried.end(), std::make_pair(section, key)),
              carried.end())
        << "[" << section << "] " << key << " is read but not carried through the layers";
  }
  // And a value written in a file arrives.
  t.Config("[sandbox]\nmax_processes = 64\nmemory_limit = \"256MiB\"\n");
  l = LoadLayered(t.sources, &error);
  ASSERT_TRUE(l) << error;
  EXPECT_EQ(l->settings.sandbox.max_processes, 64);
  EXPECT_EQ(l->settings.sandbox.memory_limit, 256ull << 20);
}

TEST(Layers, ListsAccumulateScalarsOverrideAndEachValueSaysWhereItCameFrom) {
  LayerFiles t;
  std::string user = t.User(
      "[commands]\ndeny = [\"rm\"]\nauto_approve = [\"ls *\"]\n"
      "[sandbox]\nallow_network = true\nwritable_paths = [\"~/go\"]\n"
      "[tools]\nshell_timeout_seconds = 30\noutput_limit_bytes = 4096\n");
  std::string project = t.Project(
      "[commands]\ndeny = [\"curl\", \"rm\"]\nask = [\"git push\"]\n"
      "[sandbox]\nallow_network = false\nblocked_paths = [\"secrets\"]\n"
      "[tools]\nshell_timeout_seconds = 60\n");
  std::string config = t.Config(
      "[commands]\ndeny = [\"sudo\"]\n[tools]\nshell_timeout_seconds = 90\n"
      "[approvals]\nheadless = \"allow\"\n");
  t.sources.env_sandbox_shell = "off";
  std::string error;
  std::optional<LayeredSettings> l = LoadLayered(t.sources, &error);
  ASSERT_TRUE(l) << error;
  const Settings& s = l->settings;

  EXPECT_EQ(s.commands.deny, (std::vector<std::string>{"rm", "curl", "sudo"}));
  EXPECT_EQ(Origins(*l, "commands.deny"),
            (std::vector<std::string>{user + ":2:9", project + ":2:9", config + ":2:9"}));
  EXPECT_EQ(s.commands.ask, std::vector<std::string>{"git push"});
  EXPECT_EQ(s.commands.auto_approve, std::vector<std::string>{"ls *"});
  EXPECT_EQ(s.sandbox.writable_paths, std::vector<std::string>{"~/go"});
  EXPECT_EQ(s.sandbox.blocked_paths, std::vector<std::string>{"secrets"});
  EXPECT_EQ(Origins(*l, "sandbox.blocked_paths"), std::vector<std::string>{project + ":6:18"});
  // Scalars: the highest layer that wrote them.
  EXPECT_FALSE(s.sandbox.allow_network);  // the project turned it off
  EXPECT_EQ(Origins(*l, "sandbox.allow_network"), std::vector<std::string>{project + ":5:1"});
  EXPECT_EQ(s.tools.shell_timeout_seconds, 90);
  EXPECT_EQ(Origins(*l, "tools.shell_timeout_seconds"), std::vector<std::string>{config + ":4:1"});
  EXPECT_EQ(s.tools.output_limit_bytes, 4096);
  EXPECT_EQ(Origins(*l, "tools.output_limit_bytes"), std::vector<std::string>{user + ":9:1"});
  EXPECT_EQ(s.approvals.headless, "allow");
  EXPECT_EQ(s.sandbox.shell, "off");
  EXPECT_EQ(Origins(*l, "sandbox.shell"), std::vector<std::string>{"env SAFESH_SANDBOX_SHELL"});
  EXPECT_EQ(Origins(*l, "commands.strict"), std::vector<std::string>{"default"});

  ASSERT_EQ(l->files.size(), 3u);
  EXPECT_EQ(l->files[0].layer, Layer::kUser);
  EXPECT_EQ(l->files[1].layer, Layer::kProject);
  EXPECT_EQ(l->files[2].layer, Layer::kConfig);
  EXPECT_EQ(l->files[1].path, project);
  EXPECT_EQ(l->project, ProjectTrust::kUntrusted);  // it only tightens: no trust needed
}

TEST(Layers, ScrubEnvStartsFromTheDefaultsWhichOnlyThePersonsOwnFilesReplace) {
  const std::vector<std::string>& defaults = exec::DefaultScrubGlobs();
  {
    // A project adds to the defaults: it can never make safesh pass a credential on.
    LayerFiles t;
    std::string project = t.Project("[sandbox]\nscrub_env = [\"MY_*\", \"AWS_*\"]\n");
    std::string error;
    auto l = LoadLayered(t.sources, &error);
    ASSERT_TRUE(l) << error;
    std::vector<std::string> want = defaults;
    want.push_back("MY_*");
    EXPECT_EQ(*l->settings.sandbox.scrub_env, want);
    EXPECT_EQ(l->origins.at("sandbox.scrub_env").size(), want.size());
    EXPECT_EQ(DescribeOrigin(l->origins.at("sandbox.scrub_env").back()), project + ":2:14");
  }
  {
    // The user's list replaces the defaults (as a single file always did); later layers add.
    LayerFiles t;
    t.User("[sandbox]\nscrub_env = [\"X_*\"]\n");
    t.Project("[sandbox]\nscrub_env = [\"MY_*\"]\n");
    t.Config("[sandbox]\nscrub_env = [\"Z_*\"]\n");
    std::string error;
    auto l = LoadLayered(t.sources, &error);
    ASSERT_TRUE(l) << error;
    EXPECT_EQ(*l->settings.sandbox.scrub_env, (std::vector<std::string>{"X_*", "MY_*", "Z_*"}));
  }
  {
    // --config alone replaces the defaults but keeps what the project added.
    LayerFiles t;
    t.Project("[sandbox]\nscrub_env = [\"MY_*\"]\n");
    t.Config("[sandbox]\nscrub_env = [\"Z_*\"]\n");
    std::string error;
    auto l = LoadLayered(t.sources, &error);
    ASSERT_TRUE(l) << error;
    EXPECT_EQ(*l->settings.sandbox.scrub_env, (std::vector<std::string>{"MY_*", "Z_*"}));
    EXPECT_EQ(l->origins.at("sandbox.scrub_env").size(), 2u);
  }
}

// A project may lower the limits, never raise them: the lower of its value and the person's
// stays (a fork bomb's cap is the person's to lift).
TEST(Layers, AProjectOnlyLowersTheLimits) {
  struct Case {
    const char* user;
    const char* project;
    int64_t processes;
    std::optional<uint64_t> memory;
  };
  for (const Case& c : std::vector<Case>{
           {"", "[sandbox]\nmax_processes = 64\nmemory_limit = \"1GiB\"\n", 64, 1ull << 30},
           {"[sandbox]\nmax_processes = 100\nmemory_limit = \"512MiB\"\n",
            "[sandbox]\nmax_processes = 200\nmemory_limit = \"1GiB\"\n", 100, 512ull << 20},
           {"[sandbox]\nmax_processes = 0\nmemory_limit = \"off\"\n",
            "[sandbox]\nmax_processes = 50\nmemory_limit = \"1GiB\"\n", 50, 1ull << 30},
           {"", "[sandbox]\nmax_processes = 9999\nmemory_limit = \"64TiB\"\n", 4096, std::nullopt},
       }) {
    LayerFiles t;
    if (c.user[0] != '\0') t.User(c.user);
    t.Project(c.project);
    std::string error;
    auto l = LoadLayered(t.sources, &error);
    ASSERT_TRUE(l) << error;
    EXPECT_EQ(l->settings.sandbox.max_processes, c.processes) << c.user << c.project;
    EXPECT_EQ(l->settings.sandbox.memory_limit, c.memory) << c.user << c.project;
  }
  // No cap at all is never a project's to set.
  LayerFiles t;
  t.Project("[sandbox]\nmax_processes = 0\n");
  std::string error;
  EXPECT_FALSE(LoadLayered(t.sources, &error));
  EXPECT_NE(error.find("can never set, trusted or not"), std::string::npos) << error;
}

TEST(Layers, AnAllowListIsOnOnceAnyLayerWritesIt) {
  LayerFiles t;
  t.Project("[commands]\nallow = []\n");  // an empty allow list: nothing may run
  std::string error;
  auto l = LoadLayered(t.sources, &error);
  ASSERT_TRUE(l) << error;
  EXPECT_TRUE(l->settings.commands.allow_list);
  EXPECT_TRUE(l->settings.commands.allow.empty());

  LayerFiles u;
  u.User("[commands]\nallow = [\"git\"]\n");
  u.Config("[commands]\nallow = [\"npm\"]\n");
  l = LoadLayered(u.sources, &error);
  ASSERT_TRUE(l) << error;
  EXPECT_TRUE(l->settings.commands.allow_list);
  EXPECT_EQ(l->settings.commands.allow, (std::vector<std::string>{"git", "npm"}));
}

TEST(Layers, TheEnvironmentOverrideIsChecked) {
  LayerFiles t;
  t.sources.env_sandbox_shell = "sometimes";
  std::string error;
  EXPECT_FALSE(LoadLayered(t.sources, &error));
  EXPECT_NE(
      error.find(
          "SAFESH_SANDBOX_SHELL must be auto, required, landlock or off (it is \"sometimes\")"),
      std::string::npos)
      << error;
  t.sources.env_sandbox_shell = "";  // set but empty: no override
  auto l = LoadLayered(t.sources, &error);
  ASSERT_TRUE(l) << error;
  EXPECT_EQ(l->settings.sandbox.shell, "required");
}

TEST(Layers, EveryErrorNamesItsFileLineAndColumn) {
  struct Case {
    const char* layer;
    const char* toml;
    const char* at;       // after the file's path
    const char* message;  // part of the fix
  };
  for (const Case& c : std::vector<Case>{
           {"user", "[commands\n", ":1:", "expected"},
           {"user", "[commands]\ndenny = [\"rm\"]\n",
            ":2:1:", "unknown key `denny' in [commands] (known keys: deny"},
           {"project", "[sandbox]\nblocked_paths = \"x\"\n",
            ":2:1:", "must be a list of strings, e.g. blocked_paths = [\"one\", \"two\"]"},
           {"project", "[commands]\ndeny = [\"rm\", \"re:(\"]\n",
            ":2:15:", "invalid regular expression"},
           {"config", "[commands]\nask = [\"\"]\n", ":2:8:", "an empty pattern matches nothing"},
           {"config", "[commands]\nstrict = \"yes\"\n",
            ":2:1:", "must be true or false, without quotes"},
           {"config", "[tools]\nshell_timeout_seconds = 0\n", ":2:1:", "must be from 1 to 1800"},
       }) {
    LayerFiles t;
    std::string file = std::string(c.layer) == "user"      ? t.User(c.toml)
                       : std::string(c.layer) == "project" ? t.Project(c.toml)
                                                           : t.Config(c.toml);
    std::string error;
    EXPECT_FALSE(LoadLayered(t.sources, &error)) << c.toml;
    EXPECT_EQ(error.rfind(file + c.at, 0), 0u) << c.toml << " -> " << error;
    EXPECT_NE(error.find(c.message), std::string::npos) << c.toml << " -> " << error;
  }
  // A pattern's error also says what patterns look like.
  LayerFiles t;
  t.Config("[commands]\ndeny = [\"re:(\"]\n");
  std::string error;
  EXPECT_FALSE(LoadLayered(t.sources, &error));
  EXPECT_NE(error.find("a pattern is words such as \"git log\""), std::string::npos) << error;
}

TEST(Layers, OptionalFilesMayBeMissingButTheConfigFileMayNot) {
  LayerFiles t;
  t.sources.config_file = t.dir.path() + "/nope.toml";
  std::string error;
  EXPECT_FALSE(LoadLayered(t.sources, &error));
  EXPECT_NE(error.find("nope.toml: No such file or directory"), std::string::npos) << error;
}

TEST(Layers, AProjectFileMustBeARegularFile) {
  LayerFiles t;
  std::filesystem::create_directories(t.dir.path() + "/ws/.safesh");
  // A FIFO would make a plain read wait for a writer forever.
  ASSERT_EQ(mkfifo(t.sources.project_file.c_str(), 0600), 0);
  std::string error;
  EXPECT_FALSE(LoadLayered(t.sources, &error));
  EXPECT_NE(error.find("is not a regular file"), std::string::npos) << error;
  ASSERT_EQ(unlink(t.sources.project_file.c_str()), 0);
  ASSERT_EQ(mkdir(t.sources.project_file.c_str(), 0700), 0);
  EXPECT_FALSE(LoadLayered(t.sources, &error));
  EXPECT_NE(error.find("is not a regular file"), std::string::npos) << error;
}

}  // namespace
}  // namespace safesh::config
