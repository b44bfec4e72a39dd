// The guard: a small process between safesh and the command that makes sure nothing the command
// started outlives it, whatever happens to safesh.
//
//   safesh ──control pipe──▶ guard (child subreaper) ──▶ bash -c COMMAND (own session)
//          ◀──report pipe───                                   └─▶ everything it starts
//
// The guard is forked (not executed) from safesh. It becomes a child subreaper, so every
// descendant of the command that loses its parent (setsid, nohup, a double fork) is re-parented
// to it. It forks the command's process, which starts a new session and process group, joins
// the plan's cgroups and sets its rlimits before it executes anything; then the guard waits for
// either:
//   - the command to exit: it kills what is left of the tree, reports the exit status, exits;
//   - end-of-file on the control pipe: safesh asked for a kill (timeout, cancel) by closing it,
//     or safesh died (even by SIGKILL, the kernel closes its end): it kills the whole tree,
//     reports, and exits.
// This is the parent-death pipe of SH-31, with the watcher outside the command's reach of a
// `kill 0`, and with setsid'd and double-forked descendants covered too. The guard also watches
// a pidfd of safesh, which the command cannot forge, and it and safesh are not dumpable
// (PR_SET_DUMPABLE 0), so a command of the same user cannot open their /proc/PID/fd (to hold
// the control pipe open or write false reports) or read their /proc/PID/environ (which still
// holds the variables scrubbed from the command's environment).
//
// Limits without a sandbox: the command runs as the same user, so it can signal the guard and
// safesh (stop or kill both), or ask a system service (systemd-run, at) to start a process
// outside the tree, and as root it can open any /proc file. safesh, a subreaper itself when run
// as a program, kills the orphans of a killed guard and wakes a stopped one; the sandbox puts the
// command in a PID namespace where neither is visible, and drops root's capabilities.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "exec/launch_plan.h"
#include "util/unique_fd.h"

namespace safesh::exec {

// A message from the guard, written whole (it is smaller than PIPE_BUF).
struct GuardReport {
  enum Kind : int32_t { kStarted = 1, kSpawnFailed = 2, kExited = 3, kNotStarted = 4 };
  // What failed (kSpawnFailed): the guard's own preparation, or a step of the command's process
  // before or at execve.
  enum Step : int32_t {
    kStepGuard = 1,  // the guard: descriptors, subreaper, fork
    kStepProcess,    // session, signals, descriptors 0-2, closing the rest
    kStepCgroup,     // joining the plan's cgroups
    kStepRlimit,     // setting the plan's rlimits
    kStepUser,       // root's sandbox: mount namespace, idmapped mounts, user namespace
    kStepConfine,    // capabilities, no-new-privileges, Landlock, seccomp
    kStepExec,       // execve
  };
  int32_t kind = 0;
  int32_t pid = 0;          // kStarted: the command's pid (also its process group and session)
  int32_t wait_status = 0;  // kExited: as from waitpid
  int32_t error = 0;        // kSpawnFailed: errno; kExited: non-zero if leftovers could not be
                            // listed (some may have survived)
  int32_t killed = 0;       // kExited: the guard killed the command (control pipe closed)
  int32_t step = 0;         // kSpawnFailed: a Step
};

struct GuardedCommand {
  pid_t guard_pid = -1;
  util::UniqueFd guard_pidfd;  // readable when the guard has exited
  util::UniqueFd control;      // close it to have the command's whole tree killed
  util::UniqueFd reports;      // GuardReport messages, then end-of-file when the guard exits
  util::UniqueFd output;       // the command's stdout and stderr, interleaved (non-blocking)
};

// Forks the guard, which starts `plan` with /dev/null as stdin and one pipe as stdout and stderr.
// False with a message when the pipes or the guard cannot be created; a failure to execute the
// program itself arrives as a kSpawnFailed report.
bool StartGuarded(const LaunchPlan& plan, GuardedCommand* out, std::string* error);

}  // namespace safesh::exec
