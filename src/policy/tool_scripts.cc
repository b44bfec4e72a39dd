#include "policy/tool_scripts.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace safesh::policy {
namespace {

void AddUnique(std::vector<std::string>* list, std::string item) {
  if (std::find(list->begin(), list->end(), item) == list->end()) list->push_back(std::move(item));
}

// The first problem wins: the tools stop at their first error, and later complaints are
// usually consequences of it.
void SetProblem(ScriptEffects* out, std::string why) {
  if (out->problem.empty()) out->problem = std::move(why);
}

// A byte as a person would want to see it in a message.
std::string Describe(int ch) {
  if (ch < 0) return "the end of the script";
  if (ch == '\n') return "a newline";
  if (ch >= 0x21 && ch < 0x7f) return std::string("'") + static_cast<char>(ch) + "'";
  static const char kHex[] = "0123456789abcdef";
  std::string s = "byte 0x";
  s.push_back(kHex[(ch >> 4) & 15]);
  s.push_back(kHex[ch & 15]);
  return s;
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// ---------------------------------------------------------------------------------------------
// sed
//
// The reader follows GNU sed 4.9's compile.c closely (compile_program, compile_address,
// match_slash, snarf_char_class, mark_subst_opts, read_text, read_label, read_filename,
// normalize_text): a reader that is merely "close" to sed can be steered by a crafted script
// into seeing a harmless command where sed sees `e` or `w`. Everything sed would reject becomes
// a problem, so the policy never approves a script on the strength of a reading sed does not
// share.

constexpr int kEof = -1;

// ISBLANK and ISSPACE in the C locale.
bool IsSedBlank(int ch) {
  return ch == ' ' || ch == '\t';
}

bool IsSedSpace(int ch) {
  return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\v' || ch == '\f' || ch == '\r';
}

bool IsDigit(int ch) {
  return ch >= '0' && ch <= '9';
}

// GNU sed hands these names to its own stdout and stderr instead of opening a file.
// (/dev/stdin is special too, but writing there is not writing output, so it is reported.)
bool IsSedStandardStream(std::string_view name) {
  return name == "/dev/stdout" || name == "/dev/stderr";
}

// normalize_text(..., TEXT_BUFFER): how sed turns the raw text of a, i, c and e into the bytes it
// uses. Only the `e` command's text matters here, since it is the command line that runs.
// Returns false when sed would reject the text.
bool NormalizeSedText(std::string_view raw, std::string* out) {
  out->clear();
  size_t p = 0;
  while (p < raw.size()) {
    if (raw[p] != '\\' || p + 1 >= raw.size()) {
      out->push_back(raw[p++]);
      continue;
    }
    char c = raw[++p];
    int base = 0;
    switch (c) {
      case 'a':
        out->push_back('\a');
        ++p;
        continue;
      case 'f':
        out->push_back('\f');
        ++p;
        continue;
      case '\n':
      case 'n':
        out->push_back('\n');
        ++p;
        continue;
      case 'r':
        out->push_back('\r');
        ++p;
        continue;
      case 't':
        out->push_back('\t');
        ++p;
        continue;
      case 'v':
        out->push_back('\v');
        ++p;
        continue;
      case 'd':
        base = 10;
        break;
      case 'x':
        base = 16;
        break;
      case 'o':
        base = 8;
        break;
      case 'c':
        // \cX is control-X; \c\\ is control-backslash and any other \c\ is an error.
        if (++p < raw.size()) {
          unsigned char x = static_cast<unsigned char>(raw[p]);
          if (x >= 'a' && x <= 'z') x = static_cast<unsigned char>(x - 'a' + 'A');
          out->push_back(static_cast<char>(x ^ 0x40));
          if (raw[p] == '\\') {
            ++p;
            if (p >= raw.size() || raw[p] != '\\') return false;
          }
          ++p;
        }
        continue;
      default:
        // Unknown escapes lose their backslash in this kind of text.
        out->push_back(raw[p++]);
        continue;
    }
    // convert_number(): as many digits as fit in a byte's worth of place values; with no
    // digits at all the letter stands for itself.
    size_t q = p + 1;
    int n = 0;
    for (int max = 1; q < raw.size() && max <= 255; ++q, max *= base) {
      char d = raw[q];
      int v = d >= '0' && d <= '9'   ? d - '0'
              : d >= 'a' && d <= 'f' ? d - 'a' + 10
              : d >= 'A' && d <= 'F' ? d - 'A' + 10
                                     : -1;
      if (v < 0 || v >= base) break;
      n = n * base + v;
    }
    out->push_back(q == p + 1 ? raw[p] : static_cast<char>(n & 0xff));
    p = q;
  }
  return true;
}

// Characters in a UTF-8 string: the bytes that do not continue a sequence.
size_t Utf8Length(std::string_view s) {
  return static_cast<size_t>(std::count_if(
      s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xc0) != 0x80; }));
}

// glibc's strverscmp(), which sed uses to compare the argument of `v` with its own version:
// runs of digits compare as numbers, and runs with leading zeros as fractions.
int StrVersCmp(std::string_view a, std::string_view b) {
  constexpr int kN = 0, kI = 3, kF = 6, kZ = 9;  // states: normal, integer, fraction, zeros
  constexpr int kCmp = 2, kLen = 3;
  static const int kNext[] = {kN, kI, kZ, kN, kI, kI, kN, kF, kF, kN, kF, kZ};
  static const int kResult[] = {kCmp, kCmp, kCmp, kCmp, kLen, kCmp, kCmp, kCmp, kCmp,
                                kCmp, -1,   -1,   +1,   kLen, kLen, +1,   kLen, kLen,
                                kCmp, kCmp, kCmp, kCmp, kCmp, kCmp, kCmp, kCmp, kCmp,
                                kCmp, +1,   +1,   -1,   kCmp, kCmp, -1,   kCmp, kCmp};
  // The strings as C strings: reading past the end gives the terminating NUL.
  auto at = [](std::string_view s, size_t i) -> unsigned char {
    return i < s.size() ? static_cast<unsigned char>(s[i]) : 0;
  };
  auto klass = [](unsigned char c) { return (c == '0') + (c >= '0' && c <= '9'); };
  size_t i = 0;
  unsigned char c1 = at(a, i), c2 = at(b, i);
  ++i;
  int state = kN + klass(c1);
  int diff;
  while ((diff = c1 - c2) == 0) {
    if (c1 == 0) return 0;
    state = kNext[state];
    c1 = at(a, i);
    c2 = at(b, i);
    ++i;
    state += klass(c1);
  }
  state = kResult[state * 3 + klass(c2)];
  if (state == kCmp) return diff;
  if (state != kLen) return state;
  auto digit = [](unsigned char c) { return c >= '0' && c <= '9'; };
  for (size_t j = i; digit(at(a, j)); ++j) {
    if (!digit(at(b, j))) return 1;
  }
  size_t j = i;
  while (digit(at(a, j))) {
    ++j;
  }
  return digit(at(b, j)) ? -1 : diff;
}

