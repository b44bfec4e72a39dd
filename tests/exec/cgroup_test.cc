// A command's cgroup (exec/cgroup.h): reading where it can be made, and on this machine (where
// this user may make one) making, configuring, joining, reading what was hit, killing and
// removing it, and sweeping those left by a killed safesh.
#include "exec/cgroup.h"
#include "support/requires.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "util/file.h"

namespace safesh::exec {
namespace {

namespace fs = std::filesystem;

// /proc/self/cgroup on a hybrid machine (v1 hierarchies and an empty cgroup2) like CI's.
constexpr char kHybrid[] =
    "9:name=systemd:/\n8:pids:/\n4:memory:/process_api/abc\n2:cpu,cpuacct:/x\n0::/\n";

TEST(CgroupPaths, EachHierarchysPathIsFoundByItsController) {
  EXPECT_EQ(CgroupPathFor(kHybrid, "pids"), "/");
  EXPECT_EQ(CgroupPathFor(kHybrid, "memory"), "/process_api/abc");
  EXPECT_EQ(CgroupPathFor(kHybrid, "cpuacct"), "/x");  // co-mounted controllers
  EXPECT_EQ(CgroupPathFor(kHybrid, ""), "/");          // the cgroup2 line
  EXPECT_EQ(CgroupPathFor(kHybrid, "io"), std::nullopt);
  EXPECT_EQ(CgroupPathFor("0::/user.slice/a:b.scope\n", ""), "/user.slice/a:b.scope");
  EXPECT_EQ(CgroupPathFor("4:memory:/m\n", ""), std::nullopt);  // no v2 line
}

TEST(CgroupPaths, TheDirectoryIsTheMountPointPlusThePathBelowTheMountsRoot) {
  const std::string mountinfo =
      "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
      "32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct\n"
      "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime shared:9 - cgroup cgroup rw,memory\n"
      "39 31 0:36 /docker/c1 /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids\n"
      "41 31 0:38 / /sys/fs/cgroup/un\\040ified rw,relatime - cgroup2 cgroup2 rw\n";
  EXPECT_EQ(CgroupDirectory(mountinfo, "memory", "/process_api/abc"),
            "/sys/fs/cgroup/memory/process_api/abc");
  EXPECT_EQ(CgroupDirectory(mountinfo, "cpuacct", "/"), "/sys/fs/cgroup/cpu,cpuacct");
  EXPECT_EQ(CgroupDirectory(mountinfo, "", "/a/b"), "/sys/fs/cgroup/un ified/a/b");
  // A mount of part of the hierarchy shows only what is below its root.
  EXPECT_EQ(CgroupDirectory(mountinfo, "pids", "/docker/c1"), "/sys/fs/cgroup/pids");
  EXPECT_EQ(CgroupDirectory(mountinfo, "pids", "/docker/c1/sub"), "/sys/fs/cgroup/pids/sub");
  EXPECT_EQ(CgroupDirectory(mountinfo, "pids", "/docker/c10"), std::nullopt);
  EXPECT_EQ(CgroupDirectory(mountinfo, "pids", "/"), std::nullopt);
  EXPECT_EQ(CgroupDirectory(mountinfo, "io", "/"), std::nullopt);
  // tmpfs is not a cgroup mount, whatever its options.
  EXPECT_EQ(CgroupDirectory("1 0 0:1 / /x rw - tmpfs memory rw,memory\n", "memory", "/"),
            std::nullopt);
}

// The rest needs a machine where this user may make cgroups with both controllers.
class LiveCgroup : public ::testing::Test {
 protected:
  void SetUp() override {
    parent_ = FindCgroupParent(true, true);
    if (parent_.version == 0) {
      SAFESH_SKIP_MISSING("no cgroup with pids and memory can be made here: " << parent_.why_not);
    }
  }

