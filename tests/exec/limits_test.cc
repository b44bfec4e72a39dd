// A command's resource limits (exec/limits.h): the way chosen, what goes into the plan, and the
// watch that stops a command at its limit, through Execute with real processes.
#include "exec/limits.h"
#include "support/requires.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>

#include "exec/procs.h"
#include "exec/runner.h"
#include "util/unique_fd.h"

namespace safesh::exec {
namespace {

TEST(Limits, SizesAreWrittenInTheLargestUnitThatDividesThem) {
  EXPECT_EQ(FormatBytes(256 << 20), "256 MiB");
  EXPECT_EQ(FormatBytes(8ull << 30), "8 GiB");
  EXPECT_EQ(FormatBytes(1536 << 10), "1536 KiB");
  EXPECT_EQ(FormatBytes(1000), "1000 bytes");
  EXPECT_EQ(FormatBytes(0), "0 bytes");
}

TEST(Limits, TheDefaultMemoryCapIsHalfThePhysicalMemoryInWholeMiB) {
  uint64_t ram =
      static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  uint64_t d = DefaultMemoryLimit();
  EXPECT_EQ(d % (1 << 20), 0u);
  EXPECT_LE(d, ram / 2);
  EXPECT_GT(d, ram / 2 - (1 << 20));
}

TEST(Limits, NoLimitAskedForIsOff) {
  CommandLimits l;
  PrepareLimits({0, 0}, "", &l);
  EXPECT_EQ(l.via, "off");
  LaunchPlan plan;
  ApplyLimits(l, &plan);
  EXPECT_TRUE(plan.join_cgroups.empty());
  EXPECT_TRUE(plan.rlimits.empty());
}

TEST(Limits, RlimitsCapEachProcessAndTheReasonSaysWhatTheyDoNot) {
  CommandLimits l;
  PrepareLimits({64, 256 << 20}, "rlimit", &l);
  EXPECT_EQ(l.via, "rlimit");
  EXPECT_TRUE(l.cgroup.dirs.empty());
  EXPECT_EQ(l.count_processes, 64u);
  bool data = false, nproc = false;
  for (const LaunchPlan::Rlimit& r : l.rlimits) {
    if (r.resource == RLIMIT_DATA) data = r.value == (256 << 20);
    if (r.resource == RLIMIT_NPROC) nproc = r.value > 64;  // the user's own count plus the cap
  }
  EXPECT_TRUE(data);
  EXPECT_EQ(nproc, getuid() != 0) << "RLIMIT_NPROC is not enforced for root: not set";
  EXPECT_NE(l.reason.find("SAFESH_LIMITS=rlimit"), std::string::npos) << l.reason;
  EXPECT_NE(l.reason.find("not the command as a whole"), std::string::npos) << l.reason;
  EXPECT_NE(l.reason.find(getuid() == 0 ? "not enforced for root" : "all of the user's"),
            std::string::npos)
      << l.reason;
}

class LimitedRun : public ::testing::Test {
 protected:
  // Runs `command` with `limits` applied and watched, as RunShellCommand does.
  ExecResult Run(const std::string& command, CommandLimits* limits, std::string* output) {
    util::UniqueFd spool(open("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600));
    util::UniqueFd cwd(open("/", O_PATH | O_CLOEXEC));
    LaunchPlan plan = BashPlan(FindBash(), command, {"PATH=/usr/bin:/bin"}, cwd.get());
    ApplyLimits(*limits, &plan);
    ExecOptions options;
    options.timeout = std::chrono::seconds(30);  // a backstop: the limits must come first
    options.spool_fd = spool.get();
    options.should_stop = [limits](pid_t guard) { return LimitReached(limits, guard); };
    options.check_every = limits->check_every;
    ExecResult r = Execute(plan, options);
    output->resize(r.spooled_bytes);
    EXPECT_EQ(pread(spool.get(), output->data(), output->size(), 0),
              static_cast<ssize_t>(output->size()));
    return r;
  }
};

TEST_F(LimitedRun, RlimitsReachTheCommand) {
  CommandLimits l;
  PrepareLimits({64, 256 << 20}, "rlimit", &l);
  std::string out;
  ExecResult r = Run("ulimit -d", &l, &out);
  EXPECT_EQ(out, std::to_string((256 << 20) / 1024) + "\n");  // bash shows KiB
  EXPECT_FALSE(r.stopped);
  EXPECT_EQ(l.hit, LimitHit::kNone);
}

TEST_F(LimitedRun, CountingProcessesStopsACommandAtTheCap) {
  std::string marker = testing::UniqueSleep();
  const std::string command = "for i in $(seq 100); do " + marker + " & done; wait";
  CommandLimits l;
  PrepareLimits({16, 0}, "rlimit", &l);
  std::string out;
  ExecResult r = Run(command, &l, &out);
  EXPECT_TRUE(r.stopped);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(l.hit, LimitHit::kProcesses);
  EXPECT_TRUE(testing::WaitUntilGone(marker).empty());
}

TEST_F(LimitedRun, ACgroupHoldsTheCommandAndIsRemovedAfter) {
  CgroupParent parent = FindCgroupParent(true, true);
  if (parent.version == 0) {
    SAFESH_SKIP_MISSING("no cgroup can be made here: " << parent.why_not);
  }
  CommandLimits l;
  PrepareLimits({64, 256 << 20}, "", &l);
  ASSERT_EQ(l.via, parent.version == 2 ? "cgroup2" : "cgroup1") << l.reason;
  ASSERT_FALSE(l.cgroup.dirs.empty());
  std::vector<CgroupParentDir> dirs = l.cgroup.dirs;
  std::string name = dirs[0].dir.substr(dirs[0].dir.rfind('/') + 1);
  std::string out;
  ExecResult r = Run("cat /proc/self/cgroup", &l, &out);
  EXPECT_TRUE(r.exited);
  // Every hierarchy with a limit lists the command in its cgroup.
  size_t found = 0;
  for (size_t at = out.find(name); at != std::string::npos; at = out.find(name, at + 1))
    ++found;
  EXPECT_EQ(found, dirs.size()) << out;
  EXPECT_EQ(FinishLimits(&l), "");
  for (const CgroupParentDir& d : dirs)
    EXPECT_FALSE(std::filesystem::exists(d.dir)) << d.dir;
}

TEST_F(LimitedRun, ACgroupThatCannotBeMadeFallsBackToRlimitsAndSaysWhy) {
  CgroupParent parent = FindCgroupParent(true, true);
  if (parent.version == 0) {
    SAFESH_SKIP_MISSING("no cgroup can be made here: " << parent.why_not);
  }
  // pids.max refuses more than the kernel's largest pid_max (the settings do too).
  CommandLimits l;
  PrepareLimits({5000000, 256 << 20}, "", &l);
  EXPECT_EQ(l.via, "rlimit");
  EXPECT_TRUE(l.fell_back);
  EXPECT_NE(l.reason.find("looked usable but its cgroup could not be made: cannot write 5000000"),
            std::string::npos)
      << l.reason;
  EXPECT_TRUE(l.cgroup.dirs.empty());
  // Nothing of the half-made cgroup is left.
  std::string prefix = "safesh-" + PidNamespaceId() + "-" + std::to_string(getpid()) + "-";
  for (const CgroupParentDir& d : parent.dirs) {
    for (const auto& e : std::filesystem::directory_iterator(d.dir))
      EXPECT_FALSE(e.path().filename().string().starts_with(prefix)) << e.path();
  }
  // The command still runs, with rlimits.
  std::string out;
  Run("ulimit -d", &l, &out);
  EXPECT_EQ(out, "262144\n");
}

}  // namespace
}  // namespace safesh::exec
