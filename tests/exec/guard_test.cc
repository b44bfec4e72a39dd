// The guard's start of a command (exec/guard.h) through Execute: what the command's process does
// before it executes anything, and how a failure there is reported.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "exec/launch_plan.h"
#include "exec/runner.h"
#include "util/unique_fd.h"

namespace safesh::exec {
namespace {

struct Ran {
  ExecResult result;
  std::string output;
};

Ran RunPlan(const LaunchPlan& plan) {
  util::UniqueFd spool(open("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600));
  EXPECT_TRUE(spool.valid());
  ExecOptions options;
  options.timeout = std::chrono::seconds(20);
  options.spool_fd = spool.get();
  Ran r;
  r.result = Execute(plan, options);
  r.output.resize(r.result.spooled_bytes);
  EXPECT_EQ(pread(spool.get(), r.output.data(), r.output.size(), 0),
            static_cast<ssize_t>(r.output.size()));
  return r;
}

// Whether this process (and so an unsandboxed command) has CAP_SYS_RESOURCE in effect.
bool HasCapSysResource() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("CapEff:", 0) == 0) return (std::stoull(line.substr(7), nullptr, 16) >> 24) & 1;
  }
  return false;
}

LaunchPlan Bash(const std::string& command, const util::UniqueFd& cwd) {
  return BashPlan(FindBash(), command, {"PATH=/usr/bin:/bin"}, cwd.get());
}

TEST(Guard, AProgramThatCannotBeExecutedIsNotStarted) {
  util::UniqueFd cwd(open("/", O_PATH | O_CLOEXEC));
  LaunchPlan plan = Bash("true", cwd);
  plan.program = "/nonexistent/program";
  Ran r = RunPlan(plan);
  EXPECT_FALSE(r.result.started);
  EXPECT_EQ(r.result.error, "cannot start /nonexistent/program: No such file or directory");
  EXPECT_EQ(r.output, "");
}

TEST(Guard, RlimitsAreSetSoftAndHardBeforeTheCommandRuns) {
  util::UniqueFd cwd(open("/", O_PATH | O_CLOEXEC));
  rlimit current{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &current), 0);
  ASSERT_GT(current.rlim_cur, 64u) << "the test needs a descriptor limit above 64 to lower";
  const std::string show = "ulimit -Sn; ulimit -Hn";
  // Without the plan's limit the command has another one.
  EXPECT_NE(RunPlan(Bash(show, cwd)).output, "64\n64\n");
  LaunchPlan plan = Bash(show + "; ulimit -Hn 65 2>/dev/null && echo RAISED", cwd);
  plan.rlimits = {{RLIMIT_NOFILE, 64}};
  Ran r = RunPlan(plan);
  EXPECT_TRUE(r.result.started) << r.result.error;
  // Only CAP_SYS_RESOURCE raises a hard limit (root usually has it outside the sandbox, which
  // drops it).
  EXPECT_EQ(r.output, HasCapSysResource() ? "64\n64\nRAISED\n" : "64\n64\n");
}

TEST(Guard, AFailureBeforeExecIsReportedWithItsStepAndNothingRuns) {
  util::UniqueFd cwd(open("/", O_PATH | O_CLOEXEC));
  // A cgroup that cannot be joined (a descriptor that cannot be written): the command does not
  // run outside it.
  util::UniqueFd read_only(open("/dev/null", O_RDONLY | O_CLOEXEC));
  LaunchPlan join = Bash("echo RAN", cwd);
  join.join_cgroups = {read_only.get()};
  Ran r = RunPlan(join);
  EXPECT_FALSE(r.result.started);
  EXPECT_EQ(r.result.error.rfind("cannot put the command in its cgroup", 0), 0u) << r.result.error;
  EXPECT_EQ(r.output, "");
  // A confinement that fails (descriptor 3 is no Landlock ruleset): reported as such, and the
  // error does not leak into the command's output (it once went to descriptor 2).
  LaunchPlan confine = Bash("echo RAN", cwd);
  confine.self_confine = true;
  confine.pass_fds = {read_only.get()};
  r = RunPlan(confine);
  EXPECT_FALSE(r.result.started);
  EXPECT_EQ(r.result.error.rfind("cannot confine the command", 0), 0u) << r.result.error;
  EXPECT_EQ(r.output, "");
  // An rlimit the kernel refuses (a resource that does not exist).
  LaunchPlan limit = Bash("echo RAN", cwd);
  limit.rlimits = {{RLIM_NLIMITS + 5, 1}};
  r = RunPlan(limit);
  EXPECT_FALSE(r.result.started);
  EXPECT_EQ(r.result.error.rfind("cannot set the command's resource limits", 0), 0u)
      << r.result.error;
  EXPECT_EQ(r.output, "");
}

}  // namespace
}  // namespace safesh::exec