class SedReader {
 public:
  explicit SedReader(std::string_view script) : script_(script) {}

  ScriptEffects Read() {
    if (script_.find('\0') != std::string_view::npos) {
      // sed would read past the NUL, but names and commands are C strings and end there.
      Fail("the script contains a NUL byte");
      return std::move(out_);
    }
    for (;;) {
      int ch = Get();
      while (ch == ';' || IsSedSpace(ch)) {
        ch = Get();
      }
      if (ch == kEof) break;
      if (!ReadCommand(ch)) return std::move(out_);
    }
    if (open_blocks_ > 0) {
      Fail("unmatched '{'");
      return std::move(out_);
    }
    for (const std::string& label : jumps_) {
      if (!label.empty() && labels_.count(label) == 0) {
        SetProblem(&out_, "sed would reject the script: no label '" + label + "' for a jump");
        break;
      }
    }
    return std::move(out_);
  }

 private:
  enum class AddrKind { kNull, kNumber, kNumberMod, kStep, kStepMod, kLast, kRegex };
  struct Address {
    AddrKind kind = AddrKind::kNull;
    bool zero = false;  // the line number 0, valid only in 0,/re/ and 0r
  };

  int Get() { return pos_ < script_.size() ? static_cast<unsigned char>(script_[pos_++]) : kEof; }
  // savchar(): sed only ever pushes back the character it just read.
  void Unget(int ch) {
    if (ch != kEof) --pos_;
  }
  int GetNonBlank() {
    int ch = Get();
    while (IsSedBlank(ch)) {
      ch = Get();
    }
    return ch;
  }

  bool Fail(std::string_view why) {
    SetProblem(&out_, "sed would reject the script: " + std::string(why) + " (at character " +
                          std::to_string(pos_) + ")");
    return false;
  }

  // in_integer(): digits from `ch` on, pushing back the first non-digit. Saturates instead of
  // overflowing; only zero versus non-zero matters here.
  uint64_t ReadInteger(int ch) {
    uint64_t n = 0;
    while (IsDigit(ch)) {
      n = n > (UINT64_MAX - 9) / 10 ? UINT64_MAX : n * 10 + static_cast<uint64_t>(ch - '0');
      ch = Get();
    }
    Unget(ch);
    return n;
  }

  // read_end_of_cmd()
  bool ReadEndOfCommand() {
    int ch = GetNonBlank();
    if (ch == '}' || ch == '#') {
      Unget(ch);
    } else if (ch != kEof && ch != '\n' && ch != ';') {
      return Fail("extra characters after command: " + Describe(ch));
    }
    return true;
  }

  // snarf_char_class(): the rest of a bracket expression inside a regex. The delimiter has no
  // special meaning in here, so s/[/]/x/ is a complete command. Returns the character that
  // ended the scan: ']' on success, a newline or kEof otherwise.
  int SkipBracket() {
    int ch = Get();
    if (ch == '^') ch = Get();
    if (ch == ']') ch = Get();
    // 0: plain, 1: just after '[', 2: inside [. [: [=, 3: just after its closing . : =
    int state = 0;
    int delim = 0;
    for (;; ch = Get()) {
      switch (ch) {
        case kEof:
        case '\n':
          return ch;
        case '.':
        case ':':
        case '=':
          if (state == 1) {
            delim = ch;
            state = 2;
            continue;
          }
          if (state == 2 && ch == delim) {
            state = 3;
            continue;
          }
          break;
        case '[':
          if (state == 0) state = 1;
          continue;
        case ']':
          if (state == 0 || state == 1) return ch;
          if (state == 3) state = 0;
          break;
        default:
          break;
      }
      state &= ~1;
    }
  }

  // match_slash(): reads up to the closing delimiter. Backslash protects any character;
  // an unescaped newline ends the script line and so the command. When `text` is given it
  // receives what sed keeps of the text: `\<delimiter>` loses its backslash.
  bool MatchSlash(int slash, bool regex, std::string* text = nullptr) {
    if (slash >= 0x80) {
      // A UTF-8 locale rejects it and the C locale accepts it; either way it is not worth
      // guessing which one the command will run in.
      return Fail("the delimiter " + Describe(slash) + " is not an ASCII character");
    }
    std::string ignored;
    if (!text) text = &ignored;
    int ch;
    while ((ch = Get()) != kEof && ch != '\n') {
      if (ch == slash) return true;
      if (ch == '\\') {
        ch = Get();
        if (ch == kEof) break;
        if (ch != '\n' && (ch != slash || (!regex && ch == '&'))) text->push_back('\\');
      } else if (ch == '[' && regex) {
        ch = SkipBracket();
        if (ch != ']') break;
      }
      text->push_back(static_cast<char>(ch));
    }
    if (ch == '\n') Unget(ch);
    return false;
  }

  // compile_address(). Sets *found to false, consuming nothing, when `ch` does not start an
  // address.
  bool ReadAddress(int ch, Address* addr, bool* found) {
    *addr = Address();
    *found = true;
    if (ch == '/' || ch == '\\') {
      if (ch == '\\') ch = Get();
      if (!MatchSlash(ch, true)) return Fail("unterminated address regex");
      for (;;) {
        ch = GetNonBlank();
        if (ch != 'I' && ch != 'M') break;
      }
      Unget(ch);
      addr->kind = AddrKind::kRegex;
    } else if (IsDigit(ch)) {
      addr->kind = AddrKind::kNumber;
      addr->zero = ReadInteger(ch) == 0;
      ch = GetNonBlank();
      if (ch != '~') {
        Unget(ch);
      } else if (ReadInteger(GetNonBlank()) > 0) {
        addr->kind = AddrKind::kNumberMod;
      }
    } else if (ch == '+' || ch == '~') {
      uint64_t step = ReadInteger(GetNonBlank());
      if (step > 0) addr->kind = ch == '+' ? AddrKind::kStep : AddrKind::kStepMod;
    } else if (ch == '$') {
      addr->kind = AddrKind::kLast;
    } else {
      *found = false;
    }
    return true;
  }

