// Advice for a command that failed on a wall of the sandbox: which path or capability was
// refused, and the narrowest way to allow it, leaving turning the sandbox off as the last resort.
#pragma once

#include <string>
#include <string_view>

#include "sandbox/spec.h"

namespace safesh::sandbox {

// Reads a failed command's output for the messages a refusal produces ("Read-only file
// system", "Permission denied" under Landlock, "Operation not permitted", no network, a hidden
// path) and returns one paragraph of advice, or "" when none of them appears. `launcher` is
// "bwrap" or "landlock".
std::string PermissionAdvice(std::string_view output, const SandboxSpec& spec,
                             const std::string& launcher);

}  // namespace safesh::sandbox
