// Execute: runs one LaunchPlan under a guard to completion, timeout or cancellation, streaming
// its output into a spool file. This is the bottom of the pipeline: no policy, no approval.
//
// Execution is the same run as a state machine, so that starting a command and waiting for it
// are separate: Execute drives one Execution with its own poll loop; a host that keeps several
// commands running (session/session.h) drives them all from one event loop.
#pragma once

#include <poll.h>
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

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
  // Called with each piece of output as it is stored (after masking), in order. When set, the
  // output passes through safesh's memory instead of being spliced into the spool.
  std::function<void(std::string_view)> on_output;
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

// poll's timeout for waiting until `until`: rounded up, so that a wait never ends just before
// it (rounded down, the last millisecond before every timer would be spent spinning); -1 for
// time_point::max().
int PollTimeout(std::chrono::steady_clock::time_point until);

struct OutputPump;
struct GuardedCommand;

// One command under its guard, advanced by whoever polls its descriptors:
//
//   Start → { Watch (descriptors and a wake-up time) → poll → Step } until done → Finish
//
// Not thread-safe: one thread at a time (a host serialises calls with its own lock).
class Execution {
 public:
  using Clock = std::chrono::steady_clock;

  Execution();
  ~Execution();
  Execution(const Execution&) = delete;
  Execution& operator=(const Execution&) = delete;

  // Starts the guard (exec/guard.h). False when it could not be: Finish() says why. `options`
  // is copied; what it points to (spool, redactor, cancel token) must outlive the Execution.
  bool Start(const LaunchPlan& plan, const ExecOptions& options);

  // Appends the descriptors to poll now and lowers `*wake` to when Step must run at the latest.
  // Without `with_output` the output pipe is left out (a host reading output in batches); the
  // caller then wakes itself to read it.
  void Watch(std::vector<pollfd>* fds, Clock::time_point* wake, bool with_output);

  // Handles the entries Watch appended (`fds` points at the first, revents filled by poll) and
  // whatever timer is due. Returns true when output was read.
  bool Step(const pollfd* fds);

  // Kills the command's whole tree, as a cancel does (the result says cancelled).
  void Kill();

  // Gives up on the command (a failed poll): it is killed and the run ends now with `error`.
  void Abandon(const std::string& error);

  bool done() const;
  bool started() const { return result_.started; }
  pid_t pid() const { return result_.pid; }

  // The output so far: all of it (after masking), the first spooled_bytes() of which are in
  // the spool, the last ones that are not (see ExecOptions::keep_unspooled).
  uint64_t output_bytes() const;
  uint64_t spooled_bytes() const;
  const std::string& unspooled() const;

  // Once done (or when Start failed): the result. Collects the guard; call it once.
  ExecResult Finish();

 private:
  void SendKill();

  ExecOptions options_;
  std::unique_ptr<GuardedCommand> g_;
  std::unique_ptr<OutputPump> pump_;
  ExecResult result_;
  std::string program_;  // for a spawn error's message
  Clock::time_point start_, deadline_, grace_end_{}, kill_deadline_{}, next_nudge_, next_check_;
  bool output_open_ = true, reports_open_ = true, have_exit_ = false, kill_sent_ = false;
  bool guard_lost_ = false, abandoned_ = false, start_failed_ = false;
  int out_i_ = -1, rep_i_ = -1, can_i_ = -1;  // where Watch put each descriptor
};

}  // namespace safesh::exec
