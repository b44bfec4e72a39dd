// Background processes through a Session, as `safesh mcp` will use it: real bash, real
// processes (checked in /proc by their exact command line), the real sandbox where it is
// asked for. Every wait has a generous limit; no test asserts how long anything took.
#include "session/session.h"
#include "support/requires.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>

#include "audit/log.h"
#include "exec/env.h"
#include "exec/procs.h"
#include "sandbox/bwrap.h"
#include "sandbox/doctor.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace safesh::session {
namespace {

using Outcome = pipeline::RunResult::Outcome;
using testing::ProcessesWith;
using testing::UniqueSleep;
using testing::WaitForCount;
using testing::WaitUntilGone;

// Waits (up to `limit`) for `done`; true when it came.
bool WaitFor(const std::function<bool()>& done,
             std::chrono::milliseconds limit = std::chrono::seconds(20)) {
  auto end = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

class Background : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(dir_.path + "/ws");
    std::filesystem::create_directories(dir_.path + "/home");
    context_.workspace = dir_.path + "/ws";
    context_.home = dir_.path + "/home";
    context_.spool_base = dir_.path + "/state/safesh/spool";
    // The commands' environment names the test's home, never the real one.
    for (std::string_view v : exec::CurrentEnvironment()) {
      if (v.starts_with("HOME=") || v.starts_with("XDG_")) continue;
      env_.emplace_back(v);
    }
    env_.push_back("HOME=" + context_.home);
    env_.push_back("XDG_STATE_HOME=" + dir_.path + "/state");
    env_.push_back("XDG_CONFIG_HOME=" + context_.home + "/.config");
    for (const std::string& e : env_)
      context_.environment.emplace_back(e);
    context_.settings.sandbox.shell = "off";
    context_.prompter = [](const approval::ApprovalRequest&) { return approval::Answer::kApprove; };
  }

  Session& session() {
    if (session_ == nullptr) session_ = std::make_unique<Session>(context_);
    return *session_;
  }

  pipeline::RunResult Start(const std::string& command, bool notify = false,
                            const std::string& pattern = "") {
    pipeline::RunRequest r;
    r.command = command;
    r.background = true;
    r.notify = notify;
    r.notify_pattern = pattern;
    return session().Run(r);
  }

  std::optional<ProcessInfo> Find(const std::string& id) {
    for (const ProcessInfo& p : session().List()) {
      if (p.id == id) return p;
    }
    return std::nullopt;
  }

  // Waits for a process to end; its last status.
  ProcessInfo WaitEnded(const std::string& id) {
    std::optional<ProcessInfo> info;
    EXPECT_TRUE(WaitFor([&] {
      info = Find(id);
      return info && !info->running;
    })) << id
        << " did not end";
    return info.value_or(ProcessInfo{});
  }

  // Takes notices until `n` have come (or the limit); all of them.
  std::vector<Notice> TakeNotices(size_t n) {
    std::vector<Notice> all;
    WaitFor([&] {
      for (Notice& x : session().TakeNotices())
        all.push_back(std::move(x));
      return all.size() >= n;
    });
    return all;
  }

  bool UseBwrap() {
    if (!sandbox::ProbeBwrap(sandbox::FindBwrap(), false).empty()) return false;
    context_.settings.sandbox.shell = "required";
    context_.bwrap = sandbox::FindBwrap();
    context_.launcher = "bwrap";
    return true;
  }

  testing::TempDir dir_;
  std::vector<std::string> env_;
  pipeline::RunContext context_;
  std::unique_ptr<Session> session_;
};

