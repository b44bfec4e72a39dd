#include "audit/redact.h"

#include <fnmatch.h>
#include <re2/re2.h>
#include <re2/set.h>

#include <algorithm>
#include <memory>

namespace safesh::audit {
namespace {

bool IsNameStart(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}
bool IsNameChar(char c) {
  return IsNameStart(c) || (c >= '0' && c <= '9');
}

// Where an unquoted shell word ends: whitespace or an operator.
bool EndsWord(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ';' || c == '&' || c == '|' ||
         c == ')' || c == '<' || c == '>';
}

// Rule 2: `NAME=value` where NAME matches one of `globs`.
std::string MaskAssignments(std::string_view text, const std::vector<std::string>& globs) {
  std::string out;
  size_t copied = 0;
  for (size_t eq = text.find('='); eq != std::string_view::npos; eq = text.find('=', eq + 1)) {
    size_t start = eq;
    while (start > 0 && IsNameChar(text[start - 1]))
      --start;
    if (start == eq || !IsNameStart(text[start]) || start < copied) continue;
    std::string name(text.substr(start, eq - start));
    bool secret = false;
    for (const std::string& g : globs) {
      if (fnmatch(g.c_str(), name.c_str(), FNM_CASEFOLD) == 0) {
        secret = true;
        break;
      }
    }
    if (!secret) continue;
    size_t value = eq + 1, end = value;
    if (end < text.size() && (text[end] == '"' || text[end] == '\'')) {
      char quote = text[end];
      ++value;
      end = value;
      while (end < text.size() && text[end] != quote) {
        if (quote == '"' && text[end] == '\\' && end + 1 < text.size()) ++end;
        ++end;
      }
    } else {
      while (end < text.size() && !EndsWord(text[end]))
        ++end;
    }
    if (end == value) continue;
    // Already masked by rule 1: leave the name of the variable showing.
    if (text.substr(value, end - value).starts_with("[redacted")) continue;
    out.append(text.substr(copied, value - copied));
    out += "[redacted]";
    copied = end;
    eq = end - 1;
  }
  out.append(text.substr(copied));
  return out;
}

// A credential shape: its pattern, its rewrite, and literals of which any match holds at least
// one (lower case; the text is compared without regard to case). Compiling the patterns costs
// about a millisecond, paid by every `safesh run` for its first record; most texts (`npm test`,
// a verdict's reason) hold none of the literals, so the patterns are compiled only for a text
// that does. A literal missing here would let a credential through: each one follows from its
// pattern's fixed text, and the tests try every shape in upper and lower case.
struct ShapeSpec {
  std::string pattern;
  const char* rewrite;
  std::vector<std::string_view> literals;
};

const std::vector<ShapeSpec>& ShapeSpecs() {
  // The name of a key that holds a secret, then `=` or `:`.
  static const char kKey[] =
      R"((?i)([a-z0-9_.-]*(?:token|password|passwd|passphrase|secret|api[_-]?key|apikey|)"
      R"(access[_-]?key|private[_-]?key|client[_-]?secret)["']?\s*[:=]\s*)";
  // What every kKey match holds: passphrase has no "passw", and every *key name ends in "key".
  static const std::vector<std::string_view> kKeyLiterals = {"token", "passw", "passphrase",
                                                             "secret", "key"};
  static const std::vector<ShapeSpec> specs = {
      {R"((-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----)(?s:.*?)(-----END [A-Z0-9 ]*PRIVATE KEY-----|$))",
       R"(\1[redacted]\2)",
       {"-----begin "}},
      {R"(\b(gh[pousr]_)[A-Za-z0-9]{16,})",
       R"(\1[redacted])",
       {"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}},
      {R"(\b(github_pat_)[A-Za-z0-9_]{16,})", R"(\1[redacted])", {"github_pat_"}},
      {R"(\b(sk-)[A-Za-z0-9_-]{16,})", R"(\1[redacted])", {"sk-"}},
      {R"(\b(AKIA|ASIA)[A-Z0-9]{16}\b)", R"(\1[redacted])", {"akia", "asia"}},
      {R"(\b(xox[abposr]-)[A-Za-z0-9-]{8,})", R"(\1[redacted])", {"xox"}},
      {R"(\b(glpat-)[A-Za-z0-9_-]{16,})", R"(\1[redacted])", {"glpat-"}},
      {R"(\bAIza[0-9A-Za-z_-]{30,})", "[redacted]", {"aiza"}},
      {R"(\beyJ[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]+)", "[redacted]", {"eyj"}},
      {R"((?i)(\b[a-z][a-z0-9+.-]*://[^\s:/@'"]+:)[^\s@/'"]+@)", R"(\1[redacted]@)", {"://"}},
      {R"((?i)(authorization["']?\s*[:=]\s*["']?(?:(?:bearer|basic|token|digest|bot)\s+)?))"
       R"([^\s"'\[][^\s"']*)",
       R"(\1[redacted])",
       {"authorization"}},
      {R"((?i)(\bbearer\s+)[A-Za-z0-9._~+/=-]{8,})", R"(\1[redacted])", {"bearer"}},
      {R"((?i)(--[a-z0-9-]*(?:token|password|passwd|secret|api-?key)\s+)[^\s"'\[<>|&;-][^\s"']*)",
       R"(\1[redacted])",
       {"token", "passw", "secret", "key"}},
      {std::string(kKey) + R"(")[^"]+("))", R"(\1[redacted]\2)", kKeyLiterals},
      {std::string(kKey) + R"(')[^']+('))", R"(\1[redacted]\2)", kKeyLiterals},
      {std::string(kKey) + R"()[^\s"'\[&;|,)}<>][^\s"'&;|,)}<>]*)", R"(\1[redacted])",
       kKeyLiterals},
  };
  return specs;
}

