// `safesh approvals` and `safesh audit` as programs, and what `safesh run` and `safesh check`
// leave in the audit log.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace safesh::testing {
namespace {

class AuditCli : public ::testing::Test {
 protected:
  void SetUp() override {
    char t[] = "/tmp/safesh-audit-cli-XXXXXX";
    dir_ = mkdtemp(t);
    std::filesystem::create_directories(dir_ + "/ws");
    std::filesystem::create_directories(dir_ + "/ws2");
    std::ofstream(dir_ + "/rules.toml") << "[commands]\n"
                                           "deny = [\"rm\"]\n"
                                           "auto_approve = [\"echo *\"]\n"
                                           "[sandbox]\n"
                                           "shell = \"required\"\n";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::vector<std::string> Env() const {
    return {"PATH=/usr/bin:/bin", "LC_ALL=C.UTF-8", "HOME=" + dir_,
            "XDG_STATE_HOME=" + state_.path + "/state"};
  }
  RunOutput Safesh(std::vector<std::string> args, std::vector<std::string> extra_env = {}) {
    args.insert(args.begin(), SAFESH_BINARY);
    RunOptions options;
    options.env = Env();
    options.env.insert(options.env.end(), extra_env.begin(), extra_env.end());
    options.timeout_seconds = 60;
    return RunProgram(args, options);
  }
  RunOutput Run(const std::string& command, const std::string& workspace = "ws",
                std::vector<std::string> extra_env = {}) {
    return Safesh({"run", "--config", dir_ + "/rules.toml", "--workspace", dir_ + "/" + workspace,
                   "--", command},
                  std::move(extra_env));
  }
  std::string ApprovalsFile() const { return state_.path + "/state/safesh/approvals.json"; }
  // An approval as `always` at a terminal leaves it.
  void Remember(const std::string& id, const std::string& workspace, const std::string& command) {
    std::filesystem::create_directories(state_.path + "/state/safesh");
    chmod((state_.path + "/state").c_str(), 0700);
    chmod((state_.path + "/state/safesh").c_str(), 0700);
    nlohmann::json j = {{"version", 1},
                        {"approvals",
                         {{{"id", id},
                           {"kind", "run_command"},
                           {"workspace", workspace},
                           {"key", command},
                           {"target", command},
                           {"created", "2026-01-01T00:00:00.000Z"}}}}};
    std::ofstream(ApprovalsFile()) << j.dump();
    chmod(ApprovalsFile().c_str(), 0600);
  }
  std::string AuditBytes() {
    std::string all;
    if (!std::filesystem::exists(state_.path + "/state/safesh/audit")) return all;
    for (const auto& e : std::filesystem::directory_iterator(state_.path + "/state/safesh/audit")) {
      std::ifstream f(e.path(), std::ios::binary);
      std::stringstream ss;
      ss << f.rdbuf();
      all += ss.str();
    }
    return all;
  }

  std::string dir_;
  // Outside /tmp: remembered approvals kept where commands may write are not used.
  TempDir state_{OutsideWritableBase()};
};

TEST_F(AuditCli, ARememberedApprovalRunsWithoutAskingOnlyWhereItWasGiven) {
  const std::string cmd = "touch made-" + std::to_string(getpid());
  // No terminal, no --approve: the headless answer (deny).
  EXPECT_EQ(Run(cmd).exit_code, 77);
  Remember("0123456789ab", dir_ + "/ws", cmd);
  RunOutput r = Run(cmd);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/ws/made-" + std::to_string(getpid())));
  // Not in another workspace, not for another command.
  EXPECT_EQ(Run(cmd, "ws2").exit_code, 77);
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/ws2/made-" + std::to_string(getpid())));
  EXPECT_EQ(Run(cmd + " ").exit_code, 77);

  RunOutput audit = Safesh({"audit", "--json"});
  ASSERT_EQ(audit.exit_code, 0) << audit.err;
  bool remembered = false;
  std::istringstream in(audit.out);
  for (std::string line; std::getline(in, line);) {
    nlohmann::json j = nlohmann::json::parse(line);
    if (j["event"] == "approval" && j["by"] == "remembered") {
      remembered = true;
      EXPECT_EQ(j["approval_id"], "0123456789ab");
    }
  }
  EXPECT_TRUE(remembered) << audit.out;
}

TEST_F(AuditCli, ApprovalsListAndRevoke) {
  RunOutput none = Safesh({"approvals"});
  EXPECT_EQ(none.exit_code, 0) << none.err;
  EXPECT_NE(none.out.find("No remembered approvals"), std::string::npos) << none.out;

  Remember("0123456789ab", dir_ + "/ws", "npm test\x1b[2J");
  RunOutput list = Safesh({"approvals"});
  EXPECT_EQ(list.exit_code, 0) << list.err;
  EXPECT_NE(list.out.find("0123456789ab"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find(dir_ + "/ws"), std::string::npos) << list.out;
  // Shown escaped: a remembered command cannot drive the terminal that lists it.
  EXPECT_EQ(list.out.find('\x1b'), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("$'npm test\\x1b[2J'"), std::string::npos) << list.out;
  RunOutput json = Safesh({"approvals", "--json"});
  ASSERT_EQ(json.exit_code, 0);
  nlohmann::json j = nlohmann::json::parse(json.out);
  ASSERT_EQ(j["approvals"].size(), 1u);
  EXPECT_EQ(j["approvals"][0]["id"], "0123456789ab");
  EXPECT_EQ(j["approvals"][0]["kind"], "run_command");
  EXPECT_EQ(j["approvals"][0]["command"], "npm test\x1b[2J");

  EXPECT_EQ(Safesh({"approvals", "revoke"}).exit_code, 64);
  EXPECT_EQ(Safesh({"approvals", "revoke", "--all", "0123456789ab"}).exit_code, 64);
  RunOutput unknown = Safesh({"approvals", "revoke", "ffffffffffff"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.err.find("no remembered approval has the id"), std::string::npos);
  RunOutput revoked = Safesh({"approvals", "revoke", "0123456789ab"});
  EXPECT_EQ(revoked.exit_code, 0) << revoked.err;
  EXPECT_NE(revoked.out.find("revoked 0123456789ab"), std::string::npos) << revoked.out;
  EXPECT_NE(Safesh({"approvals"}).out.find("No remembered approvals"), std::string::npos);
  // Revoking is recorded.
  EXPECT_NE(Safesh({"audit"}).out.find("approval_revoked"), std::string::npos);

  Remember("0123456789ab", dir_ + "/ws", "make");
  EXPECT_EQ(Safesh({"approvals", "revoke", "--all"}).exit_code, 0);
  EXPECT_NE(Safesh({"approvals"}).out.find("No remembered approvals"), std::string::npos);

  // A file open to other users is an error, not a list.
  Remember("0123456789ab", dir_ + "/ws", "make");
  chmod(ApprovalsFile().c_str(), 0644);
  RunOutput bad = Safesh({"approvals"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("chmod 600"), std::string::npos) << bad.err;
}

TEST_F(AuditCli, AuditShowsRunsAndChecks) {
  EXPECT_EQ(Run("echo hello").exit_code, 0);
  EXPECT_EQ(Run("rm -rf x").exit_code, 77);
  EXPECT_EQ(Safesh({"check", "--config", dir_ + "/rules.toml", "--", "ls -la"}).exit_code, 1);
  RunOutput text = Safesh({"audit"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  for (const char* want : {"request", "run: echo hello", "verdict", "allow:", "start", "exit 0",
                           "denied", "blocked by command policy", "check", "ls -la"}) {
    EXPECT_NE(text.out.find(want), std::string::npos) << want << "\n" << text.out;
  }
  RunOutput json = Safesh({"audit", "--json", "--since", "1h"});
  ASSERT_EQ(json.exit_code, 0);
  size_t records = 0;
  std::istringstream in(json.out);
  for (std::string line; std::getline(in, line); ++records) {
    nlohmann::json j = nlohmann::json::parse(line);
    EXPECT_TRUE(j.contains("ts") && j.contains("event") && j.contains("id")) << line;
  }
  // echo: request verdict start exit; rm: request verdict denied; check: check.
  EXPECT_EQ(records, 8u) << json.out;
  EXPECT_EQ(Safesh({"audit", "--since", "2000-01-01"}).out, text.out);
  // A time after everything: nothing.
  EXPECT_EQ(Safesh({"audit", "--since", "2999-01-01"}).out, "");
  RunOutput bad = Safesh({"audit", "--since", "yesterday"});
  EXPECT_EQ(bad.exit_code, 64);
  EXPECT_NE(bad.err.find("--since"), std::string::npos);
  // A torn line is skipped and said.
  for (const auto& e : std::filesystem::directory_iterator(state_.path + "/state/safesh/audit"))
    std::ofstream(e.path(), std::ios::app) << "{\"ts\":\"2026";
  RunOutput torn = Safesh({"audit", "--since", "2000-01-01"});
  EXPECT_EQ(torn.exit_code, 0);
  EXPECT_EQ(torn.out, text.out);
  EXPECT_NE(torn.err.find("skipped 1 damaged line"), std::string::npos) << torn.err;
}

TEST_F(AuditCli, ControlCharactersInTheLogDoNotReachTheTerminal) {
  RunOutput r = Safesh({"run", "--approve", "yes", "--config", dir_ + "/rules.toml", "--workspace",
                        dir_ + "/ws", "--", "echo '\x1b]0;title\x07 \xe2\x80\xae'"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  RunOutput text = Safesh({"audit"});
  EXPECT_EQ(text.out.find('\x1b'), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("\xe2\x80\xae"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("\\x1b]0;title\\x07"), std::string::npos) << text.out;
}

TEST_F(AuditCli, APlantedSecretAppearsNowhere) {
  const std::string secret = "planted-" + std::to_string(getpid()) + "-value";
  std::vector<std::string> env = {"DEPLOY_TOKEN=" + secret};
  const std::string command = "echo " + secret + " ghp_Aa1Bb2Cc3Dd4Ee5Ff6Gg7Hh8Ii9Jj0KkLl";
  std::vector<RunOutput> outputs = {
      Run(command, "ws", env),
      Safesh({"run", "--json", "--config", dir_ + "/rules.toml", "--workspace", dir_ + "/ws", "--",
              command},
             env),
      Safesh({"check", "--", command}, env),
      Safesh({"check", "--json", "--", command}, env),
      Safesh({"check", "--argv", "--", "echo", secret}, env),
      Safesh({"audit"}, env),
      Safesh({"audit", "--json"}, env),
  };
  for (const RunOutput& o : outputs) {
    EXPECT_EQ(o.out.find(secret), std::string::npos) << o.out;
    EXPECT_EQ(o.err.find(secret), std::string::npos) << o.err;
  }
  EXPECT_NE(outputs[0].out.find("[redacted DEPLOY_TOKEN]"), std::string::npos) << outputs[0].out;
  std::string log = AuditBytes();
  EXPECT_EQ(log.find(secret), std::string::npos) << log;
  EXPECT_EQ(log.find("Aa1Bb2Cc3Dd4Ee5Ff6Gg7Hh8Ii9Jj0KkLl"), std::string::npos) << log;
  EXPECT_NE(log.find("[redacted DEPLOY_TOKEN]"), std::string::npos) << log;
}

TEST_F(AuditCli, AnAuditLogThatCannotBeWrittenStopsRunsButNotChecks) {
  std::filesystem::create_directories(state_.path + "/state/safesh");
  chmod((state_.path + "/state").c_str(), 0700);
  chmod((state_.path + "/state/safesh").c_str(), 0700);
  std::ofstream(state_.path + "/state/safesh/audit") << "not a folder";
  RunOutput run = Run("echo hi > ran.txt; echo ran");
  EXPECT_EQ(run.exit_code, 70);
  EXPECT_NE(run.err.find("could not be recorded in the audit log"), std::string::npos) << run.err;
  EXPECT_EQ(run.out, "");
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/ws/ran.txt"));
  RunOutput check = Safesh({"check", "--config", dir_ + "/rules.toml", "--", "echo hi"});
  EXPECT_EQ(check.exit_code, 0);
  EXPECT_NE(check.err.find("not recorded in the audit log"), std::string::npos) << check.err;
  RunOutput audit = Safesh({"audit"});
  EXPECT_EQ(audit.exit_code, 1);
  EXPECT_FALSE(audit.err.empty());
}

}  // namespace
}  // namespace safesh::testing
