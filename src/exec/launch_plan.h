// LaunchPlan: exactly what to execute for one command. Without a sandbox it is `bash -c --
// COMMAND`; the sandbox launcher turns the same request into a plan that runs bwrap around it.
// The guard (exec/guard.h) executes a plan; it does not know which kind it got.
#pragma once

#include <sys/resource.h>

#include <string>
#include <vector>

namespace safesh::exec {

struct LaunchPlan {
  std::string program;            // absolute path of the executable
  std::vector<std::string> argv;  // argv[0] included
  std::vector<std::string> env;   // the whole environment, "NAME=value"
  int cwd_fd = -1;                // the directory it starts in (an O_PATH descriptor is fine)
  // Descriptors the program receives as 3, 4, ... in this order (e.g. a seccomp filter for
  // bwrap). Nothing else of safesh's is inherited.
  std::vector<int> pass_fds;
  // The Landlock launcher: the command's own process confines itself before it executes the
  // program: landlock_restrict_self with the ruleset passed as descriptor 3 (pass_fds[0]), then
  // this seccomp filter (a raw BPF program, as seccomp_export_bpf writes it).
  bool self_confine = false;
  std::string seccomp_bpf;
  // The program runs everything in a PID namespace of its own, whose first process dies with it
  // (bubblewrap with --unshare-pid --die-with-parent): once the program has exited and that
  // process is sent SIGKILL, the kernel kills the rest. The guard then reports the end without
  // waiting for the namespace to be torn down (milliseconds, a network namespace included), and
  // finishes reaping after.
  bool pid_namespace = false;
  // Resource limits (exec/limits.h decides them). Before it executes anything, the command's own
  // process joins these cgroups by writing "0" to each descriptor (cgroup.procs, or v1 tasks),
  // so that everything it becomes and starts is counted from its first instruction; then it
  // sets these rlimits, soft and hard (only CAP_SYS_RESOURCE, which the sandbox drops, raises a
  // hard limit again).
  std::vector<int> join_cgroups;
  struct Rlimit {
    int resource;  // RLIMIT_NPROC, RLIMIT_DATA, ...
    rlim_t value;
  };
  std::vector<Rlimit> rlimits;
  // Root's sandbox (sandbox/root_map.h), when `userns` >= 0. After the limits, the command's own
  // process enters a mount namespace of its own (nothing it mounts reaches the host's), mounts a
  // tmpfs on `stage`, attaches each idmapped mount tree there (as "0", "1", ...: a folder or an
  // empty file, as `tree_dirs` says), then joins the user namespace as its root (an unprivileged
  // uid on the host) and closes it. All are indexes into pass_fds.
  struct RootMap {
    int userns = -1;
    std::string stage;
    std::vector<int> trees;
    std::vector<char> tree_dirs;
  };
  RootMap root_map;
};

// The plan for running `command` with bash, unsandboxed.
LaunchPlan BashPlan(const std::string& bash, const std::string& command,
                    std::vector<std::string> env, int cwd_fd);

// The bash safesh runs: /bin/bash or /usr/bin/bash (never looked up in PATH, which the caller's
// environment controls). Empty when neither is an executable file.
std::string FindBash();

}  // namespace safesh::exec
