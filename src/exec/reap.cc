#include "exec/reap.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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

// The fallback: every /proc/N/stat whose parent field is the caller.
int ScanProcForChildren(pid_t* pids, size_t cap) {
  int dir = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return -1;
  pid_t self = getpid();
  int count = 0;
  char ents[4096];
  for (;;) {
    long n = syscall(SYS_getdents64, dir, ents, sizeof ents);
    if (n <= 0) break;
    for (long off = 0; off < n;) {
      struct Dirent64 {
        ino64_t d_ino;
        off64_t d_off;
        unsigned short d_reclen;
        unsigned char d_type;
        char d_name[1];
      };
      const Dirent64* d = reinterpret_cast<const Dirent64*>(ents + off);
      off += d->d_reclen;
      const char* name = d->d_name;
      if (name[0] < '1' || name[0] > '9') continue;
      char path[64] = "/proc/";
      size_t len = 6;
      for (const char* p = name; *p != '\0' && len < 50; ++p)
        path[len++] = *p;
      const char tail[] = "/stat";
      for (size_t k = 0; k < sizeof tail; ++k)
        path[len + k] = tail[k];
      int fd = open(path, O_RDONLY | O_CLOEXEC);
      if (fd < 0) continue;
      char stat[512];
      ssize_t r = read(fd, stat, sizeof stat - 1);
      close(fd);
      if (r <= 0) continue;
      // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so start after
      // the last ')'.
      ssize_t close_paren = -1;
      for (ssize_t k = 0; k < r; ++k) {
        if (stat[k] == ')') close_paren = k;
      }
      if (close_paren < 0 || close_paren + 4 >= r) continue;
      pid_t ppid = 0;
      for (ssize_t k = close_paren + 4; k < r && stat[k] >= '0' && stat[k] <= '9'; ++k)
        ppid = ppid * 10 + (stat[k] - '0');
      if (ppid != self) continue;
      pid_t pid = 0;
      for (const char* p = name; *p >= '0' && *p <= '9'; ++p)
        pid = pid * 10 + (*p - '0');
      if (static_cast<size_t>(count) < cap) pids[count++] = pid;
    }
  }
  close(dir);
  return count;
}

}  // namespace

int ListChildren(pid_t* pids, size_t cap) {
  int fd = open("/proc/thread-self/children", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ScanProcForChildren(pids, cap);
  char buf[8192];
  ssize_t n;
  do {
    n = read(fd, buf, sizeof buf);
  } while (n < 0 && errno == EINTR);
  close(fd);
  if (n < 0) return ScanProcForChildren(pids, cap);
  // A longer list is cut at a number boundary by the kernel only per page; drop a cut number.
  if (n == static_cast<ssize_t>(sizeof buf)) {
    while (n > 0 && buf[n - 1] != ' ')
      --n;
  }
  return ParsePids(buf, n, pids, cap);
}

bool KillAllChildren(pid_t pgid, pid_t watch, int* watch_status) {
  pid_t pids[512];
  int unseen_rounds = 0;
  for (;;) {
    // The group first: its members die together rather than a generation per round.
    if (pgid > 0) kill(-pgid, SIGKILL);
    // /proc/thread-self/children lists the children of this thread only; after a round where
    // a child existed but was not listed (forked by another thread), scan all of /proc.
    int n = unseen_rounds == 0 ? ListChildren(pids, sizeof pids / sizeof pids[0])
                               : ScanProcForChildren(pids, sizeof pids / sizeof pids[0]);
    for (int i = 0; i < n; ++i)
      kill(pids[i], SIGKILL);
    // Reap what has died; block only while a killed child is still on its way out.
    int status = 0;
    pid_t r = waitpid(-1, &status, n > 0 ? __WALL : (__WALL | WNOHANG));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return true;  // ECHILD: no child is left
    if (r == 0) {
      // A child exists that was not listed: it may have been re-parented a moment ago. Give
      // up after a while rather than spin; the caller reports that some may survive.
      if (++unseen_rounds > 200) return false;
      const timespec ms = {0, 1000 * 1000};
      nanosleep(&ms, nullptr);
      continue;
    }
    unseen_rounds = 0;
    if (r == watch && watch_status != nullptr) *watch_status = status;
  }
}

}  // namespace safesh::exec
