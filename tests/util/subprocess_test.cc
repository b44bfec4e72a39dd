// The test helper that runs programs (tests/support/subprocess.h): the other tests trust it.
#include "support/subprocess.h"

#include <signal.h>

#include <string>

#include <gtest/gtest.h>

namespace safesh::testing {
namespace {

const std::vector<std::string> kEnv = {"PATH=/usr/bin:/bin", "LC_ALL=C.UTF-8"};

TEST(Subprocess, LargeInputAndOutputDoNotDeadlock) {
  RunOptions options;
  options.env = kEnv;
  options.stdin_text = std::string(1 << 20, 'x');
  RunOutput r = RunProgram({"/bin/cat"}, options);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, options.stdin_text);
}

TEST(Subprocess, SeparatesStreamsAndReportsExitAndSignal) {
  RunOptions options;
  options.env = kEnv;
  RunOutput r = RunProgram({"/bin/bash", "-c", "echo out; echo err >&2; exit 3"}, options);
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err, "err\n");
  EXPECT_EQ(r.exit_code, 3);
  RunOutput k = RunProgram({"/bin/bash", "-c", "kill -TERM $$"}, options);
  EXPECT_EQ(k.signal, SIGTERM);
  EXPECT_EQ(k.exit_code, -1);
}

// The helper ignores SIGPIPE itself; the programs it starts must not inherit that, or a
// pipeline such as `yes | head` behaves differently under test than in a shell.
TEST(Subprocess, ChildrenGetDefaultSignals) {
  RunOptions options;
  options.env = kEnv;
  for (int i = 0; i < 2; ++i) {
    RunOutput r =
        RunProgram({"/bin/bash", "-c", "yes | head -c1; echo \" ${PIPESTATUS[0]}\""}, options);
    EXPECT_EQ(r.out, "y 141\n") << r.err;
  }
}

TEST(Subprocess, TimeoutKillsAndCwdApplies) {
  RunOptions options;
  options.env = kEnv;
  options.timeout_seconds = 1;
  RunOutput r = RunProgram({"/bin/sleep", "30"}, options);
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.signal, SIGKILL);
  options.cwd = "/usr";
  EXPECT_EQ(RunProgram({"/bin/pwd"}, options).out, "/usr\n");
  EXPECT_THROW(RunProgram({"/nonexistent/program"}, options), std::runtime_error);
}

}  // namespace
}  // namespace safesh::testing