  // Forks a process that joins `cg` (as the guard's child does) and then runs `body`; its exit
  // code is what `body` returns. Returns once it has joined.
  static pid_t ForkJoined(const CommandCgroup& cg, int (*body)()) {
    int joined[2];
    EXPECT_EQ(pipe(joined), 0);
    pid_t pid = fork();
    if (pid == 0) {
      close(joined[0]);
      for (const util::UniqueFd& fd : cg.procs) {
        if (write(fd.get(), "0", 1) != 1) _exit(120);
      }
      close(joined[1]);
      _exit(body());
    }
    close(joined[1]);
    char byte;
    EXPECT_EQ(read(joined[0], &byte, 1), 0);  // end-of-file: it has joined (or died)
    close(joined[0]);
    return pid;
  }

  static int Wait(pid_t pid) {
    int status = 0;
    EXPECT_EQ(waitpid(pid, &status, 0), pid);
    return status;
  }

  CgroupParent parent_;
};

// Touches 128 MiB, a MiB at a time; 0 when it could.
int Allocate128MiB() {
  for (int i = 0; i < 128; ++i) {
    void* p = mmap(nullptr, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return 1;
    memset(p, 1, 1 << 20);
  }
  return 0;
}

// Starts 20 processes that wait; returns how many started. They are left running (for the
// cgroup's removal to kill) unless g_reap_them is set.
bool g_reap_them = false;
int Fork20() {
  pid_t pids[20];
  int started = 0;
  for (int i = 0; i < 20; ++i) {
    pid_t p = fork();
    if (p == 0) {
      pause();
      _exit(0);
    }
    if (p > 0) pids[started++] = p;
  }
  for (int i = 0; g_reap_them && i < started; ++i) {
    kill(pids[i], SIGKILL);
    waitpid(pids[i], nullptr, 0);
  }
  return started;
}

TEST_F(LiveCgroup, IsMadeWithItsLimitsJoinedAndRemoved) {
  CommandCgroup cg;
  std::string error;
  ASSERT_TRUE(CreateCommandCgroup(parent_, 64, 256 << 20, &cg, &error)) << error;
  ASSERT_EQ(cg.version, parent_.version);
  ASSERT_EQ(cg.procs.size(), cg.dirs.size());
  std::string name = cg.dirs[0].dir.substr(cg.dirs[0].dir.rfind('/') + 1);
  EXPECT_EQ(name.rfind("safesh-" + PidNamespaceId() + "-" + std::to_string(getpid()) + "-", 0), 0u)
      << name;
  for (const CgroupParentDir& d : cg.dirs) {
    ASSERT_TRUE(fs::is_directory(d.dir)) << d.dir;
    if (d.pids) {
      EXPECT_EQ(util::ReadFirstLine(d.dir + "/pids.max"), "64");
    }
    if (d.memory) {
      EXPECT_EQ(
          util::ReadFirstLine(d.dir + (cg.version == 2 ? "/memory.max" : "/memory.limit_in_bytes")),
          "268435456");
    }
  }
  // A process that joins is listed in each directory.
  pid_t pid = ForkJoined(cg, [] { return pause(); });
  for (const CgroupParentDir& d : cg.dirs)
    EXPECT_EQ(util::ReadFirstLine(d.dir + "/cgroup.procs"), std::to_string(pid)) << d.dir;
  EXPECT_EQ(ReadCgroupHit(cg), CgroupHit::kNone);
  // Removal kills it (it is this test's child: reaped here).
  std::vector<CgroupParentDir> dirs = cg.dirs;
  ASSERT_TRUE(RemoveCommandCgroup(&cg, &error)) << error;
  EXPECT_TRUE(WIFSIGNALED(Wait(pid)));
  for (const CgroupParentDir& d : dirs)
    EXPECT_FALSE(fs::exists(d.dir)) << d.dir;
  // Going out of scope removes it too.
  {
    CommandCgroup scoped;
    ASSERT_TRUE(CreateCommandCgroup(parent_, 64, 0, &scoped, &error)) << error;
    dirs = scoped.dirs;
    ASSERT_TRUE(fs::is_directory(dirs[0].dir));
  }
  for (const CgroupParentDir& d : dirs)
    EXPECT_FALSE(fs::exists(d.dir)) << d.dir;
}

TEST_F(LiveCgroup, AProcessLimitRefusesForksIsReportedAndWhatIsLeftIsKilled) {
  // The attempt is real: without the cgroup all 20 start.
  g_reap_them = true;
  pid_t free = fork();
  if (free == 0) _exit(Fork20());
  int status = Wait(free);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 20);
  g_reap_them = false;

  CommandCgroup cg;
  std::string error;
  ASSERT_TRUE(CreateCommandCgroup(parent_, 8, 0, &cg, &error)) << error;
  status = Wait(ForkJoined(cg, Fork20));
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 7);  // itself and 7 more
  EXPECT_EQ(ReadCgroupHit(cg), CgroupHit::kProcesses);
  // Its 7 children outlived it (re-parented away from this test): removal kills them first.
  std::string pids_dir;
  for (const CgroupParentDir& d : cg.dirs) {
    if (d.pids) pids_dir = d.dir;
  }
  std::string members, ignored;
  ASSERT_TRUE(util::ReadWholeFile(pids_dir + "/cgroup.procs", &members, &ignored));
  EXPECT_EQ(std::count(members.begin(), members.end(), '\n'), 7) << members;
  ASSERT_TRUE(RemoveCommandCgroup(&cg, &error)) << error;
  EXPECT_FALSE(fs::exists(pids_dir));
}

TEST_F(LiveCgroup, AMemoryLimitKillsAndIsReported) {
  // The attempt is real: without the cgroup, 128 MiB are touched.
  pid_t free = fork();
  if (free == 0) _exit(Allocate128MiB());
  int status = Wait(free);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0);