TEST_F(Background, StartsReturnsItsIdAtOnceAndIsKilled) {
  std::string marker = UniqueSleep();
  pipeline::RunResult r = Start(marker);
  ASSERT_EQ(r.outcome, Outcome::kRan) << r.error;
  EXPECT_TRUE(r.is_background);
  EXPECT_EQ(r.background_id, "bg-1");
  EXPECT_GT(r.process_id, 0);
  EXPECT_EQ(r.exit_code, -1);
  EXPECT_NE(pipeline::RunResultJson(r).find("\"background_id\":\"bg-1\""), std::string::npos);
  ASSERT_TRUE(WaitForCount(marker, 1));

  std::vector<ProcessInfo> list = session().List();
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0].id, "bg-1");
  EXPECT_EQ(list[0].command, marker);
  EXPECT_TRUE(list[0].running);
  EXPECT_EQ(list[0].exit_code, -1);
  EXPECT_GE(list[0].runtime_ms, 0);
  EXPECT_EQ(list[0].pid, r.process_id);

  KillOutcome k = session().Kill("bg-1");
  EXPECT_TRUE(k.error.empty()) << k.error;
  EXPECT_FALSE(k.status.running);
  EXPECT_EQ(k.status.exit_code, -1);
  EXPECT_NE(k.status.error.find("killed by a request"), std::string::npos) << k.status.error;
  // Kill waited for the end: nothing is left.
  EXPECT_TRUE(ProcessesWith(marker).empty());
  // A kill asked for gives no notice, even with notify.
  EXPECT_TRUE(session().TakeNotices().empty());
}

TEST_F(Background, KillErrors) {
  EXPECT_NE(session().Kill("bg-9").error.find("no background process bg-9"), std::string::npos);
  ASSERT_EQ(Start("true").outcome, Outcome::kRan);
  WaitEnded("bg-1");
  KillOutcome k = session().Kill("bg-1");
  EXPECT_NE(k.error.find("bg-1 has already ended"), std::string::npos) << k.error;
  EXPECT_EQ(k.status.exit_code, 0);
  EXPECT_NE(session().Output("bg-7", 0).error.find("no background process bg-7"),
            std::string::npos);
}

TEST_F(Background, ForegroundRequestsStillRunToTheirEnd) {
  pipeline::RunRequest r;
  r.command = "echo fg; exit 4";
  pipeline::RunResult res = session().Run(r);
  EXPECT_EQ(res.output, "fg\n");
  EXPECT_EQ(res.exit_code, 4);
  EXPECT_FALSE(res.is_background);
  EXPECT_TRUE(session().List().empty());
}

TEST_F(Background, RunShellCommandAloneRefusesBackground) {
  pipeline::RunRequest r;
  r.command = "true";
  r.background = true;
  pipeline::RunResult res = pipeline::RunShellCommand(r, context_);
  EXPECT_EQ(res.outcome, Outcome::kInvalid);
  EXPECT_NE(res.error.find("safesh mcp"), std::string::npos) << res.error;
}

TEST_F(Background, AtMost8RunningAndTheNinthIsRefused) {
  std::string marker = UniqueSleep();
  for (int i = 1; i <= 8; ++i) {
    pipeline::RunResult r = Start(marker);
    ASSERT_EQ(r.outcome, Outcome::kRan) << i << ": " << r.error;
  }
  ASSERT_TRUE(WaitForCount(marker, 8));
  pipeline::RunResult refused = Start(marker);
  EXPECT_EQ(refused.outcome, Outcome::kInvalid);
  EXPECT_NE(refused.error.find("too many background processes running"), std::string::npos)
      << refused.error;
  EXPECT_TRUE(refused.background_id.empty());
  EXPECT_EQ(session().List().size(), 8u);
  // A slot freed is a slot to use.
  ASSERT_TRUE(session().Kill("bg-3").error.empty());
  pipeline::RunResult again = Start(marker);
  EXPECT_EQ(again.outcome, Outcome::kRan) << again.error;
  EXPECT_EQ(again.background_id, "bg-9");
  session().Shutdown();
  EXPECT_TRUE(WaitUntilGone(marker).empty());
}

TEST_F(Background, MaxRunningComesFromTheSettings) {
  context_.settings.background.max_running = 2;
  std::string marker = UniqueSleep();
  ASSERT_EQ(Start(marker).outcome, Outcome::kRan);
  ASSERT_EQ(Start(marker).outcome, Outcome::kRan);
  EXPECT_NE(Start(marker).error.find("too many background processes running"), std::string::npos);
}

