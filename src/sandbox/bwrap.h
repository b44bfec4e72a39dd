// The bubblewrap command line for a SandboxSpec, and finding bubblewrap and checking that it can
// build a sandbox on this machine.
#pragma once

#include <string>
#include <vector>

#include "exec/launch_plan.h"
#include "sandbox/spec.h"
#include "util/unique_fd.h"

namespace safesh::sandbox {

// bwrap's arguments (without the program) to run `inner` (an argv) under `spec`, in `cwd`
// (a path inside the sandbox), with the seccomp filter read from descriptor `seccomp_fd`
// (-1: none). Each step:
//   --die-with-parent       the sandbox dies with the guard
//   --unshare-pid           its own PID namespace: when it ends, every process in it dies
//   --new-session           no controlling terminal inside (TIOCSTI)
//   --cap-drop ALL          no capabilities, even when safesh runs as root
//   --unshare-net           unless the network is allowed
//   --ro-bind / /           everything read-only ...
//   --dev /dev, --proc /proc  a fresh /dev and a /proc of the namespace (no host processes)
//   --bind W W              ... but the writable roots
//   --ro-bind R R           ... and read-only paths inside them again
//   --ro-bind /dev/null S   host UNIX sockets (connect() is refused)
//   --ro-bind /dev/null F   blocked files
//   --tmpfs D --remount-ro D  blocked directories: empty and read-only
//   --seccomp FD            the filter, applied to the command
std::vector<std::string> BwrapArgs(const SandboxSpec& spec, const std::string& cwd, int seccomp_fd,
                                   const std::vector<std::string>& inner);

// bwrap's path (/usr/bin/bwrap, /bin/bwrap, or from PATH); empty when it is not installed.
std::string FindBwrap();

// Whether bwrap can build a sandbox here: runs it once, with the namespaces a command gets, on
// /bin/true. Empty when it works, else what went wrong (bwrap's own message).
std::string ProbeBwrap(const std::string& bwrap, bool network);

// ProbeBwrap with its answer remembered in `cache_file` (in safesh's private state folder) for
// as long as nothing it depends on changes: the boot, bubblewrap's file, the user, and the
// kernel settings that allow or restrict user namespaces. A sandbox start costs as much as a
// short command, and this saves one on every `safesh run`. Without `cache_file` it just probes.
std::string ProbeBwrapCached(const std::string& bwrap, const std::string& cache_file);

// Forgets a remembered answer (when bubblewrap failed although the cache said it works).
void ForgetProbe(const std::string& cache_file);

// Turns an unsandboxed plan (bash -c ...) into one that runs it under bwrap. The plan's cwd
// descriptor stays the guard's starting point; `cwd` is the same directory's path, which the
// sandbox changes to. With `confine` (safesh-confine's path), bwrap starts the command through
// it with a Landlock ruleset for `spec` (descriptor 4), a second layer under the mounts. False
// with a message when the seccomp filter or the ruleset cannot be built; their descriptors are
// kept in *seccomp and *ruleset (they must stay open until the command has started).
bool SandboxPlan(const std::string& bwrap, const SandboxSpec& spec, const std::string& cwd,
                 const std::string& confine, exec::LaunchPlan* plan, util::UniqueFd* seccomp,
                 util::UniqueFd* ruleset, std::string* error);

}  // namespace safesh::sandbox