  CommandCgroup cg;
  std::string error;
  ASSERT_TRUE(CreateCommandCgroup(parent_, 0, 32 << 20, &cg, &error)) << error;
  status = Wait(ForkJoined(cg, Allocate128MiB));
  ASSERT_TRUE(WIFSIGNALED(status)) << "exited " << WEXITSTATUS(status);
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
  EXPECT_EQ(ReadCgroupHit(cg), CgroupHit::kMemory);
}

TEST_F(LiveCgroup, CgroupsOfAGoneSafeshAreSweptAndNoOthers) {
  std::string dir = parent_.dirs[0].dir;
  std::string ns = PidNamespaceId();
  pid_t dead = fork();
  if (dead == 0) _exit(0);
  Wait(dead);  // no process has this pid now
  pid_t alive = fork();
  if (alive == 0) {
    pause();
    _exit(0);
  }
  auto name = [&](const std::string& pidns, pid_t pid, int n) {
    return dir + "/safesh-" + pidns + "-" + std::to_string(pid) + "-" + std::to_string(n);
  };
  const std::string gone = name(ns, dead, 1);
  const std::string gone_with_sub = name(ns, dead, 2);
  const std::string own_unused = name(ns, getpid(), 999999);
  const std::string of_live = name(ns, alive, 1);
  const std::string other_ns = name("1", dead, 1);
  const std::string unrelated = dir + "/safesh-tool";
  for (const std::string& d : {gone, gone_with_sub, own_unused, of_live, other_ns, unrelated})
    ASSERT_EQ(mkdir(d.c_str(), 0755), 0) << d << ": " << strerror(errno);
  ASSERT_EQ(mkdir((gone_with_sub + "/sub").c_str(), 0755), 0);
  EXPECT_GE(RemoveStaleCgroups(dir), 3);
  EXPECT_FALSE(fs::exists(gone));
  EXPECT_FALSE(fs::exists(gone_with_sub));
  EXPECT_FALSE(fs::exists(own_unused));
  EXPECT_TRUE(fs::exists(of_live));
  EXPECT_TRUE(fs::exists(other_ns));
  EXPECT_TRUE(fs::exists(unrelated));
  // Making a command's cgroup sweeps as well.
  ASSERT_EQ(mkdir(gone.c_str(), 0755), 0);
  {
    CommandCgroup cg;
    std::string error;
    ASSERT_TRUE(CreateCommandCgroup(parent_, 64, 0, &cg, &error)) << error;
    EXPECT_FALSE(fs::exists(gone));
  }
  kill(alive, SIGKILL);
  Wait(alive);
  for (const std::string& d : {of_live, other_ns, unrelated})
    EXPECT_EQ(rmdir(d.c_str()), 0) << d;
}

}  // namespace
}  // namespace safesh::exec
