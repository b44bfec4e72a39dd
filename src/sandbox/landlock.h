// Landlock: the kernel's own access control for unprivileged processes. safesh uses it as the
// sandbox where bubblewrap cannot run (user namespaces refused: some containers, Ubuntu's
// AppArmor restriction): Landlock plus the seccomp filter, without namespaces.
//
// What it enforces (the kernel's ABI is probed; newer rights are used where present):
//   - writes, creations, removals, renames and truncation only inside the writable roots
//     (and to /dev/null and the other harmless devices); everything else is read-only;
//   - ABI 4 and later: no TCP connect or bind unless the network is allowed;
//   - ABI 6 and later: no signals to processes outside the sandbox (the guard, safesh) and no
//     abstract UNIX sockets outside it.
// What it cannot (listed by `safesh doctor` and docs/architecture.md): Landlock grants, it does
// not subtract, so paths inside a readable or writable tree cannot be hidden or made read-only:
// blocked paths stay readable, .git/hooks, .git/config and shell start-up files inside a
// writable root stay writable; there is no PID namespace (host processes are visible, and
// cleanup relies on the guard alone) and no network namespace (UDP is refused by seccomp only).
#pragma once

#include <string>

#include "exec/launch_plan.h"
#include "sandbox/spec.h"
#include "util/unique_fd.h"

namespace safesh::sandbox {

// A Landlock ruleset for `spec`, ready for landlock_restrict_self in the command's process.
// False with a message when the kernel has no Landlock or a rule cannot be added.
bool BuildLandlockRuleset(const SandboxSpec& spec, util::UniqueFd* ruleset, std::string* error);

// Makes `plan` (bash -c ...) confine itself: the ruleset (kept open in *ruleset until the command
// has started) as descriptor 3, and the seccomp filter for `spec`. False with a message.
bool LandlockPlan(const SandboxSpec& spec, exec::LaunchPlan* plan, util::UniqueFd* ruleset,
                  std::string* error);

// safesh-confine (src/launcher/safesh_confine.cc), which applies a ruleset inside bubblewrap:
// next to the running program, or in ../libexec/safesh from it. Empty when it is not there.
std::string FindConfineLauncher();

}  // namespace safesh::sandbox
