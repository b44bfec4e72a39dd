// The seccomp filter every sandboxed command runs under: a second layer that refuses system
// calls a command never needs and an escape would (see docs/architecture.md, "The sandbox").
#pragma once

#include <string>

#include "util/unique_fd.h"

namespace safesh::sandbox {

// Compiles the filter (libseccomp) to BPF in a sealed memory file, positioned at its start, as
// bwrap --seccomp reads it. Refused with EPERM: ioctl TIOCSTI and TIOCLINUX (typing into a
// terminal), io_uring, ptrace and process_vm_readv/writev, keyctl/add_key/request_key, bpf,
// perf_event_open, userfaultfd, kexec, the mount family, kernel modules, reboot, raw I/O ports,
// swap and setting the clock. With `network` false, socket() for AF_INET, AF_INET6 and AF_PACKET
// fails with EAFNOSUPPORT too (the network namespace is the first layer). False with a message when
// the filter cannot be built.
bool BuildSeccompFilter(bool network, util::UniqueFd* out, std::string* error);

}  // namespace safesh::sandbox
