// What several verbs share: the settings file with its compiled rules, and the home folder.
#include <pwd.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>

#include "cli/verbs.h"

namespace safesh::cli {

std::string HomeFolder() {
  if (const char* h = std::getenv("HOME"); h != nullptr && h[0] == '/') return h;
  if (const passwd* pw = getpwuid(getuid()); pw != nullptr && pw->pw_dir != nullptr) {
    return pw->pw_dir;
  }
  return "";
}

bool LoadRules(const std::string& verb, const std::string& config, config::Settings* settings,
               std::optional<policy::Policy>* policy) {
  if (config.empty()) return true;  // no file: the defaults, and no rules
  std::string error;
  std::optional<config::Settings> s = config::LoadSettings(config, &error);
  if (!s) {
    std::cerr << "safesh " << verb << ": bad settings: " << error << "\n";
    return false;
  }
  *policy = policy::Policy::Compile(s->commands, &error);
  if (!*policy) {
    std::cerr << "safesh " << verb << ": bad settings: " << config << ": " << error << "\n";
    return false;
  }
  *settings = std::move(*s);
  return true;
}

}  // namespace safesh::cli
