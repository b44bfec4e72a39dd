#include "policy/pattern.h"

#include <re2/re2.h>

#include <algorithm>

namespace safesh::policy {
namespace {

bool HasGlobChar(std::string_view s) {
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\') {
      ++i;
      continue;
    }
    if (s[i] == '*' || s[i] == '?') return true;
  }
  return false;
}

std::vector<std::string> SplitWords(std::string_view s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t'))
      ++i;
    size_t start = i;
    while (i < s.size() && s[i] != ' ' && s[i] != '\t')
      ++i;
    if (i > start) out.emplace_back(s.substr(start, i - start));
  }
  return out;
}

MatchResult Best(MatchResult a, MatchResult b) {
  return a > b ? a : b;
}

// One symbol of a glob: a literal character, ? or *.
struct GlobSym {
  char c;
  enum Kind { kChar, kOne, kAny } kind;
};

std::vector<GlobSym> CompileGlob(std::string_view glob) {
  std::vector<GlobSym> out;
  for (size_t i = 0; i < glob.size(); ++i) {
    char c = glob[i];
    if (c == '\\' && i + 1 < glob.size()) {
      out.push_back({glob[++i], GlobSym::kChar});
    } else if (c == '*') {
      if (out.empty() || out.back().kind != GlobSym::kAny) out.push_back({0, GlobSym::kAny});
    } else if (c == '?') {
      out.push_back({0, GlobSym::kOne});
    } else {
      out.push_back({c, GlobSym::kChar});
    }
  }
  return out;
}

// A subject symbol: a literal character, or an unknown piece of text.
struct SubjSym {
  char c;
  bool unknown;
};

// Reachability over (glob position, subject position). With `universal`, an unknown piece may
// only be absorbed whole by a `*` (then any value of it matches); otherwise it may also stand
// for the characters the glob needs there (some value matches).
bool Reach(const std::vector<GlobSym>& g, const std::vector<SubjSym>& s, bool universal) {
  const size_t P = g.size(), S = s.size();
  std::vector<char> seen((P + 1) * (S + 1), 0);
  std::vector<std::pair<size_t, size_t>> stack = {{0, 0}};
  auto push = [&](size_t i, size_t j) {
    char& v = seen[i * (S + 1) + j];
    if (!v) {
      v = 1;
      stack.push_back({i, j});
    }
  };
  seen[0] = 1;
  while (!stack.empty()) {
    auto [i, j] = stack.back();
    stack.pop_back();
    if (i == P && j == S) return true;
    if (i < P && g[i].kind == GlobSym::kAny) push(i + 1, j);
    if (j < S && !s[j].unknown) {
      if (i < P && g[i].kind == GlobSym::kAny) push(i, j + 1);
      if (i < P &&
          (g[i].kind == GlobSym::kOne || (g[i].kind == GlobSym::kChar && g[i].c == s[j].c))) {
        push(i + 1, j + 1);
      }
    } else if (j < S) {
      if (universal) {
        if (i < P && g[i].kind == GlobSym::kAny) push(i, j + 1);
      } else {
        push(i, j + 1);                                           // the unknown text ends here
        if (i < P && g[i].kind != GlobSym::kAny) push(i + 1, j);  // it supplies one character
      }
    }
  }
  return false;
}

std::vector<SubjSym> Subject(const std::vector<std::string>& subject,
                             const std::vector<bool>& unknown) {
  std::vector<SubjSym> out;
  for (size_t k = 0; k < subject.size(); ++k) {
    if (unknown[k]) {
      out.push_back({0, true});
    } else {
      for (char c : subject[k])
        out.push_back({c, false});
    }
  }
  return out;
}

MatchResult GlobOnce(const std::vector<GlobSym>& g, const std::vector<SubjSym>& s) {
  bool any_unknown = std::any_of(s.begin(), s.end(), [](const SubjSym& x) { return x.unknown; });
  if (!any_unknown) return Reach(g, s, true) ? MatchResult::kYes : MatchResult::kNo;
  if (Reach(g, s, /*universal=*/true)) return MatchResult::kYes;
  if (Reach(g, s, /*universal=*/false)) return MatchResult::kMaybe;
  return MatchResult::kNo;
}

// False when the command's text cannot start with `prefix`. Stops at the first computed word,
// which could be anything.
bool PrefixMayMatch(const std::string& prefix, const Argv& argv) {
  size_t k = 0;
  for (size_t i = 0; i < argv.size() && k < prefix.size(); ++i) {
    if (i > 0 && prefix[k++] != ' ') return false;
    if (!argv[i].is_static) return true;
    const std::string& t = argv[i].text;
    for (size_t j = 0; j < t.size() && k < prefix.size(); ++j, ++k) {
      if (t[j] != prefix[k]) return false;
    }
  }
  return k >= prefix.size();
}