// Whether `text` holds any shape's literal, in any case.
bool MayHoldCredential(std::string_view text) {
  std::string lower(text);
  for (char& c : lower)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  for (const ShapeSpec& spec : ShapeSpecs())
    for (std::string_view literal : spec.literals)
      if (lower.find(literal) != std::string::npos) return true;
  return false;
}

struct Shape {
  std::unique_ptr<RE2> re;
  const char* rewrite;
};

struct Shapes {
  std::vector<Shape> each;
  // All the patterns at once: one pass over a text says which of them occur in it.
  std::unique_ptr<RE2::Set> any;
  bool ok = true;  // every pattern compiled
};

// Compiled on first use (thread-safe: a function-local static).
const Shapes& CredentialShapes() {
  static const Shapes shapes = [] {
    Shapes v;
    RE2::Options options;
    // Byte by byte: the text may not be valid UTF-8, and every pattern is ASCII.
    options.set_encoding(RE2::Options::EncodingLatin1);
    options.set_log_errors(false);
    v.any = std::make_unique<RE2::Set>(options, RE2::UNANCHORED);
    for (const ShapeSpec& s : ShapeSpecs()) {
      v.each.push_back({std::make_unique<RE2>(s.pattern, options), s.rewrite});
      v.ok = v.ok && v.each.back().re->ok() && v.any->Add(s.pattern, nullptr) >= 0;
    }
    v.ok = v.ok && v.any->Compile();
    return v;
  }();
  return shapes;
}

}  // namespace

Redaction::Redaction() : values_(std::vector<exec::Secret>{}) {}

Redaction::Redaction(const std::vector<exec::Secret>& values, std::vector<std::string> key_globs)
    : values_(values), key_globs_(std::move(key_globs)) {}

std::string RedactCredentialShapes(std::string_view text) {
  if (!MayHoldCredential(text)) return std::string(text);
  const Shapes& shapes = CredentialShapes();
  // A pattern that failed to compile would mask nothing: that is a bug the tests catch, so
  // here it fails closed instead, masking the whole text.
  if (!shapes.ok) return "[redacted: the redaction rules are broken]";
  std::vector<int> found;
  if (!shapes.any->Match(text, &found)) return std::string(text);
  std::sort(found.begin(), found.end());  // in the order of the list: keys before values
  std::string s(text);
  for (int i : found)
    RE2::GlobalReplace(&s, *shapes.each[static_cast<size_t>(i)].re,
                       shapes.each[static_cast<size_t>(i)].rewrite);
  return s;
}

std::string Redaction::Apply(std::string_view text) const {
  std::string masked;
  if (values_.active()) {
    values_.Scan(text.data(), text.size(), /*at_end=*/true,
                 [&masked](const char* p, size_t n) { masked.append(p, n); });
  } else {
    masked.assign(text);
  }
  if (!key_globs_.empty()) masked = MaskAssignments(masked, key_globs_);
  return RedactCredentialShapes(masked);
}

}  // namespace safesh::audit
