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

// Writes up to `cap` pids of the calling thread's children to `pids`; returns how many, or -1
// when they cannot be listed. Reads /proc/thread-self/children, or scans /proc when the kernel
// lacks that file.
int ListChildren(pid_t* pids, size_t cap);

// The fallback ListChildren uses: every /proc/N/stat whose parent field is the caller (slower:
// it reads every process's stat). -1 when /proc cannot be read.
int ScanProcForChildren(pid_t* pids, size_t cap);

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
