#include "config/settings.h"

#include <algorithm>
#include <array>

#include <toml++/toml.h>

#include "config/toml_text.h"
#include "sandbox/blocked_names.h"
#include "util/file.h"

namespace safesh::config {
namespace {

struct Key {
  std::string_view name;
  enum Type { kStrings, kBool, kInt, kString, kSize } type;
};

// Every key safesh knows, by section. Those not used yet by this build are still checked.
struct Section {
  std::string_view name;
  std::vector<Key> keys;
};

const std::vector<Section>& KnownSections() {
  static const std::vector<Section> sections = {
      {"commands",
       {{"deny", Key::kStrings},
        {"ask", Key::kStrings},
        {"allow", Key::kStrings},
        {"auto_approve", Key::kStrings},
        {"strict", Key::kBool}}},
      {"sandbox",
       {{"shell", Key::kString},
        {"allow_network", Key::kBool},
        {"writable_paths", Key::kStrings},
        {"read_only_paths", Key::kStrings},
        {"blocked_paths", Key::kStrings},
        {"scrub_env", Key::kStrings},
        {"env_allow", Key::kStrings},
        {"allow_git_config", Key::kBool},
        {"root_keeps_owner_rights", Key::kBool},
        {"allow_unix_sockets", Key::kStrings},
        {"max_processes", Key::kInt},
        {"memory_limit", Key::kSize}}},
      {"tools", {{"shell_timeout_seconds", Key::kInt}, {"output_limit_bytes", Key::kInt}}},
      {"approvals", {{"headless", Key::kString}}},
      {"background",
       {{"max_running", Key::kInt},
        {"max_lifetime_seconds", Key::kInt},
        {"output_limit_bytes", Key::kInt},
        {"retain_finished", Key::kInt}}},
  };
  return sections;
}

std::string At(const std::string& name, const toml::source_region& where) {
  return name + ":" + std::to_string(where.begin.line) + ":" + std::to_string(where.begin.column);
}

// What a value must be, with an example of writing it, so that the message is also the fix.
std::string TypeName(Key::Type t, const std::string& k) {
  switch (t) {
    case Key::kStrings:
      return "a list of strings, e.g. " + k + " = [\"one\", \"two\"]";
    case Key::kBool:
      return "true or false, without quotes";
    case Key::kInt:
      return "a whole number, without quotes";
    case Key::kString:
      return "a string, in double quotes";
    case Key::kSize:
      return "a number of bytes or a string such as \"4GiB\" or \"off\"";
  }
  return "?";
}

FilePosition PositionOf(const toml::source_region& where) {
  return {static_cast<int>(where.begin.line), static_cast<int>(where.begin.column)};
}

// Each pattern of a [commands] list must compile; an error names the pattern's own line and
// column, and what patterns look like.
bool CheckPatterns(const toml::node& value, const std::string& name, const std::string& k,
                   std::string* error) {
  for (const toml::node& n : *value.as_array()) {
    std::string why;
    if (!policy::ParsePattern(*n.value<std::string_view>(), &why)) {
      *error = At(name, n.source()) + ": [commands] " + k + ": " + CommentText(why) +
               " (a pattern is words such as \"git log\", a glob such as \"git *\", or "
               "\"re:\" and an RE2 regular expression)";
      return false;
    }
  }
  return true;
}

bool Check(const toml::node& value, Key::Type type) {
  switch (type) {
    case Key::kStrings: {
      const toml::array* a = value.as_array();
      if (a == nullptr) return false;
      for (const toml::node& n : *a) {
        if (!n.is_string()) return false;
      }
      return true;
    }
    case Key::kBool:
      return value.is_boolean();
    case Key::kInt:
      return value.is_integer();
    case Key::kString:
      return value.is_string();
    case Key::kSize:
      return value.is_integer() || value.is_string();
  }
  return false;
}

std::vector<std::string> Strings(const toml::node& value) {
  std::vector<std::string> out;
  for (const toml::node& n : *value.as_array())
    out.push_back(std::string(*n.value<std::string_view>()));
  return out;
}

// The longest timeout a command may be given, as in the per-call limit (30 minutes).
constexpr int64_t kMaxTimeoutSeconds = 30 * 60;
// Bounds of the output view: big enough for a useful head and tail, small enough for a context.
constexpr int64_t kMinOutputLimit = 1024;
constexpr int64_t kMaxOutputLimit = 64 * 1024 * 1024;

// Each [sandbox] blocked_paths entry must be usable (sandbox/blocked_names.h): an error names
// the entry's own line and column.
bool CheckBlockedPaths(const toml::node& value, const std::string& file, std::string* error) {
  for (const toml::node& n : *value.as_array()) {
    std::string why;
    if (!sandbox::CheckBlockedEntry(*n.value<std::string_view>(), &why)) {
      *error = At(file, n.source()) + ": [sandbox] blocked_paths " + why;
      return false;
    }
  }
  return true;
}

// Bounds of the resource limits. Fewer than 8 processes or 16 MiB cannot start a sandboxed
// bash (bubblewrap, its init, bash); 4194304 is the kernel's largest pid_max.
constexpr int64_t kMinProcesses = 8;
constexpr int64_t kMaxProcesses = 4194304;
constexpr uint64_t kMinMemory = 16ull << 20;
constexpr uint64_t kMaxMemory = 1ull << 60;

// A size: a number of bytes, or digits and a binary unit (K, KiB, M, MiB, G, GiB, T, TiB; a
// space between them is allowed), or "off" (0). False when it is none of these or too large.
bool ParseSize(std::string_view text, uint64_t* bytes) {
  if (text == "off") {
    *bytes = 0;
    return true;
  }
  size_t digits = std::min(text.find_first_not_of("0123456789"), text.size());
  if (digits == 0 || digits > 18) return false;  // 18 digits cannot overflow
  uint64_t n = std::stoull(std::string(text.substr(0, digits)));
  std::string_view unit = text.substr(digits);
  if (unit.starts_with(" ")) unit.remove_prefix(1);
  struct Unit {
    std::string_view short_name, name;
    int shift;
  };
  static constexpr Unit kUnits[] = {
      {"", "B", 0}, {"K", "KiB", 10}, {"M", "MiB", 20}, {"G", "GiB", 30}, {"T", "TiB", 40}};
  for (const Unit& u : kUnits) {
    if (unit != u.short_name && unit != u.name) continue;
    if (n > (kMaxMemory >> u.shift)) return false;
    *bytes = n << u.shift;
    return true;
  }
  return false;
}

bool ReadRunKey(const std::string& section, const std::string& k, const toml::node& value,
                const std::string& file, const std::string& where, Settings* s,
                std::string* error) {
  auto fail = [&](const std::string& what) {
    *error = where + ": [" + section + "] " + k + " " + what;
    return false;
  };
  if (section == "sandbox") {
    if (k == "shell") {
      std::string v(*value.value<std::string_view>());
      if (v != "auto" && v != "required" && v != "landlock" && v != "off")
        return fail("must be \"auto\", \"required\", \"landlock\" or \"off\" (it is " +
                    CommentText(TomlString(v)) + ")");
      s->sandbox.shell = v;
    }
    if (k == "allow_network") s->sandbox.allow_network = *value.value<bool>();
    if (k == "writable_paths") s->sandbox.writable_paths = Strings(value);
    if (k == "read_only_paths") s->sandbox.read_only_paths = Strings(value);
    if (k == "blocked_paths") {
      if (!CheckBlockedPaths(value, file, error)) return false;
      s->sandbox.blocked_paths = Strings(value);
    }
    if (k == "scrub_env") s->sandbox.scrub_env = Strings(value);
    if (k == "env_allow") s->sandbox.env_allow = Strings(value);
    if (k == "allow_git_config") s->sandbox.allow_git_config = *value.value<bool>();
    if (k == "root_keeps_owner_rights") s->sandbox.root_keeps_owner_rights = *value.value<bool>();
    if (k == "max_processes") {
      int64_t v = *value.value<int64_t>();
      if (v != 0 && (v < kMinProcesses || v > kMaxProcesses))
        return fail("must be 0 (no cap) or from " + std::to_string(kMinProcesses) + " to " +
                    std::to_string(kMaxProcesses) + " (it is " + std::to_string(v) + ")");
      s->sandbox.max_processes = v;
    }
    if (k == "memory_limit") {
      uint64_t bytes = 0;
      bool ok = false;
      std::string shown;
      if (value.is_integer()) {
        int64_t v = *value.value<int64_t>();
        ok = v >= 0 && static_cast<uint64_t>(v) <= kMaxMemory;
        bytes = ok ? static_cast<uint64_t>(v) : 0;
        shown = std::to_string(v);
      } else {
        std::string_view v = *value.value<std::string_view>();
        ok = ParseSize(v, &bytes);
        shown = "\"" + std::string(v) + "\"";
      }
      if (!ok || (bytes != 0 && bytes < kMinMemory))
        return fail(
            "must be \"off\" (or 0) or at least 16 MiB, in bytes or written like "
            "\"512MiB\" or \"4GiB\" (units K, M, G, T or KiB, MiB, GiB, TiB: powers of "
            "1024) (it is " +
            shown + ")");
      s->sandbox.memory_limit = bytes;
    }
    if (k == "allow_unix_sockets") s->sandbox.allow_unix_sockets = Strings(value);
    for (const auto* list : {&s->sandbox.writable_paths, &s->sandbox.allow_unix_sockets}) {
      for (const std::string& p : *list) {
        if (p.empty()) return fail("has an empty path");
      }
    }
    return true;
  }
  if (section == "tools") {
    int64_t v = *value.value<int64_t>();
    if (k == "shell_timeout_seconds") {
      if (v < 1 || v > kMaxTimeoutSeconds)
        return fail("must be from 1 to " + std::to_string(kMaxTimeoutSeconds) + " (30 minutes)");
      s->tools.shell_timeout_seconds = v;
    }
    if (k == "output_limit_bytes") {
      if (v < kMinOutputLimit || v > kMaxOutputLimit)
        return fail("must be from " + std::to_string(kMinOutputLimit) + " to " +
                    std::to_string(kMaxOutputLimit) + " bytes");
      s->tools.output_limit_bytes = v;
    }
    return true;
  }
  if (section == "background") {
    // Bounds that hold whoever sets them (a project file may, untrusted): a host never keeps
    // more than 32 commands, a day, 64 MiB of output each, or 256 finished ones.
    struct Bound {
      std::string_view key;
      int64_t min, max;
      int64_t* value;
      const char* unit;
    };
    const Bound bounds[] = {
        {"max_running", 1, 32, &s->background.max_running, ""},
        {"max_lifetime_seconds", 1, 24 * 60 * 60, &s->background.max_lifetime_seconds,
         " seconds (a day)"},
        {"output_limit_bytes", kMinOutputLimit, kMaxOutputLimit, &s->background.output_limit_bytes,
         " bytes"},
        {"retain_finished", 0, 256, &s->background.retain_finished, ""},
    };
    int64_t v = *value.value<int64_t>();
    for (const Bound& b : bounds) {
      if (b.key != k) continue;
      if (v < b.min || v > b.max)
        return fail("must be from " + std::to_string(b.min) + " to " + std::to_string(b.max) +
                    b.unit + " (it is " + std::to_string(v) + ")");
      *b.value = v;
    }
    return true;
  }
  if (section == "approvals" && k == "headless") {
    std::string v(*value.value<std::string_view>());
    if (v != "deny" && v != "allow")
      return fail("must be \"deny\" or \"allow\" (it is " + CommentText(TomlString(v)) + ")");
    s->approvals.headless = v;
  }
  return true;
}

}  // namespace

std::optional<SettingsFile> ParseSettingsFile(std::string_view text, const std::string& name,
                                              std::string* error) {
  // Debian's toml++ reports syntax errors by throwing; they stop here.
  toml::table root;
  try {
    root = toml::parse(text, name);
  } catch (const toml::parse_error& e) {
    *error = At(name, e.source()) + ": " + std::string(e.description());
    return std::nullopt;
  }
  SettingsFile file;
  Settings& s = file.settings;
  for (const auto& [section_key, section_node] : root) {
    std::string section(section_key.str());
    const Section* known = nullptr;
    for (const Section& k : KnownSections()) {
      if (k.name == section) known = &k;
    }
    std::string where = At(name, section_key.source());
    if (known == nullptr) {
      std::string list;
      for (const Section& k : KnownSections())
        list += (list.empty() ? "" : ", ") + std::string("[") + std::string(k.name) + "]";
      *error = where + ": unknown section or key `" + CommentText(section) +
               "' (the sections are " + list + ")";
      return std::nullopt;
    }
    const toml::table* table = section_node.as_table();
    if (table == nullptr) {
      *error = where + ": `" + section + "' must be a section, written [" + section + "]";
      return std::nullopt;
    }
    for (const auto& [key, value] : *table) {
      std::string k(key.str());
      const Key* spec = nullptr;
      for (const Key& c : known->keys) {
        if (c.name == k) spec = &c;
      }
      std::string kwhere = At(name, key.source());
      if (spec == nullptr) {
        std::string list;
        for (const Key& c : known->keys)
          list += (list.empty() ? "" : ", ") + std::string(c.name);
        *error = kwhere + ": unknown key `" + CommentText(k) + "' in [" + section +
                 "] (known keys: " + list + ")";
        return std::nullopt;
      }
      if (!Check(value, spec->type)) {
        *error = kwhere + ": [" + section + "] " + k + " must be " + TypeName(spec->type, k);
        return std::nullopt;
      }
      WrittenKey written{section, k, PositionOf(key.source()), {}};
      if (const toml::array* items = value.as_array()) {
        for (const toml::node& n : *items)
          written.items.push_back(PositionOf(n.source()));
      }
      file.written.push_back(std::move(written));
      if (section == "sandbox" || section == "tools" || section == "approvals" ||
          section == "background") {
        if (!ReadRunKey(section, k, value, name, kwhere, &s, error)) return std::nullopt;
        continue;
      }
      if (section != "commands") continue;
      if (spec->type == Key::kStrings && !CheckPatterns(value, name, k, error)) return std::nullopt;
      if (k == "deny") s.commands.deny = Strings(value);
      if (k == "ask") s.commands.ask = Strings(value);
      if (k == "allow") {
        s.commands.allow = Strings(value);
        s.commands.allow_list = true;
      }
      if (k == "auto_approve") s.commands.auto_approve = Strings(value);
      if (k == "strict") s.commands.strict = *value.value<bool>();
    }
  }
  // The patterns must compile, so that a bad one is reported where the file is read.
  std::string why;
  if (!policy::Policy::Compile(s.commands, &why)) {
    *error = name + ": " + why;
    return std::nullopt;
  }
  return file;
}

std::optional<Settings> ParseSettings(std::string_view text, const std::string& name,
                                      std::string* error) {
  std::optional<SettingsFile> file = ParseSettingsFile(text, name, error);
  if (!file) return std::nullopt;
  return std::move(file->settings);
}

std::vector<std::pair<std::string, std::string>> KnownSettingsKeys() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const Section& section : KnownSections()) {
    for (const Key& key : section.keys)
      out.emplace_back(section.name, key.name);
  }
  return out;
}

std::optional<Settings> LoadSettings(const std::string& path, std::string* error) {
  std::string text;
  if (!util::ReadWholeFile(path, &text, error)) return std::nullopt;
  return ParseSettings(text, path, error);
}

}  // namespace safesh::config
