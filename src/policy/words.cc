#include "policy/words.h"

#include <cstdio>
#include <cstdlib>

#include "util/shell_quote.h"

namespace safesh::policy {
namespace {

using shell::Part;
using shell::PartKind;

// Beyond this many words a brace expansion is not expanded here: it is treated as dynamic.
constexpr size_t kMaxBraceWords = 1024;

// A word being built: its text, and whether any quoted piece went into it (bash keeps an empty
// word that had quotes, `''`, and drops one that had none, `{a,}`'s second word).
struct Piece {
  std::string text;
  bool quoted = false;
};

struct Evaluator {
  std::string_view source;
  std::string why;  // set when the word turns out dynamic

  std::string Source(uint32_t begin, uint32_t end) const {
    if (begin > end || end > source.size()) return "";
    return std::string(source.substr(begin, end - begin));
  }

  bool Dynamic(const Part& p, const char* what) {
    if (why.empty()) {
      std::string text = Source(p.begin, p.end);
      why = what[0] ? std::string(what) + " " + text : text;
    }
    return false;
  }

  // Appends each of `suffixes` to each of `*acc` (the cartesian product, in bash's order).
  bool Combine(std::vector<Piece>* acc, const std::vector<Piece>& suffixes) {
    if (acc->size() * suffixes.size() > kMaxBraceWords) return false;
    std::vector<Piece> out;
    out.reserve(acc->size() * suffixes.size());
    for (const Piece& a : *acc) {
      for (const Piece& b : suffixes)
        out.push_back({a.text + b.text, a.quoted || b.quoted});
    }
    *acc = std::move(out);
    return true;
  }

  bool AppendText(std::vector<Piece>* acc, std::string_view text, bool quoted) {
    for (Piece& a : *acc) {
      a.text += text;
      a.quoted = a.quoted || quoted;
    }
    return true;
  }

  // The pieces of `parts` (one word's parts), or false when any part is dynamic.
  bool Parts(const shell::ArenaVec<Part>& parts, std::vector<Piece>* acc) {
    for (const Part& p : parts) {
      switch (p.kind) {
        case PartKind::kLit:
        case PartKind::kEscaped:
          AppendText(acc, p.text, p.kind == PartKind::kEscaped);
          break;
        case PartKind::kSingleQuoted:
          AppendText(acc, p.text, true);
          break;
        case PartKind::kAnsiC: {
          // \u and \U give a character in the locale's encoding, so their value is not fixed.
          std::string raw = Source(p.begin, p.end);
          if (raw.find("\\u") != std::string::npos || raw.find("\\U") != std::string::npos) {
            return Dynamic(p, "the locale-dependent escape in");
          }
          AppendText(acc, p.text, true);
          break;
        }
        case PartKind::kDoubleQuoted: {
          std::vector<Piece> inner = {{}};
          if (!Parts(p.parts, &inner)) return false;
          AppendText(acc, inner[0].text, true);
          break;
        }
        case PartKind::kLocale:
          return Dynamic(p, "the translated string");
        case PartKind::kParam:
          return Dynamic(p, "");
        case PartKind::kCmdSubst:
          return Dynamic(p, "the output of");
        case PartKind::kArith:
          return Dynamic(p, "the arithmetic");
        case PartKind::kProcSubst:
          return Dynamic(p, "the process substitution");
        case PartKind::kGlob:
        case PartKind::kExtGlob:
          return Dynamic(p, "the file names matching");
        case PartKind::kTilde:
          return Dynamic(p, "the home folder");
        case PartKind::kBrace: {
          std::vector<Piece> alternatives;
          for (const shell::Word& alt : p.words) {
            std::vector<Piece> values = {{}};
            if (!Parts(alt.parts, &values)) return false;
            alternatives.insert(alternatives.end(), values.begin(), values.end());
            if (alternatives.size() > kMaxBraceWords) return Dynamic(p, "the large expansion");
          }
          if (!Combine(acc, alternatives)) return Dynamic(p, "the large expansion");
          break;
        }
        case PartKind::kBraceRange: {
          std::vector<Piece> values;
          if (!Sequence(p.text, &values)) return Dynamic(p, "the sequence");
          if (!Combine(acc, values)) return Dynamic(p, "the large expansion");
          break;
        }
        case PartKind::kSubscript:
        case PartKind::kArrayLit:
        case PartKind::kRegexGroup:
          return Dynamic(p, "");
      }
    }
    return true;
  }