  // read_label(): labels end at blanks, ';', '}' and '#', which are pushed back.
  std::string ReadLabel() {
    std::string label;
    int ch = GetNonBlank();
    while (ch != kEof && ch != '\n' && !IsSedBlank(ch) && ch != ';' && ch != '}' && ch != '#') {
      label.push_back(static_cast<char>(ch));
      ch = Get();
    }
    Unget(ch);
    return label;
  }

  // read_filename(): everything to the end of the line, with no escapes at all; so
  // `w out; p` writes to a file named "out; p".
  std::string ReadFilename() {
    std::string name;
    int ch = GetNonBlank();
    while (ch != kEof && ch != '\n') {
      name.push_back(static_cast<char>(ch));
      ch = Get();
    }
    return name;
  }

  // The file of w, W and s///w. sed opens (and truncates) it while compiling, before it reads
  // any input and whether or not the command ever runs.
  bool ReadWriteTarget() {
    std::string name = ReadFilename();
    if (name.empty()) return Fail("missing file name for w, W or s///w");
    if (!IsSedStandardStream(name)) AddUnique(&out_.writes, std::move(name));
    return true;
  }

  // read_text() with the lead-in of compile_program: the argument of a, i, c and e, from
  // `ch`, the first non-blank character after the command letter. Returns the raw text (with
  // escapes still in it) plus the newline sed appends. *continues is set when the text ends in
  // a backslash at the end of the script: sed then carries it on into the next -e expression,
  // which this reader never sees.
  std::string ReadText(int ch, bool* continues) {
    *continues = false;
    int leadin;
    if (ch == '\\') {
      leadin = Get();  // GNU one-liner `a\text`, or the newline of the classic `a\`
    } else {
      Unget(ch);
      leadin = '\n';
    }
    std::string raw;
    if (leadin == kEof) {
      *continues = true;
      return raw;
    }
    if (leadin != '\n') raw.push_back(static_cast<char>(leadin));
    ch = Get();
    while (ch != kEof && ch != '\n') {
      if (ch == '\\') {
        ch = Get();
        if (ch != kEof) raw.push_back('\\');
      }
      if (ch == kEof) {
        raw.push_back('\n');
        *continues = true;
        return raw;
      }
      raw.push_back(static_cast<char>(ch));
      ch = Get();
    }
    raw.push_back('\n');
    return raw;
  }

  // The `e` command. Without an argument it runs the pattern space; with one, its text is
  // read exactly like a/i/c text (one line, backslash-newline continues it, escapes such as
  // \t and \x41 are decoded) and that is the command line given to the shell.
  bool ReadExecute() {
    int ch = GetNonBlank();
    if (ch == kEof || ch == '\n') {
      AddUnique(&out_.computed,
                "sed e without a command runs the pattern space as a shell command");
      return true;
    }
    bool continues;
    std::string raw = ReadText(ch, &continues);
    if (continues) {
      SetProblem(&out_,
                 "the command of sed's e ends in a backslash at the end of the script, so sed "
                 "would continue it with the next -e expression");
      return false;
    }
    std::string command;
    if (!NormalizeSedText(raw, &command)) return Fail("recursive escaping after \\c");
    if (command.find('\0') != std::string::npos) {
      SetProblem(&out_, "the command of sed's e contains a NUL byte, which cuts it short");
      return false;
    }
    if (!command.empty() && command.back() == '\n') command.pop_back();
    AddUnique(&out_.commands, std::move(command));
    return true;
  }

  // mark_subst_opts(): the flags after s/re/replacement/. Blanks may separate them; `w` takes
  // the rest of the line as its file name.
  bool ReadSubstituteFlags() {
    bool print = false, global = false, number = false;
    for (;;) {
      int ch = GetNonBlank();
      switch (ch) {
        case 'i':
        case 'I':
        case 'm':
        case 'M':
          break;
        case 'e':
          AddUnique(&out_.computed, "sed s///e runs the pattern space as a shell command");
          break;
        case 'p':
          if (print) return Fail("multiple 'p' options to 's' command");
          print = true;
          break;
        case 'g':
          if (global) return Fail("multiple 'g' options to 's' command");
          global = true;
          break;
        case 'w':
          return ReadWriteTarget();
        case '0':
        case '1':
        case '2':
        case '3':
        case '4':
        case '5':
        case '6':
        case '7':
        case '8':
        case '9':
          if (number) return Fail("multiple number options to 's' command");
          number = true;
          if (ReadInteger(ch) == 0) return Fail("number option to 's' command may not be zero");
          break;
        case '}':
        case '#':
          Unget(ch);
          return true;
        case kEof:
        case '\n':
        case ';':
          return true;
        case '\r':
          if (Get() == '\n') return true;
          return Fail("unknown option to 's'");
        default:
          return Fail("unknown option to 's': " + Describe(ch));
      }
    }
  }

