#include "config/layers.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "config/toml_text.h"
#include "exec/env.h"
#include "exec/limits.h"
#include "util/file.h"
#include "util/sha256.h"
#include "util/unique_fd.h"

namespace safesh::config {
namespace {

// A project file is short; a huge one is a mistake or an attack on memory.
constexpr off_t kMaxProjectFileBytes = 1 << 20;

// One key Settings holds, and how to reach its value. Exactly one accessor is set.
struct Field {
  const char* section;
  const char* key;
  bool* (*boolean)(Settings*) = nullptr;
  int64_t* (*integer)(Settings*) = nullptr;
  std::string* (*string)(Settings*) = nullptr;
  std::vector<std::string>* (*list)(Settings*) = nullptr;
  std::optional<std::vector<std::string>>* (*optional_list)(Settings*) = nullptr;
  std::optional<uint64_t>* (*size)(Settings*) = nullptr;  // unset: a computed default
};

Field Bool(const char* section, const char* key, bool* (*f)(Settings*)) {
  Field x{section, key};
  x.boolean = f;
  return x;
}
Field Int(const char* section, const char* key, int64_t* (*f)(Settings*)) {
  Field x{section, key};
  x.integer = f;
  return x;
}
Field Str(const char* section, const char* key, std::string* (*f)(Settings*)) {
  Field x{section, key};
  x.string = f;
  return x;
}
Field List(const char* section, const char* key, std::vector<std::string>* (*f)(Settings*)) {
  Field x{section, key};
  x.list = f;
  return x;
}
Field Size(const char* section, const char* key, std::optional<uint64_t>* (*f)(Settings*)) {
  Field x{section, key};
  x.size = f;
  return x;
}
Field OptList(const char* section, const char* key,
              std::optional<std::vector<std::string>>* (*f)(Settings*)) {
  Field x{section, key};
  x.optional_list = f;
  return x;
}

// In the contract's order.
const std::vector<Field>& Fields() {
  static const std::vector<Field> fields = {
      List("commands", "deny", [](Settings* s) { return &s->commands.deny; }),
      List("commands", "ask", [](Settings* s) { return &s->commands.ask; }),
      List("commands", "allow", [](Settings* s) { return &s->commands.allow; }),
      List("commands", "auto_approve", [](Settings* s) { return &s->commands.auto_approve; }),
      Bool("commands", "strict", [](Settings* s) { return &s->commands.strict; }),
      Str("sandbox", "shell", [](Settings* s) { return &s->sandbox.shell; }),
      Bool("sandbox", "allow_network", [](Settings* s) { return &s->sandbox.allow_network; }),
      List("sandbox", "writable_paths", [](Settings* s) { return &s->sandbox.writable_paths; }),
      List("sandbox", "read_only_paths", [](Settings* s) { return &s->sandbox.read_only_paths; }),
      List("sandbox", "blocked_paths", [](Settings* s) { return &s->sandbox.blocked_paths; }),
      OptList("sandbox", "scrub_env", [](Settings* s) { return &s->sandbox.scrub_env; }),
      OptList("sandbox", "env_allow", [](Settings* s) { return &s->sandbox.env_allow; }),
      Bool("sandbox", "allow_git_config", [](Settings* s) { return &s->sandbox.allow_git_config; }),
      Bool("sandbox", "root_keeps_owner_rights",
           [](Settings* s) { return &s->sandbox.root_keeps_owner_rights; }),
      List("sandbox", "allow_unix_sockets",
           [](Settings* s) { return &s->sandbox.allow_unix_sockets; }),
      Int("sandbox", "max_processes", [](Settings* s) { return &s->sandbox.max_processes; }),
      Size("sandbox", "memory_limit", [](Settings* s) { return &s->sandbox.memory_limit; }),
      Int("tools", "shell_timeout_seconds",
          [](Settings* s) { return &s->tools.shell_timeout_seconds; }),
      Int("tools", "output_limit_bytes", [](Settings* s) { return &s->tools.output_limit_bytes; }),
      Str("approvals", "headless", [](Settings* s) { return &s->approvals.headless; }),
      Int("background", "max_running", [](Settings* s) { return &s->background.max_running; }),
      Int("background", "max_lifetime_seconds",
          [](Settings* s) { return &s->background.max_lifetime_seconds; }),
      Int("background", "output_limit_bytes",
          [](Settings* s) { return &s->background.output_limit_bytes; }),
      Int("background", "retain_finished",
          [](Settings* s) { return &s->background.retain_finished; }),
  };
  return fields;
}

std::string Name(const Field& f) {
  return std::string(f.section) + "." + f.key;
}

const Field* FindField(const std::string& section, const std::string& key) {
  for (const Field& f : Fields()) {
    if (f.section == section && f.key == key) return &f;
  }
  return nullptr;
}

bool IsList(const Field& f) {
  return f.list != nullptr || f.optional_list != nullptr;
}

// The starting point: every value a default, scrub_env the built-in list.
void Defaults(LayeredSettings* out) {
  for (const Field& f : Fields()) {
    std::vector<Origin>& o = out->origins[Name(f)];
    if (!IsList(f)) {
      o = {Origin{}};
    } else if (Name(f) == "sandbox.scrub_env") {
      o.assign(exec::DefaultScrubGlobs().size(), Origin{});
    }
  }
}

// Whether `from`'s value of `f` may replace `now`'s: true for every key but the resource limits,
// which a project may only lower (0 or "off" is no cap; an unset memory limit is the default).
bool LowersLimit(const Field& f, const Settings& now, const Settings& from) {
  if (Name(f) == "sandbox.max_processes") {
    int64_t was = now.sandbox.max_processes, want = from.sandbox.max_processes;
    return want > 0 && (was == 0 || want <= was);
  }
  if (Name(f) == "sandbox.memory_limit") {
    uint64_t was = now.sandbox.memory_limit.value_or(exec::DefaultMemoryLimit());
    uint64_t want = from.sandbox.memory_limit.value_or(0);
    return want > 0 && (was == 0 || want <= was);
  }
  return true;
}

// Adds one file's keys to `out`.
void Merge(const SettingsFile& file, const Origin& where, LayeredSettings* out) {
  Settings from = file.settings;
  for (const WrittenKey& k : file.written) {
    const Field* f = FindField(k.section, k.key);
    if (f == nullptr) continue;
    Origin origin = where;
    origin.at = k.at;
    std::vector<Origin>& origins = out->origins[Name(*f)];
    // A project may lower a limit, never raise it (project_rules.cc): the lower of the two stays.
    if (where.layer == Layer::kProject && !LowersLimit(*f, out->settings, from)) continue;
    if (f->boolean != nullptr) *f->boolean(&out->settings) = *f->boolean(&from);
    if (f->integer != nullptr) *f->integer(&out->settings) = *f->integer(&from);
    if (f->string != nullptr) *f->string(&out->settings) = *f->string(&from);
    if (f->size != nullptr) *f->size(&out->settings) = *f->size(&from);
    if (!IsList(*f)) {
      origins = {origin};
      continue;
    }
    std::vector<std::string>* into;
    const std::vector<std::string>* items;
    if (f->list != nullptr) {
      into = f->list(&out->settings);
      items = f->list(&from);
    } else {
      std::optional<std::vector<std::string>>& target = *f->optional_list(&out->settings);
      bool scrub = Name(*f) == "sandbox.scrub_env";
      if (!target) target = scrub ? exec::DefaultScrubGlobs() : std::vector<std::string>{};
      // The person's own files replace the built-in scrub list; a project only adds to it.
      if (scrub && (where.layer == Layer::kUser || where.layer == Layer::kConfig)) {
        for (size_t i = target->size(); i-- > 0;) {
          if (origins[i].layer == Layer::kDefault) {
            target->erase(target->begin() + static_cast<std::ptrdiff_t>(i));
            origins.erase(origins.begin() + static_cast<std::ptrdiff_t>(i));
          }
        }
      }
      into = &*target;
      items = &**f->optional_list(&from);
    }
    if (Name(*f) == "commands.allow") out->settings.commands.allow_list = true;
    for (size_t i = 0; i < items->size(); ++i) {
      if (std::find(into->begin(), into->end(), (*items)[i]) != into->end()) continue;
      into->push_back((*items)[i]);
      Origin item = where;
      item.at = i < k.items.size() ? k.items[i] : k.at;
      origins.push_back(item);
    }
  }
}

std::string ShortHash(const std::string& sha) {
  return sha.substr(0, 12);
}

// "/w/.safesh/settings.toml" → "/w", for the `safesh trust --workspace` in messages.
std::string WorkspaceOf(const std::string& project_file) {
  const std::string tail = "/.safesh/settings.toml";
  if (project_file.size() > tail.size() &&
      project_file.compare(project_file.size() - tail.size(), tail.size(), tail) == 0)
    return project_file.substr(0, project_file.size() - tail.size());
  return ".";
}

std::string At(const std::string& file, const FilePosition& p) {
  return file + ":" + std::to_string(p.line) + ":" + std::to_string(p.column);
}

// The project's layer: checked against the rules of tightening and the trust store.
bool AddProject(const LayerSources& sources, LayeredSettings* out, std::string* error) {
  std::optional<ProjectFile> project = ReadProjectFile(sources.project_file, error);
  if (!project) return error->empty();
  out->project_trust_key = project->trust_key;
  std::string never, needs;
  for (const Loosening& l : project->loosening) {
    std::string line = "  " + At(project->path, l.key.at) + ": " + l.what + " " + l.why + "\n";
    (l.kind == ProjectKey::kNever ? never : needs) += line;
  }
  if (!never.empty()) {
    *error = project->path +
             ": this project's settings set what a project file can never set, trusted or "
             "not:\n" +
             never + "Remove these keys; set them, if you want them, in your own settings (" +
             (sources.user_file.empty() ? std::string("~/.config/safesh/settings.toml")
                                        : sources.user_file) +
             ") or for one run with --config or SAFESH_SANDBOX_SHELL.";
    return false;
  }
  std::string store_error;
  std::optional<TrustStore> store = LoadTrustStore(sources.trust_file, &store_error);
  const TrustedFile* entry = nullptr;
  out->project = store ? JudgeTrust(*project, *store, &entry) : ProjectTrust::kUntrusted;
  if (!needs.empty() && out->project != ProjectTrust::kTrusted) {
    std::string ws = WorkspaceOf(project->path);
    std::string standing = !store ? "safesh cannot tell whether you trust it (" + store_error + ")"
                           : out->project == ProjectTrust::kChanged
                               ? "it changed since you trusted it" +
                                     (entry->trusted_at.empty() ? "" : " on " + entry->trusted_at) +
                                     " (sha256 then " + ShortHash(entry->sha256) + "..., now " +
                                     ShortHash(project->sha256) + "...)"
                               : "you have not trusted it";
    *error = project->path + ": this project's settings loosen what safesh allows, and " +
             standing + ":\n" + needs +
             "A project's settings may only tighten (deny and ask rules, blocked and read-only "
             "paths, scrub_env) until you trust the file. Review it, then run `safesh trust "
             "--workspace " +
             ws + "` to accept this exact content, or remove these keys.";
    return false;
  }
  Origin where{Layer::kProject, project->path, {}};
  Merge(project->parsed, where, out);
  out->files.push_back({Layer::kProject, project->path, project->sha256});
  return true;
}

}  // namespace

const char* LayerName(Layer layer) {
  switch (layer) {
    case Layer::kDefault:
      return "default";
    case Layer::kUser:
      return "user";
    case Layer::kProject:
      return "project";
    case Layer::kConfig:
      return "config";
    case Layer::kEnv:
      return "env";
  }
  return "?";
}

std::string DescribeOrigin(const Origin& o) {
  if (o.layer == Layer::kDefault) return "default";
  if (o.layer == Layer::kEnv) return "env " + o.file;
  return At(o.file, o.at);
}

std::string UserSettingsPath(const std::string& home, const std::string& xdg_config_home) {
  if (!xdg_config_home.empty() && xdg_config_home[0] == '/')
    return xdg_config_home + "/safesh/settings.toml";
  if (!home.empty() && home[0] == '/') return home + "/.config/safesh/settings.toml";
  return "";
}

std::string ProjectSettingsPath(const std::string& workspace) {
  return workspace + "/.safesh/settings.toml";
}

std::string ProjectTrustKey(const std::string& project_file) {
  const std::string tail = "/.safesh/settings.toml";
  std::string workspace = WorkspaceOf(project_file);
  if (workspace.size() + tail.size() != project_file.size()) return project_file;
  char* real = realpath(workspace.c_str(), nullptr);
  if (real == nullptr) return project_file;
  std::string out = std::string(real) + tail;
  free(real);
  return out;
}

std::optional<ProjectFile> ReadProjectFile(const std::string& path, std::string* error) {
  error->clear();
  if (path.empty()) return std::nullopt;
  // O_NONBLOCK: opening a FIFO planted in a repository must not wait for a writer.
  util::UniqueFd fd(open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  if (!fd.valid() && (errno == ENOENT || errno == ENOTDIR)) return std::nullopt;
  if (!fd.valid()) {
    *error = path + ": " + std::strerror(errno);
    return std::nullopt;
  }
  struct stat st;
  if (fstat(fd.get(), &st) != 0) {
    *error = path + ": " + std::strerror(errno);
    return std::nullopt;
  }
  if (!S_ISREG(st.st_mode)) {
    *error = path + ": is not a regular file; a project's settings must be one";
    return std::nullopt;
  }
  if (st.st_size > kMaxProjectFileBytes) {
    *error = path + ": is larger than 1 MiB; a settings file is a few lines";
    return std::nullopt;
  }
  ProjectFile p;
  p.path = path;
  if (!util::ReadToEnd(fd.get(), path, &p.text, error)) return std::nullopt;
  p.trust_key = ProjectTrustKey(path);
  p.sha256 = util::Sha256Hex(p.text);
  std::optional<SettingsFile> parsed = ParseSettingsFile(p.text, path, error);
  if (!parsed) return std::nullopt;
  p.parsed = std::move(*parsed);
  p.loosening = FindLoosening(p.parsed);
  return p;
}

ProjectTrust JudgeTrust(const ProjectFile& project, const TrustStore& store,
                        const TrustedFile** entry) {
  const TrustedFile* e = FindTrusted(store, project.trust_key);
  if (entry != nullptr) *entry = e;
  if (e == nullptr) return ProjectTrust::kUntrusted;
  return e->sha256 == project.sha256 ? ProjectTrust::kTrusted : ProjectTrust::kChanged;
}

std::optional<LayeredSettings> LoadLayered(const LayerSources& sources, std::string* error) {
  LayeredSettings out;
  Defaults(&out);

  if (!sources.user_file.empty()) {
    std::string text;
    struct stat st;
    bool missing =
        stat(sources.user_file.c_str(), &st) != 0 && (errno == ENOENT || errno == ENOTDIR);
    if (!missing) {
      if (!util::ReadWholeFile(sources.user_file, &text, error)) return std::nullopt;
      std::optional<SettingsFile> file = ParseSettingsFile(text, sources.user_file, error);
      if (!file) return std::nullopt;
      Merge(*file, {Layer::kUser, sources.user_file, {}}, &out);
      out.files.push_back({Layer::kUser, sources.user_file, util::Sha256Hex(text)});
    }
  }

  if (!AddProject(sources, &out, error)) return std::nullopt;

  if (!sources.config_file.empty()) {
    std::string text;
    if (!util::ReadWholeFile(sources.config_file, &text, error)) return std::nullopt;
    std::optional<SettingsFile> file = ParseSettingsFile(text, sources.config_file, error);
    if (!file) return std::nullopt;
    Merge(*file, {Layer::kConfig, sources.config_file, {}}, &out);
    out.files.push_back({Layer::kConfig, sources.config_file, util::Sha256Hex(text)});
  }

  if (sources.env_sandbox_shell && !sources.env_sandbox_shell->empty()) {
    const std::string& v = *sources.env_sandbox_shell;
    if (v != "auto" && v != "required" && v != "landlock" && v != "off") {
      *error = "SAFESH_SANDBOX_SHELL must be auto, required, landlock or off (it is " +
               CommentText(TomlString(v)) + "): fix it or unset it";
      return std::nullopt;
    }
    out.settings.sandbox.shell = v;
    out.origins["sandbox.shell"] = {Origin{Layer::kEnv, "SAFESH_SANDBOX_SHELL", {}}};
  }

  return out;
}

std::vector<EffectiveValue> EffectiveValues(const LayeredSettings& layered) {
  Settings s = layered.settings;
  std::vector<EffectiveValue> out;
  for (const Field& f : Fields()) {
    EffectiveValue v;
    v.section = f.section;
    v.key = f.key;
    auto it = layered.origins.find(Name(f));
    if (it != layered.origins.end()) v.origins = it->second;
    if (f.boolean != nullptr) {
      v.kind = EffectiveValue::kBool;
      v.b = *f.boolean(&s);
    } else if (f.integer != nullptr) {
      v.kind = EffectiveValue::kInt;
      v.i = *f.integer(&s);
    } else if (f.size != nullptr) {
      v.kind = EffectiveValue::kInt;
      v.i = static_cast<int64_t>(f.size(&s)->value_or(exec::DefaultMemoryLimit()));
    } else if (f.string != nullptr) {
      v.kind = EffectiveValue::kString;
      v.s = *f.string(&s);
    } else if (f.list != nullptr) {
      v.kind = EffectiveValue::kList;
      v.list = *f.list(&s);
    } else {
      v.kind = EffectiveValue::kList;
      const std::optional<std::vector<std::string>>& l = *f.optional_list(&s);
      if (l) {
        v.list = *l;
      } else if (Name(f) == "sandbox.scrub_env") {
        v.list = exec::DefaultScrubGlobs();
      } else {
        v.unset = true;
      }
    }
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace safesh::config
