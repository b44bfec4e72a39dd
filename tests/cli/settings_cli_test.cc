// Settings as users meet them: layers through `check` and `run`, `safesh trust`,
// `safesh config show`, `safesh import claude`, and their exit codes and messages.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/subprocess.h"

namespace safesh::testing {
namespace {

class SettingsCli : public ::testing::Test {
 protected:
  void SetUp() override {
    char t[] = "/tmp/safesh-settings-cli-XXXXXX";
    ASSERT_NE(mkdtemp(t), nullptr);
    dir_ = t;
    std::filesystem::create_directories(dir_ + "/home");
    std::filesystem::create_directories(ws());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string ws() const { return dir_ + "/ws"; }
  std::string user_file() const { return dir_ + "/home/.config/safesh/settings.toml"; }
  std::string project_file() const { return ws() + "/.safesh/settings.toml"; }
  std::string trust_file() const { return dir_ + "/home/.local/state/safesh/trust.json"; }

  std::string Write(const std::string& path, const std::string& text) {
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream(path, std::ios::trunc) << text;
    return path;
  }

  RunOutput Safesh(std::vector<std::string> args, std::vector<std::string> extra_env = {},
                   std::string cwd = "") {
    args.insert(args.begin(), SAFESH_BINARY);
    RunOptions o;
    o.env = {"PATH=/usr/bin:/bin", "LC_ALL=C.UTF-8", "HOME=" + dir_ + "/home"};
    o.env.insert(o.env.end(), extra_env.begin(), extra_env.end());
    o.cwd = cwd;
    o.timeout_seconds = 30;
    return RunProgram(args, o);
  }
  // Without a controlling terminal (setsid), so that nothing can be asked.
  RunOutput SafeshNoTty(std::vector<std::string> args) {
    args.insert(args.begin(), {"/usr/bin/setsid", "-w", SAFESH_BINARY});
    RunOptions o;
    o.env = {"PATH=/usr/bin:/bin", "LC_ALL=C.UTF-8", "HOME=" + dir_ + "/home"};
    return RunProgram(args, o);
  }

  std::string dir_;
};

TEST_F(SettingsCli, CheckAndRunReadEveryLayer) {
  Write(user_file(), "[commands]\nauto_approve = [\"echo *\", \"touch *\", \"curl *\"]\n");
  // No terminal and a headless deny: what needs approval does not run.
  Write(project_file(), "[commands]\ndeny = [\"touch\"]\n");
  // From the workspace named, or from the current directory.
  EXPECT_EQ(Safesh({"check", "--workspace", ws(), "--", "touch x"}).exit_code, 2);
  EXPECT_EQ(Safesh({"check", "--", "touch x"}, {}, ws()).exit_code, 2);
  EXPECT_EQ(Safesh({"check", "--", "echo hi"}, {}, ws()).exit_code, 0);
  // The --config file adds its deny rule to the others.
  std::string config = Write(dir_ + "/more.toml", "[commands]\ndeny = [\"echo\"]\n");
  EXPECT_EQ(Safesh({"check", "--config", config, "--", "echo hi"}, {}, ws()).exit_code, 2);
  // XDG_CONFIG_HOME moves the user file.
  Write(dir_ + "/xdg/safesh/settings.toml", "[commands]\ndeny = [\"curl\"]\n");
  EXPECT_EQ(Safesh({"check", "--", "curl x"}, {"XDG_CONFIG_HOME=" + dir_ + "/xdg"}, ws()).exit_code,
            2);
  EXPECT_EQ(Safesh({"check", "--", "curl x"}, {}, ws()).exit_code, 0);

  // run: the project's deny rule blocks, the user's auto_approve runs.
  RunOutput denied =
      Safesh({"run", "--workspace", ws(), "--", "touch made"}, {"SAFESH_SANDBOX_SHELL=off"});
  EXPECT_EQ(denied.exit_code, 77) << denied.err;
  EXPECT_FALSE(std::filesystem::exists(ws() + "/made"));
  RunOutput ran = Safesh({"run", "--workspace", ws(), "--", "echo layered"});
  EXPECT_EQ(ran.exit_code, 0) << ran.err;
  EXPECT_EQ(ran.out, "layered\n");
  // Without the sandbox auto_approve runs nothing unasked, and the message says what would.
  RunOutput off =
      Safesh({"run", "--workspace", ws(), "--", "echo layered"}, {"SAFESH_SANDBOX_SHELL=off"});
  EXPECT_EQ(off.exit_code, 77) << off.err;
  EXPECT_TRUE(off.out.empty()) << off.out;
  EXPECT_NE(off.err.find("the sandbox is off, so nothing runs unasked"), std::string::npos)
      << off.err;
  EXPECT_NE(off.err.find("approve it with --approve yes, or run it in the sandbox"),
            std::string::npos)
      << off.err;
  // A line that runs no command is asked about too: it can still read a file and print it.
  Write(ws() + "/secret.txt", "TOPSECRET\n");
  RunOutput assign = Safesh({"run", "--workspace", ws(), "--", "x=${y:?$(<secret.txt)}"},
                            {"SAFESH_SANDBOX_SHELL=off"}, ws());
  EXPECT_EQ(assign.exit_code, 77) << assign.err;
  EXPECT_EQ(assign.err.find("TOPSECRET"), std::string::npos) << assign.err;
  RunOutput yes = Safesh({"run", "--workspace", ws(), "--approve", "yes", "--", "echo layered"},
                         {"SAFESH_SANDBOX_SHELL=off"});
  EXPECT_EQ(yes.out, "layered\n") << yes.err;
}

TEST_F(SettingsCli, AnUntrustedProjectThatLoosensStopsEverything) {
  Write(project_file(),
        "[commands]\ndeny = [\"rm\"]\n\n  strict = false\n"
        "[approvals]\nheadless = \"allow\"\n");
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"check", "--workspace", ws(), "--", "ls"},
                                             {"run", "--workspace", ws(), "--", "touch made"},
                                             {"config", "show", "--workspace", ws()}}) {
    RunOutput r = Safesh(args, {"SAFESH_SANDBOX_SHELL=off"});
    EXPECT_EQ(r.exit_code, 78) << args[0] << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_NE(r.err.find(project_file() + ":4:3: [commands] strict = false"), std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find(project_file() + ":6:1: [approvals] headless = \"allow\""),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("run `safesh trust --workspace " + ws() + "`"), std::string::npos)
        << r.err;
  }
  EXPECT_FALSE(std::filesystem::exists(ws() + "/made"));
}

