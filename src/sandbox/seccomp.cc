#include "sandbox/seccomp.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <memory>
#include <string_view>

namespace safesh::sandbox {
namespace {

struct CtxDeleter {
  void operator()(scmp_filter_ctx c) const { seccomp_release(c); }
};

// Syscalls refused outright. Names, not numbers: libseccomp resolves them for this
// architecture and skips (returns __NR_SCMP_ERROR for) those it does not have.
constexpr const char* kDenied[] = {
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",  // io_uring
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",  // other processes
    "keyctl",
    "add_key",
    "request_key",  // kernel keyrings
    "bpf",
    "perf_event_open",
    "userfaultfd",
    "kexec_load",
    "kexec_file_load",  // kernel
    "mount",
    "umount",
    "umount2",
    "pivot_root",
    "move_mount",
    "open_tree",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "mount_setattr",  // mounts
    "init_module",
    "finit_module",
    "delete_module",
    "reboot",  // the kernel
    "iopl",
    "ioperm",  // raw I/O ports
    "swapon",
    "swapoff",
    "settimeofday",
    "clock_settime",
    "clock_adjtime",
    "adjtimex",  // the system clock (reading the time itself goes through clock_gettime)
};

// The calls that can give a file a mode, and which of their arguments is the mode.
struct ModeArg {
  const char* name;
  unsigned arg;
};
constexpr ModeArg kModeSetters[] = {
    {"chmod", 1},  {"fchmod", 1}, {"fchmodat", 2}, {"fchmodat2", 2}, {"open", 2},
    {"openat", 3}, {"creat", 1},  {"mknod", 1},    {"mknodat", 2},
};

// fchmodat2 (Linux 6.6) is newer than Debian 12's libseccomp, which cannot name it; its number
// is the same on every architecture that uses the common system call table.
int ResolveSyscall(const char* name) {
  int nr = seccomp_syscall_resolve_name(name);
#if defined(__x86_64__) || defined(__aarch64__)
  if (nr == __NR_SCMP_ERROR && std::string_view(name) == "fchmodat2") nr = 452;
#endif
  return nr;
}

}  // namespace

bool BuildSeccompFilter(const SeccompOptions& options, util::UniqueFd* out, std::string* error) {
  std::unique_ptr<void, CtxDeleter> ctx(seccomp_init(SCMP_ACT_ALLOW));
  if (!ctx) {
    *error = "cannot create a seccomp filter";
    return false;
  }
  auto fail = [&](const char* what, int rc) {
    *error = std::string("cannot build the seccomp filter: ") + what + ": " + strerror(-rc);
    return false;
  };
  int rc;
  for (const char* name : kDenied) {
    int nr = seccomp_syscall_resolve_name(name);
    if (nr == __NR_SCMP_ERROR) continue;
    if ((rc = seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(EPERM), nr, 0)) != 0)
      return fail(name, rc);
  }
  // The ioctl request is an int: compare its low 32 bits only, so a value with high bits set
  // cannot slip past (the kernel ignores them).
  for (unsigned long request :
       {static_cast<unsigned long>(TIOCSTI), static_cast<unsigned long>(TIOCLINUX)}) {
    scmp_arg_cmp cmp{1, SCMP_CMP_MASKED_EQ, 0xffffffffu, request};
    rc = seccomp_rule_add_array(ctx.get(), SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1, &cmp);
    if (rc != 0) return fail("ioctl", rc);
  }
  // Setuid and setgid bits: each bit on its own, as "any of them set" is two masked compares.
  for (const ModeArg& m : kModeSetters) {
    int nr = ResolveSyscall(m.name);
    if (nr == __NR_SCMP_ERROR) continue;
    for (scmp_datum_t bit :
         {static_cast<scmp_datum_t>(S_ISUID), static_cast<scmp_datum_t>(S_ISGID)}) {
      scmp_arg_cmp cmp{m.arg, SCMP_CMP_MASKED_EQ, bit, bit};
      if ((rc = seccomp_rule_add_array(ctx.get(), SCMP_ACT_ERRNO(EPERM), nr, 1, &cmp)) != 0)
        return fail(m.name, rc);
    }
  }
  // No user namespace of its own: in one a command holds every capability over what the
  // namespace owns, which opens kernel code (netfilter, mounts of its own) that no command needs.
  // clone and unshare are refused when asked for one (flags are compared on their low 32 bits,
  // which hold CLONE_NEWUSER); clone3, whose flags lie in memory the filter cannot read, fails
  // with ENOSYS, and the C library falls back to clone.
  for (const char* name : {"clone", "unshare"}) {
    int nr = seccomp_syscall_resolve_name(name);
    if (nr == __NR_SCMP_ERROR) continue;
    scmp_arg_cmp cmp{0, SCMP_CMP_MASKED_EQ, static_cast<scmp_datum_t>(CLONE_NEWUSER),
                     static_cast<scmp_datum_t>(CLONE_NEWUSER)};
    if ((rc = seccomp_rule_add_array(ctx.get(), SCMP_ACT_ERRNO(EPERM), nr, 1, &cmp)) != 0)
      return fail(name, rc);
  }
  if (int nr = seccomp_syscall_resolve_name("clone3"); nr != __NR_SCMP_ERROR) {
    if ((rc = seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(ENOSYS), nr, 0)) != 0)
      return fail("clone3", rc);
  }
  if (int nr = seccomp_syscall_resolve_name("openat2"); nr != __NR_SCMP_ERROR) {
    if ((rc = seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(ENOSYS), nr, 0)) != 0)
      return fail("openat2", rc);
  }
  // Socket families and types are ints: only their low 32 bits are compared, as the kernel
  // reads them (a family of 0x100000001 is AF_UNIX to the kernel).
  if (!options.unix_sockets) {
    scmp_arg_cmp cmp{0, SCMP_CMP_MASKED_EQ, 0xffffffffu, static_cast<scmp_datum_t>(AF_UNIX)};
    rc = seccomp_rule_add_array(ctx.get(), SCMP_ACT_ERRNO(EPERM), SCMP_SYS(socket), 1, &cmp);
    if (rc != 0) return fail("socket", rc);
    // Pairs only of the types that stay connected to each other for good: stream and seqpacket.
    // A datagram pair can still sendto() a named socket, or be connected to one, and the kernel
    // makes SOCK_RAW a datagram socket in this family; so every type but those two is refused
    // (the type's low 4 bits; the rest are SOCK_NONBLOCK and SOCK_CLOEXEC).
    for (scmp_datum_t type = 0; type <= 0xf; ++type) {
      if (type == SOCK_STREAM || type == SOCK_SEQPACKET) continue;
      scmp_arg_cmp pair[2] = {
          {0, SCMP_CMP_MASKED_EQ, 0xffffffffu, static_cast<scmp_datum_t>(AF_UNIX)},
          {1, SCMP_CMP_MASKED_EQ, 0xf, type}};
      rc = seccomp_rule_add_array(ctx.get(), SCMP_ACT_ERRNO(EPERM), SCMP_SYS(socketpair), 2, pair);
      if (rc != 0) return fail("socketpair", rc);
    }
  }
  if (!options.network) {
    for (int family : {AF_INET, AF_INET6, AF_PACKET}) {
      scmp_arg_cmp cmp{0, SCMP_CMP_MASKED_EQ, 0xffffffffu, static_cast<scmp_datum_t>(family)};
      rc = seccomp_rule_add_array(ctx.get(), SCMP_ACT_ERRNO(EAFNOSUPPORT), SCMP_SYS(socket), 1,
                                  &cmp);
      if (rc != 0) return fail("socket", rc);
    }
  }
  // The filter goes to bwrap as a descriptor; a sealed memory file cannot be changed after.
  util::UniqueFd fd(memfd_create("safesh-seccomp", MFD_CLOEXEC | MFD_ALLOW_SEALING));
  if (!fd.valid()) {
    *error = std::string("cannot create a memory file for the seccomp filter: ") + strerror(errno);
    return false;
  }
  if ((rc = seccomp_export_bpf(ctx.get(), fd.get())) != 0) return fail("export", rc);
  if (fcntl(fd.get(), F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0 ||
      lseek(fd.get(), 0, SEEK_SET) != 0) {
    *error = std::string("cannot seal the seccomp filter: ") + strerror(errno);
    return false;
  }
  *out = std::move(fd);
  return true;
}

}  // namespace safesh::sandbox