TEST_F(Background, LifetimeEndsItWithANotice) {
  context_.settings.background.max_lifetime_seconds = 1;
  std::string marker = UniqueSleep();
  pipeline::RunResult r = Start("echo up; " + marker, /*notify=*/true);
  ASSERT_EQ(r.outcome, Outcome::kRan) << r.error;
  ProcessInfo end = WaitEnded("bg-1");
  EXPECT_EQ(end.exit_code, -1);
  EXPECT_NE(end.error.find("its lifetime of 1 s ran out"), std::string::npos) << end.error;
  EXPECT_TRUE(ProcessesWith(marker).empty());
  std::vector<Notice> n = TakeNotices(1);
  ASSERT_EQ(n.size(), 1u);
  EXPECT_EQ(n[0].kind, Notice::Kind::kExit);
  EXPECT_EQ(n[0].process_id, "bg-1");
  EXPECT_EQ(n[0].text.find("Background process (echo up; " + marker + ") was killed after "), 0u)
      << n[0].text;
  EXPECT_NE(n[0].text.find("its lifetime of 1 s ran out"), std::string::npos) << n[0].text;
  EXPECT_TRUE(n[0].text.ends_with(". Its last output: up\n")) << n[0].text;
}

TEST_F(Background, ARequestTimeoutShortensTheLifetime) {
  std::string marker = UniqueSleep();
  pipeline::RunRequest r;
  r.command = marker;
  r.background = true;
  r.timeout_seconds = 0.5;
  ASSERT_EQ(session().Run(r).outcome, Outcome::kRan);
  EXPECT_NE(WaitEnded("bg-1").error.find("lifetime of 0.5 s"), std::string::npos);
  r.timeout_seconds = -1;
  EXPECT_EQ(session().Run(r).outcome, Outcome::kInvalid);
}

TEST_F(Background, OutputRetainsTheLast256KiBAndTheSpoolHasAll) {
  // 1 MiB of numbered lines, then an end mark.
  pipeline::RunResult r = Start("seq 1 200000; echo END");
  ASSERT_EQ(r.outcome, Outcome::kRan) << r.error;
  ProcessInfo end = WaitEnded("bg-1");
  EXPECT_EQ(end.exit_code, 0);
  ProcessOutput o = session().Output("bg-1", 0);
  ASSERT_TRUE(o.error.empty()) << o.error;
  uint64_t total = o.status.output_bytes;
  EXPECT_GT(total, 1000000u);
  EXPECT_EQ(o.text.size(), 256u * 1024);
  EXPECT_EQ(o.offset, total - 256 * 1024);
  EXPECT_EQ(o.skipped, o.offset);
  EXPECT_EQ(o.next_offset, total);
  EXPECT_EQ(o.text.substr(o.text.size() - 11), "200000\nEND\n");
  // The whole output is on disk, byte for byte.
  ASSERT_FALSE(o.spool_path.empty());
  std::ifstream f(o.spool_path, std::ios::binary);
  std::stringstream whole;
  whole << f.rdbuf();
  EXPECT_EQ(whole.str().size(), total);
  EXPECT_EQ(whole.str().substr(0, 8), "1\n2\n3\n4\n");
  EXPECT_EQ(whole.str().substr(total - 256 * 1024), o.text);
  // From a retained offset: exactly the rest.
  ProcessOutput tail = session().Output("bg-1", total - 4);
  EXPECT_EQ(tail.text, "END\n");
  EXPECT_EQ(tail.skipped, 0u);
  EXPECT_EQ(session().Output("bg-1", total + 100).text, "");
}

TEST_F(Background, OutputRetainedFollowsTheSetting) {
  context_.settings.background.output_limit_bytes = 4096;
  ASSERT_EQ(Start("seq 1 5000").outcome, Outcome::kRan);
  WaitEnded("bg-1");
  ProcessOutput o = session().Output("bg-1", 0);
  EXPECT_EQ(o.text.size(), 4096u);
  EXPECT_EQ(o.text.substr(o.text.size() - 5), "5000\n");
}

TEST_F(Background, OutputFollowsFromAnOffsetWhileItRuns) {
  ASSERT_EQ(Start("for i in 1 2 3 4 5; do echo line$i; sleep 0.1; done").outcome, Outcome::kRan);
  std::string followed;
  uint64_t offset = 0;
  bool saw_running_part = false;
  ASSERT_TRUE(WaitFor([&] {
    ProcessOutput o = session().Output("bg-1", offset);
    EXPECT_TRUE(o.error.empty());
    EXPECT_EQ(o.offset, offset);
    EXPECT_EQ(o.skipped, 0u);
    followed += o.text;
    offset = o.next_offset;
    if (o.status.running && !o.text.empty()) saw_running_part = true;
    return !o.status.running && o.next_offset == o.status.output_bytes;
  }));
  EXPECT_EQ(followed, "line1\nline2\nline3\nline4\nline5\n");
  EXPECT_TRUE(saw_running_part);
}

