#include "policy/strict.h"

namespace safesh::policy {

std::optional<std::string> StrictModeProblem(std::string_view command) {
  size_t start = command.find_first_not_of(" \t");
  if (start == std::string_view::npos) return "strict mode: the command is empty";
  for (size_t i = 0; i < command.size(); ++i) {
    char c = command[i];
    const char* name = nullptr;
    switch (c) {
      case ';':
        name = "`;'";
        break;
      case '&':
        name = "`&'";
        break;
      case '|':
        name = "`|'";
        break;
      case '`':
        name = "a backquote";
        break;
      case '$':
        name = "`$'";
        break;
      case '<':
        name = "`<'";
        break;
      case '>':
        name = "`>'";
        break;
      case '(':
        name = "`('";
        break;
      case ')':
        name = "`)'";
        break;
      case '{':
        name = "`{'";
        break;
      case '}':
        name = "`}'";
        break;
      case '\\':
        name = "a backslash";
        break;
      case '\n':
        name = "a line break";
        break;
      case '\r':
        name = "a carriage return";
        break;
      default:
        break;
    }
    if (name != nullptr) {
      return "strict mode allows one plain command: " + std::string(name) + " at column " +
             std::to_string(i + 1) +
             " is refused (no operators, pipes, substitutions, expansions, redirections or "
             "grouping, even inside quotes)";
    }
  }
  size_t end = command.find_first_of(" \t", start);
  std::string_view name = command.substr(start, end == std::string_view::npos ? end : end - start);
  if (name.find_first_of("'\"") != std::string_view::npos) {
    return "strict mode: the command name `" + std::string(name) +
           "' must be written plainly, without quotes";
  }
  return std::nullopt;
}

}  // namespace safesh::policy
