#include "exec/env.h"

#include <fnmatch.h>
#include <string.h>
#include <unistd.h>

namespace safesh::exec {

const std::vector<std::string>& DefaultScrubGlobs() {
  static const std::vector<std::string> globs = {
      "*TOKEN*",      "*SECRET*",       "*PASSWORD*",    "*PASSWD*",
      "*PASSPHRASE*", "*_KEY",          "*_KEY_*",       "*APIKEY*",
      "*CREDENTIAL*", "*_AUTH",         "*_AUTH_*",      "*COOKIE*",
      "*_PAT",        "*DATABASE_URL*", "*_DSN",         "*CONNECTION_STRING*",
      "AWS_*",        "AZURE_*",        "SSH_AUTH_SOCK", "GPG_AGENT_INFO",
  };
  return globs;
}

const std::vector<std::string>& DefaultEnvAllow() {
  static const std::vector<std::string> names = {"PATH",     "HOME", "USER", "LOGNAME", "LANG",
                                                 "LANGUAGE", "LC_*", "TERM", "TZ",      "TMPDIR"};
  return names;
}

namespace {

// The password of a URL in `value` ("scheme://user:password@host..."), or empty. The user part
// ends at the last '@' before the path: a password may hold an unencoded '/' or '@'.
std::string_view UrlPassword(std::string_view value) {
  size_t scheme = value.find("://");
  if (scheme == std::string_view::npos) return {};
  std::string_view rest = value.substr(scheme + 3);
  size_t at = rest.substr(0, rest.find_first_of("?#")).rfind('@');
  if (at == std::string_view::npos) return {};
  size_t colon = rest.substr(0, at).find(':');
  if (colon == std::string_view::npos || colon + 1 >= at) return {};
  return rest.substr(colon + 1, at - colon - 1);
}

bool MatchesAny(const std::vector<std::string>& globs, const std::string& name, int flags) {
  for (const std::string& g : globs) {
    if (fnmatch(g.c_str(), name.c_str(), flags) == 0) return true;
  }
  return false;
}

}  // namespace

bool AltersBashStartup(std::string_view name) {
  return name == "BASH_ENV" || name == "ENV" || name == "SHELLOPTS" || name == "BASHOPTS" ||
         name.starts_with("BASH_FUNC_");
}

ChildEnv BuildChildEnv(const std::vector<std::string_view>& parent, const EnvRules& rules) {
  ChildEnv out;
  for (std::string_view entry : parent) {
    size_t eq = entry.find('=');
    // An entry without '=' is not a variable; bash would ignore it, so drop it.
    if (eq == std::string_view::npos || eq == 0) continue;
    std::string name(entry.substr(0, eq));
    if (AltersBashStartup(name)) {
      out.removed.push_back(name);
      continue;
    }
    if (MatchesAny(rules.scrub, name, FNM_CASEFOLD)) {
      out.removed.push_back(name);
      out.secrets.push_back({name, std::string(entry.substr(eq + 1))});
      continue;
    }
    if (!MatchesAny(rules.allow, name, 0)) {
      out.removed.push_back(name);
      // Masked in output: the whole value, and the password alone (printed on its own).
      std::string_view value = entry.substr(eq + 1);
      std::string_view password = UrlPassword(value);
      if (!password.empty()) {
        out.secrets.push_back({name, std::string(value)});
        out.secrets.push_back({name, std::string(password)});
      }
      continue;
    }
    out.vars.emplace_back(entry);
  }
  return out;
}

void WipeScrubbedFromEnviron(const EnvRules& rules) {
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    char* eq = strchr(*e, '=');
    if (eq == nullptr || eq == *e) continue;
    std::string name(*e, static_cast<size_t>(eq - *e));
    if (!MatchesAny(rules.scrub, name, FNM_CASEFOLD)) continue;
    for (char* v = eq + 1; *v != '\0'; ++v)
      *v = 'x';
  }
}

std::vector<std::string_view> CurrentEnvironment() {
  std::vector<std::string_view> out;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e)
    out.emplace_back(*e);
  return out;
}

void SetVar(std::vector<std::string>* vars, std::string_view name, std::string_view value) {
  std::string entry = std::string(name) + "=" + std::string(value);
  for (std::string& v : *vars) {
    if (v.size() > name.size() && v.compare(0, name.size(), name) == 0 && v[name.size()] == '=') {
      v = entry;
      return;
    }
  }
  vars->push_back(entry);
}

}  // namespace safesh::exec