TEST_F(Background, OutputNeverEndsInHalfACharacterWhileItRuns) {
  // "é" printed one byte at a time, the second a while after the first.
  std::string marker = UniqueSleep();
  ASSERT_EQ(Start("printf 'a\\303'; sleep 0.5; printf '\\251b'; " + marker).outcome, Outcome::kRan);
  ASSERT_TRUE(WaitFor([&] { return session().Output("bg-1", 0).status.output_bytes >= 2; }));
  ProcessOutput first = session().Output("bg-1", 0);
  EXPECT_EQ(first.text, "a");
  EXPECT_EQ(first.next_offset, 1u);
  ASSERT_TRUE(WaitFor([&] { return session().Output("bg-1", 0).status.output_bytes >= 4; }));
  EXPECT_EQ(session().Output("bg-1", first.next_offset).text,
            "é"
            "b");
}

TEST_F(Background, SixteenFinishedAreRetained) {
  for (int i = 1; i <= 20; ++i) {
    pipeline::RunResult r = Start("echo " + std::to_string(i));
    ASSERT_EQ(r.outcome, Outcome::kRan) << r.error;
    WaitEnded(r.background_id);
  }
  std::vector<ProcessInfo> list = session().List();
  ASSERT_EQ(list.size(), 16u);
  EXPECT_EQ(list.front().id, "bg-5");
  EXPECT_EQ(list.back().id, "bg-20");
  for (const ProcessInfo& p : list) {
    EXPECT_FALSE(p.running);
    EXPECT_EQ(p.exit_code, 0);
  }
  EXPECT_EQ(session().Output("bg-20", 0).text, "20\n");
  EXPECT_FALSE(session().Output("bg-4", 0).error.empty());
}

TEST_F(Background, RunningOnesAreNeverForgotten) {
  context_.settings.background.retain_finished = 0;
  std::string marker = UniqueSleep();
  ASSERT_EQ(Start(marker).outcome, Outcome::kRan);
  ASSERT_EQ(Start("true").outcome, Outcome::kRan);
  ASSERT_TRUE(WaitFor([&] { return session().List().size() == 1; }));
  EXPECT_EQ(session().List()[0].id, "bg-1");
}

TEST_F(Background, KillTakesTheWholeTreeIncludingSetsidDescendants) {
  std::string a = UniqueSleep(), b = UniqueSleep(), c = UniqueSleep(), d = UniqueSleep();
  std::string command = "setsid " + a + " & (setsid bash -c '" + b + " & " + c + "' &) ; nohup " +
                        d + " >/dev/null 2>&1 & wait";
  ASSERT_EQ(Start(command).outcome, Outcome::kRan);
  for (const std::string& m : {a, b, c, d})
    ASSERT_TRUE(WaitForCount(m, 1)) << m;
  KillOutcome k = session().Kill("bg-1");
  EXPECT_TRUE(k.error.empty()) << k.error;
  for (const std::string& m : {a, b, c, d})
    EXPECT_TRUE(ProcessesWith(m).empty()) << m << " survived the kill";
}

TEST_F(Background, ExitNoticeWithTheSpecsText) {
  ASSERT_EQ(Start("echo hello; echo world >&2; exit 3", /*notify=*/true).outcome, Outcome::kRan);
  std::vector<Notice> n = TakeNotices(1);
  ASSERT_EQ(n.size(), 1u);
  EXPECT_EQ(n[0].kind, Notice::Kind::kExit);
  const std::string& t = n[0].text;
  std::string head =
      "Background process (echo hello; echo world >&2; exit 3) exited with code 3 after ";
  EXPECT_EQ(t.substr(0, head.size()), head) << t;
  std::string tail = ". Its last output: hello\nworld\n";
  ASSERT_GT(t.size(), tail.size());
  EXPECT_EQ(t.substr(t.size() - tail.size()), tail) << t;
  // Taken once.
  EXPECT_TRUE(session().TakeNotices().empty());
  EXPECT_EQ(WaitEnded("bg-1").exit_code, 3);
}

