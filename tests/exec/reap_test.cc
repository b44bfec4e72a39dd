#include "exec/reap.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

namespace safesh::exec {
namespace {

void KillAll(const std::vector<pid_t>& started) {
  for (pid_t p : started)
    kill(p, SIGKILL);
  for (pid_t p : started)
    waitpid(p, nullptr, 0);
}

// Forks `n` children that wait for a signal; none (the started ones killed) if a fork fails.
std::vector<pid_t> StartWaitingChildren(int n) {
  std::vector<pid_t> started;
  for (int i = 0; i < n; ++i) {
    pid_t pid = fork();
    if (pid == 0) {
      pause();
      _exit(0);
    }
    if (pid < 0) {
      KillAll(started);
      return {};
    }
    started.push_back(pid);
  }
  return started;
}

TEST(Reap, BothWaysOfFindingChildrenFindThem) {
  std::vector<pid_t> started = StartWaitingChildren(3);
  ASSERT_EQ(started.size(), static_cast<size_t>(3)) << "cannot fork";
  pid_t listed[64], scanned[64];
  int n = static_cast<int>(ListDescendants(listed, 64));
  int m = ScanProcForChildren(scanned, 64);
  std::vector<pid_t> a(listed, listed + std::max(n, 0)), b(scanned, scanned + std::max(m, 0));
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  std::sort(started.begin(), started.end());
  for (pid_t p : started) {
    EXPECT_TRUE(std::binary_search(a.begin(), a.end(), p)) << p;
    EXPECT_TRUE(std::binary_search(b.begin(), b.end(), p)) << p;
  }
  KillAll(started);
}

// A reaper with more children than one read of its children file holds (about 800 pids in
// 4 KiB): each is listed once. A fork bomb's orphans all belong to the sandbox's PID 1, and a
// count that stopped at the first 4 KiB never saw the bomb reach its cap.
TEST(Reap, EveryChildOfAProcessWithThousandsIsListedOnce) {
  constexpr int kChildren = 2000;
  std::vector<pid_t> started = StartWaitingChildren(kChildren);
  ASSERT_EQ(started.size(), static_cast<size_t>(kChildren)) << "cannot fork";
  std::vector<pid_t> listed(kChildren + 64);
  size_t n = ListDescendants(listed.data(), listed.size());
  listed.resize(n);
  std::sort(listed.begin(), listed.end());
  EXPECT_EQ(std::adjacent_find(listed.begin(), listed.end()), listed.end()) << "listed twice";
  size_t found = 0;
  for (pid_t p : started)
    found += std::binary_search(listed.begin(), listed.end(), p) ? 1 : 0;
  EXPECT_EQ(found, started.size());
  KillAll(started);
}

}  // namespace
}  // namespace safesh::exec
