// The seccomp filter every sandboxed command runs under: a second layer that refuses system
// calls a command never needs and an escape would (see docs/architecture.md, "The sandbox").
#pragma once

#include <string>

#include "util/unique_fd.h"

namespace safesh::sandbox {

// What the filter lets a command do beyond the fixed refusals below.
struct SeccompOptions {
  bool network = false;       // socket(AF_INET, AF_INET6, AF_PACKET)
  bool unix_sockets = false;  // socket(AF_UNIX); socketpair(AF_UNIX) is always allowed
};

// Compiles the filter (libseccomp) to BPF in a sealed memory file, positioned at its start, as
// bwrap --seccomp reads it. Refused with EPERM:
//   - ioctl TIOCSTI and TIOCLINUX (typing into a terminal), io_uring, ptrace and
//     process_vm_readv/writev, keyctl/add_key/request_key, bpf, perf_event_open, userfaultfd,
//     kexec, the mount family, kernel modules, reboot, raw I/O ports, swap, setting the clock;
//   - setting a setuid or setgid bit: chmod, fchmod, fchmodat, fchmodat2, and open, openat,
//     creat, mknod, mknodat with such a mode (a file left setuid in a shared folder is a way to
//     another user's rights, root's for a command root started); openat2, whose mode the filter
//     cannot read, fails with ENOSYS, so callers fall back to openat;
//   - a user namespace: clone and unshare with CLONE_NEWUSER; clone3 (its flags lie in memory)
//     fails with ENOSYS, so callers fall back to clone;
//   - unless `unix_sockets`, socket(AF_UNIX) and socketpair(AF_UNIX) of any type but stream
//     and seqpacket (a datagram pair, and SOCK_RAW, which the kernel makes one, can sendto() a
//     named socket): no host UNIX socket can then be reached, wherever it lies, and none has to
//     be found first (stream and seqpacket pairs, which reach nothing, still work). Families are
//     compared on their low 32 bits, as the kernel reads them.
// Unless `network`, socket() for AF_INET, AF_INET6 and AF_PACKET fails with EAFNOSUPPORT too (the
// network namespace is the first layer). False with a message when the filter cannot be built.
bool BuildSeccompFilter(const SeccompOptions& options, util::UniqueFd* out, std::string* error);

}  // namespace safesh::sandbox
