#include "config/claude_import.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "config/toml_text.h"
#include "policy/extract.h"

namespace safesh::config {
namespace {

// The words of a Claude Code rule's command, or why it has none safesh can match exactly.
std::optional<std::vector<std::string>> StaticWords(const std::string& text, std::string* why) {
  policy::Extraction e = policy::ExtractScript(text);
  if (e.parse_error) {
    *why = "its command is not valid shell syntax (" + e.parse_error->ToString() + ")";
    return std::nullopt;
  }
  if (e.commands.empty()) {
    *why = "it names no command";
    return std::nullopt;
  }
  const policy::CommandUse& first = e.commands.front();
  if (first.role == policy::Role::kWrapper || first.role == policy::Role::kShell) {
    std::string inner = e.commands.size() > 1 ? policy::JoinArgv(e.commands[1].argv) : "";
    *why = "it runs a command through `" + policy::JoinArgv(first.argv) +
           "': safesh judges the command a wrapper runs, so write the rule for that command" +
           (inner.empty() ? "" : " (`" + inner + "')");
    return std::nullopt;
  }
  if (e.commands.size() > 1) {
    *why = "it holds more than one command: write one rule for each";
    return std::nullopt;
  }
  if (!e.writes.empty()) {
    *why = "it writes a file (" + e.writes.front().how +
           "): safesh patterns match a command's words, not its redirections";
    return std::nullopt;
  }
  if (!first.IsStatic() || !e.runtime.empty() || !e.unverified.empty() || !e.network.empty()) {
    *why = "it uses something computed when it runs, which a safesh pattern cannot name exactly";
    return std::nullopt;
  }
  std::vector<std::string> words;
  for (const policy::Arg& a : first.argv)
    words.push_back(a.text);
  return words;
}

std::string Join(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words)
    out += (out.empty() ? "" : " ") + w;
  return out;
}

// RE2 syntax: every character that means something in a regular expression, escaped.
std::string RegexEscape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (std::string_view("\\.^$|?*+()[]{}").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

// Words that a safesh words pattern reads back as the same words.
bool PlainWords(const std::vector<std::string>& words) {
  if (!words.empty() && words[0].rfind("re:", 0) == 0) return false;
  for (const std::string& w : words) {
    if (w.empty() || w.find_first_of(" \t*?\\") != std::string::npos) return false;
  }
  return true;
}

// Bash(CONTENT) as a safesh pattern, or why it has none.
std::optional<std::string> BashPattern(std::string content, std::string* why) {
  while (!content.empty() && (content.back() == ' ' || content.back() == '\t'))
    content.pop_back();
  content.erase(0, content.find_first_not_of(" \t"));
  if (content.empty() || content == "*" || content == ":*") return "*";
  size_t stars = std::count(content.begin(), content.end(), '*');
  // Bash(PREFIX:*): PREFIX, then nothing or a space and anything.
  if (content.size() >= 2 && content.compare(content.size() - 2, 2, ":*") == 0) {
    if (stars > 1) {
      *why = "a `:*' rule with another * in it has no single meaning";
      return std::nullopt;
    }
    std::optional<std::vector<std::string>> words =
        StaticWords(content.substr(0, content.size() - 2), why);
    if (!words) return std::nullopt;
    if (PlainWords(*words)) return Join(*words);
    return "re:" + RegexEscape(Join(*words)) + "( .*)?";
  }
  if (stars == 0) {
    std::optional<std::vector<std::string>> words = StaticWords(content, why);
    if (!words) return std::nullopt;
    return "re:" + RegexEscape(Join(*words));
  }
  // Wildcards: Claude Code's * matches any text, spaces included, as safesh's glob * does.
  if (content.find_first_of("\"'\\$`;&|<>(){}") != std::string::npos) {
    *why = "quotes or shell syntax around a * cannot be translated exactly";
    return std::nullopt;
  }
  std::string glob;  // the words joined by single spaces, as safesh joins a command's
  size_t i = 0;
  while (i < content.size()) {
    size_t start = content.find_first_not_of(" \t", i);
    if (start == std::string::npos) break;
    size_t end = content.find_first_of(" \t", start);
    if (end == std::string::npos) end = content.size();
    glob += (glob.empty() ? "" : " ") + content.substr(start, end - start);
    i = end;
  }
  // safesh lets any glob ending in " *" match the bare command too; Claude Code only a rule
  // with that one *. With more, a regular expression says exactly what Claude Code means.
  bool trailing = glob.size() >= 2 && glob.compare(glob.size() - 2, 2, " *") == 0;
  if (trailing && stars > 1) {
    std::string re;
    for (char c : glob)
      re += c == '*' ? std::string(".*") : RegexEscape(std::string(1, c));
    return "re:" + re;
  }
  std::string out;
  for (char c : glob) {
    if (c == '?') out += '\\';  // a literal ? for Claude Code, one character for safesh
    out += c;
  }
  return out;
}

// The literal path of a Read/Edit/Write rule as a safesh path, or why it has none.
std::optional<std::string> LiteralPath(std::string p, std::string* why) {
  if (p.size() > 3 && p.compare(p.size() - 3, 3, "/**") == 0) p.resize(p.size() - 3);
  if (p.empty() || p.find_first_of("*?[{") != std::string::npos) {
    *why = "a path pattern: safesh's [sandbox] paths are literal paths";
    return std::nullopt;
  }
  if (p.rfind("//", 0) == 0) return p.substr(1);  // an absolute path
  if (p == "~" || p.rfind("~/", 0) == 0) return p;
  if (p[0] == '/') {
    *why =
        "a path starting with one / is relative to the Claude Code settings file's folder; "
        "add it by hand as a workspace-relative or absolute path";
    return std::nullopt;
  }
  if (p.rfind("./", 0) == 0) p = p.substr(2);
  if (p.empty()) p = ".";
  return p;  // relative to the workspace, as Claude Code's are to the project
}

struct ToolRule {
  std::string tool;
  std::optional<std::string> content;
};

std::optional<ToolRule> SplitRule(const std::string& rule) {
  size_t open = rule.find('(');
  if (open == std::string::npos) return ToolRule{rule, std::nullopt};
  if (rule.back() != ')') return std::nullopt;
  return ToolRule{rule.substr(0, open), rule.substr(open + 1, rule.size() - open - 2)};
}

void ImportRule(const std::string& list, const std::string& rule, ClaudeImport* out) {
  auto skip = [&](const std::string& why) { out->skipped.push_back({list, rule, why}); };
  auto add = [&](const std::string& section, const std::string& key, const std::string& value) {
    for (const ImportedRule& r : out->rules) {
      if (r.section == section && r.key == key && r.value == value) return;
    }
    out->rules.push_back({section, key, value, rule});
  };
  std::optional<ToolRule> parts = SplitRule(rule);
  if (!parts || parts->tool.empty()) {
    skip("not a rule Claude Code reads (Tool or Tool(specifier))");
    return;
  }
  const std::string& tool = parts->tool;
  if (tool == "Bash") {
    std::string why;
    std::optional<std::string> pattern = BashPattern(parts->content.value_or(""), &why);
    if (!pattern) return skip(why);
    add("commands", list == "allow" ? "auto_approve" : list, *pattern);
    return;
  }
  bool read = tool == "Read", edit = tool == "Edit" || tool == "Write";
  if ((read || edit) && list == "deny" && parts->content) {
    std::string why;
    std::optional<std::string> path = LiteralPath(*parts->content, &why);
    if (!path) return skip(why);
    add("sandbox", read ? "blocked_paths" : "read_only_paths", *path);
    return;
  }
  if (read || edit || tool == "Glob" || tool == "Grep" || tool == "LS" || tool == "NotebookEdit" ||
      tool == "MultiEdit") {
    return skip(list == "deny" ? "only a deny rule with a path is imported"
                               : "safesh's sandbox decides what commands may read and change, "
                                 "not a rule per tool");
  }
  if (tool == "WebFetch" || tool == "WebSearch") {
    return skip(
        "safesh has no rules per site: commands reach the network only with [sandbox] "
        "allow_network = true");
  }
  skip("not a shell command: safesh judges the commands an agent runs in a shell");
}

std::string JsonErrorAt(const std::string& name, std::string_view json, size_t byte,
                        const std::string& what) {
  size_t line = 1, col = 1;
  for (size_t i = 0; i + 1 < byte && i < json.size(); ++i) {
    if (json[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  // nlohmann's message: "[json.exception.parse_error.101] parse error at line L, column C: ...".
  std::string message = what;
  if (size_t colon = message.find(": ", message.find("column")); colon != std::string::npos)
    message = message.substr(colon + 2);
  return name + ":" + std::to_string(line) + ":" + std::to_string(col) +
         ": not valid JSON: " + message + "; fix the file (Claude Code would not read it either)";
}

}  // namespace

std::optional<ClaudeImport> ImportClaudeSettings(std::string_view json, const std::string& name,
                                                 std::string* error) {
  nlohmann::json root;
  try {
    root = nlohmann::json::parse(json);
  } catch (const nlohmann::json::parse_error& e) {
    *error = JsonErrorAt(name, json, e.byte, e.what());
    return std::nullopt;
  }
  if (!root.is_object()) {
    *error = name +
             ": a Claude Code settings file is a JSON object, e.g. "
             "{\"permissions\": {\"allow\": [\"Bash(npm test)\"]}}";
    return std::nullopt;
  }
  ClaudeImport out;
  auto it = root.find("permissions");
  if (it == root.end()) return out;
  if (!it->is_object()) {
    *error = name +
             ": `permissions' must be an object, e.g. {\"allow\": [\"Bash(npm test)\"], "
             "\"deny\": [\"Bash(rm:*)\"]}";
    return std::nullopt;
  }
  // Claude Code's order of precedence: deny, ask, allow.
  for (const char* list : {"deny", "ask", "allow"}) {
    auto l = it->find(list);
    if (l == it->end()) continue;
    if (!l->is_array() ||
        !std::all_of(l->begin(), l->end(), [](const nlohmann::json& e) { return e.is_string(); })) {
      *error = name + ": `permissions." + list +
               "' must be a list of rule strings, e.g. [\"Bash(git log:*)\"]";
      return std::nullopt;
    }
    for (const nlohmann::json& rule : *l)
      ImportRule(list, rule.get<std::string>(), &out);
  }
  for (const auto& [key, value] : it->items()) {
    if (key == "allow" || key == "deny" || key == "ask") continue;
    out.skipped.push_back(
        {key, value.dump(), "safesh imports only the allow, ask and deny rules of `permissions'"});
  }
  return out;
}

std::string ClaudeImportToml(const ClaudeImport& import, const std::string& source) {
  std::string out =
      "# safesh settings imported from Claude Code's " + CommentText(source) +
      "\n"
      "# by `safesh import claude`. Claude Code's allow rules are auto_approve here: they run a\n"
      "# command without asking. ([commands] allow would be an allow-list: only what it names\n"
      "# could run at all.) safesh auto-approves a line only when every command in it matches and\n"
      "# nothing in it writes a file or is computed when it runs; deny rules also catch commands\n"
      "# run through wrappers, bash -c, find -exec and the like.\n";
  const std::pair<const char*, const char*> keys[] = {{"commands", "deny"},
                                                      {"commands", "ask"},
                                                      {"commands", "auto_approve"},
                                                      {"sandbox", "blocked_paths"},
                                                      {"sandbox", "read_only_paths"}};
  std::string section;
  for (const auto& [sec, key] : keys) {
    std::vector<const ImportedRule*> rules;
    for (const ImportedRule& r : import.rules) {
      if (r.section == sec && r.key == key) rules.push_back(&r);
    }
    if (rules.empty()) continue;
    if (section != sec) {
      section = sec;
      out += "\n[" + section + "]\n";
    }
    out += std::string(key) + " = [\n";
    for (const ImportedRule* r : rules)
      out += "  " + TomlString(r->value) + ",  # " + CommentText(r->from) + "\n";
    out += "]\n";
  }
  if (import.rules.empty()) out += "\n# No rule could be imported.\n";
  if (!import.skipped.empty()) {
    out += "\n# Not imported (safesh cannot express these):\n";
    for (const SkippedRule& s : import.skipped)
      out += "#   " + s.list + " " + CommentText(s.rule) + ": " + CommentText(s.why) + "\n";
  }
  return out;
}

}  // namespace safesh::config
