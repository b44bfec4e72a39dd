// Parsing bash: text in, syntax tree (src/shell/ast.h) or a positioned syntax error out.
//
// The parser follows bash 5.2's own grammar and lexer (parse.y): reserved words only where bash
// recognises them, here-documents read at the next newline token, $(...) parsed as a script,
// `\r` an ordinary character, `#` a comment only at the start of a token. Where bash defers a
// decision to run time (the inside of backquotes, ${...} operators, arithmetic), the parser
// still parses the text and reports what it cannot parse as an error: it never guesses.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "shell/ast.h"

namespace safesh::shell {

struct ParseOptions {
  // As if `shopt -s extglob` were in effect: ?(..) *(..) +(..) @(..) !(..) are patterns.
  // Off by default, like a fresh `bash -c`.
  bool extglob = false;
  // Nesting deeper than this (substitutions, compound commands, expressions) is an error, so a
  // hostile input cannot exhaust the stack.
  int max_depth = 200;
};

// Why a script is refused. Every kind is refused; the kind says how bash itself sees it.
enum class ErrorKind : uint8_t {
  // bash rejects the script too.
  kSyntax,
  // bash accepts the script as written and reports the problem only when it runs the part
  // concerned: the inside of backquotes, here-document bodies, arithmetic, ${...} operators,
  // subscripts, pattern groups.
  kDeferred,
  // bash accepts the script, but what it means depends on details of bash's implementation that
  // safesh does not reproduce (a here-document delimiter that contains a command substitution,
  // a backslash in an array assignment inside $(...)); it is refused rather than guessed.
  kUnsupported,
};

struct SyntaxError {
  uint32_t offset = 0;
  Position pos;
  std::string message;
  ErrorKind kind = ErrorKind::kSyntax;

  // "line:col: message"
  std::string ToString() const;
};

struct ParseResult {
  Script script;
  std::optional<SyntaxError> error;

  bool ok() const { return !error.has_value(); }
};

// Parses a whole script, as `bash -c TEXT` would before running it.
ParseResult Parse(std::string_view text, const ParseOptions& options = {});

// Checks that TEXT parses, without keeping the tree: each top-level command is forgotten once it
// is read, so memory stays small however long the script is. The same errors as Parse.
std::optional<SyntaxError> Check(std::string_view text, const ParseOptions& options = {});

struct ArithParseResult {
  std::shared_ptr<Arena> arena;  // owns the expression's nodes
  Arith arith;
  std::optional<SyntaxError> error;
  bool ok() const { return !error.has_value(); }
};

// Parses TEXT as an arithmetic expression, the way `let TEXT` or `(( TEXT ))` would read it.
ArithParseResult ParseArithmetic(std::string_view text, const ParseOptions& options = {});

}  // namespace safesh::shell
