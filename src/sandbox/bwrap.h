// The bubblewrap command line for a SandboxSpec, and finding bubblewrap and checking that it can
// build a sandbox on this machine.
#pragma once

#include <string>
#include <vector>

#include "exec/launch_plan.h"
#include "sandbox/spec.h"
#include "util/unique_fd.h"

namespace safesh::sandbox {

// The sources of the mounts that lie where a command could change them (the writable roots,
// the read-only paths inside them, the private temporary folders, the allowed sockets), each
// opened once with O_PATH after the spec was built, walking the path one component at a time
// and refusing any link. bubblewrap then binds the descriptor (--bind-fd, --ro-bind-fd), not
// the path: a command that swaps a folder for a link to /proc between the check and the mount
// changes nothing, and if it did so before the open, the open fails and nothing runs. bubblewrap
// closes each descriptor once it is mounted, so the command never holds one (reopening an
// O_PATH descriptor of a read-only bind through /proc/self/fd would reach the writable mount).
struct BindSources {
  std::vector<util::UniqueFd> fds;  // in the order BwrapArgs binds them
};
bool OpenBindSources(const SandboxSpec& spec, BindSources* out, std::string* error);

// bwrap's arguments (without the program) to run `inner` (an argv) under `spec`, in `cwd`
// (a path inside the sandbox), with the seccomp filter read from descriptor `seccomp_fd`
// (-1: none) and the bind sources (OpenBindSources) from descriptor `first_bind_fd` on
// (-1: bound by path, as only the probe, on an empty spec, and the race test's unprotected
// control do). Each step:
//   --die-with-parent       the sandbox dies with the guard
//   --unshare-pid           its own PID namespace: when it ends, every process in it dies
//   --unshare-ipc           its own System V IPC and POSIX message queues (the host's shared
//                           memory segments are out of reach)
//   --unshare-uts           its own host name (sethostname cannot reach the host's)
//   --unshare-cgroup-try    its own view of the cgroup tree, where the kernel has one
//   --new-session           no controlling terminal inside (TIOCSTI)
//   --cap-drop ALL          no capabilities, even when safesh runs as root
//   --unshare-net           unless the network is allowed
//   --ro-bind / /           everything read-only ...
//   --dev /dev, --proc /proc  a fresh /dev and a /proc of the namespace (no host processes)
//   --size N --tmpfs /dev/shm  a /dev/shm of its own, sized
//   --bind-fd T /tmp, /var/tmp  the sandbox's own temporary folders (private_tmp.h), or a
//                           sized tmpfs
//   --bind-fd W W           ... but the writable roots
//   --ro-bind-fd R R        ... and read-only paths inside them again
//   --ro-bind-fd S S        allowed sockets that lie in the host's temporary folders
//   --ro-bind /dev/null S   host UNIX sockets (connect() is refused), when any may be made
//   --ro-bind /dev/null F   blocked files
//   --tmpfs D --remount-ro D  blocked directories: empty and read-only
//   --seccomp FD            the filter, applied to the command
std::vector<std::string> BwrapArgs(const SandboxSpec& spec, const std::string& cwd, int seccomp_fd,
                                   int first_bind_fd, const std::vector<std::string>& inner);

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

// What safesh-confine checks inside, once bubblewrap has made every mount: that each is where
// it was meant to be (bubblewrap resolves destinations by path, following links, and a command
// already running could swap a folder on that path for a link, so that a mask lands on a decoy
// and .git/config or .env stays open). A sealed memory file of NUL-terminated records: a bind
// ("b", read-only 1|0, the source's device and inode, the destination), a /dev/null mask ("n",
// path), an empty read-only tmpfs ("t", path). See src/launcher/safesh_confine.cc.
bool MountManifest(const SandboxSpec& spec, const BindSources& binds, util::UniqueFd* out,
                   std::string* error);

// What a sandboxed plan holds open until the command has started.
struct SandboxFds {
  util::UniqueFd seccomp;   // the filter, descriptor 3 in bwrap
  util::UniqueFd ruleset;   // the Landlock ruleset, descriptor 4, when confined
  util::UniqueFd confine;   // safesh-confine itself (5), executed through /proc/self/fd
  util::UniqueFd manifest;  // MountManifest (6), for safesh-confine
  BindSources binds;        // the mount sources, from descriptor 4 or 7 on (idmapped for
                            // root's sandbox: root_map.h)
  util::UniqueFd userns;    // root's sandbox: its user namespace, passed last
};

// Turns an unsandboxed plan (bash -c ...) into one that runs it under bwrap. The plan's cwd
// descriptor stays the guard's starting point; `cwd` is the same directory's path, which the
// sandbox changes to. With `confine` (safesh-confine's path), bwrap starts the command through
// it with a Landlock ruleset for `spec` (descriptor 4), a second layer under the mounts:
// executed from a descriptor opened here, since its path may be out of sight in the sandbox
// (a build in the host's /tmp). False with a message when the seccomp filter, the ruleset or a
// bind source cannot be had; the descriptors are kept in *fds (they must stay open until the
// command has started).
bool SandboxPlan(const std::string& bwrap, const SandboxSpec& spec, const std::string& cwd,
                 const std::string& confine, exec::LaunchPlan* plan, SandboxFds* fds,
                 std::string* error);

}  // namespace safesh::sandbox
