// RunShellCommand with remembered approvals and the audit log, as `safesh run` wires them:
// what is recorded for each kind of request, that a remembered approval answers only the exact
// command in its workspace, that a secret never reaches the log or the result, and that a log
// that cannot be written stops the command.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "approval/store.h"
#include "audit/log.h"
#include "audit/read.h"
#include "exec/env.h"
#include "pipeline/run_shell_command.h"
#include "support/temp_dir.h"

namespace safesh::pipeline {
namespace {

using Outcome = RunResult::Outcome;
using approval::Answer;

class Pipeline : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(dir_.path + "/ws/sub");
    std::filesystem::create_directories(dir_.path + "/other");
    // Outside /tmp: remembered approvals kept where commands may write are not used.
    state_ = state_dir_.path + "/safesh";
    log_ = std::make_unique<audit::Log>(state_ + "/audit");
    context_.workspace = dir_.path + "/ws";
    context_.home = dir_.path;
    context_.spool_base = state_ + "/spool";
    context_.environment = exec::CurrentEnvironment();
    context_.settings.sandbox.shell = "off";
    context_.approvals_file = state_ + "/approvals.json";
    context_.audit = log_.get();
    context_.client = "test";
    // Asks are answered by `answer_`, and counted.
    context_.prompter = [this](const approval::ApprovalRequest& r) {
      ++asked_;
      last_ask_ = r;
      return answer_;
    };
  }

  RunResult Go(const std::string& command, const std::string& cwd = "") {
    RunRequest r;
    r.command = command;
    r.cwd = cwd;
    return RunShellCommand(r, context_);
  }

  std::vector<nlohmann::json> Records() {
    audit::ReadResult read;
    std::string error;
    EXPECT_TRUE(audit::ReadRecords(state_ + "/audit", 0, &read, &error)) << error;
    EXPECT_EQ(read.damaged, 0u);
    std::vector<nlohmann::json> out;
    for (const std::string& line : read.records)
      out.push_back(nlohmann::json::parse(line));
    return out;
  }

  // The events of the last request, in order.
  std::vector<std::string> LastEvents() {
    std::vector<nlohmann::json> all = Records();
    std::vector<std::string> out;
    if (all.empty()) return out;
    std::string id = all.back()["id"];
    for (const nlohmann::json& r : all) {
      if (r["id"] == id) out.push_back(r["event"]);
    }
    return out;
  }

  nlohmann::json LastOf(const std::string& event) {
    std::vector<nlohmann::json> all = Records();
    for (auto it = all.rbegin(); it != all.rend(); ++it) {
      if ((*it)["event"] == event) return *it;
    }
    return nullptr;
  }

  std::string AuditBytes() {
    std::string all;
    for (const auto& e : std::filesystem::directory_iterator(state_ + "/audit")) {
      std::ifstream f(e.path(), std::ios::binary);
      std::stringstream ss;
      ss << f.rdbuf();
      all += ss.str();
    }
    return all;
  }

  safesh::testing::TempDir dir_;
  safesh::testing::TempDir state_dir_{safesh::testing::OutsideWritableBase()};
  std::string state_;
  std::unique_ptr<audit::Log> log_;
  RunContext context_;
  Answer answer_ = Answer::kApprove;
  int asked_ = 0;
  approval::ApprovalRequest last_ask_;
};

TEST_F(Pipeline, ARunIsRecordedStepByStep) {
  RunResult r = Go("echo hi; exit 3", "sub");
  ASSERT_EQ(r.outcome, Outcome::kRan) << r.error;
  EXPECT_EQ(LastEvents(), (std::vector<std::string>{"request", "verdict", "approval_asked",
                                                    "approval", "start", "exit"}));
  nlohmann::json req = LastOf("request");
  EXPECT_EQ(req["client"], "test");
  EXPECT_EQ(req["command"], "echo hi; exit 3");
  EXPECT_EQ(req["cwd"], "sub");
  EXPECT_EQ(req["workspace"], context_.workspace);
  EXPECT_TRUE(req["timeout_s"].is_null());
  EXPECT_EQ(LastOf("verdict")["decision"], "ask");
  EXPECT_FALSE(LastOf("verdict")["reason"].get<std::string>().empty());
  EXPECT_EQ(LastOf("approval_asked")["cwd"], context_.workspace + "/sub");
  EXPECT_EQ(LastOf("approval")["answer"], "once");
  EXPECT_EQ(LastOf("approval")["by"], "prompter");
  EXPECT_EQ(LastOf("approval")["remembered"], false);
  EXPECT_EQ(LastOf("start")["sandbox"], "off");
  EXPECT_EQ(LastOf("start")["sandbox_reason"], "[sandbox] shell = \"off\"");
  nlohmann::json exit = LastOf("exit");
  EXPECT_EQ(exit["exit_code"], 3);
  EXPECT_EQ(exit["pid"], r.process_id);
  EXPECT_EQ(exit["output_bytes"], 3);
}

