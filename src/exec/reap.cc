#include "exec/reap.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>

namespace safesh::exec {
namespace {

// Parses decimal pids separated by spaces/newlines; returns how many fit in `pids`.
int ParsePids(const char* buf, ssize_t n, pid_t* pids, size_t cap) {
  int count = 0;
  pid_t cur = 0;
  bool in_num = false;
  for (ssize_t i = 0; i <= n; ++i) {
    char c = i < n ? buf[i] : ' ';
    if (c >= '0' && c <= '9') {
      cur = cur * 10 + (c - '0');
      in_num = true;
    } else if (in_num) {
      if (static_cast<size_t>(count) < cap) pids[count++] = cur;
      cur = 0;
      in_num = false;
    }
  }
  return count;
}

// Calls fn(name) for each entry of the directory `path` whose name is a number (a pid or a
// thread id). Reads with getdents64 into a buffer on the stack: no allocation.
template <typename Fn>
bool ForEachNumericEntry(const char* path, Fn&& fn) {
  int dir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return false;
  struct Dirent64 {
    ino64_t d_ino;
    off64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[1];
  };
  char ents[4096];
  for (;;) {
    long n = syscall(SYS_getdents64, dir, ents, sizeof ents);
    if (n <= 0) break;
    for (long off = 0; off < n;) {
      const Dirent64* d = reinterpret_cast<const Dirent64*>(ents + off);
      off += d->d_reclen;
      if (d->d_name[0] >= '1' && d->d_name[0] <= '9') fn(d->d_name);
    }
  }
  close(dir);
  return true;
}

}  // namespace

int ScanProcForChildren(pid_t* pids, size_t cap) {
  pid_t self = getpid();
  int count = 0;
  bool listed = ForEachNumericEntry("/proc", [&](const char* name) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%s/stat", name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    char stat[512];
    ssize_t r = read(fd, stat, sizeof stat - 1);
    close(fd);
    if (r <= 0) return;
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so start after the
    // last ')'.
    ssize_t close_paren = -1;
    for (ssize_t k = 0; k < r; ++k) {
      if (stat[k] == ')') close_paren = k;
    }
    if (close_paren < 0 || close_paren + 4 >= r) return;
    pid_t ppid = 0;
    for (ssize_t k = close_paren + 4; k < r && stat[k] >= '0' && stat[k] <= '9'; ++k)
      ppid = ppid * 10 + (stat[k] - '0');
    if (ppid != self) return;
    pid_t pid = 0;
    for (const char* p = name; *p >= '0' && *p <= '9'; ++p)
      pid = pid * 10 + (*p - '0');
    if (static_cast<size_t>(count) < cap) pids[count++] = pid;
  });
  return listed ? count : -1;
}

namespace {

// Appends the children of every thread of `pid` to pids[*n, cap). The whole file, in pieces:
// a fork bomb's orphans all belong to one reaper (the sandbox's PID 1), thousands of them, and a
// count that read only the first piece would never see the command reach its process cap.
void AppendChildrenOf(pid_t pid, pid_t* pids, size_t cap, size_t* n) {
  char tasks[64];
  snprintf(tasks, sizeof tasks, "/proc/%d/task", pid);
  ForEachNumericEntry(tasks, [&](const char* tid) {
    char file[96];
    snprintf(file, sizeof file, "%s/%s/children", tasks, tid);
    int fd = open(file, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    char buf[4096];
    size_t kept = 0;  // the digits of a number cut at the end of the last piece
    for (;;) {
      ssize_t r;
      do {
        r = read(fd, buf + kept, sizeof buf - kept);
      } while (r < 0 && errno == EINTR);
      if (r <= 0) {
        if (kept > 0 && *n < cap)
          *n +=
              static_cast<size_t>(ParsePids(buf, static_cast<ssize_t>(kept), pids + *n, cap - *n));
        break;
      }
      size_t len = kept + static_cast<size_t>(r);
      size_t whole = len;
      while (whole > 0 && buf[whole - 1] >= '0' && buf[whole - 1] <= '9')
        --whole;  // a number that may go on in the next piece
      if (*n < cap)
        *n += static_cast<size_t>(ParsePids(buf, static_cast<ssize_t>(whole), pids + *n, cap - *n));
      kept = len - whole;
      if (kept == sizeof buf) kept = 0;  // no separator in a whole piece: not a pid list
      memmove(buf, buf + whole, kept);
    }
    close(fd);
  });
}

}  // namespace

size_t ListDescendants(pid_t* pids, size_t cap) {
  return ListDescendantsOf(getpid(), pids, cap);
}

size_t ListDescendantsOf(pid_t root, pid_t* pids, size_t cap) {
  size_t n = 0;
  AppendChildrenOf(root, pids, cap, &n);
  for (size_t i = 0; i < n && n < cap; ++i)
    AppendChildrenOf(pids[i], pids, cap, &n);
  return n;
}

namespace {

long long NowMs() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<long long>(t.tv_sec) * 1000 + t.tv_nsec / 1000000;
}

// Room for the descendants found in one round. Static: the guard must not allocate.
pid_t g_descendants[16384];

}  // namespace

void KillDescendantsOnce(pid_t pgid) {
  // The group first: its members die together.
  if (pgid > 0) kill(-pgid, SIGKILL);
  constexpr size_t kCap = sizeof g_descendants / sizeof g_descendants[0];
  size_t n = ListDescendants(g_descendants, kCap);
  if (n == 0 && access("/proc/thread-self/children", F_OK) != 0) {
    // A kernel without the children files (CONFIG_PROC_CHILDREN off): at least the direct
    // children, found by their stat files.
    n = static_cast<size_t>(std::max(0, ScanProcForChildren(g_descendants, kCap)));
  }
  for (size_t i = 0; i < n; ++i)
    kill(g_descendants[i], SIGKILL);
}

bool KillAllChildren(pid_t pgid, pid_t watch, int* watch_status) {
  long long deadline = NowMs() + kKillDeadlineMs;
  for (;;) {
    // Every descendant, however deep and whatever its session: each round kills all that are
    // alive when it looks, so a process forking in a loop runs out of parents to fork from.
    KillDescendantsOnce(pgid);
    // Reap what has died.
    int status = 0;
    pid_t r;
    bool reaped = false;
    while ((r = waitpid(-1, &status, __WALL | WNOHANG)) > 0) {
      reaped = true;
      if (r == watch && watch_status != nullptr) *watch_status = status;
    }
    if (r < 0 && errno == ECHILD) return true;  // no child is left
    if (NowMs() > deadline) return false;
    if (!reaped) {
      // Killed processes take a moment to die.
      const timespec ms = {0, 1000 * 1000};
      nanosleep(&ms, nullptr);
    }
  }
}

}  // namespace safesh::exec
