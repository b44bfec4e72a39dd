// The approval step of RunShellCommand, for a verdict of "ask": a remembered "always" answer
// (approval/store.h), else the prompter, else the configured headless answer. Each step is
// recorded in the audit trail. A denial never runs anything.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "approval/store.h"

#include "pipeline/audit_trail.h"
#include "pipeline/run_shell_command.h"

namespace safesh::pipeline {

// How a verdict that auto_approve allowed starts once it is asked about because the sandbox is
// off (run_shell_command.cc): the refusal then says the sandbox, not a pattern, is the way.
inline constexpr std::string_view kAskedWithoutSandbox =
    "needs approval: the sandbox is off, so nothing runs unasked";

// True when the command may run. False with result->outcome and result->error set: not
// approved (kNotApproved), or its approval could not be recorded (kFailedToStart). `*notes`
// gets what the caller should hear even though the command runs: an "always" that could not
// be remembered, remembered approvals that could not be read.
//
// `roots` are the folders commands may write (the workspace and [sandbox] writable_paths);
// with the temporary folders and ~/.cache, an approvals file inside one of them is not used:
// a command could have written it.
bool Approve(const RunRequest& request, const std::string& cwd, const policy::Verdict& verdict,
             const std::vector<std::string>& roots, const RunContext& context, AuditTrail* trail,
             RunResult* result, std::string* notes);

// Step 1 of Approve on its own, for callers that answer an ask without running anything (the
// agent hooks): the "always" approval remembered in `approvals_file` for exactly `command` in
// `workspace` (as ApprovalWorkspace gives it), if there is one. An approvals file that commands
// may write (inside `roots`, the temporary folders or ~/.cache) or that cannot be read is not
// used: none is returned, and `*error` says why (empty when there is simply no approval).
std::optional<approval::Remembered> FindRememberedApproval(
    const std::string& approvals_file, const std::string& workspace, const std::string& command,
    const std::vector<std::string>& roots, const std::string& home, std::string* error);

// The workspace as approvals remember it: its real path (or the path as given, when it cannot
// be resolved), so that one folder reached by two paths is one workspace.
std::string ApprovalWorkspace(const std::string& workspace);

}  // namespace safesh::pipeline
