// The environment a command starts with: from the caller's, only the variables on an allow-list
// (a list of what may pass, not of what may not: a secret in a variable no one thought of, such
// as DB_PASS or REDIS_URL with a password, stays out), minus credentials that match the scrub
// globs even when allowed, minus the variables that would make bash run something other than the
// script the policy judged.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace safesh::exec {

// Globs (matched case-insensitively against variable names) removed from every child when
// [sandbox] scrub_env is not set: tokens, keys, passwords, cloud credentials, the ssh agent.
const std::vector<std::string>& DefaultScrubGlobs();

// The variables every command gets (exact names, or globs as LC_*): PATH, HOME, USER, LOGNAME,
// LANG, LANGUAGE, LC_*, TERM, TZ and TMPDIR: where programs are, whose they are, and how to show
// text. [sandbox] env_allow adds to them.
const std::vector<std::string>& DefaultEnvAllow();

struct EnvRules {
  std::vector<std::string> scrub = DefaultScrubGlobs();  // removed (case-insensitive globs)
  std::vector<std::string> allow = DefaultEnvAllow();    // only these pass (globs, case kept)
};

// A value removed from the child's environment: kept so that safesh can mask it in output.
struct Secret {
  std::string name;
  std::string value;
};

struct ChildEnv {
  std::vector<std::string> vars;  // "NAME=value", the child's whole environment
  // The values of scrubbed variables, and of any left out whose value is a URL with a password
  // ("redis://:pw@host"): masked wherever output shows them.
  std::vector<Secret> secrets;
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