  bool ReadCommand(int ch) {
    Address a1, a2;
    bool has_a1 = false, has_a2 = false, found = false;
    if (!ReadAddress(ch, &a1, &found)) return false;
    if (found) {
      if (a1.kind == AddrKind::kStep || a1.kind == AddrKind::kStepMod) {
        return Fail("invalid usage of +N or ~N as first address");
      }
      has_a1 = true;
      ch = GetNonBlank();
      if (ch == ',') {
        if (!ReadAddress(GetNonBlank(), &a2, &found)) return false;
        if (!found) return Fail("unexpected ','");
        has_a2 = true;
        ch = GetNonBlank();
      }
      if (a1.kind == AddrKind::kNumber && a1.zero &&
          ((!has_a2 && ch != 'r') || (has_a2 && a2.kind != AddrKind::kRegex))) {
        return Fail("invalid usage of line address 0");
      }
    }
    if (ch == '!') {
      ch = GetNonBlank();
      if (ch == '!') return Fail("multiple '!'s");
    }

    switch (ch) {
      case '#':
        if (has_a1) return Fail("comments don't accept any addresses");
        while (ch != kEof && ch != '\n') {
          ch = Get();
        }
        return true;
      case 'v': {
        // Only checks sed's version; sed refuses to run when it is older than asked for.
        std::string version = ReadLabel();
        if (StrVersCmp(version.empty() ? "4.0" : version, "4.9") > 0) {
          return Fail("expected newer version of sed");
        }
        return true;
      }
      case '{':
        ++open_blocks_;
        return true;
      case '}':
        if (open_blocks_ == 0) return Fail("unexpected '}'");
        if (has_a1) return Fail("'}' doesn't want any addresses");
        --open_blocks_;
        return ReadEndOfCommand();
      case 'e':
        return ReadExecute();
      case 'a':
      case 'i':
      case 'c': {
        ch = GetNonBlank();
        if (ch == kEof) return Fail("expected \\ after 'a', 'c' or 'i'");
        // The text is only output; what matters is where it ends. A trailing backslash at the
        // end of the script makes it swallow the next -e expression, which is harmless.
        bool continues;
        ReadText(ch, &continues);
        return true;
      }
      case ':': {
        if (has_a1) return Fail(": doesn't want any addresses");
        std::string label = ReadLabel();
        if (label.empty()) return Fail("\":\" lacks a label");
        labels_.insert(std::move(label));
        return true;
      }
      case 'b':
      case 't':
      case 'T':
        jumps_.push_back(ReadLabel());
        return true;
      case 'q':
      case 'Q':
        if (has_a2) return Fail("command only uses one address");
        [[fallthrough]];
      case 'l':
      case 'L':
        ch = GetNonBlank();
        if (IsDigit(ch)) {
          ReadInteger(ch);
        } else {
          Unget(ch);
        }
        return ReadEndOfCommand();
      case '=':
      case 'd':
      case 'D':
      case 'F':
      case 'g':
      case 'G':
      case 'h':
      case 'H':
      case 'n':
      case 'N':
      case 'p':
      case 'P':
      case 'x':
      case 'z':
        return ReadEndOfCommand();
      case 'r':
      case 'R':
        // Reads a file into the output: not an effect this analysis reports.
        if (ReadFilename().empty()) return Fail("missing file name for r or R");
        return true;
      case 'w':
      case 'W':
        return ReadWriteTarget();
      case 's': {
        int slash = Get();
        if (!MatchSlash(slash, true) || !MatchSlash(slash, false)) {
          return Fail("unterminated 's' command");
        }
        return ReadSubstituteFlags();
      }
      case 'y': {
        int slash = Get();
        std::string from, to;
        if (!MatchSlash(slash, false, &from) || !MatchSlash(slash, false, &to)) {
          return Fail("unterminated 'y' command");
        }
        // sed compares the lengths after decoding escapes: in bytes in the C locale, in
        // characters in a UTF-8 one. A script that passes in only one of them is refused.
        std::string from_text, to_text;
        if (!NormalizeSedText(from, &from_text) || !NormalizeSedText(to, &to_text)) {
          return Fail("recursive escaping after \\c");
        }
        if (from_text.size() != to_text.size() || Utf8Length(from_text) != Utf8Length(to_text)) {
          return Fail("strings for 'y' command are different lengths");
        }
        return ReadEndOfCommand();
      }
      case kEof:
        return Fail("missing command");
      default:
        return Fail("unknown command: " + Describe(ch));
    }
  }

  std::string_view script_;
  size_t pos_ = 0;
  int open_blocks_ = 0;
  std::set<std::string> labels_;
  std::vector<std::string> jumps_;
  ScriptEffects out_;
};

// ---------------------------------------------------------------------------------------------
// awk
//
// A tokenizer and a scan over the tokens, not a full parser. What makes that safe is being
// exact about the lexical layer (strings, regex literals, comments, continuations), because
// that is where a crafted program hides code from a reader, and being conservative above it:
// every `>` of a print statement outside parentheses is treated as a redirection, every pipe
// as running a command. Where gawk and mawk read the same text differently in a way that
// matters (e.g. `length / 2`), the program is reported as a problem.

struct AwkToken {
  enum class Kind { kName, kNumber, kString, kRegex, kNewline, kOp };
  Kind kind;
  std::string text;  // the name or operator; the source text of literals
  // String literals: the value as gawk decodes it, and whether mawk decodes it the same way.
  std::string value;
  bool exact = true;
  // A ')' that ends the condition of if/while/for/switch: what follows starts a statement.
  bool closes_condition = false;
};
using Kind = AwkToken::Kind;

bool IsOneOf(std::string_view s, std::initializer_list<std::string_view> list) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

bool IsAwkKeyword(std::string_view s) {
  return IsOneOf(
      s, {"BEGIN",  "END",    "BEGINFILE", "ENDFILE", "function", "func",   "if",       "else",
          "while",  "for",    "do",        "break",   "continue", "next",   "nextfile", "exit",
          "return", "delete", "in",        "print",   "printf",   "switch", "case",     "default"});
}

// Built-in functions of POSIX awk and mawk, then those only gawk has.
bool IsAwkBuiltin(std::string_view s) {
  return IsOneOf(s, {"length", "substr",  "index",   "split",  "sub",   "gsub",  "match", "sprintf",
                     "sin",    "cos",     "atan2",   "exp",    "log",   "sqrt",  "int",   "rand",
                     "srand",  "tolower", "toupper", "system", "close", "fflush"}) ||
         IsOneOf(s, {"gensub",    "asort",     "asorti",  "patsplit", "strftime", "systime",
                     "mktime",    "and",       "or",      "xor",      "compl",    "lshift",
                     "rshift",    "strtonum",  "isarray", "typeof",   "mkbool",   "bindtextdomain",
                     "dcgettext", "dcngettext"});
}

bool IsOp(const AwkToken& t, std::string_view op) {
  return t.kind == Kind::kOp && t.text == op;
}
bool IsName(const AwkToken& t, std::string_view name) {
  return t.kind == Kind::kName && t.text == name;
}

// Whether the token can end an operand. After one, '/' divides; anywhere else it starts a
// regex literal (the rule of mawk's scanner and, through its grammar, of gawk's). A ')' that
// closes an if/while/for condition is followed by a statement, so gawk reads a regex there;
// mawk reads a division and then fails, so the regex reading is the only one that runs.
bool EndsOperand(const AwkToken& t) {
  switch (t.kind) {
    case Kind::kName:
      return !IsAwkKeyword(t.text);  // getline counts as an operand, as in mawk
    case Kind::kNumber:
    case Kind::kString:
    case Kind::kRegex:
      return true;
    case Kind::kNewline:
      return false;
    case Kind::kOp:
      return (t.text == ")" && !t.closes_condition) || t.text == "]" || t.text == "++" ||
             t.text == "--";
  }
  return false;
}

// Whether a newline after this token ends a print statement. After an operator, a comma or an
// opening parenthesis the statement either goes on (gawk and mawk allow a newline after a
// comma, && and ||) or is a syntax error; treating it as going on is the careful choice,
// since a redirection further on is then still seen.
bool NewlineEndsStatementAfter(const AwkToken& t) {
  return EndsOperand(t) || IsName(t, "print") || IsName(t, "printf");
}

