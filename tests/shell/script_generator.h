// Random bash scripts from bash's grammar, for differential tests against bash itself.
//
// Generate() builds a script that should parse (every construct the parser knows, nested to a
// bounded depth); Mutate() damages a script by deleting, duplicating or inserting the characters
// and words that matter to bash's lexer, which yields both valid and invalid scripts near the
// edges of the grammar. Both are deterministic for a given seed.
#pragma once

#include <cstdint>
#include <random>
#include <string>

namespace safesh::testing {

class ScriptGenerator {
 public:
  explicit ScriptGenerator(uint64_t seed) : rng_(seed) {}

  std::string Generate();
  std::string Mutate(const std::string& script);

 private:
  int Pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  bool Chance(int percent) { return Pick(100) < percent; }

  std::string List(int depth, bool top);
  std::string AndOr(int depth);
  std::string Pipeline(int depth);
  std::string Command(int depth);
  std::string Simple(int depth);
  std::string Compound(int depth);
  std::string Word(int depth);
  std::string WordPart(int depth);
  std::string DoubleQuotedPart(int depth);
  std::string Param(int depth);
  std::string Arith(int depth);
  std::string Cond(int depth);
  std::string Redirect(int depth);
  std::string Name();
  std::string Lit();
  std::string SafeWord();

  std::mt19937_64 rng_;
  std::string pending_heredocs_;  // bodies to emit after the current line
  int heredoc_count_ = 0;
  int in_backquote_ = 0;  // inside `...`, where another backquote would end it
};

}  // namespace safesh::testing
