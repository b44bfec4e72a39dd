// Finding and killing what a command left behind.
//
// The process that calls these is a child subreaper (PR_SET_CHILD_SUBREAPER): a descendant whose
// parent dies is re-parented to it rather than to init, so everything the command started, even
// through setsid or a double fork, stays its descendant and can be found under it.
//
// Everything here is async-signal-safe (no allocation), so the guard can call it after fork.
#pragma once

#include <sys/types.h>

#include <cstddef>

namespace safesh::exec {

// Writes up to `cap` pids of the caller's descendants to `pids`, parents before their children,
// by walking /proc/PID/task/TID/children down from the caller (every thread's children).
// Returns how many.
size_t ListDescendants(pid_t* pids, size_t cap);

// The same for the descendants of `root` (not the caller's): how safesh counts the processes
// under a guard.
size_t ListDescendantsOf(pid_t root, pid_t* pids, size_t cap);

// The caller's direct children found by reading every /proc/N/stat (for kernels without the
// children files; slower). -1 when /proc cannot be read.
int ScanProcForChildren(pid_t* pids, size_t cap);

// One round of KillAllChildren without waiting: SIGKILL to group `pgid` (when > 0) and to every
// descendant alive now.
void KillDescendantsOnce(pid_t pgid);

// How long KillAllChildren keeps at it before it gives up (a fork bomb without a sandbox).
inline constexpr long long kKillDeadlineMs = 5000;

// Kills (SIGKILL) the process group `pgid` (when > 0) and every descendant of the caller, found
// by walking /proc/PID/task/TID/children down from the caller, round after round, reaping what
// dies, until the caller has no child left. The wait status of `watch` (when > 0 and it is
// reaped here) goes to *watch_status. Returns false when processes were still alive after
// kKillDeadlineMs (some may survive).
//
// Signalling a descendant that is not a direct child could in theory reach a process that got
// its pid after it died between the walk and the kill; the walk and the kill are microseconds
// apart and pids are handed out in order, so this needs the pid space to wrap in that time.
bool KillAllChildren(pid_t pgid, pid_t watch, int* watch_status);

}  // namespace safesh::exec