TEST_F(Pipeline, DenialsRefusalsAndTimeoutsAreRecorded) {
  config::Settings s;
  s.commands.deny = {"rm"};
  s.commands.auto_approve = {"sleep *"};
  std::string error;
  std::optional<policy::Policy> p = policy::Policy::Compile(s.commands, &error);
  ASSERT_TRUE(p) << error;
  context_.policy = &*p;

  EXPECT_EQ(Go("rm -rf x").outcome, Outcome::kDenied);
  EXPECT_EQ(LastEvents(), (std::vector<std::string>{"request", "verdict", "denied"}));
  EXPECT_EQ(LastOf("verdict")["matched"], nlohmann::json({"deny: rm"}));

  answer_ = Answer::kDeny;
  ASSERT_EQ(Go("touch " + dir_.path + "/no").outcome, Outcome::kNotApproved);
  EXPECT_FALSE(std::filesystem::exists(dir_.path + "/no"));
  EXPECT_EQ(LastEvents(), (std::vector<std::string>{"request", "verdict", "approval_asked",
                                                    "approval", "denied"}));
  EXPECT_EQ(LastOf("approval")["answer"], "no");

  context_.prompter = nullptr;  // no one to ask: the headless answer (deny)
  ASSERT_EQ(Go("touch " + dir_.path + "/no").outcome, Outcome::kNotApproved);
  EXPECT_EQ(LastOf("approval")["by"], "headless");
  EXPECT_EQ(LastOf("approval")["answer"], "no");
  EXPECT_NE(LastOf("denied")["error"].get<std::string>().find("no one could be asked"),
            std::string::npos);

  EXPECT_EQ(Go("   ").outcome, Outcome::kInvalid);
  EXPECT_EQ(LastEvents(), (std::vector<std::string>{"request", "refused"}));
  EXPECT_EQ(LastOf("refused")["outcome"], "invalid");

  RunRequest slow;
  slow.command = "sleep 30";
  slow.timeout_seconds = 0.2;
  // auto_approve runs nothing unasked while the sandbox is off: with no one to ask, refused.
  ASSERT_EQ(RunShellCommand(slow, context_).outcome, Outcome::kNotApproved);
  EXPECT_EQ(LastOf("verdict")["decision"], "ask");
  EXPECT_NE(LastOf("verdict")["reason"].get<std::string>().find("the sandbox is off"),
            std::string::npos);
  context_.settings.approvals.headless = "allow";
  RunResult t = RunShellCommand(slow, context_);
  ASSERT_TRUE(t.timed_out);
  EXPECT_EQ(LastEvents(), (std::vector<std::string>{"request", "verdict", "approval_asked",
                                                    "approval", "start", "timeout"}));
  EXPECT_EQ(LastOf("request")["timeout_s"], "0.2");
  EXPECT_EQ(LastOf("timeout")["exit_code"], -1);
  EXPECT_NE(LastOf("timeout")["error"].get<std::string>().find("timed out"), std::string::npos);

  RunRequest dry;
  dry.command = "touch made";
  dry.dry_run = true;
  RunShellCommand(dry, context_);
  EXPECT_EQ(LastEvents(), (std::vector<std::string>{"request", "verdict", "dry_run"}));
  EXPECT_EQ(LastOf("request")["dry_run"], true);
}

