#include "pipeline/audit_trail.h"

#include <cstdio>

#include "audit/log.h"
#include "util/random_id.h"

namespace safesh::pipeline {
namespace {

exec::EnvRules ScrubRules(const RunContext& c) {
  exec::EnvRules rules;
  if (c.settings.sandbox.scrub_env) rules.scrub = *c.settings.sandbox.scrub_env;
  if (c.settings.sandbox.env_allow)
    rules.allow.insert(rules.allow.end(), c.settings.sandbox.env_allow->begin(),
                       c.settings.sandbox.env_allow->end());
  return rules;
}

const char* OutcomeName(RunResult::Outcome o) {
  switch (o) {
    case RunResult::Outcome::kRan:
      return "ran";
    case RunResult::Outcome::kInvalid:
      return "invalid";
    case RunResult::Outcome::kDenied:
      return "denied";
    case RunResult::Outcome::kNotApproved:
      return "not_approved";
    case RunResult::Outcome::kSandboxUnavailable:
      return "sandbox_unavailable";
    case RunResult::Outcome::kFailedToStart:
      return "failed_to_start";
  }
  return "failed_to_start";
}

}  // namespace

void AddVerdict(const policy::Verdict& v, audit::Record* r) {
  r->Str("decision", policy::DecisionName(v.decision));
  r->Str("reason", v.reason);
  std::vector<std::string> matched, unverified;
  for (const policy::JudgedCommand& c : v.commands) {
    if (!c.matched.empty()) matched.push_back(c.matched);
  }
  for (const policy::Finding& f : v.unverified)
    unverified.push_back(f.subject + ": " + f.reason);
  r->Strs("matched", matched);
  r->Strs("unverified", unverified);
  r->StrOrNull("parse_error", v.parse_error.value_or(""));
}

AuditTrail::AuditTrail(const RunRequest& request, const RunContext& c)
    : log_(c.audit),
      id_(util::RandomHex(8)),
      secrets_(exec::BuildChildEnv(c.environment, ScrubRules(c)).secrets),
      redaction_(secrets_, ScrubRules(c).scrub) {
  if (log_ == nullptr) return;
  audit::Record r("request", id_, &redaction_);
  r.Str("client", c.client.empty() ? "library" : c.client);
  r.Str("workspace", c.workspace);
  r.Str("cwd", request.cwd);
  r.Str("command", request.command);
  // As requested, before it is checked (it may be out of range, or not a number at all).
  char timeout[32] = "";
  if (request.timeout_seconds) snprintf(timeout, sizeof timeout, "%g", *request.timeout_seconds);
  r.StrOrNull("timeout_s", timeout);
  r.Bool("dry_run", request.dry_run);
  r.Bool("background", request.background);
  requested_ = Write(r);
}

bool AuditTrail::Write(const audit::Record& record) {
  if (log_ == nullptr) return true;
  return log_->Append(record, &error_);
}

bool AuditTrail::Verdict(const policy::Verdict& v) {
  if (log_ == nullptr) return true;
  audit::Record r("verdict", id_, &redaction_);
  AddVerdict(v, &r);
  return Write(r);
}

bool AuditTrail::ApprovalAsked(const approval::ApprovalRequest& ask,
                               const std::string& approvals_error) {
  if (log_ == nullptr) return true;
  audit::Record r("approval_asked", id_, &redaction_);
  r.Str("cwd", ask.cwd);
  r.Str("reason", ask.reason);
  r.Bool("background", ask.background);
  r.Bool("can_remember", ask.can_remember);
  r.StrOrNull("approvals_error", approvals_error);
  return Write(r);
}

bool AuditTrail::Approval(approval::Answer answer, const char* by, const std::string& approval_id,
                          const std::string& remember_error) {
  if (log_ == nullptr) return true;
  audit::Record r("approval", id_, &redaction_);
  r.Str("answer", approval::AnswerName(answer));
  r.Str("by", by);
  r.Bool("remembered", std::string_view(by) == "remembered");
  r.StrOrNull("approval_id", approval_id);
  r.StrOrNull("remember_error", remember_error);
  return Write(r);
}

bool AuditTrail::Start(const RunResult& so_far, std::chrono::milliseconds timeout) {
  if (log_ == nullptr) return true;
  audit::Record r("start", id_, &redaction_);
  r.Str("sandbox", so_far.sandbox_mode);
  r.Str("sandbox_reason", so_far.sandbox_reason);
  r.Int("timeout_ms", timeout.count());
  return Write(r);
}

void AuditTrail::End(RunResult* result, bool dry_run) {
  if (log_ == nullptr || !requested_) return;
  using O = RunResult::Outcome;
  const char* event = "exit";
  if (dry_run && result->outcome == O::kRan) {
    event = "dry_run";
  } else if (result->outcome == O::kDenied || result->outcome == O::kNotApproved) {
    event = "denied";
  } else if (result->outcome != O::kRan) {
    event = "refused";
  } else if (result->timed_out) {
    event = "timeout";
  } else if (result->cancelled) {
    event = "cancelled";
  }
  audit::Record r(event, id_, &redaction_);
  std::string_view e(event);
  if (e == "denied") {
    r.Str("reason", result->verdict ? result->verdict->reason : "");
    r.Str("error", result->error);
  } else if (e == "refused") {
    r.Str("outcome", OutcomeName(result->outcome));
    r.Str("error", result->error);
    r.StrOrNull("sandbox", result->sandbox_mode);
    r.StrOrNull("sandbox_reason", result->sandbox_reason);
  } else if (e == "dry_run") {
    r.Str("sandbox", result->sandbox_mode);
    r.Str("sandbox_reason", result->sandbox_reason);
  } else {
    r.Int("pid", result->process_id);
    r.Int("exit_code", result->exit_code);
    r.Int("signal", result->signal);
    r.Int("duration_ms", result->duration_ms);
    r.Int("output_bytes", static_cast<int64_t>(result->output_bytes));
    r.Bool("truncated", result->truncated);
    r.StrOrNull("spool_path", result->spool_path);
    r.StrOrNull("error", result->error);
  }
  if (!Write(r)) {
    result->error += (result->error.empty() ? "" : "; ") +
                     std::string("the end of this run could not be recorded in the audit log: ") +
                     error_;
  }
}

}  // namespace safesh::pipeline
