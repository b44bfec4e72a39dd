#include "util/shell_quote.h"

#include <cstdio>

#include "util/utf8.h"

namespace safesh::util {
namespace {

bool IsPlain(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view("_./:=@%+,-^").find(c) != std::string_view::npos;
}

uint32_t Decode(std::string_view s, size_t i, size_t len) {
  auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]) & 0x3F; };
  unsigned char c = static_cast<unsigned char>(s[i]);
  if (len == 2) return ((c & 0x1F) << 6) | b(1);
  if (len == 3) return ((c & 0x0F) << 12) | (b(1) << 6) | b(2);
  return ((c & 0x07) << 18) | (b(1) << 12) | (b(2) << 6) | b(3);
}

// Characters that show nothing, or change the direction of the text around them.
bool IsInvisible(uint32_t cp) {
  return cp == 0x00A0 || cp == 0x00AD || (cp >= 0x200B && cp <= 0x200F) ||
         (cp >= 0x2028 && cp <= 0x202E) || (cp >= 0x2060 && cp <= 0x2069) || cp == 0xFEFF ||
         cp == 0x180E || (cp >= 0x0080 && cp <= 0x009F);
}

}  // namespace

bool HasHiddenCharacters(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7F) return true;
      ++i;
      continue;
    }
    size_t len = Utf8SequenceLength(text, i);
    if (len == 0 || IsInvisible(Decode(text, i, len))) return true;
    i += len;
  }
  return false;
}

std::string ShellQuote(std::string_view word) {
  if (word.empty()) return "''";
  if (word == "{}") return "{}";  // find's placeholder: no brace expansion happens on it
  bool plain = true, needs_escapes = false;
  for (size_t i = 0; i < word.size();) {
    unsigned char c = static_cast<unsigned char>(word[i]);
    if (c < 0x80) {
      if (c < 0x20 || c == 0x7F) needs_escapes = true;
      if (!IsPlain(static_cast<char>(c))) plain = false;
      ++i;
      continue;
    }
    plain = false;
    size_t len = Utf8SequenceLength(word, i);
    if (len == 0 || IsInvisible(Decode(word, i, len))) needs_escapes = true;
    i += len == 0 ? 1 : len;
  }
  if (plain) return std::string(word);
  if (!needs_escapes) {
    std::string out = "'";
    for (char c : word) {
      if (c == '\'') {
        out += "'\\''";
      } else {
        out += c;
      }
    }
    return out + "'";
  }
  std::string out = "$'";
  char buf[16];
  for (size_t i = 0; i < word.size();) {
    unsigned char c = static_cast<unsigned char>(word[i]);
    if (c < 0x80) {
      switch (c) {
        case '\n':
          out += "\\n";
          break;
        case '\r':
          out += "\\r";
          break;
        case '\t':
          out += "\\t";
          break;
        case '\'':
          out += "\\'";
          break;
        case '\\':
          out += "\\\\";
          break;
        default:
          if (c < 0x20 || c == 0x7F) {
            std::snprintf(buf, sizeof buf, "\\x%02x", c);
            out += buf;
          } else {
            out += static_cast<char>(c);
          }
      }
      ++i;
      continue;
    }
    size_t len = Utf8SequenceLength(word, i);
    if (len == 0) {
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
      ++i;
      continue;
    }
    uint32_t cp = Decode(word, i, len);
    if (IsInvisible(cp)) {
      std::snprintf(buf, sizeof buf, "\\u%04x", cp);
      out += buf;
    } else {
      out.append(word.substr(i, len));
    }
    i += len;
  }
  return out + "'";
}

}  // namespace safesh::util