bool StartsOperand(const AwkToken& t) {
  switch (t.kind) {
    case Kind::kName:
      return !IsAwkKeyword(t.text);
    case Kind::kNumber:
    case Kind::kString:
    case Kind::kRegex:
      return true;
    case Kind::kNewline:
      return false;
    case Kind::kOp:
      return IsOneOf(t.text, {"$", "(", "!", "-", "+", "++", "--"});
  }
  return false;
}

class AwkLexer {
 public:
  explicit AwkLexer(std::string_view program) : p_(program) {}

  // Returns false, with the reason in *problem, when the program cannot be tokenized for
  // certain.
  bool Lex(std::vector<AwkToken>* tokens, std::string* problem) {
    tokens_ = tokens;
    problem_ = problem;
    while (i_ < p_.size()) {
      char c = p_[i_];
      if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
        ++i_;
      } else if (c == '\\') {
        // A backslash-newline joins lines; nothing else may follow a backslash out here.
        if (i_ + 1 < p_.size() && p_[i_ + 1] == '\n') {
          i_ += 2;
        } else if (i_ + 2 < p_.size() && p_[i_ + 1] == '\r' && p_[i_ + 2] == '\n') {
          i_ += 3;
        } else {
          return Fail("a backslash outside a string or regex that does not continue the line");
        }
      } else if (c == '\n') {
        Push(Kind::kNewline, "\n");
        ++i_;
      } else if (c == '#') {
        while (i_ < p_.size() && p_[i_] != '\n') {
          ++i_;
        }
      } else if (c == '"') {
        if (!LexString()) return false;
      } else if (c == '/') {
        if (!LexSlash()) return false;
      } else if (IsDigitChar(c) || (c == '.' && i_ + 1 < p_.size() && IsDigitChar(p_[i_ + 1]))) {
        LexNumber();
      } else if (IsNameStart(c)) {
        size_t start = i_;
        while (i_ < p_.size() && (IsNameStart(p_[i_]) || IsDigitChar(p_[i_]))) {
          ++i_;
        }
        Push(Kind::kName, std::string(p_.substr(start, i_ - start)));
      } else if (c == '@') {
        return FailAt();
      } else if (!LexOperator()) {
        return false;
      }
    }
    if (!parens_.empty()) return Fail("an unclosed '('");
    return true;
  }

 private:
  static bool IsDigitChar(char c) { return c >= '0' && c <= '9'; }
  static bool IsHexChar(char c) {
    return IsDigitChar(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  }
  static bool IsNameStart(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  }

  bool Fail(std::string_view why) {
    *problem_ = "awk program not understood: " + std::string(why) + " (at character " +
                std::to_string(i_ + 1) + ")";
    return false;
  }

  // gawk's @ forms. Each brings in code or a call this analysis cannot see.
  bool FailAt() {
    std::string_view rest = p_.substr(i_ + 1);
    if (StartsWith(rest, "load")) {
      *problem_ = "gawk @load loads a compiled extension, which can do anything";
    } else if (StartsWith(rest, "include")) {
      *problem_ = "gawk @include runs awk code from another file, which was not analysed";
    } else if (StartsWith(rest, "namespace")) {
      *problem_ = "gawk @namespace is not analysed";
    } else {
      *problem_ =
          "gawk indirect function call (@name()) calls a function chosen at run time, which "
          "may be system()";
    }
    return false;
  }

  AwkToken& Push(Kind kind, std::string text) {
    tokens_->push_back(AwkToken{kind, std::move(text), {}, true, false});
    return tokens_->back();
  }

  const AwkToken* Prev() const { return tokens_->empty() ? nullptr : &tokens_->back(); }

  // A string literal. The value follows gawk; `exact` is cleared for escapes mawk decodes
  // differently (mawk keeps the backslash of \/ and of unknown escapes, and gawk's \x has
  // varied between versions), so such a string is never taken as a literal command or file.
  bool LexString() {
    size_t start = i_++;
    std::string value;
    bool exact = true;
    for (;;) {
      if (i_ >= p_.size()) return Fail("an unterminated string");
      char c = p_[i_];
      if (c == '"') {
        ++i_;
        break;
      }
      if (c == '\n') return Fail("a newline inside a string");
      if (c != '\\') {
        value.push_back(c);
        ++i_;
        continue;
      }
      if (i_ + 1 >= p_.size()) return Fail("an unterminated string");
      char d = p_[i_ + 1];
      i_ += 2;
      switch (d) {
        case '"':
        case '\\':
          value.push_back(d);
          break;
        case 'n':
          value.push_back('\n');
          break;
        case 't':
          value.push_back('\t');
          break;
        case 'r':
          value.push_back('\r');
          break;
        case 'a':
          value.push_back('\a');
          break;
        case 'b':
          value.push_back('\b');
          break;
        case 'f':
          value.push_back('\f');
          break;
        case 'v':
          value.push_back('\v');
          break;
        case '\n':
          break;  // continues the string on the next line
        case 'x': {
          exact = false;
          int n = 0, digits = 0;
          while (digits < 2 && i_ < p_.size() && IsHexChar(p_[i_])) {
            char h = p_[i_++];
            n = n * 16 + (h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10);
            ++digits;
          }
          value.push_back(digits ? static_cast<char>(n) : 'x');
          break;
        }
        default:
          if (d >= '0' && d <= '7') {
            int n = d - '0';
            for (int k = 0; k < 2 && i_ < p_.size() && p_[i_] >= '0' && p_[i_] <= '7'; ++k) {
              n = n * 8 + (p_[i_++] - '0');
            }
            value.push_back(static_cast<char>(n & 0xff));
          } else {
            exact = false;
            value.push_back(d);
          }
      }
    }
    // A NUL ends the C string the shell or open() receives, so the name is not what it seems.
    if (value.find('\0') != std::string::npos) exact = false;
    AwkToken& t = Push(Kind::kString, std::string(p_.substr(start, i_ - start)));
    t.value = std::move(value);
    t.exact = exact;
    return true;
  }

  bool LexSlash() {
    const AwkToken* prev = Prev();
    if (prev && EndsOperand(*prev)) {
      // gawk divides after `length` and after x++; mawk reads a regex in both places. The
      // two readings can disagree about everything that follows.
      if ((prev->kind == Kind::kName && IsAwkBuiltin(prev->text)) || IsOp(*prev, "++") ||
          IsOp(*prev, "--")) {
        return Fail("a '/' after '" + prev->text + "' is a division to gawk but a regex to mawk");
      }
      if (i_ + 1 < p_.size() && p_[i_ + 1] == '=') {
        Push(Kind::kOp, "/=");
        i_ += 2;
      } else {
        Push(Kind::kOp, "/");
        ++i_;
      }
      return true;
    }
    return LexRegex();
  }

  // A regex literal. Both gawk and mawk let a '/' inside a bracket expression stand for
  // itself, but other awks do not, and the implementations disagree on corner cases of
  // brackets. This reads brackets in the most generous way (backslash escapes inside them,
  // ']' first is literal, [:class:] is atomic) and refuses a '/' inside one, so every reading
  // ends the literal at the same place.
  bool LexRegex() {
    size_t start = i_++;
    bool in_bracket = false;
    for (;;) {
      if (i_ >= p_.size()) return Fail("an unterminated regex");
      char c = p_[i_];
      if (c == '\n') return Fail("a newline inside a regex");
      if (c == '\\') {
        if (i_ + 1 >= p_.size()) return Fail("an unterminated regex");
        i_ += 2;
        continue;
      }
      if (in_bracket) {
        if (c == '[' && i_ + 1 < p_.size() &&
            (p_[i_ + 1] == ':' || p_[i_ + 1] == '.' || p_[i_ + 1] == '=')) {
          char delim = p_[i_ + 1];
          size_t k = i_ + 2;
          while (k + 1 < p_.size() && !(p_[k] == delim && p_[k + 1] == ']')) {
            if (p_[k] == '/' || p_[k] == '\n') {
              return Fail("a regex whose bracket expression awks may read differently");
            }
            ++k;
          }
          if (k + 1 >= p_.size()) return Fail("an unterminated regex");
          i_ = k + 2;
          continue;
        }
        if (c == ']') in_bracket = false;
        if (c == '/') {
          return Fail("a '/' inside a bracket expression of a regex; awks disagree where it ends");
        }
        ++i_;
        continue;
      }
      ++i_;
      if (c == '/') break;
      if (c == '[') {
        in_bracket = true;
        if (i_ < p_.size() && p_[i_] == '^') ++i_;
        if (i_ < p_.size() && p_[i_] == ']') ++i_;
      }
    }
    Push(Kind::kRegex, std::string(p_.substr(start, i_ - start)));
    return true;
  }

  void LexNumber() {
    size_t start = i_;
    if (p_[i_] == '0' && i_ + 1 < p_.size() && (p_[i_ + 1] == 'x' || p_[i_ + 1] == 'X')) {
      i_ += 2;
      while (i_ < p_.size() && IsHexChar(p_[i_])) {
        ++i_;
      }
    } else {
      while (i_ < p_.size() && IsDigitChar(p_[i_])) {
        ++i_;
      }
      if (i_ < p_.size() && p_[i_] == '.') {
        ++i_;
        while (i_ < p_.size() && IsDigitChar(p_[i_])) {
          ++i_;
        }
      }
      if (i_ < p_.size() && (p_[i_] == 'e' || p_[i_] == 'E')) {
        size_t k = i_ + 1;
        if (k < p_.size() && (p_[k] == '+' || p_[k] == '-')) ++k;
        if (k < p_.size() && IsDigitChar(p_[k])) {
          i_ = k;
          while (i_ < p_.size() && IsDigitChar(p_[i_])) {
            ++i_;
          }
        }
      }
    }
    Push(Kind::kNumber, std::string(p_.substr(start, i_ - start)));
  }

  bool LexOperator() {
    static constexpr std::string_view kOps[] = {
        "**=", "&&", "||", "|&", "==", "<=", ">=", "!=", "!~", "++", "--", "+=", "-=", "*=",
        "%=",  "^=", "**", ">>", "{",  "}",  "(",  ")",  "[",  "]",  ";",  ",",  "+",  "-",
        "*",   "%",  "^",  "!",  ">",  "<",  "|",  "?",  ":",  "~",  "=",  "$"};
    std::string_view rest = p_.substr(i_);
    if (StartsWith(rest, "::")) {
      return Fail("a gawk namespace-qualified name (::), which is not analysed");
    }
    for (std::string_view op : kOps) {
      if (!StartsWith(rest, op)) continue;
      if (op == "(") {
        const AwkToken* prev = Prev();
        parens_.push_back(prev && prev->kind == Kind::kName &&
                          IsOneOf(prev->text, {"if", "while", "for", "switch"}));
      } else if (op == ")") {
        if (parens_.empty()) return Fail("an unmatched ')'");
        bool condition = parens_.back();
        parens_.pop_back();
        i_ += op.size();
        Push(Kind::kOp, std::string(op)).closes_condition = condition;
        return true;
      }
      i_ += op.size();
      Push(Kind::kOp, std::string(op));
      return true;
    }
    return Fail("unexpected character " + Describe(static_cast<unsigned char>(p_[i_])));
  }

  std::string_view p_;
  size_t i_ = 0;
  std::vector<bool> parens_;  // open parentheses: true for an if/while/for/switch condition
  std::vector<AwkToken>* tokens_ = nullptr;
  std::string* problem_ = nullptr;
};