TEST_F(Pipeline, AlwaysIsRememberedForThisExactCommandInThisWorkspace) {
  answer_ = Answer::kApproveAlways;
  const std::string cmd = "echo remembered";
  RunResult first = Go(cmd);
  ASSERT_EQ(first.outcome, Outcome::kRan) << first.error;
  EXPECT_TRUE(first.error.empty()) << first.error;
  EXPECT_EQ(asked_, 1);
  EXPECT_TRUE(last_ask_.can_remember);
  EXPECT_EQ(last_ask_.workspace, context_.workspace);
  std::string id = LastOf("approval")["approval_id"];
  EXPECT_EQ(LastOf("approval")["answer"], "always");
  EXPECT_EQ(id.size(), 12u);

  // The same command again: nobody is asked, and the log says why it ran.
  answer_ = Answer::kDeny;
  RunResult again = Go(cmd, "sub");  // another cwd in the same workspace is the same approval
  ASSERT_EQ(again.outcome, Outcome::kRan) << again.error;
  EXPECT_EQ(again.output, "remembered\n");
  EXPECT_EQ(asked_, 1);
  EXPECT_EQ(LastEvents(),
            (std::vector<std::string>{"request", "verdict", "approval", "start", "exit"}));
  EXPECT_EQ(LastOf("approval")["by"], "remembered");
  EXPECT_EQ(LastOf("approval")["remembered"], true);
  EXPECT_EQ(LastOf("approval")["approval_id"], id);

  // One byte different: asked again (and denied here).
  for (const std::string& other : {cmd + " ", cmd + "!", std::string("echo Remembered"),
                                   std::string("echo  remembered"), cmd + "; touch x"}) {
    int before = asked_;
    EXPECT_EQ(Go(other).outcome, Outcome::kNotApproved) << other;
    EXPECT_EQ(asked_, before + 1) << other;
  }
  // Another workspace, even holding the same folders: asked again.
  context_.workspace = dir_.path + "/other";
  EXPECT_EQ(Go(cmd).outcome, Outcome::kNotApproved);
  EXPECT_EQ(last_ask_.workspace, dir_.path + "/other");
  // The same workspace reached through a link is the same workspace.
  std::filesystem::create_directory_symlink(dir_.path + "/ws", dir_.path + "/link");
  context_.workspace = dir_.path + "/link";
  int before = asked_;
  EXPECT_EQ(Go(cmd).outcome, Outcome::kRan);
  EXPECT_EQ(asked_, before);

  // Revoked: asked again.
  std::vector<approval::Remembered> removed;
  std::string error;
  ASSERT_TRUE(approval::RevokeApprovals(context_.approvals_file, {id}, false, &removed, &error));
  EXPECT_EQ(Go(cmd).outcome, Outcome::kNotApproved);
  EXPECT_EQ(asked_, before + 1);
}

TEST_F(Pipeline, ARememberedApprovalNeverOverridesADeny) {
  approval::Remembered r;
  r.kind = approval::kRunCommand;
  r.workspace = context_.workspace;
  r.key = r.target = "rm -rf " + dir_.path + "/ws/sub";
  std::string error;
  ASSERT_TRUE(approval::RememberApproval(context_.approvals_file, &r, &error)) << error;
  config::Settings s;
  s.commands.deny = {"rm"};
  std::optional<policy::Policy> p = policy::Policy::Compile(s.commands, &error);
  context_.policy = &*p;
  EXPECT_EQ(Go(r.key).outcome, Outcome::kDenied);
  EXPECT_TRUE(std::filesystem::exists(dir_.path + "/ws/sub"));
  EXPECT_EQ(asked_, 0);
}

TEST_F(Pipeline, ApprovalsKeptWhereCommandsMayWriteAreNotUsed) {
  // Remembered, then the same file is found in the workspace and in /tmp.
  answer_ = Answer::kApproveAlways;
  ASSERT_EQ(Go("echo x").outcome, Outcome::kRan);
  for (const std::string& place : {context_.workspace + "/.state", dir_.path + "/state"}) {
    std::filesystem::create_directories(place);
    ASSERT_EQ(chmod(place.c_str(), 0700), 0);
    std::filesystem::copy_file(context_.approvals_file, place + "/approvals.json",
                               std::filesystem::copy_options::overwrite_existing);
  }
  for (const std::string& place : {context_.workspace + "/.state", dir_.path + "/state"}) {
    context_.approvals_file = place + "/approvals.json";
    answer_ = Answer::kDeny;
    int before = asked_;
    RunResult r = Go("echo x");
    EXPECT_EQ(r.outcome, Outcome::kNotApproved) << place;
    EXPECT_EQ(asked_, before + 1) << place;
    EXPECT_FALSE(last_ask_.can_remember);
    EXPECT_NE(LastOf("approval_asked")["approvals_error"].get<std::string>().find(
                  "which commands may write"),
              std::string::npos);
  }
}

TEST_F(Pipeline, AlwaysWithoutAStoreApprovesOnce) {
  context_.approvals_file.clear();
  answer_ = Answer::kApproveAlways;
  EXPECT_EQ(Go("echo x").outcome, Outcome::kRan);
  EXPECT_FALSE(last_ask_.can_remember);
  EXPECT_EQ(LastOf("approval")["answer"], "once");
  EXPECT_EQ(Go("echo x").outcome, Outcome::kRan);
  EXPECT_EQ(asked_, 2);
}

