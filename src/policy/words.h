// The value of a word before bash runs it: known exactly (static), or computed when it runs.
//
// A word is static only when it is literal after quote removal: plain text, backslash escapes,
// '...', "..." without expansions, and $'...' (decoded exactly as bash does, except \u and \U,
// whose result depends on the locale). A brace expansion whose alternatives are all literal
// (`part{1,2}.diff`, `{1..3}`) is static too: it is expanded here into the words bash makes.
// Everything else (parameters, substitutions, arithmetic, globs, tildes, $"...") is dynamic.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "shell/ast.h"

namespace safesh::policy {

struct WordValue {
  bool is_static = true;
  // Static: the words bash makes of it (one, or several after a brace expansion).
  std::vector<std::string> values;
  // The word as written in the script.
  std::string source;
  // Dynamic: what makes it so, for a person ("$HOME", "$(whoami)", "the glob *.go").
  std::string why;
};

// `source` is the text the word's offsets point into.
WordValue EvaluateWord(const shell::Word& word, std::string_view source);

// One argument of a command as the policy sees it: its value, or (dynamic) its text as written,
// which may become any number of words when bash runs it.
struct Arg {
  std::string text;
  bool is_static = true;
  std::string why;  // dynamic: see WordValue::why
};
using Argv = std::vector<Arg>;

// The arguments a list of words becomes: static values in order, one Arg per dynamic word.
Argv EvaluateWords(const shell::ArenaVec<shell::Word>& words, std::string_view source);

// Arguments given directly (argv mode): every element is static.
Argv StaticArgv(const std::vector<std::string>& argv);

// The command as a line of text: the words joined by single spaces, dynamic ones as written.
// This is the text patterns match.
std::string JoinArgv(const Argv& argv, size_t from = 0);

// The command for people to read: static words quoted as bash would need them (invisible and
// control characters spelled out), dynamic words as written.
std::string ShowArgv(const Argv& argv);

}  // namespace safesh::policy
