#include "pipeline/approve.h"

#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <optional>
#include <vector>

#include "approval/store.h"
#include "sandbox/spec.h"

namespace safesh::pipeline {
namespace {

void AddNote(std::string* notes, const std::string& note) {
  *notes += (notes->empty() ? "" : "; ") + note;
}

bool AuditFailed(AuditTrail* trail, RunResult* result) {
  result->outcome = RunResult::Outcome::kFailedToStart;
  result->error = "the approval could not be recorded in the audit log (" + trail->error() +
                  "): nothing ran; safesh does not run commands it cannot record";
  return false;
}

// The folder a sandboxed command may write that holds `file`, or empty: the roots, the
// temporary folders and ~/.cache, as sandbox/spec.h makes them writable. Remembered approvals
// kept in one of these could have been planted by a command.
std::string WritableBy(const std::string& file, const std::vector<std::string>& roots,
                       const std::string& home) {
  std::vector<std::string> writable = roots;
  writable.push_back("/tmp");
  writable.push_back("/var/tmp");
  if (const char* t = getenv("TMPDIR"); t != nullptr && t[0] == '/') writable.push_back(t);
  if (!home.empty()) writable.push_back(home + "/.cache");
  std::string dir = file.substr(0, file.rfind('/'));
  for (const std::string& w : writable) {
    char real[PATH_MAX];
    std::string root = realpath(w.c_str(), real) != nullptr ? std::string(real) : w;
    if (sandbox::InsideAny(dir, {root})) return root;
  }
  return "";
}

}  // namespace

std::string ApprovalWorkspace(const std::string& workspace) {
  char real[PATH_MAX];
  return realpath(workspace.c_str(), real) != nullptr ? std::string(real) : workspace;
}

std::optional<approval::Remembered> FindRememberedApproval(
    const std::string& approvals_file, const std::string& workspace, const std::string& command,
    const std::vector<std::string>& roots, const std::string& home, std::string* error) {
  error->clear();
  if (approvals_file.empty()) return std::nullopt;
  if (std::string root = WritableBy(approvals_file, roots, home); !root.empty()) {
    if (access(approvals_file.c_str(), F_OK) == 0) {
      *error = "the approvals file " + approvals_file + " lies in " + root +
               ", which commands may write: keep safesh's state elsewhere (XDG_STATE_HOME)";
    }
    return std::nullopt;
  }
  std::vector<approval::Remembered> list;
  if (!approval::LoadApprovals(approvals_file, &list, error)) return std::nullopt;
  return approval::FindApproval(list, approval::kRunCommand, workspace, command);
}

bool Approve(const RunRequest& request, const std::string& cwd, const policy::Verdict& verdict,
             const std::vector<std::string>& roots, const RunContext& c, AuditTrail* trail,
             RunResult* result, std::string* notes) {
  approval::ApprovalRequest ask;
  ask.command = request.command;
  ask.cwd = cwd;
  ask.background = request.background;
  ask.reason = verdict.reason;
  ask.workspace = ApprovalWorkspace(c.workspace);
  ask.can_remember = !c.approvals_file.empty();

  // 1. An "always" given before, for exactly this command in this workspace.
  std::string approvals_error;
  if (!c.approvals_file.empty()) {
    std::vector<approval::Remembered> list;
    if (std::string root = WritableBy(c.approvals_file, roots, c.home); !root.empty()) {
      approvals_error = "the approvals file " + c.approvals_file + " lies in " + root +
                        ", which commands may write: keep safesh's state elsewhere "
                        "(XDG_STATE_HOME)";
      ask.can_remember = false;
      // Said only when there is something to ignore: no file, nothing remembered, no note.
      if (access(c.approvals_file.c_str(), F_OK) == 0)
        AddNote(notes, "remembered approvals were not used: " + approvals_error);
    } else if (!approval::LoadApprovals(c.approvals_file, &list, &approvals_error)) {
      // Fail closed: no remembered approval applies, and the broken file is not overwritten.
      ask.can_remember = false;
      AddNote(notes, "remembered approvals were not used: " + approvals_error);
    } else if (std::optional<approval::Remembered> r = approval::FindApproval(
                   list, approval::kRunCommand, ask.workspace, request.command)) {
      if (!trail->Approval(approval::Answer::kApproveAlways, "remembered", r->id, ""))
        return AuditFailed(trail, result);
      return true;
    }
  }

  // 2. The prompter, or with no one to ask, the headless answer.
  if (!trail->ApprovalAsked(ask, approvals_error)) return AuditFailed(trail, result);
  approval::Answer answer = c.prompter ? c.prompter(ask) : approval::Answer::kNoOneToAsk;
  const char* by = "prompter";
  bool headless = answer == approval::Answer::kNoOneToAsk;
  if (headless) {
    by = "headless";
    answer = c.settings.approvals.headless == "allow" ? approval::Answer::kApprove
                                                      : approval::Answer::kDeny;
  }
  std::string approval_id, remember_error;
  if (answer == approval::Answer::kApproveAlways) {
    approval::Remembered r;
    r.kind = approval::kRunCommand;
    r.workspace = ask.workspace;
    r.key = request.command;
    r.target = request.command;
    if (!ask.can_remember) {
      answer = approval::Answer::kApprove;  // nowhere to remember it: this once
    } else if (approval::RememberApproval(c.approvals_file, &r, &remember_error)) {
      approval_id = r.id;
    } else {
      answer = approval::Answer::kApprove;
      AddNote(notes, "approved this once; the approval could not be remembered: " + remember_error);
    }
  }
  if (!trail->Approval(answer, by, approval_id, remember_error)) return AuditFailed(trail, result);
  if (answer != approval::Answer::kDeny) return true;
  result->outcome = RunResult::Outcome::kNotApproved;
  // How a person can let it through, in the terms of the client that asked.
  // Without a sandbox auto_approve runs nothing unasked: the way is the sandbox, not a pattern.
  bool unsandboxed = verdict.reason.starts_with(kAskedWithoutSandbox);
  std::string rule = unsandboxed ? "run it in the sandbox ([sandbox] shell)"
                                 : "add a pattern for it to [commands] auto_approve";
  std::string how = c.client == "run" ? "approve it with --approve yes, or " + rule
                    : unsandboxed
                        ? "ask the user to turn the sandbox on ([sandbox] shell in safesh's "
                          "settings), or use a client that can show approval forms"
                        : "ask the user to add a pattern for it to [commands] auto_approve in "
                          "safesh's settings, or use a client that can show approval forms";
  result->error = headless ? "blocked by command policy: " + verdict.reason +
                                 "; it needs approval and no one could be asked (" + how + ")"
                           : "blocked by command policy: not approved (" + verdict.reason + ")";
  return false;
}

}  // namespace safesh::pipeline
