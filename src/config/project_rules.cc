#include "config/project_rules.h"

#include <string_view>

#include "config/toml_text.h"

namespace safesh::config {
namespace {

// What a key's value in a project file does. `loosens` fills `what` and `why` and returns the
// kind when the value lets more happen than the defaults; kTightens when it does not.
struct Rule {
  std::string_view section;
  std::string_view key;
  ProjectKey (*loosens)(const Settings& s, std::string* what, std::string* why);
};

ProjectKey Tightens(const Settings&, std::string*, std::string*) {
  return ProjectKey::kTightens;
}

// A list that, once it names anything, lets more happen. Written empty it adds nothing (for
// `allow`, an empty list even tightens: it switches an allow-list on).
ProjectKey NonEmpty(const std::vector<std::string>& list, const std::string& name,
                    const char* effect, std::string* what, std::string* why) {
  if (list.empty()) return ProjectKey::kTightens;
  *what = name + " = [" + TomlString(list.front()) + (list.size() > 1 ? ", ..." : "") + "]";
  *why = effect;
  return ProjectKey::kNeedsTrust;
}

// A loosening of the sandbox: no project may make it, trusted or not.
ProjectKey Never(ProjectKey kind) {
  return kind == ProjectKey::kNeedsTrust ? ProjectKey::kNever : kind;
}

ProjectKey IfTrue(bool value, const std::string& name, const char* effect, std::string* what,
                  std::string* why) {
  if (!value) return ProjectKey::kTightens;
  *what = name + " = true";
  *why = effect;
  return ProjectKey::kNeedsTrust;
}

const std::vector<Rule>& Rules() {
  static const std::vector<Rule> rules = {
      {"commands", "deny", Tightens},
      {"commands", "ask", Tightens},
      {"commands", "allow",
       [](const Settings& s, std::string* what, std::string* why) {
         return NonEmpty(s.commands.allow, "[commands] allow", "adds commands to the allow list",
                         what, why);
       }},
      {"commands", "auto_approve",
       [](const Settings& s, std::string* what, std::string* why) {
         return NonEmpty(s.commands.auto_approve, "[commands] auto_approve",
                         "runs matching commands without asking anyone", what, why);
       }},
      {"commands", "strict",
       [](const Settings& s, std::string* what, std::string* why) {
         if (s.commands.strict) return ProjectKey::kTightens;
         *what = "[commands] strict = false";
         *why = "turns strict mode off";
         return ProjectKey::kNeedsTrust;
       }},
      // The sandbox is the boundary: only the person's own settings may weaken it. Trust lets a
      // project loosen the command rules (what is asked about), never what a command that runs
      // can reach: a project file is written by whoever wrote the repository, and a person who
      // trusts it to name its build commands has not read it as a sandbox policy.
      {"sandbox", "shell",
       [](const Settings& s, std::string* what, std::string* why) {
         if (s.sandbox.shell == "required") return ProjectKey::kTightens;
         *what = "[sandbox] shell = " + TomlString(s.sandbox.shell);
         *why = s.sandbox.shell == "off"        ? "runs commands without the sandbox"
                : s.sandbox.shell == "landlock" ? "runs commands in the weaker Landlock sandbox"
                                                : "lets commands run without the sandbox where "
                                                  "it cannot be built";
         return ProjectKey::kNever;
       }},
      {"sandbox", "allow_network",
       [](const Settings& s, std::string* what, std::string* why) {
         return Never(IfTrue(s.sandbox.allow_network, "[sandbox] allow_network",
                             "lets commands reach the network", what, why));
       }},
      {"sandbox", "writable_paths",
       [](const Settings& s, std::string* what, std::string* why) {
         return Never(NonEmpty(s.sandbox.writable_paths, "[sandbox] writable_paths",
                               "lets commands write outside the workspace", what, why));
       }},
      // Read-only binds only ever remove write access; blocked paths hide more.
      {"sandbox", "read_only_paths", Tightens},
      {"sandbox", "blocked_paths", Tightens},
      // A project's list is added to the defaults, never replaces them (config/layers.h).
      {"sandbox", "scrub_env", Tightens},
      {"sandbox", "env_allow",
       [](const Settings& s, std::string* what, std::string* why) {
         return Never(NonEmpty(s.sandbox.env_allow.value_or(std::vector<std::string>{}),
                               "[sandbox] env_allow",
                               "passes more environment variables to commands", what, why));
       }},
      {"sandbox", "allow_git_config",
       [](const Settings& s, std::string* what, std::string* why) {
         return Never(IfTrue(s.sandbox.allow_git_config, "[sandbox] allow_git_config",
                             "lets commands change .git/config (which can make git run programs)",
                             what, why));
       }},
      {"sandbox", "root_keeps_owner_rights",
       [](const Settings& s, std::string* what, std::string* why) {
         return Never(IfTrue(s.sandbox.root_keeps_owner_rights, "[sandbox] root_keeps_owner_rights",
                             "lets root's commands read and write host files that only root may",
                             what, why));
       }},
      {"sandbox", "allow_unix_sockets",
       [](const Settings& s, std::string* what, std::string* why) {
         return Never(NonEmpty(s.sandbox.allow_unix_sockets, "[sandbox] allow_unix_sockets",
                               "lets commands connect to services of the host", what, why));
       }},
      // A project's limit only lowers the person's (layers.cc keeps the lower of the two); no
      // cap at all is the person's to set.
      {"sandbox", "max_processes",
       [](const Settings& s, std::string* what, std::string* why) {
         if (s.sandbox.max_processes > 0) return ProjectKey::kTightens;
         *what = "[sandbox] max_processes = 0";
         *why = "removes the cap on a command's processes";
         return ProjectKey::kNever;
       }},
      {"sandbox", "memory_limit",
       [](const Settings& s, std::string* what, std::string* why) {
         if (s.sandbox.memory_limit.value_or(0) > 0) return ProjectKey::kTightens;
         *what = "[sandbox] memory_limit = \"off\"";
         *why = "removes the cap on a command's memory";
         return ProjectKey::kNever;
       }},
      // Resource bounds, not permissions: what a command can reach does not change, and the
      // ceilings (30 minutes, 64 MiB) hold whoever sets them.
      {"tools", "shell_timeout_seconds", Tightens},
      {"tools", "output_limit_bytes", Tightens},
      {"approvals", "headless",
       [](const Settings& s, std::string* what, std::string* why) {
         if (s.approvals.headless != "allow") return ProjectKey::kTightens;
         *what = "[approvals] headless = \"allow\"";
         *why = "runs every command that needs approval when no one can be asked";
         return ProjectKey::kNeedsTrust;
       }},
      {"background", "max_running", Tightens},
      {"background", "max_lifetime_seconds", Tightens},
      {"background", "output_limit_bytes", Tightens},
      {"background", "retain_finished", Tightens},
  };
  return rules;
}

const Rule* Find(const std::string& section, const std::string& key) {
  for (const Rule& r : Rules()) {
    if (r.section == section && r.key == key) return &r;
  }
  return nullptr;
}

}  // namespace

std::vector<Loosening> FindLoosening(const SettingsFile& file) {
  std::vector<Loosening> out;
  for (const WrittenKey& k : file.written) {
    Loosening l{k, ProjectKey::kNever, "[" + k.section + "] " + k.key, ""};
    const Rule* rule = Find(k.section, k.key);
    if (rule == nullptr) {
      l.why = "safesh does not know what this key allows, so a project file may not set it";
    } else {
      l.kind = rule->loosens(file.settings, &l.what, &l.why);
      if (l.kind == ProjectKey::kTightens) continue;
    }
    l.what = CommentText(l.what);  // shown on a terminal: nothing in it may act on one
    out.push_back(std::move(l));
  }
  return out;
}

bool IsClassified(const std::string& section, const std::string& key) {
  return Find(section, key) != nullptr;
}

}  // namespace safesh::config