TEST_F(Background, ExitNoticeCarriesTheLast1500Characters) {
  // 3000 "é" (two bytes each), then "!".
  ASSERT_EQ(Start("for i in $(seq 3000); do printf '\\303\\251'; done; printf '!'", true).outcome,
            Outcome::kRan);
  std::vector<Notice> n = TakeNotices(1);
  ASSERT_EQ(n.size(), 1u);
  std::string tail = n[0].text.substr(n[0].text.find("Its last output: ") + 17);
  std::string want;
  for (int i = 0; i < 1499; ++i)
    want += "é";
  EXPECT_EQ(tail, want + "!");
}

TEST_F(Background, NoExitNoticeWithoutNotify) {
  ASSERT_EQ(Start("echo quiet").outcome, Outcome::kRan);
  WaitEnded("bg-1");
  EXPECT_TRUE(session().TakeNotices().empty());
}

TEST_F(Background, ASignalDeathIsAnExitCode) {
  ASSERT_EQ(Start("kill -TERM $$", true).outcome, Outcome::kRan);
  std::vector<Notice> n = TakeNotices(1);
  ASSERT_EQ(n.size(), 1u);
  EXPECT_NE(n[0].text.find("exited with code 143 after"), std::string::npos) << n[0].text;
}

TEST_F(Background, PatternNoticesForMatchingLinesAtMost20) {
  ASSERT_EQ(
      Start("for i in $(seq 30); do echo \"ready $i\"; echo other; done", false, "^ready").outcome,
      Outcome::kRan);
  WaitEnded("bg-1");
  std::vector<Notice> n = session().TakeNotices();
  ASSERT_EQ(n.size(), 20u);
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(n[i].kind, Notice::Kind::kPattern);
    EXPECT_EQ(n[i].process_id, "bg-1");
    EXPECT_EQ(n[i].text,
              "Background process (for i in $(seq 30); do echo \"ready $i\"; echo other; "
              "done) printed: ready " +
                  std::to_string(i + 1));
  }
}

TEST_F(Background, PatternCountsTheLastLineWithoutANewline) {
  ASSERT_EQ(Start("echo one; printf 'listening on 8080'", true, "listening").outcome,
            Outcome::kRan);
  std::vector<Notice> n = TakeNotices(2);
  ASSERT_EQ(n.size(), 2u);
  EXPECT_EQ(n[0].text,
            "Background process (echo one; printf 'listening on 8080') printed: "
            "listening on 8080");
  EXPECT_EQ(n[1].kind, Notice::Kind::kExit);
}

TEST_F(Background, PatternLinesAreCutTo500Characters) {
  ASSERT_EQ(Start("printf 'match%0600d\\n' 0", false, "match").outcome, Outcome::kRan);
  std::vector<Notice> n = TakeNotices(1);
  ASSERT_EQ(n.size(), 1u);
  std::string line = n[0].text.substr(n[0].text.find("printed: ") + 9);
  EXPECT_EQ(line, "match" + std::string(495, '0'));
}

TEST_F(Background, AnInvalidPatternIsAnErrorBeforeAnythingStarts) {
  std::string marker = UniqueSleep();
  pipeline::RunResult r = Start(marker, true, "(unclosed");
  EXPECT_EQ(r.outcome, Outcome::kInvalid);
  EXPECT_NE(r.error.find("notify_pattern is not a valid RE2 regular expression"), std::string::npos)
      << r.error;
  EXPECT_TRUE(r.background_id.empty());
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_TRUE(ProcessesWith(marker).empty());
  EXPECT_TRUE(session().List().empty());
}

TEST_F(Background, AtMost50NoticesWait) {
  // Three processes print 20 matching lines each: 60 notices for 50 places.
  for (int i = 0; i < 3; ++i)
    ASSERT_EQ(Start("for i in $(seq 25); do echo hit; done", false, "hit").outcome, Outcome::kRan);
  for (const char* id : {"bg-1", "bg-2", "bg-3"})
    WaitEnded(id);
  std::vector<Notice> n = session().TakeNotices();
  ASSERT_EQ(n.size(), kMaxPendingNotices + 1);
  EXPECT_EQ(n.back().text.find("10 more background process notices were dropped"), 0u)
      << n.back().text;
}

