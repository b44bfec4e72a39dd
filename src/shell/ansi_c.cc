#include "shell/ansi_c.h"

#include "util/utf8.h"

namespace safesh::shell {

namespace {

bool IsOctal(char c) {
  return c >= '0' && c <= '7';
}
bool IsHex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

// bash's TOCTRL: \c? is DEL, otherwise the upper-cased character masked to a control code.
char ToCtrl(char c) {
  if (c == '?') return 0x7f;
  if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return static_cast<char>(c & 0x1f);
}

}  // namespace

std::string DecodeAnsiC(std::string_view s) {
  std::string out;
  size_t i = 0;
  while (i < s.size()) {
    char c = s[i++];
    if (c != '\\' || i >= s.size()) {
      out += c;
      continue;
    }
    c = s[i++];
    switch (c) {
      case 'a':
        out += '\a';
        break;
      case 'b':
        out += '\b';
        break;
      case 'e':
      case 'E':
        out += '\x1b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'v':
        out += '\v';
        break;
      case '\\':
        out += '\\';
        break;
      case '\'':
      case '"':
      case '?':
        out += c;
        break;
      case '0':
      case '1':
      case '2':
      case '3':
      case '4':
      case '5':
      case '6':
      case '7': {
        int v = c - '0';
        for (int n = 0; n < 2 && i < s.size() && IsOctal(s[i]); ++n)
          v = v * 8 + (s[i++] - '0');
        out += static_cast<char>(v & 0xFF);
        break;
      }
      case 'x': {
        int v = 0;
        if (i < s.size() && s[i] == '{') {
          ++i;
          while (i < s.size() && IsHex(s[i]))
            v = (v * 16 + HexValue(s[i++])) & 0xFFFF;
          if (i < s.size() && s[i] == '}') ++i;
          out += static_cast<char>(v & 0xFF);
          break;
        }
        int n = 0;
        for (; n < 2 && i < s.size() && IsHex(s[i]); ++n)
          v = v * 16 + HexValue(s[i++]);
        if (n == 0) {
          out += "\\x";
        } else {
          out += static_cast<char>(v & 0xFF);
        }
        break;
      }
      case 'u':
      case 'U': {
        int max = c == 'u' ? 4 : 8;
        unsigned long v = 0;
        int n = 0;
        for (; n < max && i < s.size() && IsHex(s[i]); ++n)
          v = v * 16 + HexValue(s[i++]);
        if (n == 0) {
          out += '\\';
          out += c;
        } else if (v <= 0x7f) {
          out += static_cast<char>(v);
        } else {
          util::AppendUtf8(static_cast<uint32_t>(v), &out);  // 8 hex digits fit
        }
        break;
      }
      case 'c':
        if (i >= s.size()) {
          out += "\\c";  // \c at the end passes through
        } else {
          char x = s[i++];
          if (x == '\\' && i < s.size() && s[i] == '\\') ++i;
          out += ToCtrl(x);
        }
        break;
      default:
        out += '\\';
        out += c;
        break;
    }
  }
  // bash keeps the value as a C string: it ends at the first NUL.
  size_t nul = out.find('\0');
  if (nul != std::string::npos) out.resize(nul);
  return out;
}

}  // namespace safesh::shell
