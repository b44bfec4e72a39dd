// Command patterns (settings `[commands] deny, ask, allow, auto_approve`), and how a command
// matches one.
//
// A pattern is matched against a command's words joined by single spaces, in one of three forms:
//   words         `git log` matches `git log` with any arguments after it, not `git logs`
//   glob          with * (any text) or ? (one character) it must match the whole command;
//                 a trailing ` *` also matches the bare command (`git *` matches `git`)
//   re:REGEX      an RE2 regular expression that must match the whole command
//
// A command whose words are not all known before it runs may or may not match: Match says
// kMaybe. Deny rules treat that as "needs approval"; allow and auto-approve rules only count a
// definite kYes.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "policy/words.h"

namespace re2 {
class RE2;
}

namespace safesh::policy {

struct Pattern {
  enum class Form { kWords, kGlob, kRegex };
  Form form = Form::kWords;
  std::string text;                // as written in the settings
  std::vector<std::string> words;  // kWords
  std::string glob;                // kGlob
  // kGlob: the literal text every match starts with (before the first * or ?), for a quick
  // rejection of most commands.
  std::string glob_prefix;
  std::shared_ptr<const re2::RE2> regex;
};

// Parses a pattern; on an invalid one returns nothing and sets `*error` to what is wrong.
std::optional<Pattern> ParsePattern(std::string_view text, std::string* error);

enum class MatchResult { kNo, kMaybe, kYes };

// Does `argv` match `pattern`? With `by_base_name`, a command given by a path (/bin/rm) also
// matches by its last component (rm); deny rules use this, allow rules never do.
MatchResult Match(const Pattern& pattern, const Argv& argv, bool by_base_name);

// Glob matching over a subject in which some pieces are unknown text (dynamic words).
// Exposed for tests. `subject` alternates literal text with unknown pieces as described by
// `unknown` (unknown[i] true: subject[i] stands for any text). kYes: every value of the unknown
// pieces matches; kMaybe: some do; kNo: none.
MatchResult GlobMatch(std::string_view glob, const std::vector<std::string>& subject,
                      const std::vector<bool>& unknown);

}  // namespace safesh::policy