TEST_F(Pipeline, ABrokenApprovalsFileIsNotTrustedNorOverwritten) {
  std::filesystem::create_directories(state_);
  ASSERT_EQ(chmod(state_.c_str(), 0700), 0);
  {
    std::ofstream f(context_.approvals_file);
    f << "{\"version\":1,\"approvals\":[{\"id\":\"abc\",\"kind\":\"run_command\",\"workspace\":\""
      << context_.workspace << "\",\"key\":\"echo x\",\"target\":\"echo x\",\"created\":\"x\"}]}";
  }
  // Readable by others: it could have been written by anyone. Not used; asked instead.
  ASSERT_EQ(chmod(context_.approvals_file.c_str(), 0666), 0);
  answer_ = Answer::kApproveAlways;
  RunResult r = Go("echo x");
  EXPECT_EQ(r.outcome, Outcome::kRan);
  EXPECT_EQ(asked_, 1);
  EXPECT_FALSE(last_ask_.can_remember);
  EXPECT_NE(r.error.find("remembered approvals were not used"), std::string::npos) << r.error;
  EXPECT_FALSE(LastOf("approval_asked")["approvals_error"].is_null());
  answer_ = Answer::kDeny;
  EXPECT_EQ(Go("echo x").outcome, Outcome::kNotApproved);
}

TEST_F(Pipeline, PlantedSecretsNeverReachTheLogOrTheResult) {
  const std::string secret = "planted-" + std::to_string(getpid()) + "-s3cr3t";
  const std::string entry = "SAFESH_TEST_TOKEN=" + secret;
  std::vector<std::string_view> env = exec::CurrentEnvironment();
  env.push_back(entry);
  context_.environment = env;
  const std::string ghp = "ghp_" + std::string("Zq8") + "xW2mK9pL4nR7tV1yB3cD5fG6hJ0aS2eQ";
  const std::string command = "echo " + secret + "; echo " + ghp + " API_TOKEN=hunter2hunter2;" +
                              " curl -H 'Authorization: Bearer abcdefabcdef123456' x; exit 1";
  config::Settings s;
  s.commands.deny = {"curl"};
  std::string error;
  std::optional<policy::Policy> p = policy::Policy::Compile(s.commands, &error);
  context_.policy = &*p;
  // Denied: the verdict and the error quote the command.
  RunResult denied = Go(command);
  ASSERT_EQ(denied.outcome, Outcome::kDenied);
  // And run (no policy): the output and the verdict again.
  context_.policy = nullptr;
  RunResult ran = Go(command);
  ASSERT_EQ(ran.outcome, Outcome::kRan) << ran.error;
  for (const RunResult* r : {&denied, &ran}) {
    std::string json = RunResultJson(*r);
    EXPECT_EQ(json.find(secret), std::string::npos) << json;
    EXPECT_NE(json.find("[redacted SAFESH_TEST_TOKEN]"), std::string::npos) << json;
  }
  EXPECT_EQ(ran.output.find(secret), std::string::npos);
  std::string log = AuditBytes();
  ASSERT_FALSE(log.empty());
  for (const std::string& s : {secret, std::string("Zq8xW2mK9pL4nR7tV1yB3cD5fG6hJ0aS2eQ"),
                               std::string("hunter2hunter2"), std::string("abcdefabcdef123456")}) {
    EXPECT_EQ(log.find(s), std::string::npos) << s;
  }
  EXPECT_NE(log.find("[redacted SAFESH_TEST_TOKEN]"), std::string::npos);
  EXPECT_NE(log.find("ghp_[redacted]"), std::string::npos);
}

TEST_F(Pipeline, NothingRunsWhenTheLogCannotBeWritten) {
  // The audit folder is a file: no record can be written.
  std::filesystem::create_directories(state_);
  ASSERT_EQ(chmod(state_.c_str(), 0700), 0);
  std::ofstream(state_ + "/audit") << "";
  RunResult r = Go("touch " + dir_.path + "/ran");
  EXPECT_EQ(r.outcome, Outcome::kFailedToStart);
  EXPECT_NE(r.error.find("could not be recorded in the audit log"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("nothing ran"), std::string::npos) << r.error;
  EXPECT_FALSE(std::filesystem::exists(dir_.path + "/ran"));
  EXPECT_EQ(asked_, 0);  // not even asked
  // A folder others could read is refused the same way.
  std::filesystem::remove(state_ + "/audit");
  ASSERT_EQ(mkdir((state_ + "/audit").c_str(), 0755), 0);
  ASSERT_EQ(chmod((state_ + "/audit").c_str(), 0755), 0);
  r = Go("touch " + dir_.path + "/ran");
  EXPECT_EQ(r.outcome, Outcome::kFailedToStart);
  EXPECT_NE(r.error.find("chmod 700"), std::string::npos) << r.error;
  EXPECT_FALSE(std::filesystem::exists(dir_.path + "/ran"));
}

}  // namespace
}  // namespace safesh::pipeline
