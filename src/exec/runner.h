// Execute: runs one LaunchPlan under a guard to completion, timeout or cancellation, streaming
// its output into a spool file. This is the bottom of the pipeline: no policy, no approval.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include "exec/cancel.h"
#include "exec/launch_plan.h"
#include "exec/redact.h"
#include "exec/spool.h"

namespace safesh::exec {

// How long to keep reading output after the command has exited or been killed, while some
// process still holds the pipe open (SH-05). The guard kills the whole tree, so this only
// matters for a process that escaped it.
inline constexpr std::chrono::milliseconds kPipeGrace{2000};

struct ExecOptions {
  std::chrono::milliseconds timeout{120 * 1000};
  const CancelToken* cancel = nullptr;  // optional
  int spool_fd = -1;                    // every byte of output is written here
  Redactor* redactor = nullptr;         // optional: masks secrets before the spool
  uint64_t spool_cap = 0;               // the most written to the spool (0: kSpoolMaxRunBytes)
  uint64_t keep_unspooled = 0;          // how many of the last unspooled bytes to keep in memory
  // The calling process is a child subreaper (the safesh program is) and runs one command at a
  // time: if the guard itself is killed, the command's orphans come to the caller, which then
  // kills every descendant it has. Not for a process running several commands at once.
  bool caller_is_subreaper = false;
  // Asked every `check_every` while the command runs, with the guard's pid: true stops the
  // command (its whole tree is killed, as on a timeout) and the result says `stopped`. For
  // resource limits (exec/limits.h).
  std::function<bool(pid_t guard)> should_stop;
  std::chrono::milliseconds check_every{100};
};

struct ExecResult {
  bool started = false;
  pid_t pid = -1;  // the command's process (its process group and session too)
  bool exited = false;
  int exit_code = -1;  // when exited
  int signal = 0;      // when a signal ended it
  bool timed_out = false;
  bool cancelled = false;
  bool stopped = false;        // should_stop asked for it
  uint64_t output_bytes = 0;   // all the output (after masking)
  uint64_t spooled_bytes = 0;  // the first this many are in the spool
  std::string unspooled;       // the last bytes that are not in the spool (see keep_unspooled)
  // Why it did not start, or what went wrong on the way, including when output may be missing:
  // the pipe was still held open after kPipeGrace, or the spool failed or reached spool_cap.
  std::string error;
  int64_t duration_ms = 0;
};

ExecResult Execute(const LaunchPlan& plan, const ExecOptions& options);

}  // namespace safesh::exec
