#include "config/toml_text.h"

#include <cstdio>

#include "util/shell_quote.h"

namespace safesh::config {

std::string TomlString(std::string_view s) {
  std::string out = "\"";
  for (char ch : s) {
    unsigned char c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20 || c == 0x7F) {
          char buf[8];
          snprintf(buf, sizeof buf, "\\u%04X", c);
          out += buf;
        } else {
          out += ch;
        }
    }
  }
  return out + "\"";
}

std::string CommentText(std::string_view s) {
  if (s.find_first_of("\n\t") == std::string_view::npos && !util::HasHiddenCharacters(s))
    return std::string(s);
  return util::ShellQuote(s);
}

}  // namespace safesh::config
