// AuditTrail: the audit records of one request (audit/log.h), written as it passes each step
// of RunShellCommand, all under one request id.
//
// The records, in order (each also has ts, event, id and safesh_pid; every string is
// redacted):
//   request         client, workspace, cwd (as requested), command, timeout_s (as
//                   requested; null: the default), dry_run, background
//   verdict         decision, reason, matched (the rules that matched), unverified,
//                   parse_error
//   approval_asked  cwd, reason, background, can_remember, approvals_error (null, or why
//                   remembered approvals could not be read)
//   approval        answer ("once", "always", "no"), by ("prompter", "remembered",
//                   "headless"), remembered (answered by a remembered approval),
//                   approval_id (null, or the remembered approval), remember_error
//   start           sandbox, sandbox_reason (what "auto" fell back from), timeout_ms
//   and one end record:
//   exit | timeout | cancelled   pid, exit_code, signal, duration_ms, output_bytes,
//                                truncated, spool_path, error
//   denied          reason, error (the policy denied it, or it was not approved)
//   refused         outcome ("invalid", "sandbox_unavailable", "failed_to_start"), error,
//                   sandbox, sandbox_reason
//   dry_run         sandbox, sandbox_reason
//
// Failing closed: when a record before the start (request, verdict, approval, start) cannot be
// written, the command does not run; the audit log is the record of what an agent did, and a
// command that leaves no trace is what someone filling the disk would want. A failure to
// record the end is added to the result's error, since the command has already run.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "approval/prompt.h"
#include "audit/record.h"
#include "audit/redact.h"
#include "exec/env.h"
#include "pipeline/run_shell_command.h"

namespace safesh::pipeline {

// The verdict's fields of a record: decision, reason, matched, unverified, parse_error (also
// used by `safesh check`).
void AddVerdict(const policy::Verdict& verdict, audit::Record* record);

class AuditTrail {
 public:
  // Writes the request record (when the context has a log).
  AuditTrail(const RunRequest& request, const RunContext& context);

  // False when a record could not be written; error() says why.
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  // The values scrubbed from the environment, masked everywhere (here and in results).
  const std::vector<exec::Secret>& secrets() const { return secrets_; }

  bool Verdict(const policy::Verdict& verdict);
  bool ApprovalAsked(const approval::ApprovalRequest& ask, const std::string& approvals_error);
  bool Approval(approval::Answer answer, const char* by, const std::string& approval_id,
                const std::string& remember_error);
  bool Start(const RunResult& so_far, std::chrono::milliseconds timeout);
  // The end record; a failure to write it is added to result->error.
  void End(RunResult* result, bool dry_run);

 private:
  bool Write(const audit::Record& record);

  audit::Log* log_;
  std::string id_;
  std::vector<exec::Secret> secrets_;
  audit::Redaction redaction_;
  bool requested_ = false;  // the request record was written
  std::string error_;
};

}  // namespace safesh::pipeline
