// cgroups for one command's resource limits (exec/limits.h chooses them): where this process may
// create them, one command's cgroup from creation to removal, and removal of those left behind
// by a safesh that was killed.
//
// Two kinds are used, in this order:
//   - cgroup v2, where our own cgroup has the pids and memory controllers and lets us give them
//     to a child: writable by us, and either already delegating them (cgroup.subtree_control)
//     or able to (only a cgroup without processes of its own can, the "no internal processes"
//     rule; the root cgroup is exempt);
//   - the v1 pids and memory hierarchies, where our cgroup in each is writable (as root on a
//     hybrid machine, for instance).
// A command's cgroup is `safesh-<pidns>-<pid>-<n>` under our cgroup in each hierarchy: the
// PID namespace and pid of the safesh that made it, so that another safesh can tell whether
// its maker is gone, and a counter. The command's own process joins it before it executes
// anything (LaunchPlan::join_cgroups), so every process it starts is born inside.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/unique_fd.h"

namespace safesh::exec {

// The cgroup path of the v1 hierarchy that has `controller` in /proc/self/cgroup's text, or of
// the cgroup v2 line ("0::PATH") when `controller` is empty.
std::optional<std::string> CgroupPathFor(std::string_view proc_self_cgroup,
                                         std::string_view controller);

// Where the cgroup `path` can be reached, from /proc/self/mountinfo's text: through a mount of
// the cgroup2 filesystem (`controller` empty) or of the v1 hierarchy with `controller`, whose
// root holds `path`. None when no such mount shows it.
std::optional<std::string> CgroupDirectory(std::string_view mountinfo, std::string_view controller,
                                           const std::string& path);

// A directory in which a command's cgroup is made, and which controllers it carries.
struct CgroupParentDir {
  std::string dir;
  bool pids = false;
  bool memory = false;
};

// Where this process can make a command's cgroups, for the controllers needed.
struct CgroupParent {
  int version = 0;                    // 2, 1, or 0: neither can be used
  std::vector<CgroupParentDir> dirs;  // v2: one; v1: one per needed controller
  std::string why_not;                // why v2 cannot be used (version 1), or v2 and v1 (0)
};

// Looks at this process's cgroups (see the top of this file). With cgroup v2 it may enable the
// needed controllers in our cgroup's cgroup.subtree_control, which only a cgroup without
// processes of its own allows.
CgroupParent FindCgroupParent(bool need_pids, bool need_memory);

// One command's cgroup: a directory per hierarchy, each with the file the command joins by
// (v2: cgroup.procs; v1: tasks, see CreateCommandCgroup) open for writing. Removed (its processes
// killed first) when it goes out of scope.
struct CommandCgroup {
  int version = 0;
  std::vector<CgroupParentDir> dirs;  // the command's directories, with their controllers
  std::vector<util::UniqueFd> procs;  // their join files, open for writing

  CommandCgroup() = default;
  CommandCgroup(CommandCgroup&& other) noexcept;
  CommandCgroup& operator=(CommandCgroup&& other) noexcept;
  ~CommandCgroup();
};

// Makes the command's cgroup under `parent` with its limits (0: none): pids.max, and memory.max
// with memory.swap.max 0 (v2) or memory.limit_in_bytes and memory.memsw.limit_in_bytes (v1).
// The swap files exist only where the kernel accounts swap. False with what failed; anything
// made is removed again.
bool CreateCommandCgroup(const CgroupParent& parent, uint64_t max_processes, uint64_t memory_bytes,
                         CommandCgroup* out, std::string* error);

// Which limit the command ran into so far, if any.
enum class CgroupHit { kNone, kProcesses, kMemory };

// The memory controller's OOM kills (v2 memory.events oom and oom_kill; v1 memory.oom_control
// oom_kill) come first: they stopped a process. Then a fork the pids controller refused
// (pids.events max).
CgroupHit ReadCgroupHit(const CommandCgroup& cg);

// Kills every process still in the cgroup and its subgroups (the guard normally has already),
// with cgroup.kill where the kernel has it, else SIGKILL to each listed pid, round after round;
// then removes the directories, retrying while the dead are reaped. False with why when a
// directory is left (a later run removes it).
bool RemoveCommandCgroup(CommandCgroup* cg, std::string* error);

// Removes the command cgroups in `dir` whose safesh is gone: made in this PID namespace by a
// pid that no longer exists, or by this process and no longer in use. Only empty ones can be
// removed; processes are never killed here (a process listed there could belong to a safesh
// this one cannot see). Returns how many were removed.
int RemoveStaleCgroups(const std::string& dir);

// This process's PID namespace, as in the names above ("4026531836").
std::string PidNamespaceId();

}  // namespace safesh::exec
