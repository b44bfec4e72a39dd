// The environment a command starts with: the caller's, minus credentials and minus the variables
// that would make bash run something other than the script the policy judged.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace safesh::exec {

// Globs (matched case-insensitively against variable names) removed from every child when
// [sandbox] scrub_env is not set: tokens, keys, passwords, cloud credentials, the ssh agent.
const std::vector<std::string>& DefaultScrubGlobs();

struct EnvRules {
  std::vector<std::string> scrub = DefaultScrubGlobs();  // removed (case-insensitive globs)
  std::optional<std::vector<std::string>> allow;         // when set: only PATH and these
};

// A value removed from the child's environment: kept so that safesh can mask it in output.
struct Secret {
  std::string name;
  std::string value;
};

struct ChildEnv {
  std::vector<std::string> vars;     // "NAME=value", the child's whole environment
  std::vector<Secret> secrets;       // the values of scrubbed variables
  std::vector<std::string> removed;  // names removed (scrubbed, not allowed, or unsafe for bash)
};

// True for variables bash acts on at start-up, which the policy cannot see: BASH_ENV and ENV
// (a file sourced first), BASH_FUNC_* (exported functions that can shadow any command),
// SHELLOPTS and BASHOPTS (options such as xtrace's PS4 evaluation). Always removed.
bool AltersBashStartup(std::string_view name);

// Builds the child's environment from `parent` ("NAME=value" entries, e.g. environ).
ChildEnv BuildChildEnv(const std::vector<std::string_view>& parent, const EnvRules& rules);

// The current process's environment, as BuildChildEnv takes it.
std::vector<std::string_view> CurrentEnvironment();

// Overwrites, in this process's own environment block, the values of the variables `rules`
// scrub (each byte becomes 'x', lengths unchanged). /proc/<pid>/environ shows that block, and a
// command of the same user (or root) could read it there. Call after the values are copied.
void WipeScrubbedFromEnviron(const EnvRules& rules);

// Sets NAME to value in `vars` (replacing an existing entry).
void SetVar(std::vector<std::string>* vars, std::string_view name, std::string_view value);

}  // namespace safesh::exec
