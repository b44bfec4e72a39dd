// Finding and killing what a command left behind.
//
// The process that calls these is a child subreaper (PR_SET_CHILD_SUBREAPER): a descendant whose
// parent dies is re-parented to it rather than to init, so everything the command started, even
// through setsid or a double fork, is eventually its direct child. Killing only direct children
// is what makes this safe: a child's pid cannot be reused until it is reaped, so the signal
// cannot reach an unrelated process that happens to get the number.
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

// Kills (SIGKILL) the process group `pgid` (when > 0) and every child of the caller, then reaps
// them and every orphan that arrives, until the caller has no child left. The wait status of
// `watch` (when > 0 and it is reaped here) goes to *watch_status. Returns false when children
// could not be listed (some may survive).
bool KillAllChildren(pid_t pgid, pid_t watch, int* watch_status);

}  // namespace safesh::exec
