// The execution core through RunShellCommand, as the CLI, the MCP server and library users call
// it: real bash, real processes, checked in /proc.
#include "pipeline/run_shell_command.h"
#include "support/requires.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <thread>

#include "exec/env.h"
#include "exec/procs.h"
#include "pipeline/validate.h"
#include "sandbox/doctor.h"

namespace safesh::pipeline {
namespace {

using Outcome = RunResult::Outcome;
using testing::ProcessesWith;
using testing::UniqueSleep;
using testing::WaitUntilGone;

class Run : public ::testing::Test {
 protected:
  void SetUp() override {
    char t[] = "/tmp/safesh-run-test-XXXXXX";
    dir_ = mkdtemp(t);
    std::filesystem::create_directories(dir_ + "/ws/sub");
    context_.workspace = dir_ + "/ws";
    context_.home = dir_;
    context_.spool_base = dir_ + "/state/safesh/spool";
    context_.environment = exec::CurrentEnvironment();
    context_.settings.sandbox.shell = "off";
    // Every command may run unless a test sets rules.
    context_.prompter = [](const approval::ApprovalRequest&) { return approval::Answer::kApprove; };
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  RunResult Go(const std::string& command, std::optional<double> timeout = std::nullopt,
               const std::string& cwd = "") {
    RunRequest r;
    r.command = command;
    r.timeout_seconds = timeout;
    r.cwd = cwd;
    return RunShellCommand(r, context_);
  }

  std::string dir_;
  RunContext context_;
};

TEST_F(Run, ExitCodeAndInterleavedOutput) {
  RunResult r = Go("echo one; echo two >&2; echo three; exit 7");
  EXPECT_EQ(r.outcome, Outcome::kRan);
  EXPECT_EQ(r.exit_code, 7);
  EXPECT_EQ(r.output, "one\ntwo\nthree\n");
  EXPECT_FALSE(r.truncated);
  EXPECT_TRUE(r.spool_path.empty());
  EXPECT_TRUE(r.error.empty()) << r.error;
  EXPECT_GT(r.process_id, 0);
}

TEST_F(Run, CommandsStartingWithADashAreStillTheScript) {
  RunResult r = Go("-x 2>/dev/null; echo ran");
  EXPECT_EQ(r.output, "ran\n");
}

TEST_F(Run, StdinIsEmptyAndOnlyThreeDescriptorsAreInherited) {
  EXPECT_EQ(Go("cat; echo end").output, "end\n");  // stdin gives end-of-file at once
  // The descriptors the command starts with, seen from outside (from inside, the listing itself
  // and bash's own pipes would show): `exec` keeps exactly what bash was given.
  exec::CancelToken cancel;
  context_.cancel = &cancel;
  std::string marker = UniqueSleep();
  std::vector<std::string> fds;
  std::string stdin_target;
  std::thread t([&] {
    if (testing::WaitForCount(marker, 1)) {
      int pid = ProcessesWith(marker)[0];
      for (const auto& e :
           std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd")) {
        fds.push_back(e.path().filename());
      }
      stdin_target = std::filesystem::read_symlink("/proc/" + std::to_string(pid) + "/fd/0");
    }
    cancel.Cancel();
  });
  Go("exec " + marker);
  t.join();
  std::sort(fds.begin(), fds.end());
  EXPECT_EQ(fds, (std::vector<std::string>{"0", "1", "2"}));
  EXPECT_EQ(stdin_target, "/dev/null");
}

TEST_F(Run, NoControllingTerminal) {
  // A new session: /dev/tty cannot be opened, so nothing can be typed into the user's terminal.
  RunResult r = Go("exec 3</dev/tty && echo has-tty || echo no-tty");
  EXPECT_NE(r.output.find("no-tty"), std::string::npos) << r.output;
}

TEST_F(Run, EmptyCommandIsRefused) {
  for (const char* c : {"", "   ", "\n\t"}) {
    RunResult r = Go(c);
    EXPECT_EQ(r.outcome, Outcome::kInvalid);
    EXPECT_NE(r.error.find("empty"), std::string::npos);
  }
}

TEST_F(Run, CwdMustBeInsideTheWorkspaceAndExist) {
  std::string ws = context_.workspace;
  RunResult r = Go("pwd", std::nullopt, "sub");
  EXPECT_EQ(r.output, ws + "/sub\n");
  r = Go("pwd", std::nullopt, ws + "/sub");
  EXPECT_EQ(r.output, ws + "/sub\n");

  r = Go("touch ran", std::nullopt, "missing");
  EXPECT_EQ(r.outcome, Outcome::kInvalid);
  EXPECT_NE(r.error.find("does not exist"), std::string::npos);
  r = Go("touch ran", std::nullopt, "/etc");
  EXPECT_EQ(r.outcome, Outcome::kInvalid);
  EXPECT_NE(r.error.find("outside the workspace"), std::string::npos) << r.error;
  r = Go("touch ran", std::nullopt, ws + "/../");
  EXPECT_EQ(r.outcome, Outcome::kInvalid) << r.error;
  // A symbolic link inside the workspace that leads out of it.
  ASSERT_EQ(symlink(dir_.c_str(), (ws + "/out").c_str()), 0);
  r = Go("touch ran", std::nullopt, "out");
  EXPECT_EQ(r.outcome, Outcome::kInvalid);
  EXPECT_NE(r.error.find("leads out of the workspace"), std::string::npos) << r.error;
  r = Go("touch ran", std::nullopt, "sub/../../");
  EXPECT_EQ(r.outcome, Outcome::kInvalid);
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/ran"));
  // One that stays inside is fine.
  ASSERT_EQ(symlink((ws + "/sub").c_str(), (ws + "/in").c_str()), 0);
  r = Go("pwd -P", std::nullopt, "in");
  EXPECT_EQ(r.output, ws + "/sub\n");
}

TEST_F(Run, DeniedCommandsNeverRun) {
  config::Settings s;
  s.commands.deny = {"touch"};
  std::string error;
  std::optional<policy::Policy> p = policy::Policy::Compile(s.commands, &error);
  ASSERT_TRUE(p) << error;
  context_.policy = &*p;
  RunResult r = Go("echo hi; touch " + dir_ + "/denied");
  EXPECT_EQ(r.outcome, Outcome::kDenied);
  EXPECT_TRUE(r.error.starts_with("blocked by command policy: ")) << r.error;
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/denied"));
  EXPECT_EQ(r.process_id, 0);
}

TEST_F(Run, AskTakesTheHeadlessAnswerWhenNoOneCanBeAsked) {
  context_.prompter = nullptr;  // no one to ask; the default headless answer is deny
  RunResult r = Go("touch " + dir_ + "/asked");
  EXPECT_EQ(r.outcome, Outcome::kNotApproved);
  // How to let it through, in the terms of the client: settings for a library or a server...
  EXPECT_NE(r.error.find("auto_approve in safesh's settings"), std::string::npos) << r.error;
  EXPECT_EQ(r.error.find("--approve yes"), std::string::npos) << r.error;
  // ...and the flag for `safesh run`.
  context_.client = "run";
  r = Go("touch " + dir_ + "/asked");
  EXPECT_NE(r.error.find("--approve yes"), std::string::npos) << r.error;
  context_.client.clear();
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/asked"));
  context_.settings.approvals.headless = "allow";
  r = Go("touch " + dir_ + "/asked");
  EXPECT_EQ(r.outcome, Outcome::kRan);
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/asked"));
}

TEST_F(Run, PrompterSeesTheCommandCwdAndReason) {
  approval::ApprovalRequest seen;
  context_.prompter = [&](const approval::ApprovalRequest& a) {
    seen = a;
    return approval::Answer::kDeny;
  };
  RunResult r = Go("echo hi", std::nullopt, "sub");
  EXPECT_EQ(r.outcome, Outcome::kNotApproved);
  EXPECT_EQ(seen.command, "echo hi");
  EXPECT_EQ(seen.cwd, context_.workspace + "/sub");
  EXPECT_FALSE(seen.reason.empty());
}

TEST_F(Run, RequiredSandboxRefusesWithoutOne) {
  context_.bwrap = dir_ + "/no-such-bwrap";  // as on a machine where bubblewrap cannot run
  context_.launcher = "bwrap";               // and without Landlock
  context_.settings.sandbox.shell = "required";
  RunResult r = Go("touch " + dir_ + "/nosandbox");
  EXPECT_EQ(r.outcome, Outcome::kSandboxUnavailable);
  EXPECT_TRUE(r.error.starts_with("sandbox required but unavailable: ")) << r.error;
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/nosandbox"));
  context_.settings.sandbox.shell = "auto";
  r = Go("true");
  EXPECT_EQ(r.outcome, Outcome::kRan);
  EXPECT_EQ(r.sandbox_mode, "off");
  EXPECT_TRUE(r.sandbox_reason.starts_with("auto: running without a sandbox, because "))
      << r.sandbox_reason;
  EXPECT_TRUE(SandboxNotice(r).starts_with("no sandbox: auto: ")) << SandboxNotice(r);
}

// "required" means the strong sandbox: without bubblewrap it refuses, it does not quietly run
// under Landlock alone (which leaves blocked paths readable and .git/hooks writable). Landlock
// is taken where a person chose it (shell = "landlock") or under "auto", and then the text the
// model and the person read says so (SandboxNotice), not only the JSON.
TEST_F(Run, WithoutBubblewrapRequiredRefusesAndLandlockIsAChoiceThatIsSaid) {
  std::string why;
  if (sandbox::LandlockAbi(&why) < 1) {
    SAFESH_SKIP_MISSING(why);
  }
  context_.bwrap = dir_ + "/no-such-bwrap";
  context_.settings.sandbox.shell = "required";
  std::string command = "echo x > /etc/safesh-landlock-test 2>&1; echo in-workspace > ok && cat ok";
  RunResult refused = Go(command);
  EXPECT_EQ(refused.outcome, Outcome::kSandboxUnavailable);
  EXPECT_NE(refused.error.find("shell = \"landlock\""), std::string::npos) << refused.error;
  EXPECT_FALSE(std::filesystem::exists(context_.workspace + "/ok"));
  for (const char* mode : {"landlock", "auto"}) {
    context_.settings.sandbox.shell = mode;
    RunResult r = Go(command);
    EXPECT_EQ(r.sandbox_mode, "landlock") << mode;
    EXPECT_NE(r.sandbox_reason.find("blocked paths stay readable"), std::string::npos)
        << r.sandbox_reason;
    EXPECT_TRUE(SandboxNotice(r).starts_with("weaker sandbox: Landlock and seccomp"))
        << SandboxNotice(r);
    EXPECT_NE(r.output.find("Permission denied"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("in-workspace"), std::string::npos) << r.output;
    EXPECT_FALSE(std::filesystem::exists("/etc/safesh-landlock-test"));
  }
}

TEST_F(Run, TimeoutKillsTheWholeTree) {
  std::string marker = UniqueSleep();
  RunResult r = Go("echo started; " + marker + " & setsid " + marker + " & " + marker, 0.5);
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.exit_code, -1);
  EXPECT_EQ(r.error, "command timed out after 0.5 s");
  EXPECT_EQ(r.output, "started\n");
  EXPECT_TRUE(WaitUntilGone(marker).empty());
}

TEST_F(Run, TimeoutIsClampedBeforeConversion) {
  std::string error;
  auto t = ResolveTimeout(1e300, 120, &error);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->count(), 1800 * 1000);
  EXPECT_EQ(ResolveTimeout(std::nullopt, 120, &error)->count(), 120 * 1000);
  for (double bad : {0.0, -1.0, std::nan(""), std::numeric_limits<double>::infinity()}) {
    EXPECT_FALSE(ResolveTimeout(bad, 120, &error)) << bad;
  }
  RunResult r = Go("true", -5);
  EXPECT_EQ(r.outcome, Outcome::kInvalid);
}

TEST_F(Run, CancelFromAnotherThread) {
  exec::CancelToken cancel;
  context_.cancel = &cancel;
  std::string marker = UniqueSleep();
  std::thread t([&] {
    testing::WaitForCount(marker, 1);
    cancel.Cancel();
  });
  RunResult r = Go(marker);
  t.join();
  EXPECT_TRUE(r.cancelled);
  EXPECT_EQ(r.exit_code, -1);
  EXPECT_EQ(r.error, "command cancelled");
  EXPECT_TRUE(WaitUntilGone(marker).empty());
}

TEST_F(Run, SignalDeathIsReported) {
  RunResult r = Go("kill -TERM $$");
  EXPECT_EQ(r.signal, 15);
  EXPECT_EQ(r.exit_code, 128 + 15);
  EXPECT_NE(r.error.find("signal 15 (SIGTERM)"), std::string::npos) << r.error;
}

TEST_F(Run, NothingOutlivesTheCommand) {
  std::string marker = UniqueSleep();
  // Background job, new session, nohup, a double fork, and one that closes its output.
  RunResult r = Go(marker + " & setsid " + marker + " & nohup " + marker + " >/dev/null 2>&1 & (" +
                   marker + " &) ; (" + marker + " >/dev/null 2>&1 &) ; echo done");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.output, "done\n");
  EXPECT_TRUE(WaitUntilGone(marker, std::chrono::milliseconds(100)).empty());
}

TEST_F(Run, SecretsDoNotReachTheChildOrTheOutput) {
  std::string secret = "s3cr3t-" + std::to_string(getpid()) + "-value";
  std::string entry = "SAFESH_TEST_TOKEN=" + secret;
  std::vector<std::string_view> env = exec::CurrentEnvironment();
  env.push_back(entry);
  context_.environment = env;
  RunResult r = Go("env | grep -c SAFESH_TEST_TOKEN; echo \"[$SAFESH_TEST_TOKEN]\"");
  EXPECT_EQ(r.output, "0\n[]\n");
  // Without a sandbox the child can still find the value elsewhere (here: printed on purpose);
  // safesh masks it in everything it returns and spools.
  r = Go("echo leaked: " + secret);
  EXPECT_EQ(r.output.find(secret), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("[redacted SAFESH_TEST_TOKEN]"), std::string::npos) << r.output;
}

// A secret under a name no scrub glob knows (DB_PASS, a URL with a password) does not reach the
// command: only the allow-list passes. The attempt is real: named in env_allow, it does.
TEST_F(Run, VariablesOffTheAllowListDoNotReachTheChild) {
  std::vector<std::string> entries = {"DB_PASS=hunter2-" + std::to_string(getpid()),
                                      "REDIS_URL=redis://:pw-" + std::to_string(getpid()) + "@h/0"};
  std::vector<std::string_view> env = exec::CurrentEnvironment();
  env.insert(env.end(), entries.begin(), entries.end());
  context_.environment = env;
  const std::string show = "echo \"[${DB_PASS:-}] [${REDIS_URL:-}] [${HOME:+home}]\"";
  EXPECT_EQ(Go(show).output, "[] [] [home]\n");
  context_.settings.sandbox.env_allow = std::vector<std::string>{"DB_PASS", "REDIS_URL"};
  RunResult allowed = Go(show);
  EXPECT_NE(allowed.output.find("[" + entries[0].substr(8) + "]"), std::string::npos)
      << allowed.output;
  context_.settings.sandbox.env_allow.reset();
}

TEST_F(Run, SecretsAreMaskedAcrossReadsInTheWholeSpool) {
  std::string secret = "tok-" + std::to_string(getpid()) + "-abcdefgh";
  std::string entry = "SAFESH_TEST_TOKEN=" + secret;
  std::vector<std::string_view> env = exec::CurrentEnvironment();
  env.push_back(entry);
  context_.environment = env;
  // 300,000 lines of 1 to 6 digits and the secret: matches fall across every read boundary.
  RunResult r = Go("seq 1 300000 | sed 's/$/ " + secret + "/'");
  ASSERT_TRUE(r.truncated);
  std::ifstream f(r.spool_path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  std::string all = ss.str();
  EXPECT_EQ(all.find(secret), std::string::npos);
  size_t masked = 0;
  for (size_t at = all.find("[redacted SAFESH_TEST_TOKEN]"); at != std::string::npos;
       at = all.find("[redacted SAFESH_TEST_TOKEN]", at + 1)) {
    ++masked;
  }
  EXPECT_EQ(masked, 300000u);
  EXPECT_TRUE(all.ends_with("300000 [redacted SAFESH_TEST_TOKEN]\n"));
}

TEST_F(Run, BigOutputIsCappedAndSpooledWhole) {
  context_.settings.tools.output_limit_bytes = 100 * 1024;
  // About 50 MB of known text.
  RunResult r = Go("seq 1 7000000");
  std::string expected;
  expected.reserve(60 << 20);
  for (int i = 1; i <= 7000000; ++i) {
    expected += std::to_string(i);
    expected += '\n';
  }
  ASSERT_GT(expected.size(), 50u << 20);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(r.truncated);
  EXPECT_LE(r.output.size(), 100u * 1024);
  EXPECT_TRUE(r.output.starts_with("1\n2\n3\n"));
  EXPECT_TRUE(r.output.ends_with("6999999\n7000000\n"));
  EXPECT_EQ(r.output_bytes, expected.size());
  ASSERT_FALSE(r.spool_path.empty());
  EXPECT_NE(r.output.find(r.spool_path), std::string::npos);
  std::ifstream f(r.spool_path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  EXPECT_TRUE(ss.str() == expected) << "spool differs from the output";
  struct stat st;
  ASSERT_EQ(stat(r.spool_path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST_F(Run, ASpoolCapKeepsTheDiskAndTheViewsEnd) {
  context_.spool_cap = 1 << 20;
  context_.settings.tools.output_limit_bytes = 4096;
  RunResult r = Go("seq 1 1000000; echo END-MARK");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(r.truncated);
  EXPECT_TRUE(r.output.ends_with("1000000\nEND-MARK\n")) << r.output.substr(r.output.size() - 64);
  EXPECT_NE(r.error.find("the rest was read and dropped"), std::string::npos) << r.error;
  EXPECT_GT(r.output_bytes, 6u << 20);
  ASSERT_FALSE(r.spool_path.empty());
  EXPECT_EQ(std::filesystem::file_size(r.spool_path), 1u << 20);
}

TEST_F(Run, TimeoutBeforeTheCommandStartsIsATimeout) {
  for (int i = 0; i < 20; ++i) {
    RunResult r = Go("echo hi", 1e-9);
    EXPECT_EQ(r.outcome, Outcome::kRan) << r.error;
    if (r.timed_out) {
      EXPECT_EQ(r.exit_code, -1);
      EXPECT_TRUE(r.error.starts_with("command timed out")) << r.error;
    } else {
      EXPECT_EQ(r.output, "hi\n");
    }
  }
}

TEST_F(Run, CommandsLongerThanBashCanTakeAreRefused) {
  RunResult r = Go("echo " + std::string(200 * 1024, 'x'));
  EXPECT_EQ(r.outcome, Outcome::kInvalid);
  EXPECT_NE(r.error.find("write the script to a file"), std::string::npos) << r.error;
}

TEST_F(Run, JsonHasTheContractFields) {
  RunResult r = Go("echo hi");
  std::string j = RunResultJson(r);
  for (const char* key :
       {"\"output\":\"hi\\n\"", "\"exit_code\":0", "\"duration_ms\":", "\"is_background\":false",
        "\"process_id\":", "\"truncated\":false", "\"spool_path\":null", "\"timed_out\":false",
        "\"error\":null", "\"verdict\":{\"verdict\":\"ask\"", "\"sandbox\":{\"mode\":\"off\"",
        "\"limits\":{\"via\":\"", "\"max_processes\":4096,", "\"hit\":null,\"stopped\":false,"}) {
    EXPECT_NE(j.find(key), std::string::npos) << key << " in " << j;
  }
  // A request refused before it runs has no limits.
  j = RunResultJson(Go(""));
  EXPECT_NE(j.find("\"limits\":{\"via\":null,\"max_processes\":null,\"memory_bytes\":null,"
                   "\"hit\":null,\"stopped\":false,\"reason\":\"\"}"),
            std::string::npos)
      << j;
}

TEST_F(Run, LimitsApplyWithoutTheSandboxToo) {
  context_.settings.sandbox.max_processes = 64;
  context_.settings.sandbox.memory_limit = 256 << 20;
  RunResult r = Go("cat /proc/self/cgroup; ulimit -d");
  EXPECT_EQ(r.limits.max_processes, 64u);
  EXPECT_EQ(r.limits.memory_bytes, 256u << 20);
  if (r.limits.via == "cgroup1" || r.limits.via == "cgroup2") {
    EXPECT_NE(r.output.find("/safesh-"), std::string::npos) << r.output;
  } else {
    ASSERT_EQ(r.limits.via, "rlimit") << r.limits.reason;
    EXPECT_NE(r.output.find("\n262144\n"), std::string::npos) << r.output;  // KiB
  }
  // Forced: rlimits, whatever the machine offers.
  context_.limits_override = "rlimit";
  r = Go("ulimit -d");
  EXPECT_EQ(r.limits.via, "rlimit");
  EXPECT_EQ(r.output, "262144\n");
  context_.limits_override = "cgroup";
  EXPECT_EQ(Go("true").outcome, Outcome::kInvalid);
  // Off: neither.
  context_.limits_override = "";
  context_.settings.sandbox.max_processes = 0;
  context_.settings.sandbox.memory_limit = 0;
  r = Go("ulimit -d");
  EXPECT_EQ(r.limits.via, "off");
  EXPECT_EQ(r.output, "unlimited\n");
}

TEST_F(Run, ALimitReachedStopsTheCommandAndSaysWhich) {
  context_.settings.sandbox.max_processes = 16;
  std::string marker = UniqueSleep();
  RunResult r = Go("for i in $(seq 40); do " + marker + " & done; wait", 30);
  EXPECT_TRUE(r.limits.stopped);
  EXPECT_EQ(r.limits.hit, "processes");
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, -1);
  EXPECT_EQ(r.error, "stopped: limit of 16 processes reached ([sandbox] max_processes)");
  EXPECT_TRUE(WaitUntilGone(marker).empty());
}

}  // namespace
}  // namespace safesh::pipeline
