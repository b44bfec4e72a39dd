// safesh's settings: a TOML file (see docs/architecture.md, "Settings").
//
// Only what is written is set; everything else keeps its safe default. A key safesh does not
// know, or a value of the wrong type, is an error that names the file, the line and the key:
// a misspelt rule must not silently stop protecting anyone.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "policy/verdict.h"

namespace safesh::config {

// How commands run: [sandbox]. Read by the runner and (later) the sandbox launcher.
struct SandboxSettings {
  // "auto" (use the sandbox when it can be built, say so when it cannot), "required" (refuse to
  // run without it) or "off". SAFESH_SANDBOX_SHELL overrides it. Unset, it is "required": on
  // Linux the sandbox is the boundary, and a machine without one must be noticed, not used.
  std::string shell = "required";
  bool allow_network = false;
  std::vector<std::string> writable_paths;
  std::vector<std::string> read_only_paths;
  std::vector<std::string> blocked_paths;
  // Globs (case-insensitive) of variables removed from every child's environment. Unset: the
  // defaults in exec/env.h. Written: replaces the defaults.
  std::optional<std::vector<std::string>> scrub_env;
  // Variables (globs) the child gets besides exec::DefaultEnvAllow(); no other passes.
  std::optional<std::vector<std::string>> env_allow;
  bool allow_git_config = false;
  // As root, commands run as an unprivileged uid with the workspace mapped to it
  // (sandbox/root_map.h). True: they run as uid 0 and keep root's owner rights on host files
  // (for file systems that cannot be idmapped).
  bool root_keeps_owner_rights = false;
  // Host UNIX sockets (or folders of them) that commands may connect to, e.g. a database's
  // "/run/postgresql". Every other socket in the places safesh looks is masked.
  std::vector<std::string> allow_unix_sockets;
  // Resource limits of each command (exec/limits.h). The most processes (cgroups count threads
  // too) it may have at once; 0: no cap.
  int64_t max_processes = 4096;
  // The most memory it may use, in bytes; 0 (written 0 or "off"): no cap. Unset: half of the
  // physical memory (exec::DefaultMemoryLimit).
  std::optional<uint64_t> memory_limit;
};

// [tools]
struct ToolSettings {
  int64_t shell_timeout_seconds = 120;
  int64_t output_limit_bytes = 100 * 1024;
};

// [approvals]
struct ApprovalSettings {
  // What an ask becomes when no person can be asked: "deny" or "allow".
  std::string headless = "deny";
};

// [background]: what a long-lived host (session/session.h) lets background commands hold.
struct BackgroundSettings {
  int64_t max_running = 8;              // more are refused
  int64_t max_lifetime_seconds = 3600;  // then the command is killed
  // The output a process keeps for `output` and notices (the whole output is in its spool).
  int64_t output_limit_bytes = 256 * 1024;
  int64_t retain_finished = 16;  // finished processes listed; the oldest go first
};

struct Settings {
  policy::CommandRules commands;
  SandboxSettings sandbox;
  ToolSettings tools;
  ApprovalSettings approvals;
  BackgroundSettings background;
};

// A place in a settings file (1-based, as toml++ counts).
struct FilePosition {
  int line = 0;
  int column = 0;
};

// A key a settings file writes, and where: for errors that point at it, for the rules on what a
// project file may set (config/project_rules.h), and for `safesh config show`.
struct WrittenKey {
  std::string section;              // "sandbox"
  std::string key;                  // "allow_network"
  FilePosition at;                  // the key
  std::vector<FilePosition> items;  // a list's items, in order
};

// One file's settings, with the keys it wrote.
struct SettingsFile {
  Settings settings;
  std::vector<WrittenKey> written;  // in the file's order
};

// Reads settings from TOML text. `name` (the file's path) is used in error messages.
std::optional<SettingsFile> ParseSettingsFile(std::string_view text, const std::string& name,
                                              std::string* error);

// The same, for callers that need only the values.
std::optional<Settings> ParseSettings(std::string_view text, const std::string& name,
                                      std::string* error);

// Every key safesh knows, as {section, key}.
std::vector<std::pair<std::string, std::string>> KnownSettingsKeys();

// Reads the settings file at `path`.
std::optional<Settings> LoadSettings(const std::string& path, std::string* error);

}  // namespace safesh::config