// Trust lets a project loosen the command rules, never the sandbox: a trusted project file that
// makes /etc writable (or opens the network) still stops everything, and nothing is written there.
// The attempt is real: the same key in the person's own settings makes the write succeed.
TEST_F(SettingsCli, TrustNeverLoosensTheSandbox) {
  std::string outside = dir_ + "/outside";
  std::filesystem::create_directories(outside);
  std::string loosen = "[sandbox]\nwritable_paths = [\"" + outside + "\"]\nallow_network = true\n";
  std::string command = "touch " + outside + "/made";
  Write(dir_ + "/own.toml", loosen);
  RunOutput own = Safesh({"run", "--config", dir_ + "/own.toml", "--workspace", ws(), "--approve",
                          "yes", "--", command});
  ASSERT_EQ(own.exit_code, 0) << own.err;
  ASSERT_TRUE(std::filesystem::remove(outside + "/made"));

  // `safesh trust` refuses it; a store that trusted this exact content before (an older safesh
  // let trust loosen the sandbox) changes nothing either.
  Write(project_file(), loosen);
  RunOutput refused = Safesh({"trust", "--yes", "--workspace", ws()});
  EXPECT_EQ(refused.exit_code, 78) << refused.err;
  EXPECT_NE(refused.err.find("nothing was trusted"), std::string::npos) << refused.err;
  RunOutput sum = RunProgram({"/usr/bin/sha256sum", project_file()}, {});
  ASSERT_EQ(sum.exit_code, 0);
  Write(trust_file(), "{\"version\": 1, \"files\": [{\"path\": \"" + project_file() +
                          "\", \"sha256\": \"" + sum.out.substr(0, 64) +
                          "\", \"trusted_at\": \"2026-01-01T00:00:00Z\"}]}");
  chmod(trust_file().c_str(), 0600);
  RunOutput r = Safesh({"run", "--workspace", ws(), "--approve", "yes", "--", command});
  EXPECT_EQ(r.exit_code, 78) << r.err;
  EXPECT_NE(r.err.find("can never set, trusted or not"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(project_file() + ":2:1: [sandbox] writable_paths = [\"" + outside + "\"]"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(project_file() + ":3:1: [sandbox] allow_network = true"), std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(outside + "/made"));
}

TEST_F(SettingsCli, TrustPinsTheContentUntilItChanges) {
  std::string text = "[commands]\nauto_approve = [\"ls *\"]\n";
  Write(project_file(), text);
  EXPECT_EQ(Safesh({"check", "--workspace", ws(), "--", "ls"}).exit_code, 78);

  // No terminal and no --yes: shown, not trusted.
  RunOutput asked = SafeshNoTty({"trust", "--workspace", ws()});
  EXPECT_EQ(asked.exit_code, 1) << asked.err;
  EXPECT_NE(asked.out.find("  | auto_approve = [\"ls *\"]\n"), std::string::npos) << asked.out;
  EXPECT_NE(asked.out.find("2:1: [commands] auto_approve = [\"ls *\"] runs matching commands"),
            std::string::npos)
      << asked.out;
  EXPECT_NE(asked.err.find("safesh trust --yes"), std::string::npos) << asked.err;
  EXPECT_FALSE(std::filesystem::exists(trust_file()));

  RunOutput trusted = Safesh({"trust", "--workspace", ws(), "--yes"});
  EXPECT_EQ(trusted.exit_code, 0) << trusted.err;
  struct stat st;
  ASSERT_EQ(stat(trust_file().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(Safesh({"check", "--workspace", ws(), "--", "ls"}).exit_code, 0);
  RunOutput listed = Safesh({"trust", "--list"});
  EXPECT_EQ(listed.out.rfind("unchanged  ", 0), 0u) << listed.out;

  Write(project_file(), "[commands]\nauto_approve = [\"ls *\", \"rm *\"]\n");
  RunOutput changed = Safesh({"check", "--workspace", ws(), "--", "ls"});
  EXPECT_EQ(changed.exit_code, 78);
  EXPECT_NE(changed.err.find("it changed since you trusted it"), std::string::npos) << changed.err;
  EXPECT_EQ(Safesh({"trust", "--list"}).out.rfind("changed  ", 0), 0u);

  Write(project_file(), text);  // back to the content trusted
  EXPECT_EQ(Safesh({"check", "--workspace", ws(), "--", "ls"}).exit_code, 0);
  RunOutput again = Safesh({"trust", "--workspace", ws(), "--yes"});
  EXPECT_EQ(again.exit_code, 0);
  EXPECT_NE(again.err.find("already trusted"), std::string::npos) << again.err;

  RunOutput revoked = Safesh({"trust", "--revoke", "--workspace", ws()});
  EXPECT_EQ(revoked.exit_code, 0) << revoked.err;
  EXPECT_NE(revoked.err.find("no longer trusted"), std::string::npos) << revoked.err;
  EXPECT_EQ(Safesh({"check", "--workspace", ws(), "--", "ls"}).exit_code, 78);
  EXPECT_TRUE(Safesh({"trust", "--list"}).out.empty());
}

TEST_F(SettingsCli, TrustRefusesWhatCanNeverBeTrustedAndReportsMissingFiles) {
  RunOutput none = Safesh({"trust", "--workspace", ws(), "--yes"});
  EXPECT_EQ(none.exit_code, 66) << none.err;
  EXPECT_NE(none.err.find("there is no project settings file"), std::string::npos) << none.err;

  Write(project_file(), "[sandbox]\nshell = \"auto\"\n");
  RunOutput never = Safesh({"trust", "--workspace", ws(), "--yes"});
  EXPECT_EQ(never.exit_code, 78) << never.err;
  EXPECT_NE(never.err.find("2:1: [sandbox] shell = \"auto\""), std::string::npos) << never.err;
  EXPECT_FALSE(std::filesystem::exists(trust_file()));

  Write(project_file(), "[sandbox\n");
  RunOutput bad = Safesh({"trust", "--workspace", ws(), "--yes"});
  EXPECT_EQ(bad.exit_code, 78) << bad.err;
  EXPECT_NE(bad.err.find(project_file() + ":1:"), std::string::npos) << bad.err;

  EXPECT_EQ(Safesh({"trust", "--list", "--revoke"}).exit_code, 64);
}

TEST_F(SettingsCli, ConfigShowSaysWhereEachValueCameFrom) {
  Write(user_file(), "[commands]\ndeny = [\"rm\"]\n[tools]\nshell_timeout_seconds = 30\n");
  Write(project_file(), "[commands]\ndeny = [\"curl\"]\n");
  std::string config = Write(dir_ + "/c.toml", "[tools]\nshell_timeout_seconds = 45\n");
  RunOutput r = Safesh({"config", "show", "--workspace", ws(), "--config", config, "--json"},
                       {"SAFESH_SANDBOX_SHELL=auto"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  const nlohmann::json& s = j["settings"];
  EXPECT_EQ(s["commands"]["deny"]["value"], nlohmann::json({"rm", "curl"}));
  EXPECT_EQ(s["commands"]["deny"]["from"],
            nlohmann::json({user_file() + ":2:9", project_file() + ":2:9"}));
  EXPECT_EQ(s["tools"]["shell_timeout_seconds"]["value"], 45);
  EXPECT_EQ(s["tools"]["shell_timeout_seconds"]["from"], config + ":2:1");
  EXPECT_EQ(s["sandbox"]["shell"]["value"], "auto");
  EXPECT_EQ(s["sandbox"]["shell"]["from"], "env SAFESH_SANDBOX_SHELL");
  EXPECT_EQ(s["sandbox"]["allow_network"]["from"], "default");
  EXPECT_TRUE(s["commands"]["allow"]["value"].is_null());  // no allow list
  EXPECT_EQ(j["project"]["trust"], "untrusted");
  ASSERT_EQ(j["files"].size(), 3u);
  EXPECT_EQ(j["files"][1]["layer"], "project");

  // The text form is TOML, with the same origins as comments: it reads back as settings.
  RunOutput text = Safesh({"config", "show", "--workspace", ws(), "--config", config});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("  \"curl\",  # " + project_file() + ":2:9\n"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("shell_timeout_seconds = 45  # " + config + ":2:1\n"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("(project, not trusted: tightening only)"), std::string::npos)
      << text.out;
  std::string shown = Write(dir_ + "/shown.toml", text.out);
  RunOutput reread = Safesh({"check", "--config", shown, "--", "curl x"});
  EXPECT_EQ(reread.exit_code, 2) << reread.err;
}

TEST_F(SettingsCli, ImportClaudePrintsSettingsThatBehaveLikeTheRules) {
  std::string claude = Write(ws() + "/.claude/settings.json", R"J({
  "permissions": {
    "allow": ["Bash(npm run build)", "Bash(git log:*)", "Bash(npm run *)", "WebFetch(domain:x.org)"],
    "deny": ["Bash(rm:*)", "Read(./.env)"],
    "ask": ["Bash(git push:*)"]
  }
})J");
  RunOutput r = Safesh({"import", "claude"}, {}, ws());  // ./.claude/settings.json by default
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("not imported: allow WebFetch(domain:x.org): safesh has no rules per site"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("#   allow WebFetch(domain:x.org)"), std::string::npos) << r.out;
  std::string imported = Write(dir_ + "/imported.toml", r.out);
  struct Case {
    const char* command;
    int exit_code;
  };
  for (const Case& c : std::vector<Case>{{"npm run build", 0},
                                         {"npm run build --prod", 0},  // also `npm run *`
                                         {"npm test", 1},
                                         {"git log --oneline", 0},
                                         {"git logs", 1},
                                         {"git push origin main", 1},
                                         {"rm -rf build", 2},
                                         {"timeout 5 rm x", 2}}) {
    RunOutput v = Safesh({"check", "--config", imported, "--", c.command});
    EXPECT_EQ(v.exit_code, c.exit_code) << c.command << "\n" << v.out << v.err;
  }
  // The home folder's file when the workspace has none; a path given explicitly.
  std::filesystem::remove_all(ws() + "/.claude");
  Write(dir_ + "/home/.claude/settings.json", R"J({"permissions": {"deny": ["Bash(curl:*)"]}})J");
  RunOutput home = Safesh({"import", "claude"}, {}, ws());
  EXPECT_EQ(home.exit_code, 0) << home.err;
  EXPECT_NE(home.out.find("\"curl\",  # Bash(curl:*)"), std::string::npos) << home.out;
  RunOutput given = Safesh({"import", "claude", dir_ + "/home/.claude/settings.json"});
  EXPECT_EQ(given.exit_code, 0) << given.err;
  EXPECT_NE(given.out.find("\"curl\",  # Bash(curl:*)"), std::string::npos) << given.out;
}

TEST_F(SettingsCli, ImportClaudeErrors) {
  std::string bad =
      Write(dir_ + "/bad.json", "{\n  \"permissions\": {\"allow\": [\"Bash(ls)\"}\n}\n");
  RunOutput r = Safesh({"import", "claude", bad});
  EXPECT_EQ(r.exit_code, 78);
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(r.err.find(bad + ":2:39: not valid JSON"), std::string::npos) << r.err;
  std::string shape = Write(dir_ + "/shape.json", "{\"permissions\": {\"allow\": \"Bash\"}}");
  RunOutput s = Safesh({"import", "claude", shape});
  EXPECT_EQ(s.exit_code, 78);
  EXPECT_NE(s.err.find("`permissions.allow' must be a list of rule strings"), std::string::npos)
      << s.err;
  EXPECT_EQ(Safesh({"import", "claude", dir_ + "/missing.json"}).exit_code, 66);
  EXPECT_EQ(Safesh({"import", "claude"}, {}, ws()).exit_code, 66);  // neither default exists
  EXPECT_EQ(Safesh({"import", "claude", dir_}).exit_code, 78);      // a directory
  EXPECT_EQ(Safesh({"import"}).exit_code, 64);
}

}  // namespace
}  // namespace safesh::testing
