// Claude Code's permission rules (settings.json `permissions.allow`, `ask`, `deny`) as safesh
// settings, for `safesh import claude`.
//
//   Claude Code                   safesh pattern
//   Bash, Bash(*)                 "*"                  every command
//   Bash(npm run build)           "re:npm run build"   exactly that command (words after quote
//                                                      removal; a plain words pattern would
//                                                      also match longer commands)
//   Bash(git log:*)               "git log"            those words, then any arguments
//   Bash(npm run *)               "npm run *"          a glob over the whole command (a regex
//                                                      where safesh's glob would differ)
//
//   allow → [commands] auto_approve: Claude Code's allow runs a command without asking, which
//           is what auto_approve does. safesh's own [commands] allow is an allow-list (what it
//           does not name may not run at all), which no Claude Code rule means.
//   ask → [commands] ask;  deny → [commands] deny.
//   deny Read(path) → [sandbox] blocked_paths, deny Edit(path) or Write(path) →
//           [sandbox] read_only_paths, when the path is literal (a trailing /** names the
//           folder): commands cannot read, or change, what the agent's own tools may not.
//
// Everything else is reported as not imported, with why: other tools (WebFetch, MCP tools,
// ...), rules whose command is not one plain command (pipelines, redirections, values computed
// when it runs, a command run through a wrapper), path globs, other `permissions` keys.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace safesh::config {

struct ImportedRule {
  std::string section;  // "commands" or "sandbox"
  std::string key;      // "deny", "ask", "auto_approve", "blocked_paths", "read_only_paths"
  std::string value;    // the safesh pattern or path
  std::string from;     // the Claude Code rule, e.g. "Bash(git log:*)"
};

struct SkippedRule {
  std::string list;  // "allow", "ask", "deny", or the `permissions` key
  std::string rule;  // as written
  std::string why;
};

struct ClaudeImport {
  std::vector<ImportedRule> rules;
  std::vector<SkippedRule> skipped;
};

// Reads a Claude Code settings.json. Invalid JSON, or `permissions` that is not an object of
// string lists, is an error naming `name` (with line:col for JSON syntax) and the fix.
std::optional<ClaudeImport> ImportClaudeSettings(std::string_view json, const std::string& name,
                                                 std::string* error);

// The import as a safesh settings file, `source` named in its header; the rules not imported
// are listed as comments at the end.
std::string ClaudeImportToml(const ClaudeImport& import, const std::string& source);

}  // namespace safesh::config
