// The effective settings: built-in defaults, then each settings file in turn, then environment
// overrides, with where every value came from.
//
//   defaults < user file < project file < --config file < environment
//
//   user     $XDG_CONFIG_HOME/safesh/settings.toml, else ~/.config/safesh/settings.toml
//   project  <workspace>/.safesh/settings.toml: only tightens until trusted (project_rules.h,
//            trust.h); a loosening key in an untrusted file is an error and nothing runs
//   --config the file named on the command line
//   env      SAFESH_SANDBOX_SHELL ([sandbox] shell)
//
// Merging, per key: lists of rules and paths accumulate (deny, ask, allow, auto_approve,
// writable/read_only/blocked paths, allow_unix_sockets, scrub_env, env_allow; each value once,
// first origin kept); scalars take the last layer's value. `scrub_env` starts from the built-in
// list, which the user file or the --config file replace when they write it (their list is the
// person's choice) and a project file only adds to. `allow` is on as soon as any layer writes
// it, even empty.
//
// The user and project files are optional; the --config file must exist. Every error names the
// file, the line and column, and the fix.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "config/project_rules.h"
#include "config/settings.h"
#include "config/trust.h"

namespace safesh::config {

enum class Layer { kDefault, kUser, kProject, kConfig, kEnv };
const char* LayerName(Layer layer);  // "default", "user", "project", "config", "env"

// Where one value came from.
struct Origin {
  Layer layer = Layer::kDefault;
  std::string file;  // the settings file; for kEnv the variable's name
  FilePosition at;   // in the file (0:0 for defaults and env)
};

// "default", "env SAFESH_SANDBOX_SHELL", or "FILE:LINE:COL".
std::string DescribeOrigin(const Origin& origin);

// Where the layers are; empty strings for layers that do not apply.
struct LayerSources {
  std::string user_file;     // optional: a missing file is no layer
  std::string project_file;  // optional likewise
  std::string config_file;   // the --config file: must exist
  std::string trust_file;    // the trust store, read only when a project file exists
  std::optional<std::string> env_sandbox_shell;  // SAFESH_SANDBOX_SHELL
};

// The project file's standing.
enum class ProjectTrust {
  kNone,       // no project file
  kUntrusted,  // never trusted: only tightening keys are accepted
  kChanged,    // trusted once, changed since: as untrusted
  kTrusted,    // its exact content is trusted
};

struct LayerFile {
  Layer layer = Layer::kUser;
  std::string path;
  std::string sha256;  // of the content read
};

// One key of the effective settings, for showing them: its value and where it came from.
struct EffectiveValue {
  std::string section;
  std::string key;
  enum Kind { kBool, kInt, kString, kList } kind = kString;
  bool b = false;
  int64_t i = 0;
  std::string s;
  std::vector<std::string> list;
  bool unset = false;           // an optional list no layer wrote (env_allow)
  std::vector<Origin> origins;  // one per list item; one for a scalar
};

struct LayeredSettings {
  Settings settings;
  std::vector<LayerFile> files;  // the files read, lowest layer first
  ProjectTrust project = ProjectTrust::kNone;
  std::string project_trust_key;  // see ProjectTrustKey
  // Where each value came from: "section.key" → one origin per list item (as in the
  // effective list), or one for a scalar.
  std::map<std::string, std::vector<Origin>> origins;
};

// The user file's path (see above); empty when neither XDG_CONFIG_HOME nor home is usable.
std::string UserSettingsPath(const std::string& home, const std::string& xdg_config_home);

// <workspace>/.safesh/settings.toml
std::string ProjectSettingsPath(const std::string& workspace);

// How the trust store names a project file: the workspace's real path, then
// /.safesh/settings.toml. Links inside the workspace are not followed: a repository whose
// .safesh links to another's gets its own entry, since relative paths in the file mean
// different places there.
std::string ProjectTrustKey(const std::string& project_file);

// Reads and merges the layers. Errors: unreadable or invalid files, an invalid override, a
// project file that loosens without trust (or sets what a project can never set).
std::optional<LayeredSettings> LoadLayered(const LayerSources& sources, std::string* error);

// Every key that Settings holds, in the contract's order, with its effective value.
std::vector<EffectiveValue> EffectiveValues(const LayeredSettings& layered);

// The project file as read: for LoadLayered and `safesh trust`.
struct ProjectFile {
  std::string path;
  std::string trust_key;  // see ProjectTrustKey
  std::string text;
  std::string sha256;  // of `text`, the bytes parsed
  SettingsFile parsed;
  std::vector<Loosening> loosening;  // keys that need trust, or that a project may never set
};

// Reads and checks the project file at `path`. It must be a regular file (not a FIFO that
// would block, nor a device) of at most 1 MiB. Missing: nothing, with *error empty.
std::optional<ProjectFile> ReadProjectFile(const std::string& path, std::string* error);

// Whether the store pins this exact content. `*entry` (when given) is set to the store's entry
// for the file, if it has one.
ProjectTrust JudgeTrust(const ProjectFile& project, const TrustStore& store,
                        const TrustedFile** entry = nullptr);

}  // namespace safesh::config