TEST_F(Background, ADeniedCommandNeverStartsAndEveryStepIsRecorded) {
  context_.settings.commands.deny = {"curl"};
  context_.settings.commands.ask = {"echo"};
  std::string error;
  std::optional<policy::Policy> p = policy::Policy::Compile(context_.settings.commands, &error);
  ASSERT_TRUE(p) << error;
  context_.policy = &*p;
  testing::TempDir audit_dir(testing::OutsideWritableBase());
  audit::Log log(audit_dir.path + "/audit");
  context_.audit = &log;
  bool asked_background = false;
  context_.prompter = [&](const approval::ApprovalRequest& r) {
    asked_background = r.background;
    return approval::Answer::kApprove;
  };

  pipeline::RunResult denied = Start("curl example.com");
  EXPECT_EQ(denied.outcome, Outcome::kDenied);
  EXPECT_NE(denied.error.find("blocked by command policy"), std::string::npos);
  EXPECT_TRUE(session().List().empty());

  ASSERT_EQ(Start("echo asked").outcome, Outcome::kRan);
  EXPECT_TRUE(asked_background);
  WaitEnded("bg-1");
  session().Shutdown();
  // The log: the request marked background, the start, and its end.
  std::string all;
  for (const auto& e : std::filesystem::directory_iterator(audit_dir.path + "/audit")) {
    std::ifstream f(e.path());
    std::stringstream ss;
    ss << f.rdbuf();
    all += ss.str();
  }
  EXPECT_NE(all.find("\"event\":\"request\""), std::string::npos);
  EXPECT_NE(all.find("\"background\":true"), std::string::npos) << all;
  EXPECT_NE(all.find("\"event\":\"denied\""), std::string::npos);
  EXPECT_NE(all.find("\"event\":\"start\""), std::string::npos);
  EXPECT_NE(all.find("\"event\":\"exit\""), std::string::npos) << all;
}

TEST_F(Background, ShutdownKillsEveryTreeAndRefusesNewOnes) {
  std::string a = UniqueSleep(), b = UniqueSleep(), c = UniqueSleep();
  ASSERT_EQ(Start(a, true).outcome, Outcome::kRan);
  ASSERT_EQ(Start("setsid " + b + " & " + c).outcome, Outcome::kRan);
  for (const std::string& m : {a, b, c})
    ASSERT_TRUE(WaitForCount(m, 1)) << m;
  session().Shutdown();
  for (const std::string& m : {a, b, c})
    EXPECT_TRUE(ProcessesWith(m).empty()) << m << " survived the shutdown";
  // No notice for what the shutdown killed.
  EXPECT_TRUE(session().TakeNotices().empty());
  pipeline::RunResult r = Start("true");
  EXPECT_EQ(r.outcome, Outcome::kInvalid);
  EXPECT_NE(r.error.find("shut down"), std::string::npos);
  pipeline::RunRequest fg;
  fg.command = "true";
  EXPECT_EQ(session().Run(fg).outcome, Outcome::kInvalid);
  session().Shutdown();  // a second time changes nothing
}

TEST_F(Background, TheDestructorShutsDown) {
  std::string marker = UniqueSleep();
  ASSERT_EQ(Start(marker).outcome, Outcome::kRan);
  ASSERT_TRUE(WaitForCount(marker, 1));
  session_.reset();
  EXPECT_TRUE(ProcessesWith(marker).empty());
}

TEST_F(Background, InTheSandbox) {
  if (!UseBwrap()) {
    SAFESH_SKIP_MISSING("bubblewrap cannot run here");
  }
  std::string marker = UniqueSleep();
  pipeline::RunResult r = Start("echo inside; setsid " + marker + " & wait", true);
  ASSERT_EQ(r.outcome, Outcome::kRan) << r.error;
  EXPECT_EQ(r.sandbox_mode, "bwrap");
  ASSERT_TRUE(WaitForCount(marker, 1));
  EXPECT_EQ(session().Output("bg-1", 0).text, "inside\n");
  EXPECT_TRUE(session().Kill("bg-1").error.empty());
  EXPECT_TRUE(ProcessesWith(marker).empty());
}

// A free TCP port on the loopback (closed again: the server binds it).
int FreePort() {
  int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  int port = 0;
  if (bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      getsockname(s, reinterpret_cast<sockaddr*>(&a), &len) == 0)
    port = ntohs(a.sin_port);
  close(s);
  return port;
}

