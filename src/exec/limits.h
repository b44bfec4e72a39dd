// Resource limits of one command: a cap on its processes (a fork bomb) and on its memory, and
// the way this machine enforces them, chosen for every run, in this order:
//
//   1. cgroup v2, where our cgroup delegates pids and memory (exec/cgroup.h): pids.max and
//      memory.max (swap included) for the whole command, all its processes together;
//   2. the cgroup v1 pids and memory hierarchies, where ours are writable (root on a hybrid
//      machine, as on CI): the same, with pids.max and memory.limit_in_bytes;
//   3. rlimits in the command's own process, where no cgroup can be made: RLIMIT_DATA caps each
//      process's memory (per process, not the whole command); RLIMIT_NPROC caps this user's
//      processes (all of them, wherever they run, so it is set to the user's count now plus the
//      cap; the kernel does not enforce it for root), and safesh counts the command's processes
//      every kCountEvery and stops it when it has reached the cap. For root that count is all there
//      is, and it is not a hard cap: a bash fork bomb makes about 3000 processes in 15 ms (measured
//      on CI's 2-core machine), so it is stopped after a few thousand, not at the cap.
//
// A cgroup counts processes and threads (pids.max); the count of method 3 is of processes.
// Hitting a limit stops the whole command, as a timeout does: under a process cap a fork bomb
// would otherwise sit at the cap, retrying, until the timeout; after an OOM kill what is left
// of a command is rarely worth its output. A cgroup that looked usable but could not be made
// is not fatal: the run falls back to method 3 and says why (CommandLimits::reason). Joining
// the cgroup is, when it fails: the command does not run (exec/guard.h).
//
// Without the sandbox a command running as root can leave its cgroup or raise its limits (it
// can write to /sys/fs/cgroup); in the sandbox /sys is read-only and capabilities are gone.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "exec/cgroup.h"
#include "exec/launch_plan.h"

namespace safesh::exec {

struct ResourceLimits {
  uint64_t max_processes = 0;  // 0: no cap
  uint64_t memory_bytes = 0;   // 0: no cap
};

// The default memory cap: half of the physical memory, in whole MiB. A command gets most of
// the machine but cannot take the memory the agent, the editor and the desktop need (an
// exhausted machine swaps or kills at random); builds that need more say so in
// [sandbox] memory_limit.
uint64_t DefaultMemoryLimit();

// How often a running command's limits are looked at: a cgroup's events (the kernel holds the
// cap; this only notices it was reached), or the command's processes counted (the only cap for
// root without cgroups: every 10 ms while it has few processes, every 100 ms once it has more
// than kCountManyAbove, where each count walks more of /proc).
inline constexpr std::chrono::milliseconds kCheckEvery{100};
inline constexpr std::chrono::milliseconds kCountEvery{10};
inline constexpr uint64_t kCountManyAbove = 128;

enum class LimitHit { kNone, kProcesses, kMemory };

// The limits of one run, as prepared, enforced and read.
struct CommandLimits {
  ResourceLimits want;
  std::string via;         // "cgroup2", "cgroup1", "rlimit", or "off" (no limit asked for)
  std::string reason;      // why this way, and what it does not cover
  bool fell_back = false;  // a cgroup looked usable but could not be made (see reason)
  CommandCgroup cgroup;    // cgroup2, cgroup1
  std::vector<LaunchPlan::Rlimit> rlimits;  // rlimit
  uint64_t count_processes = 0;             // rlimit: the cap safesh counts against (0: none)
  std::chrono::milliseconds check_every = kCheckEvery;  // for LimitReached
  std::chrono::steady_clock::time_point next_count{};   // the next count, when it has many
  LimitHit hit = LimitHit::kNone;
};

// Chooses the way for `want` and prepares it (makes the cgroup). `force` is "" (choose) or
// "rlimit" (SAFESH_LIMITS=rlimit: no cgroup, as on a machine without them).
void PrepareLimits(const ResourceLimits& want, const std::string& force, CommandLimits* out);

// Puts the limits into the plan: the cgroups to join, the rlimits to set.
void ApplyLimits(const CommandLimits& limits, LaunchPlan* plan);

// Looked at every limits->check_every while the command runs under the guard `guard`: true once
// a limit is hit (limits->hit says which), and the command should be stopped.
bool LimitReached(CommandLimits* limits, pid_t guard);

// After the run: reads what was hit at the end, then kills what is left in the cgroup and
// removes it. Empty, or what could not be cleaned up.
std::string FinishLimits(CommandLimits* limits);

// "256 MiB", "8 GiB", "1536 KiB", "1000 bytes": the largest unit that divides it.
std::string FormatBytes(uint64_t bytes);

}  // namespace safesh::exec