// The special names gawk and mawk write to without creating a file. ("-" is not among them:
// mawk 1.3.4 creates a file named "-" for print > "-".)
bool IsAwkStandardStream(std::string_view name) {
  return name == "/dev/stdout" || name == "/dev/stderr" || name == "/dev/fd/1" ||
         name == "/dev/fd/2";
}

class AwkAnalyzer {
 public:
  AwkAnalyzer(const std::vector<AwkToken>& tokens, ScriptEffects* out)
      : t_(tokens), n_(tokens.size()), out_(out) {}

  void Run() {
    size_t depth = 0;
    bool in_print = false;
    size_t print_depth = 0;
    for (size_t i = 0; i < n_; ++i) {
      const AwkToken& tok = t_[i];
      switch (tok.kind) {
        case Kind::kString:
          // gawk opens network connections for /inet, /inet4 and /inet6 names, in any
          // redirection and even as an input file put into ARGV.
          if (StartsWith(tok.value, "/inet")) {
            SetProblem(out_,
                       "gawk network special file " + tok.text + " (opens a network connection)");
          }
          break;
        case Kind::kName:
          if (tok.text == "print" || tok.text == "printf") {
            in_print = true;
            print_depth = depth;
          } else if (tok.text == "system") {
            System(i);
          } else if (tok.text == "getline") {
            GetlineFile(i);
          }
          break;
        case Kind::kNewline:
          if (in_print && depth <= print_depth && i > 0 && NewlineEndsStatementAfter(t_[i - 1])) {
            in_print = false;
          }
          break;
        case Kind::kNumber:
        case Kind::kRegex:
          break;
        case Kind::kOp:
          if (tok.text == "(") {
            ++depth;
          } else if (tok.text == ")") {
            if (depth > 0) --depth;
          } else if (tok.text == ";" || tok.text == "}") {
            in_print = false;
          } else if (tok.text == "|" || tok.text == "|&") {
            // In a print statement outside parentheses the pipe is the statement's output;
            // elsewhere the only pipe awk knows is `command | getline`.
            if (in_print && depth <= print_depth) {
              OutputTarget(i, /*pipe=*/true);
              in_print = false;  // the rest of the statement is the command; see below
            } else if (NextIsGetline(i)) {
              InputPipe(i);
            } else {
              SetProblem(out_, "awk program not understood: a '" + tok.text +
                                   "' that is neither the output of print nor an input to getline");
            }
          } else if (tok.text == ">" || tok.text == ">>") {
            // Inside print, outside parentheses, '>' always redirects (gawk's and mawk's
            // scanners decide it exactly so); everywhere else it compares. The rest of the
            // statement is the target: mawk reads a further '>' there as a comparison and '|'
            // as an input pipe, and gawk refuses a second redirection.
            if (in_print && depth <= print_depth) {
              OutputTarget(i, /*pipe=*/false);
              in_print = false;
            }
          }
          break;
      }
    }
  }

