// run_shell_command: one request from an agent, through every step to a result.
//
//   validate (command, cwd, timeout) → policy verdict → approval → environment → spool
//   → execute under the guard → capped view of the output → RunResult
// and, when the context has an audit log, a record of each step (pipeline/audit_trail.h).
//
// Shared by the CLI (`safesh run`), the MCP server, the hooks and library users: each builds a
// RunContext once and calls RunShellCommand per request. A process that runs commands should
// make itself not dumpable (prctl PR_SET_DUMPABLE 0, as `safesh run` does), or an unsandboxed
// command of the same user can read the secrets scrubbed from its environment in
// /proc/<pid>/environ.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "approval/prompt.h"
#include "config/settings.h"
#include "exec/cancel.h"
#include "policy/verdict.h"

namespace safesh::audit {
class Log;
}

namespace safesh::sandbox {
class SandboxCaches;  // sandbox/caches.h
}  // namespace safesh::sandbox

namespace safesh::pipeline {

// The longest command: Linux refuses a single argument longer than 128 KiB (MAX_ARG_STRLEN).
inline constexpr size_t kMaxCommandBytes = 128 * 1024 - 1;

struct RunRequest {
  std::string command;  // at most kMaxCommandBytes
  std::string cwd;      // absolute, or relative to the workspace; empty: the workspace
  std::optional<double> timeout_seconds;
  // Judge and build the sandbox, run nothing and ask no one: RunResult::plan says what would
  // run (a denied command is still denied).
  bool dry_run = false;
  // Start the command and return at once (session/session.h): only a long-lived host can keep
  // it; RunShellCommand refuses it. timeout_seconds, when given, shortens its lifetime
  // ([background] max_lifetime_seconds).
  bool background = false;
  // With background: a notice when it ends by itself, and one per output line this RE2
  // pattern matches (session/notices.h).
  bool notify = false;
  std::string notify_pattern;
};

struct RunContext {
  config::Settings settings;
  const policy::Policy* policy = nullptr;  // compiled settings.commands; null: no rules
  std::string workspace;                   // absolute: the first root, the default cwd
  std::string home;                        // for the policy's whole-disk rule and "~/" paths
  approval::Prompter prompter;             // may be empty: the headless answer applies
  const exec::CancelToken* cancel = nullptr;
  std::string spool_base;                     // see exec/spool.h
  std::vector<std::string_view> environment;  // the parent environment children derive from
  std::string sandbox_override;               // SAFESH_SANDBOX_SHELL, when set
  std::string bwrap;     // SAFESH_BWRAP: bubblewrap's path (empty: look for it)
  std::string launcher;  // SAFESH_SANDBOX_LAUNCHER: "landlock" forces the Landlock launcher
  // safesh-confine, which adds Landlock inside bubblewrap (empty: look next to this program).
  std::string confine;
  std::string limits_override;  // SAFESH_LIMITS: "rlimit" forces rlimits (no cgroup); or "auto"
  bool caller_is_subreaper = false;  // see exec::ExecOptions
  uint64_t spool_cap = 0;            // the most one command spools (0: exec::kSpoolMaxRunBytes)
  // Remembered "always" approvals (approval/store.h). Empty: none are looked up or kept, and
  // an "always" answer approves once.
  std::string approvals_file;
  // The audit log (audit/log.h); null: nothing is recorded. With a log, a command whose
  // records cannot be written does not run (see pipeline/audit_trail.h).
  audit::Log* audit = nullptr;
  std::string client;  // who asks, for the audit log: "run", "mcp", ... (empty: "library")
  // This process runs many commands (the MCP server, a library session): the blocked-name scan
  // keeps inotify watches on the roots between commands (sandbox/scan_watch.h), so that a
  // command after which nothing changed costs no directory lookups. Left false by the one-shot
  // `safesh run`: setting a watch on every directory costs more than the one walk it would
  // save, and the watches end with the process (its cache file is what carries over).
  bool long_lived = false;
  // What the host remembers between commands to build each sandbox quickly (sandbox/caches.h):
  // shared by the copies of this context a host makes per call. Null: each run keeps its own,
  // with only the state folder's files carrying over (a Session makes one for itself).
  std::shared_ptr<sandbox::SandboxCaches> caches;
};

struct RunResult {
  enum class Outcome {
    kRan,                 // the command ran (see exit_code, timed_out, cancelled, signal)
    kInvalid,             // the request was refused before judging (empty command, bad cwd...)
    kDenied,              // the policy denied it
    kNotApproved,         // it needed approval and did not get it
    kSandboxUnavailable,  // [sandbox] shell = "required" and no sandbox can be built
    kFailedToStart,       // safesh could not start it (spool, fork, exec)
  };
  Outcome outcome = Outcome::kInvalid;
  std::string output;  // the capped view
  int exit_code = -1;  // -1 when it did not run, timed out or was cancelled
  int signal = 0;      // the signal that ended it, if one did
  int64_t duration_ms = 0;
  bool is_background = false;
  std::string background_id;  // a started background command's id in its session ("bg-1")
  int process_id = 0;         // 0 when it did not start
  bool truncated = false;
  uint64_t output_bytes = 0;  // the whole output's size (all in spool_path when truncated)
  std::string spool_path;     // the whole output; kept only when the view is truncated
  bool timed_out = false;
  bool cancelled = false;
  std::string error;  // empty on a plain run, whatever its exit code
  std::optional<policy::Verdict> verdict;
  std::string sandbox_mode;    // "bwrap", "landlock", or "off" (ran without a sandbox)
  std::string sandbox_reason;  // why that mode (e.g. what "auto" fell back from)
  // What the sandbox left undone that is not an error: the blocked-name scan stopping at its
  // entry limit. Also at the end of sandbox_reason.
  std::string sandbox_note;
  std::string advice;  // when the command failed on a wall of the sandbox: what to do
  // A dry run: the program and its arguments that would be executed. Descriptors 3 and up are
  // the sandbox's: the seccomp filter, the Landlock ruleset, safesh-confine, then the sources of
  // the --bind-fd and --ro-bind-fd mounts.
  std::vector<std::string> plan;
  // The command's resource limits (exec/limits.h).
  struct Limits {
    std::string via;             // "cgroup2", "cgroup1", "rlimit", "off"; empty: it did not run
    uint64_t max_processes = 0;  // 0: no cap
    uint64_t memory_bytes = 0;   // 0: no cap
    std::string hit;             // "processes", "memory", or empty
    bool stopped = false;        // safesh stopped the command because of `hit`
    bool fell_back = false;      // a cgroup looked usable but could not be made (see reason)
    std::string reason;          // why `via`, and what it does not cover
  };
  Limits limits;
};

// Runs a foreground request to its end. A background one is refused (kInvalid): it needs a host
// that outlives the call (session/session.h). The two halves are in pipeline/prepared_run.h.
RunResult RunShellCommand(const RunRequest& request, const RunContext& context);

// The result object of the external contracts (docs/architecture.md).
std::string RunResultJson(const RunResult& result);

// What the text a model and a person read must say about the sandbox when the command ran in
// less than the strong one: "weaker sandbox: ..." (Landlock alone) or "no sandbox: ..." ("auto"
// fell back to none). Empty when it ran under bubblewrap or was not run, or the person set
// shell = "off".
std::string SandboxNotice(const RunResult& result);

}  // namespace safesh::pipeline
