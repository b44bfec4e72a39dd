// What several verbs share: the layered settings with their compiled rules, the workspace, and
// the home folder.
#include <pwd.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>

#include "cli/verbs.h"

namespace safesh::cli {
namespace {

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? std::string() : std::string(v);
}

}  // namespace

std::string HomeFolder() {
  if (const char* h = std::getenv("HOME"); h != nullptr && h[0] == '/') return h;
  if (const passwd* pw = getpwuid(getuid()); pw != nullptr && pw->pw_dir != nullptr) {
    return pw->pw_dir;
  }
  return "";
}

std::string CurrentDir() {
  char buf[4096];
  return getcwd(buf, sizeof buf) != nullptr ? std::string(buf) : std::string();
}

std::string WorkspaceDir(const std::string& arg) {
  if (arg.empty()) return CurrentDir();
  if (arg[0] == '/') return arg;
  return CurrentDir() + "/" + arg;
}

std::string TrustFile() {
  return config::TrustStorePath(HomeFolder(), Env("XDG_STATE_HOME"));
}

config::LayerSources LayerSourcesFor(const std::string& workspace, const std::string& config) {
  config::LayerSources sources;
  sources.user_file = config::UserSettingsPath(HomeFolder(), Env("XDG_CONFIG_HOME"));
  if (!workspace.empty()) sources.project_file = config::ProjectSettingsPath(workspace);
  sources.config_file = config;
  sources.trust_file = TrustFile();
  if (const char* o = std::getenv("SAFESH_SANDBOX_SHELL"); o != nullptr)
    sources.env_sandbox_shell = o;
  return sources;
}

bool LoadLayers(const std::string& verb, const std::string& workspace, const std::string& config,
                config::LayeredSettings* layered) {
  std::string error;
  std::optional<config::LayeredSettings> l =
      config::LoadLayered(LayerSourcesFor(workspace, config), &error);
  if (!l) {
    std::cerr << "safesh " << verb << ": bad settings: " << error << "\n";
    return false;
  }
  *layered = std::move(*l);
  return true;
}

bool LoadRules(const std::string& verb, const std::string& workspace, const std::string& config,
               config::Settings* settings, std::optional<policy::Policy>* policy) {
  config::LayeredSettings layered;
  if (!LoadLayers(verb, workspace, config, &layered)) return false;
  // No settings file at all: no policy, and every command needs approval (verdict.h).
  std::string error;
  if (!layered.files.empty()) {
    *policy = policy::Policy::Compile(layered.settings.commands, &error);
    if (!*policy) {
      std::cerr << "safesh " << verb << ": bad settings: " << error << "\n";
      return false;
    }
  }
  *settings = std::move(layered.settings);
  return true;
}

}  // namespace safesh::cli
