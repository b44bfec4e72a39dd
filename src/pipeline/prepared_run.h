// The pipeline of run_shell_command.h in two halves, so that starting a command and waiting for
// it are separate steps:
//
//   PrepareRun: validate → judge → choose the sandbox → approve → environment → spool → plan
//               → limits, with the audit records up to "start"; everything the command needs
//               to run, and nothing running yet
//   (the caller runs run->plan with run->options: exec::Execute, or an exec::Execution that an
//    event loop drives)
//   FinishRun:  what the execution returned → the result, the end record, secrets masked
//
// RunShellCommand is the two with exec::Execute between them. A Session (session/session.h)
// starts a background command's Execution and lets its event loop wait for it, so a background
// command passes exactly the steps a foreground one does.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "exec/limits.h"
#include "exec/redact.h"
#include "exec/runner.h"
#include "exec/spool.h"
#include "pipeline/audit_trail.h"
#include "pipeline/run_shell_command.h"
#include "pipeline/validate.h"
#include "sandbox/bwrap.h"
#include "sandbox/caches.h"
#include "sandbox/spec.h"
#include "util/unique_fd.h"

namespace safesh::pipeline {

// One request between the two halves. Neither copied nor moved: `options` points into it.
struct PreparedRun {
  PreparedRun(const RunRequest& request, const RunContext& context);
  PreparedRun(const PreparedRun&) = delete;
  PreparedRun& operator=(const PreparedRun&) = delete;

  RunRequest request;
  AuditTrail trail;
  // False: the request ends here (refused, denied, not approved, a dry run, or it failed to
  // start), and `result` is final. True: run `plan` with `options`, then call FinishRun.
  bool ready = false;
  RunResult result;                   // so far: the verdict, the sandbox
  std::string notes;                  // for the result's error (see pipeline/approve.h)
  std::chrono::milliseconds timeout;  // a background command's lifetime
  // The output view's limit: [tools] output_limit_bytes, or [background] output_limit_bytes.
  uint64_t view_limit = 0;

  exec::LaunchPlan plan;
  exec::ExecOptions options;
  std::unique_ptr<exec::Redactor> redactor;  // options.redactor
  exec::Spool spool;                         // options.spool_fd
  std::optional<ResolvedCwd> cwd;            // plan.cwd_fd
  sandbox::SandboxFds fds;                   // passed to the command (plan.pass_fds)
  // The host's (RunContext::caches), or this run's own when the host keeps none.
  std::shared_ptr<sandbox::SandboxCaches> caches;
  sandbox::SandboxSpec spec;   // for advice on a failure
  std::string bwrap_path;      // empty: not bubblewrap
  exec::CommandLimits limits;  // options.should_stop
  // Set by a host that kills the command: the result's error instead of "command cancelled".
  std::string cancel_reason;
  bool spool_name_failed = false;  // a host tried to name the spool early and could not
};

std::unique_ptr<PreparedRun> PrepareRun(const RunRequest& request, const RunContext& context);

// The result of a prepared run that ran. A background command's spool stays open in `run`
// (its output can still be read); a foreground one's is removed unless its view was truncated.
RunResult FinishRun(PreparedRun* run, const exec::ExecResult& ran, const RunContext& context);

// A request refused before it is judged (by a host: too many background processes, a bad
// notify_pattern), recorded like any other refusal: a request record and a "refused" one.
RunResult RefuseRun(const RunRequest& request, const RunContext& context,
                    RunResult::Outcome outcome, std::string error);

}  // namespace safesh::pipeline
