// safesh-confine: the first program bubblewrap starts inside the sandbox. It adds Landlock as a
// second file-system layer under the mounts (so that a way around a mount, should one exist,
// still meets the kernel's access control), then executes the command.
//
//   safesh-confine FD MANIFEST NPROC -- PROGRAM [ARG...]
//
// First it checks that every mount bubblewrap made is where it was meant to be (MANIFEST, a
// descriptor, below). bubblewrap resolves each mount's destination by its path, following
// links, while a command already running in the same workspace may be swapping a folder on
// that path for a link: the mask or read-only bind then lands on a decoy and the real
// .git/config or .env is left open. Walking each destination here, after every mount is made,
// one component at a time and refusing any link, and finding the mount there, proves the
// placement; a mount that moves later moves with the file it protects.
//
// FD is "-" when the kernel has no Landlock: only the check is made.
//
// NPROC ("-": none) is the command's process cap, set here as RLIMIT_NPROC's soft limit. Inside
// the user namespace bubblewrap made for an ordinary user, the kernel counts that limit against
// the tasks of this namespace alone (and the namespace as a whole against the limit its maker
// had, which safesh set above all of the user's tasks): a fork bomb stops at exactly its cap,
// and the user's other processes keep the room they had.
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
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "sandbox/landlock_abi.h"

