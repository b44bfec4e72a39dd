// Session: the long-lived host of one caller's commands (SH-40 to SH-42). `safesh mcp` owns one;
// so can any program that keeps running and runs commands for an agent.
//
// It runs a foreground request with RunShellCommand, and starts a background one (the request's
// `background`) through the same steps (pipeline/prepared_run.h: validation, policy, approval,
// the audit records, the sandbox, the guard, limits), returning its id ("bg-1") as soon as the
// guard has started it. The session then keeps it:
//
//   - one event-loop thread reads the output of every background command into its spool and
//     ends them (exec::Execution); output is collected in batches (at most every kOutputEvery),
//     so a chatty process costs the host a few system calls per batch, not per line;
//   - limits from [background]: max_running (more are refused: "too many background processes
//     running"), max_lifetime_seconds (then it is killed), output_limit_bytes (what `output`
//     returns at most: the last bytes; the whole output stays in the spool, named once it is
//     larger), retain_finished (finished ones listed, the oldest forgotten first);
//   - the actions of manage_background_process: List, Output (from an offset, to follow), Kill
//     (the whole tree, setsid'd descendants included; waits up to kKillWait);
//   - notices (session/notices.h), taken by the host with TakeNotices.
//
// Shutdown (and the destructor) kills every background command and refuses new ones. A SIGKILL
// of the host leaves nothing either: each guard watches a pidfd of the host process and kills
// its command's tree when the host is gone (exec/guard.h).
//
// Thread-safe: Run, List, Output, Kill, TakeNotices and Shutdown may be called from any thread
// at once. The context's pointers (policy, audit log, prompter's state) must outlive the
// session; its cancel token cancels foreground runs only.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "pipeline/run_shell_command.h"
#include "session/notices.h"
#include "util/unique_fd.h"

namespace safesh::session {

// How long Kill waits for a killed process to end.
inline constexpr std::chrono::milliseconds kKillWait{3000};
// The event loop reads background output at most this often (a pipe holds 1 MiB, so a
// process can print 40 MiB/s before it waits for the loop).
inline constexpr std::chrono::milliseconds kOutputEvery{25};

// A background process as List shows it.
struct ProcessInfo {
  std::string id;       // "bg-1"
  std::string command;  // secrets masked
  bool running = false;
  int exit_code = -1;  // once ended: the exit code (128+N for signal N); -1 when it was killed
  int64_t runtime_ms = 0;
  int pid = 0;  // the command's process (0 if unknown)
  uint64_t output_bytes = 0;
  std::string error;  // why it ended, when it did not exit by itself
};

// Output's answer. The text starts at `offset` of the whole output: the offset asked for, or
// the oldest byte still retained ([background] output_limit_bytes), `skipped` bytes later.
struct ProcessOutput {
  std::string error;  // non-empty: no such process (the rest is empty)
  ProcessInfo status;
  std::string text;
  uint64_t offset = 0;
  uint64_t next_offset = 0;  // ask from here to follow
  uint64_t skipped = 0;      // bytes after the offset asked for that are no longer retained
  std::string spool_path;    // the whole output, when it has outgrown what is retained
};

struct KillOutcome {
  std::string error;  // non-empty: no such process, it had already ended, or it did not exit
  ProcessInfo status;
};

class Session {
 public:
  explicit Session(pipeline::RunContext context);
  ~Session();  // Shutdown()
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // A foreground request runs to its end; a background one starts and returns at once (its id
  // in RunResult::background_id), or is refused with the reason.
  pipeline::RunResult Run(const pipeline::RunRequest& request);

  // What one call brings of its own, for a host that serves several calls at once (the MCP
  // server): the token that cancels this call's foreground run, and who is asked when it needs
  // approval. Null: the context's. A background command outlives its call: the token only
  // cancels its start, and Kill ends it.
  struct Call {
    const exec::CancelToken* cancel = nullptr;
    const approval::Prompter* prompter = nullptr;
  };
  pipeline::RunResult Run(const pipeline::RunRequest& request, const Call& call);

  std::vector<ProcessInfo> List();
  ProcessOutput Output(const std::string& id, uint64_t offset);
  KillOutcome Kill(const std::string& id);

  // The notices waiting (at most kMaxPendingNotices), oldest first; they are not given twice.
  std::vector<Notice> TakeNotices();

  // Kills every background process, waits for them to end, and refuses new requests.
  void Shutdown();

  const pipeline::RunContext& context() const { return context_; }

 private:
  struct Process;

  // `call_context`: the context with the call's prompter, for the steps up to the start.
  pipeline::RunResult StartBackground(const pipeline::RunRequest& request,
                                      const pipeline::RunContext& call_context);
  void Loop();
  void Finalize(Process* p);  // mu_ held
  void Wake();
  ProcessInfo Info(const Process& p) const;                       // mu_ held
  std::string ReadOutput(const Process& p, uint64_t from) const;  // mu_ held

  pipeline::RunContext context_;
  util::UniqueFd wake_;  // an eventfd: the loop's attention

  std::mutex mu_;
  std::condition_variable ended_;                           // a background process ended
  std::map<uint64_t, std::shared_ptr<Process>> processes_;  // by number, running and finished
  uint64_t next_id_ = 0;
  int running_ = 0;
  int starting_ = 0;  // admitted, still being prepared (asking for approval, starting)
  bool shut_down_ = false;
  NoticeQueue notices_;
  std::thread loop_;
  std::mutex join_mu_;  // two Shutdowns at once: one joins the loop
  std::chrono::steady_clock::time_point next_output_{};
};

}  // namespace safesh::session