 private:
  bool NextIsGetline(size_t i) const {
    size_t j = i + 1;
    while (j < n_ && t_[j].kind == Kind::kNewline) {
      ++j;
    }
    return j < n_ && IsName(t_[j], "getline");
  }

  // One past the last token of the expression starting at `from` that runs to the end of its
  // statement: a ';' or '}' outside brackets, a newline after an operand, or a ')' that
  // closes a parenthesis opened before `from`.
  size_t StatementEnd(size_t from) const {
    size_t depth = 0;
    for (size_t j = from; j < n_; ++j) {
      const AwkToken& t = t_[j];
      if (IsOp(t, "(") || IsOp(t, "[")) {
        ++depth;
      } else if (IsOp(t, ")") || IsOp(t, "]")) {
        if (depth == 0) return j;
        --depth;
      } else if (depth == 0 && (IsOp(t, ";") || IsOp(t, "}"))) {
        return j;
      } else if (depth == 0 && t.kind == Kind::kNewline && j > 0 &&
                 NewlineEndsStatementAfter(t_[j - 1])) {
        return j;
      }
    }
    return n_;
  }

  // The tokens [from, to) without line breaks: a lone string token, possibly in parentheses,
  // is a literal.
  const AwkToken* LoneString(size_t from, size_t to, size_t* count) const {
    std::vector<const AwkToken*> list;
    for (size_t j = from; j < to; ++j) {
      if (t_[j].kind != Kind::kNewline) list.push_back(&t_[j]);
    }
    *count = list.size();
    size_t first = 0, last = list.size();
    while (last - first >= 3 && IsOp(*list[first], "(") && IsOp(*list[last - 1], ")")) {
      // Only when these two parentheses match each other, as in ("a"), not ("a") ("b").
      size_t depth = 0, match = first;
      for (size_t j = first; j < last; ++j) {
        if (IsOp(*list[j], "(")) ++depth;
        if (IsOp(*list[j], ")") && --depth == 0) {
          match = j;
          break;
        }
      }
      if (match != last - 1) break;
      ++first;
      --last;
    }
    return last - first == 1 && list[first]->kind == Kind::kString ? list[first] : nullptr;
  }

  // print ... > FILE, >> FILE, | COMMAND, |& COMMAND. The target is everything up to the end
  // of the statement; only a lone string literal counts as literal, since awks disagree on how
  // much of an unparenthesized concatenation belongs to it.
  void OutputTarget(size_t i, bool pipe) {
    const std::string& op = t_[i].text;
    size_t end = StatementEnd(i + 1);
    size_t count;
    const AwkToken* literal = LoneString(i + 1, end, &count);
    if (count == 0) {
      SetProblem(out_, "awk program not understood: '" + op + "' in print without a target");
      return;
    }
    // gawk's /inet names are network connections, reported as a problem of their own.
    if (literal && StartsWith(literal->value, "/inet")) return;
    if (pipe) {
      const char* what = op == "|&" ? "print/printf to a gawk coprocess (|&)"
                                    : "print/printf piped (|) to a shell command";
      if (!literal) {
        AddUnique(&out_->computed, std::string(what) + " that is computed at run time");
      } else if (!literal->exact) {
        AddUnique(&out_->computed, std::string(what) +
                                       " written with escapes that gawk and "
                                       "mawk decode differently");
      } else {
        AddUnique(&out_->commands, literal->value);
      }
      return;
    }
    if (!literal) {
      AddUnique(&out_->computed,
                "print/printf output redirection (" + op + ") to a file named at run time");
    } else if (!literal->exact) {
      AddUnique(&out_->computed, "print/printf output redirection (" + op +
                                     ") to a file name with escapes that gawk and mawk decode "
                                     "differently");
    } else if (!IsAwkStandardStream(literal->value)) {
      AddUnique(&out_->writes, literal->value);
    }
  }

  // Whether the token before a command string closes off whatever came before it, so that the
  // string alone is the left operand of '|'. (gawk runs "echo " "x" | getline as "echo x",
  // mawk runs "x", so a string after another operand is never taken as the command.)
  static bool IsLeftBoundary(const AwkToken& t) {
    if (t.kind == Kind::kNewline) return true;
    if (t.kind == Kind::kName) return t.text == "do" || t.text == "else";
    if (t.kind != Kind::kOp) return false;
    if (t.text == ")") return t.closes_condition;
    return IsOneOf(t.text, {";", "{", "}", "(", ",", "&&", "||", "=",
                            "+=", "-=", "*=", "/=", "%=", "^=", "**="});
  }

  // COMMAND | getline, COMMAND |& getline.
  void InputPipe(size_t i) {
    const char* what = t_[i].text == "|&" ? "getline from a gawk coprocess (|&)"
                                          : "getline reading from a shell command (| getline)";
    bool literal =
        i >= 1 && t_[i - 1].kind == Kind::kString && (i == 1 || IsLeftBoundary(t_[i - 2]));
    if (literal && StartsWith(t_[i - 1].value, "/inet")) return;  // a network connection
    if (!literal) {
      AddUnique(&out_->computed, std::string(what) + " whose command is computed at run time");
    } else if (!t_[i - 1].exact) {
      AddUnique(&out_->computed, std::string(what) +
                                     " written with escapes that gawk and mawk "
                                     "decode differently");
    } else {
      AddUnique(&out_->commands, t_[i - 1].value);
    }
  }