namespace {

using namespace safesh::sandbox::landlock_abi;

[[noreturn]] void Fail(const char* what) {
  fprintf(stderr, "safesh: the Landlock layer inside the sandbox failed (%s: %s); not running\n",
          what, strerror(errno));
  _exit(126);
}

[[noreturn]] void Misplaced(const char* path, const char* why) {
  fprintf(stderr,
          "safesh: a mount of the sandbox is not where it was meant to be (%s: %s): a path "
          "changed while the sandbox was being built; not running\n",
          path, why);
  _exit(126);
}

// `path` (absolute) opened with O_PATH one component at a time, refusing links: -1 when a
// component is missing or a link (util::OpenNoLinks, which this program cannot link).
int OpenNoLinks(const char* path) {
  int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
  char name[4096];
  const char* p = path;
  while (fd >= 0 && *p != '\0') {
    while (*p == '/')
      ++p;
    size_t n = strcspn(p, "/");
    if (n == 0) break;
    if (n >= sizeof name) {
      close(fd);
      return -1;
    }
    memcpy(name, p, n);
    name[n] = '\0';
    p += n;
    int next = openat(fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    close(fd);
    fd = next;
    struct stat st;
    if (fd >= 0 && (fstat(fd, &st) != 0 || S_ISLNK(st.st_mode))) {
      close(fd);
      fd = -1;
    }
  }
  return fd;
}

// The manifest (bwrap.h: MountManifest): records of NUL-terminated fields, one per mount:
//   "b" RO DEV INO PATH  a bind from a descriptor: at PATH the same inode, read-only if RO is 1
//   "n" PATH             a mask with /dev/null: the null device
//   "t" PATH             an empty read-only tmpfs
//   "d" PATH             a read-only tmpfs that holds other mounts (root_map.h: a closed folder)
void CheckMounts(int manifest) {
  static char buf[1 << 20];
  size_t len = 0;
  for (;;) {
    ssize_t n = read(manifest, buf + len, sizeof buf - len);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) Fail("reading the mount manifest");
    if (n == 0) break;
    len += static_cast<size_t>(n);
    if (len == sizeof buf) {
      errno = EFBIG;
      Fail("reading the mount manifest");
    }
  }
  close(manifest);
  // Folders masked with an empty tmpfs: what lies below one is hidden by it (the mask itself is
  // checked), so entries there are not looked for.
  static const char* hidden[65536];
  size_t n_hidden = 0;
  for (size_t i = 0; i + 2 < len; ++i) {
    if ((i == 0 || buf[i - 1] == '\0') && buf[i] == 't' && buf[i + 1] == '\0' &&
        n_hidden < sizeof hidden / sizeof hidden[0])
      hidden[n_hidden++] = buf + i + 2;
  }
  auto under_a_mask = [&](const char* path) {
    for (size_t i = 0; i < n_hidden; ++i) {
      size_t n = strlen(hidden[i]);
      if (strncmp(path, hidden[i], n) == 0 && path[n] == '/') return true;
    }
    return false;
  };
  const char* fields[5];
  size_t at = 0;
  while (at < len) {
    fields[0] = buf + at;
    size_t count = fields[0][0] == 'b' ? 5 : 2;
    for (size_t i = 0; i < count; ++i) {
      const char* end = static_cast<const char*>(memchr(buf + at, '\0', len - at));
      if (end == nullptr) {
        errno = EINVAL;
        Fail("the mount manifest");
      }
      fields[i] = buf + at;
      at = static_cast<size_t>(end - buf) + 1;
    }
    const char* path = fields[count - 1];
    if (under_a_mask(path)) continue;
    int fd = OpenNoLinks(path);
    if (fd < 0) Misplaced(path, "it cannot be reached without following a link");
    struct stat st;
    struct statfs sfs;
    if (fstat(fd, &st) != 0 || fstatfs(fd, &sfs) != 0) Misplaced(path, strerror(errno));
    close(fd);
    bool read_only = (sfs.f_flags & ST_RDONLY) != 0;
    switch (fields[0][0]) {
      case 'b':
        if (st.st_dev != strtoull(fields[2], nullptr, 10) ||
            st.st_ino != strtoull(fields[3], nullptr, 10))
          Misplaced(path, "another file is there");
        if (fields[1][0] == '1' && !read_only) Misplaced(path, "it is not read-only");
        break;
      case 'n':
        if (!S_ISCHR(st.st_mode) || st.st_rdev != makedev(1, 3))
          Misplaced(path, "it is not the null device");
        break;
      case 't':
        if (sfs.f_type != TMPFS_MAGIC || !read_only || !S_ISDIR(st.st_mode))
          Misplaced(path, "it is not an empty read-only folder");
        break;
      case 'd':
        if (sfs.f_type != TMPFS_MAGIC || !read_only || !S_ISDIR(st.st_mode))
          Misplaced(path, "it is not a read-only tmpfs folder");
        break;
      default:
        errno = EINVAL;
        Fail("the mount manifest");
    }
  }
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

// A descriptor number from the command line, or -1 for "-".
int Descriptor(const char* arg, const char* what) {
  if (strcmp(arg, "-") == 0) return -1;
  char* end = nullptr;
  errno = 0;
  long fd = strtol(arg, &end, 10);
  if (errno != 0 || end == arg || *end != '\0' || fd < 3 || fd > 1024) {
    errno = EINVAL;
    Fail(what);
  }
  return static_cast<int>(fd);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 6 || strcmp(argv[4], "--") != 0 || argv[5][0] != '/') {
    fprintf(stderr,
            "usage: safesh-confine FD|- MANIFEST NPROC|- -- /PROGRAM [ARG...] (started by "
            "safesh)\n");
    return 126;
  }
  int fd = Descriptor(argv[1], "the ruleset descriptor");
  int manifest = Descriptor(argv[2], "the manifest descriptor");
  if (manifest < 0) {
    errno = EINVAL;
    Fail("the manifest descriptor");
  }
  CheckMounts(manifest);
  if (strcmp(argv[3], "-") != 0) {
    char* end = nullptr;
    errno = 0;
    unsigned long long n = strtoull(argv[3], &end, 10);
    rlimit r{};
    if (errno != 0 || end == argv[3] || *end != '\0' || n == 0 || getrlimit(RLIMIT_NPROC, &r) != 0)
      Fail("the process cap");
    // Lowered only: the hard limit stays what the guard set, and a cap above it is not raised.
    if (r.rlim_cur == RLIM_INFINITY || n < r.rlim_cur) r.rlim_cur = static_cast<rlim_t>(n);
    if (r.rlim_max != RLIM_INFINITY && r.rlim_cur > r.rlim_max) r.rlim_cur = r.rlim_max;
    if (setrlimit(RLIMIT_NPROC, &r) != 0) Fail("setting the process cap");
  }
  if (fd >= 0) {
    int abi = Version();
    if (abi < 1) Fail("Landlock");
    AddRule(fd, "/dev/pts", DeviceFile(abi) | LANDLOCK_ACCESS_FS_READ_DIR);
    AddRule(fd, "/dev/shm", WritableTree(abi));
    AddRule(fd, "/tmp", WritableTree(abi));
    AddRule(fd, "/var/tmp", WritableTree(abi));
    // bubblewrap sets no-new-privileges already; it is what lets an unprivileged process
    // restrict itself, so it is asked for again rather than assumed.
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) Fail("no-new-privileges");
    if (syscall(SYS_landlock_restrict_self, fd, 0) != 0) Fail("landlock_restrict_self");
    if (close(fd) != 0) Fail("closing the ruleset");
  }
  // Its own executable's descriptor, and anything else bubblewrap left open.
  if (syscall(SYS_close_range, 3u, ~0u, 0u) != 0) Fail("closing descriptors");
  execv(argv[5], argv + 5);
  Fail(argv[5]);
}