  // bash's sequence expression {x..y[..incr]}, for integers and for letters within a-z or A-Z.
  // Anything else (a range through punctuation, '+' with zero padding) is left dynamic.
  static bool Sequence(std::string_view text, std::vector<Piece>* out) {
    size_t dots = text.find("..");
    std::string a(text.substr(0, dots));
    std::string rest(text.substr(dots + 2));
    std::string b = rest;
    long long incr = 1;
    size_t dots2 = rest.find("..");
    if (dots2 != std::string::npos) {
      b = rest.substr(0, dots2);
      incr = std::llabs(std::atoll(rest.c_str() + dots2 + 2));
      if (incr == 0) incr = 1;
    }
    auto is_int = [](const std::string& v) {
      size_t i = (!v.empty() && (v[0] == '-' || v[0] == '+')) ? 1 : 0;
      if (i >= v.size() || v.size() > 18) return false;
      for (; i < v.size(); ++i) {
        if (v[i] < '0' || v[i] > '9') return false;
      }
      return true;
    };
    if (is_int(a) && is_int(b)) {
      auto padded = [](const std::string& v) {
        size_t i = (v[0] == '-') ? 1 : 0;
        return v.size() > i + 1 && v[i] == '0';
      };
      int width = 0;
      if (padded(a) || padded(b)) {
        if (a[0] == '+' || b[0] == '+') return false;
        width = static_cast<int>(std::max(a.size(), b.size()));
      }
      long long x = std::atoll(a.c_str()), y = std::atoll(b.c_str());
      long long step = x <= y ? incr : -incr;
      if ((x <= y ? y - x : x - y) / incr + 1 > static_cast<long long>(kMaxBraceWords)) {
        return false;
      }
      for (long long v = x; x <= y ? v <= y : v >= y; v += step) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%0*lld", width, v);
        out->push_back({buf, false});
      }
      return true;
    }
    auto letter = [](const std::string& v) {
      return v.size() == 1 && ((v[0] >= 'a' && v[0] <= 'z') || (v[0] >= 'A' && v[0] <= 'Z'));
    };
    if (!letter(a) || !letter(b)) return false;
    bool lower_a = a[0] >= 'a', lower_b = b[0] >= 'a';
    if (lower_a != lower_b) return false;
    int x = a[0], y = b[0];
    int step = static_cast<int>(x <= y ? incr : -incr);
    if (incr > 26) step = x <= y ? 26 : -26;
    for (int v = x; x <= y ? v <= y : v >= y; v += step)
      out->push_back({std::string(1, static_cast<char>(v)), false});
    return true;
  }
};

}  // namespace

WordValue EvaluateWord(const shell::Word& word, std::string_view source) {
  WordValue v;
  Evaluator e{source, {}};
  v.source = e.Source(word.begin, word.end);
  std::vector<Piece> pieces = {{}};
  if (!e.Parts(word.parts, &pieces)) {
    v.is_static = false;
    v.why = e.why.empty() ? v.source : e.why;
    return v;
  }
  for (Piece& p : pieces) {
    // An empty word from a brace expansion disappears unless it had quotes, as in bash.
    if (p.text.empty() && !p.quoted && pieces.size() > 1) continue;
    v.values.push_back(std::move(p.text));
  }
  return v;
}

Argv EvaluateWords(const shell::ArenaVec<shell::Word>& words, std::string_view source) {
  Argv argv;
  for (const shell::Word& w : words) {
    WordValue v = EvaluateWord(w, source);
    if (!v.is_static) {
      argv.push_back({std::move(v.source), false, std::move(v.why)});
      continue;
    }
    for (std::string& s : v.values)
      argv.push_back({std::move(s), true, {}});
  }
  return argv;
}

Argv StaticArgv(const std::vector<std::string>& argv) {
  Argv out;
  out.reserve(argv.size());
  for (const std::string& a : argv)
    out.push_back({a, true, {}});
  return out;
}

std::string JoinArgv(const Argv& argv, size_t from) {
  std::string out;
  for (size_t i = from; i < argv.size(); ++i) {
    if (i > from) out += ' ';
    out += argv[i].text;
  }
  return out;
}

std::string ShowArgv(const Argv& argv) {
  std::string out;
  for (size_t i = 0; i < argv.size(); ++i) {
    if (i > 0) out += ' ';
    out += argv[i].is_static ? util::ShellQuote(argv[i].text) : argv[i].text;
  }
  return out;
}

}  // namespace safesh::policy
