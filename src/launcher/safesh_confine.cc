// safesh-confine: the first program bubblewrap starts inside the sandbox. It adds Landlock as a
// second file-system layer under the mounts (so that a way around a mount, should one exist,
// still meets the kernel's access control), then executes the command.
//
//   safesh-confine FD -- PROGRAM [ARG...]
//
// FD is a Landlock ruleset safesh built outside (landlock.h): read everything, write only the
// writable roots and harmless devices, no TCP without network, no abstract UNIX sockets or
// signals outside the sandbox. Its rules name host inodes, which bubblewrap's binds keep. What
// bubblewrap made anew inside (the /dev/pts instance, the /dev/shm tmpfs, and /tmp and
// /var/tmp when they are a tmpfs) has no host inode, so its rules are added here, in the
// sandbox's own view of the file system. safesh runs it from a descriptor (its path may be out
// of sight inside): every descriptor above 2 is closed before the command starts.
//
// It fails closed: if any step fails, the command does not run (exit 126, with the reason).
// It has no dependencies beyond libc and is linked statically, because it runs on every command.
#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sandbox/landlock_abi.h"

namespace {

using namespace safesh::sandbox::landlock_abi;

[[noreturn]] void Fail(const char* what) {
  fprintf(stderr, "safesh: the Landlock layer inside the sandbox failed (%s: %s); not running\n",
          what, strerror(errno));
  _exit(126);
}

// A rule for `path` as the sandbox sees it; a path bubblewrap did not make needs none.
void AddRule(int ruleset, const char* path, uint64_t access) {
  int fd = open(path, O_PATH | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return;
    Fail(path);
  }
  landlock_path_beneath_attr rule{};
  rule.allowed_access = access;
  rule.parent_fd = fd;
  if (syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) != 0)
    Fail(path);
  close(fd);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4 || strcmp(argv[2], "--") != 0 || argv[3][0] != '/') {
    fprintf(stderr, "usage: safesh-confine FD -- /PROGRAM [ARG...] (started by safesh)\n");
    return 126;
  }
  char* end = nullptr;
  errno = 0;
  long ruleset = strtol(argv[1], &end, 10);
  if (errno != 0 || end == argv[1] || *end != '\0' || ruleset < 3 || ruleset > 1024) {
    errno = EINVAL;
    Fail("the ruleset descriptor");
  }
  int abi = Version();
  if (abi < 1) Fail("Landlock");
  int fd = static_cast<int>(ruleset);
  AddRule(fd, "/dev/pts", DeviceFile(abi) | LANDLOCK_ACCESS_FS_READ_DIR);
  AddRule(fd, "/dev/shm", WritableTree(abi));
  AddRule(fd, "/tmp", WritableTree(abi));
  AddRule(fd, "/var/tmp", WritableTree(abi));
  // bubblewrap sets no-new-privileges already; it is what lets an unprivileged process
  // restrict itself, so it is asked for again rather than assumed.
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) Fail("no-new-privileges");
  if (syscall(SYS_landlock_restrict_self, fd, 0) != 0) Fail("landlock_restrict_self");
  if (close(fd) != 0) Fail("closing the ruleset");
  // Its own executable's descriptor, and anything else bubblewrap left open.
  if (syscall(SYS_close_range, 3u, ~0u, 0u) != 0) Fail("closing descriptors");
  execv(argv[3], argv + 3);
  Fail(argv[3]);
}