  void System(size_t i) {
    if (i + 1 >= n_ || !IsOp(t_[i + 1], "(")) {
      SetProblem(out_, "awk program not understood: system without an argument list");
      return;
    }
    size_t depth = 0, close = n_;
    for (size_t j = i + 1; j < n_; ++j) {
      if (IsOp(t_[j], "(")) ++depth;
      if (IsOp(t_[j], ")") && --depth == 0) {
        close = j;
        break;
      }
    }
    if (close == n_) {
      SetProblem(out_, "awk program not understood: system( is never closed");
      return;
    }
    size_t count;
    const AwkToken* literal = LoneString(i + 2, close, &count);
    if (!literal) {
      AddUnique(&out_->computed, "system() with a command computed at run time");
    } else if (!literal->exact) {
      AddUnique(&out_->computed,
                "system() with a string whose escapes gawk and mawk decode differently");
    } else {
      AddUnique(&out_->commands, literal->value);
    }
  }

  // Index just past a bracketed group that opens at `j`.
  size_t SkipGroup(size_t j) const {
    size_t depth = 0;
    for (; j < n_; ++j) {
      if (IsOp(t_[j], "(") || IsOp(t_[j], "[")) ++depth;
      if ((IsOp(t_[j], ")") || IsOp(t_[j], "]")) && --depth == 0) return j + 1;
    }
    return n_;
  }

  // Index just past the lvalue getline may take: a variable, an array element or a field.
  size_t SkipLvalue(size_t j) const {
    if (j >= n_) return j;
    if (IsOp(t_[j], "$")) {
      ++j;
      while (j < n_ && t_[j].kind == Kind::kOp &&
             IsOneOf(t_[j].text, {"$", "-", "+", "!", "++", "--"})) {
        ++j;
      }
      if (j < n_ && IsOp(t_[j], "(")) return SkipGroup(j);
      if (j < n_ && (t_[j].kind == Kind::kNumber || t_[j].kind == Kind::kName)) ++j;
      if (j < n_ && IsOp(t_[j], "[")) return SkipGroup(j);
      return j;
    }
    if (t_[j].kind == Kind::kName && !IsAwkKeyword(t_[j].text) && !IsAwkBuiltin(t_[j].text) &&
        t_[j].text != "getline") {
      ++j;
      if (j < n_ && IsOp(t_[j], "[")) return SkipGroup(j);
    }
    return j;
  }

  // getline [var] < FILE only reads, but a file named at run time could be one of gawk's
  // /inet network names, which a literal name is checked for.
  void GetlineFile(size_t i) {
    size_t j = SkipLvalue(i + 1);
    if (j >= n_ || !IsOp(t_[j], "<")) return;
    // The file is a primary: a string, or a parenthesized expression. Something that could
    // be concatenated to it makes it computed, as the awks differ on how much they take.
    size_t k = j + 1, end = k;
    if (k < n_ && IsOp(t_[k], "(")) {
      end = SkipGroup(k);
    } else if (k < n_ && t_[k].kind == Kind::kString) {
      end = k + 1;
    }
    size_t count;
    bool literal =
        end > k && LoneString(k, end, &count) != nullptr && !(end < n_ && StartsOperand(t_[end]));
    if (!literal) {
      AddUnique(&out_->computed,
                "getline reads a file named at run time (gawk can open network connections "
                "through /inet names)");
    }
  }

  const std::vector<AwkToken>& t_;
  size_t n_;
  ScriptEffects* out_;
};

}  // namespace

ScriptEffects AnalyzeSedScript(std::string_view script) {
  return SedReader(script).Read();
}

namespace {

bool IsOp(const std::vector<AwkToken>& t, size_t i, std::initializer_list<std::string_view> ops) {
  return i < t.size() && t[i].kind == Kind::kOp && IsOneOf(t[i].text, ops);
}

// gawk passes ENVIRON, as changed by the program, to the commands it runs:
// ENVIRON["PATH"]="/tmp/evil"; system("ls") runs /tmp/evil/ls, and ENVIRON["BASH_ENV"] makes a
// bash child run a file. Reading ENVIRON[...] is harmless; anything that could change it
// (assigning an element, ++/--, sub/gsub or getline into one, delete, or the whole array given
// to split() or a function) is a problem.
std::string EnvironChange(const std::vector<AwkToken>& t) {
  const std::string why =
      "the program changes ENVIRON, which gawk passes to the commands it runs (PATH, BASH_ENV, "
      "LD_PRELOAD, ...)";
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i].kind != Kind::kName || t[i].text != "ENVIRON") continue;
    bool in = i > 0 && t[i - 1].kind == Kind::kName && t[i - 1].text == "in";
    if (in) continue;                        // for (k in ENVIRON), ("X" in ENVIRON): reads
    if (!IsOp(t, i + 1, {"["})) return why;  // the whole array: split(), delete, a function
    size_t j = i + 1;
    for (int depth = 0; j < t.size(); ++j) {
      if (IsOp(t, j, {"["})) ++depth;
      if (IsOp(t, j, {"]"}) && --depth == 0) break;
    }
    if (j >= t.size()) return why;
    if (IsOp(t, j + 1, {"=", "+=", "-=", "*=", "/=", "%=", "^=", "**=", "++", "--"})) return why;
    if (i > 0 &&
        (IsOp(t, i - 1, {"++", "--"}) ||
         (t[i - 1].kind == Kind::kName && IsOneOf(t[i - 1].text, {"delete", "getline"})))) {
      return why;
    }
    // sub(re, repl, ENVIRON[...]) and gsub() change their third argument.
    int depth = 0;
    for (size_t k = i; k-- > 0;) {
      if (IsOp(t, k, {")", "]"})) ++depth;
      if (IsOp(t, k, {"(", "["})) {
        if (depth-- > 0) continue;
        if (k > 0 && t[k - 1].kind == Kind::kName && IsOneOf(t[k - 1].text, {"sub", "gsub"})) {
          return why;
        }
        break;
      }
    }
  }
  return std::string();
}

}  // namespace

ScriptEffects AnalyzeAwkProgram(std::string_view program) {
  ScriptEffects out;
  std::vector<AwkToken> tokens;
  std::string problem;
  if (!AwkLexer(program).Lex(&tokens, &problem)) {
    out.problem = std::move(problem);
    return out;
  }
  AwkAnalyzer(tokens, &out).Run();
  if (out.problem.empty()) out.problem = EnvironChange(tokens);
  return out;
}

}  // namespace safesh::policy