MatchResult MatchWords(const std::vector<std::string>& words, const Argv& argv) {
  for (size_t i = 0; i < words.size(); ++i) {
    if (i >= argv.size()) return MatchResult::kNo;
    // A computed word may become any words, also the rest of the pattern's.
    if (!argv[i].is_static) return MatchResult::kMaybe;
    if (argv[i].text != words[i]) return MatchResult::kNo;
  }
  return MatchResult::kYes;
}

MatchResult MatchOnce(const Pattern& p, const Argv& argv) {
  switch (p.form) {
    case Pattern::Form::kWords:
      return MatchWords(p.words, argv);
    case Pattern::Form::kGlob: {
      if (!PrefixMayMatch(p.glob_prefix, argv)) return MatchResult::kNo;
      std::vector<std::string> subject;
      std::vector<bool> unknown;
      for (size_t i = 0; i < argv.size(); ++i) {
        if (i > 0) {
          subject.push_back(" ");
          unknown.push_back(false);
        }
        subject.push_back(argv[i].text);
        unknown.push_back(!argv[i].is_static);
      }
      MatchResult r = GlobMatch(p.glob, subject, unknown);
      // `git *` also names the bare `git`.
      if (p.glob.size() >= 2 && p.glob.compare(p.glob.size() - 2, 2, " *") == 0 &&
          (p.glob.size() < 3 || p.glob[p.glob.size() - 3] != '\\')) {
        r = Best(r, GlobMatch(p.glob.substr(0, p.glob.size() - 2), subject, unknown));
      }
      return r;
    }
    case Pattern::Form::kRegex: {
      for (const Arg& a : argv) {
        // Which values would match cannot be decided in general: it might.
        if (!a.is_static) return MatchResult::kMaybe;
      }
      return RE2::FullMatch(JoinArgv(argv), *p.regex) ? MatchResult::kYes : MatchResult::kNo;
    }
  }
  return MatchResult::kNo;
}

}  // namespace

std::optional<Pattern> ParsePattern(std::string_view text, std::string* error) {
  Pattern p;
  p.text = std::string(text);
  if (text.rfind("re:", 0) == 0) {
    std::string expr(text.substr(3));
    if (expr.empty()) {
      *error = "pattern `" + p.text + "': the regular expression after re: is empty";
      return std::nullopt;
    }
    RE2::Options options;
    options.set_log_errors(false);
    auto re = std::make_shared<const RE2>(expr, options);
    if (!re->ok()) {
      *error = "pattern `" + p.text + "': invalid regular expression: " + re->error();
      return std::nullopt;
    }
    p.form = Pattern::Form::kRegex;
    p.regex = std::move(re);
    return p;
  }
  std::vector<std::string> words = SplitWords(text);
  if (words.empty()) {
    *error = "an empty pattern matches nothing; remove it or write the command it should match";
    return std::nullopt;
  }
  if (HasGlobChar(text)) {
    p.form = Pattern::Form::kGlob;
    // The command's words are joined by single spaces: so are the pattern's.
    for (size_t i = 0; i < words.size(); ++i) {
      if (i) p.glob += ' ';
      p.glob += words[i];
    }
    for (size_t i = 0; i < p.glob.size(); ++i) {
      char c = p.glob[i];
      if (c == '*' || c == '?') break;
      if (c == '\\' && i + 1 < p.glob.size()) c = p.glob[++i];
      p.glob_prefix += c;
    }
    // `git *' also matches `git': the prefix every match shares is then `git'.
    if (p.glob_prefix.size() + 1 == p.glob.size() && p.glob.back() == '*' &&
        !p.glob_prefix.empty() && p.glob_prefix.back() == ' ') {
      p.glob_prefix.pop_back();
    }
  } else {
    p.form = Pattern::Form::kWords;
    for (const std::string& w : words) {
      // \* \? and \\ stand for the character itself, as in globs.
      std::string plain;
      for (size_t i = 0; i < w.size(); ++i) {
        if (w[i] == '\\' && i + 1 < w.size() &&
            (w[i + 1] == '*' || w[i + 1] == '?' || w[i + 1] == '\\')) {
          ++i;
        }
        plain += w[i];
      }
      p.words.push_back(std::move(plain));
    }
  }
  return p;
}

MatchResult GlobMatch(std::string_view glob, const std::vector<std::string>& subject,
                      const std::vector<bool>& unknown) {
  return GlobOnce(CompileGlob(glob), Subject(subject, unknown));
}

MatchResult Match(const Pattern& pattern, const Argv& argv, bool by_base_name) {
  if (argv.empty()) return MatchResult::kNo;
  MatchResult r = MatchOnce(pattern, argv);
  if (by_base_name && r != MatchResult::kYes && argv[0].is_static) {
    size_t slash = argv[0].text.rfind('/');
    if (slash != std::string::npos && slash + 1 < argv[0].text.size()) {
      Argv base = argv;
      base[0].text = argv[0].text.substr(slash + 1);
      r = Best(r, MatchOnce(pattern, base));
    }
  }
  return r;
}

}  // namespace safesh::policy
