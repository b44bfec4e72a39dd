// Checking a run request before anything is judged or run: the working directory and the
// timeout. Errors are values with a message that says what to do.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "util/unique_fd.h"

namespace safesh::pipeline {

// The longest a command may run (SH-04), whatever the request or settings say.
inline constexpr double kMaxTimeoutSeconds = 30 * 60;

// The timeout for a request: `requested` (seconds) or the default, clamped to
// kMaxTimeoutSeconds *before* it is converted, so a huge value cannot overflow. Zero, negative
// and non-finite values are refused.
std::optional<std::chrono::milliseconds> ResolveTimeout(std::optional<double> requested,
                                                        int64_t default_seconds,
                                                        std::string* error);

struct ResolvedCwd {
  std::string path;   // absolute, without symbolic links
  util::UniqueFd fd;  // an O_PATH descriptor of the directory: the command starts here
};

// Resolves `cwd` (absolute, or relative to roots[0]; empty means roots[0]) inside one of the
// `roots` (absolute directories). The path is walked from the root's descriptor with
// openat2(RESOLVE_BENEATH), so neither a symbolic link nor `..` can lead out of the root, and
// what was checked is what the command starts in. The directory must exist.
std::optional<ResolvedCwd> ResolveCwd(const std::vector<std::string>& roots, const std::string& cwd,
                                      std::string* error);

}  // namespace safesh::pipeline