// GET / from the loopback; the status line, or empty.
std::string HttpGet(int port) {
  int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string reply;
  if (connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) {
    std::string req = "GET / HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
    (void)!write(s, req.data(), req.size());
    char buf[4096];
    ssize_t n;
    while ((n = read(s, buf, sizeof buf)) > 0)
      reply.append(buf, static_cast<size_t>(n));
  }
  close(s);
  return reply.substr(0, reply.find("\r\n"));
}

TEST_F(Background, ADevServerInTheSandboxAnnouncesItself) {
  if (!UseBwrap()) {
    SAFESH_SKIP_MISSING("bubblewrap cannot run here");
  }
  if (access("/usr/bin/python3", X_OK) != 0) GTEST_SKIP() << "no /usr/bin/python3";
  context_.settings.sandbox.allow_network = true;
  int port = FreePort();
  ASSERT_GT(port, 0);
  std::ofstream(context_.workspace + "/index.html") << "hello from the workspace\n";
  // -u: Python's output unbuffered, so each line arrives as it is printed. It prints
  // "Serving HTTP on 127.0.0.1 port N (http://127.0.0.1:N/) ..." on stdout, and a line per
  // request on stderr.
  std::string command =
      "exec /usr/bin/python3 -u -m http.server " + std::to_string(port) + " --bind 127.0.0.1";
  pipeline::RunResult r = Start(command, true, "^Serving HTTP on .* port [0-9]+|\"GET / ");
  ASSERT_EQ(r.outcome, Outcome::kRan) << r.error;
  EXPECT_EQ(r.sandbox_mode, "bwrap");
  EXPECT_NE(r.sandbox_reason.find("network allowed"), std::string::npos) << r.sandbox_reason;
  std::vector<Notice> up = TakeNotices(1);
  ASSERT_EQ(up.size(), 1u) << session().Output("bg-1", 0).text;
  EXPECT_EQ(up[0].text, "Background process (" + command +
                            ") printed: Serving HTTP on 127.0.0.1 port " + std::to_string(port) +
                            " (http://127.0.0.1:" + std::to_string(port) + "/) ...");
  // It serves the workspace, and its log line of the request is noticed too.
  EXPECT_EQ(HttpGet(port), "HTTP/1.0 200 OK");
  std::vector<Notice> get = TakeNotices(1);
  ASSERT_EQ(get.size(), 1u);
  EXPECT_NE(get[0].text.find("\"GET / HTTP/1.0\" 200"), std::string::npos) << get[0].text;
  KillOutcome k = session().Kill("bg-1");
  EXPECT_TRUE(k.error.empty()) << k.error;
  EXPECT_EQ(HttpGet(port), "");
  EXPECT_TRUE(ProcessesWith("/usr/bin/python3 -u -m http.server " + std::to_string(port) +
                            " --bind 127.0.0.1")
                  .empty());
}

// A host (tests/session/session_host.cc) killed with SIGKILL while its background commands run:
// every one of them, setsid'd descendants included, is gone, with and without the sandbox.
void HostKilled(bool sandboxed) {
  testing::TempDir dir;
  std::filesystem::create_directories(dir.path + "/ws");
  std::string a = UniqueSleep(), b = UniqueSleep(), c = UniqueSleep();
  std::vector<std::string> argv = {SAFESH_SESSION_HOST, dir.path, sandboxed ? "bwrap" : "off", a,
                                   "setsid " + b + " & " + c + "; wait"};
  std::vector<std::string> env = {"PATH=/usr/bin:/bin", "HOME=" + dir.path,
                                  "XDG_STATE_HOME=" + dir.path + "/state"};
  int pid = testing::StartProgram(argv, env);
  for (const std::string& m : {a, b, c})
    ASSERT_TRUE(WaitForCount(m, 1)) << m << " did not start";
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  int status;
  waitpid(pid, &status, 0);
  for (const std::string& m : {a, b, c})
    EXPECT_TRUE(WaitUntilGone(m).empty()) << m << " outlived its host";
}

TEST(HostKilled, NothingIsLeftWithoutTheSandbox) {
  HostKilled(false);
}

TEST(HostKilled, NothingIsLeftInTheSandbox) {
  if (!sandbox::ProbeBwrap(sandbox::FindBwrap(), false).empty()) {
    SAFESH_SKIP_MISSING("bubblewrap cannot run here");
  }
  HostKilled(true);
}

}  // namespace
}  // namespace safesh::session
