// The syntax tree of a bash script, as src/shell/parser.h builds it.
//
// The tree keeps what bash would see when it parses the script, before any expansion: every word
// is a list of parts (literal text, quoted text, parameter expansions, substitutions, globs, brace
// expansions, tildes), every substitution holds the parsed script it runs, and every arithmetic
// context holds its parsed expression. Nothing here knows about policy; later stages walk it.
//
// Positions are byte offsets into the parsed text (`begin`, `end`). Script::At() turns one into
// a 1-based line and column. Text that bash rewrites before parsing it again (the inside of
// backquotes, here-document bodies) is parsed from a copy whose offsets map back to the original.
//
// Every node and every string of a tree lives in its Script's arena (src/shell/arena.h): nodes
// are plain data, pointers and string_views stay valid as long as the Script does.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <variant>

#include "shell/arena.h"
#include "shell/source.h"

namespace safesh::shell {

struct Word;
struct List;
struct ParamExp;
struct ArithExpr;
struct Arith;

// One piece of a word. Which fields are meaningful depends on `kind`; the rest stay empty.
enum class PartKind : uint8_t {
  kLit,           // unquoted text with no special meaning: `text`
  kEscaped,       // a backslash-escaped character outside quotes: `text` is the character
  kSingleQuoted,  // '...': `text` is the contents
  kAnsiC,         // $'...': `text` is the decoded value (bash stops it at a NUL byte)
  kDoubleQuoted,  // "...": `parts`
  kLocale,        // $"...": `parts` (translated at run time; treated like "...")
  kParam,         // $x $1 $@ ${...}: `param`
  kCmdSubst,      // $(...) and `...`: `body`; `backquote` tells which
  kArith,         // $((...)) and $[...]: `arith`
  kProcSubst,     // <(...) >(...): `body`; `text` is "<" or ">"
  kGlob,          // an unquoted glob character or bracket expression: `text` (* ? [...])
  kExtGlob,       // ?(...) *(...) +(...) @(...) !(...): `text` is the operator, `parts` inside
  kBrace,         // brace expansion {a,b}: `words` are the alternatives
  kBraceRange,    // brace sequence {1..5} {a..e..2}: `text` is the inside, e.g. "1..5"
  kTilde,         // ~ or ~user at the start of a word (or after = and : in an assignment): `text`
  kSubscript,     // [...] after a name in an assignment or array element: `parts` inside
  kArrayLit,      // (...) of a compound assignment: `words` are the elements
  kRegexGroup,    // a parenthesised group in the right side of =~: `parts` inside
};

struct Part {
  PartKind kind = PartKind::kLit;
  bool backquote = false;
  uint32_t begin = 0;
  uint32_t end = 0;
  std::string_view text;
  ArenaVec<Part> parts;
  ArenaVec<Word> words;
  const ParamExp* param = nullptr;
  const List* body = nullptr;
  const Arith* arith = nullptr;
};

struct Word {
  uint32_t begin = 0;
  uint32_t end = 0;
  ArenaVec<Part> parts;
};

// ${...} and $name. Operands are words parsed as bash would expand them.
enum class ParamOp : uint8_t {
  kNone,          // $x ${x}
  kLength,        // ${#x}
  kDefault,       // ${x-w} ${x:-w}
  kAssign,        // ${x=w} ${x:=w}
  kError,         // ${x?w} ${x:?w}
  kAlternative,   // ${x+w} ${x:+w}
  kSubstring,     // ${x:offset} ${x:offset:length}: `arith` and `arith2`
  kRemovePrefix,  // ${x#p} ${x##p}
  kRemoveSuffix,  // ${x%p} ${x%%p}
  kReplace,       // ${x/p/r} ${x//p/r} ${x/#p/r} ${x/%p/r}
  kUpper,         // ${x^p} ${x^^p}
  kLower,         // ${x,p} ${x,,p}
  kTransform,     // ${x@Q} and the other @ operators: `op_text` is the letter
  kNamesPrefix,   // ${!prefix*} ${!prefix@}
  kKeys,          // ${!a[@]} ${!a[*]}
};

struct ParamExp {
  uint32_t begin = 0;
  uint32_t end = 0;
  bool braced = false;
  bool indirect = false;        // ${!x}
  bool colon = false;           // the : of :- := :? :+
  std::string_view name;        // identifier, digits, or one of @ * # ? - $ ! 0
  const Word* index = nullptr;  // ${a[...]}
  ParamOp op = ParamOp::kNone;
  std::string_view op_text;           // as written: "-", "##", "//", "Q" (for @Q), ...
  const Word* operand = nullptr;      // the word, pattern, or (for kReplace) the pattern
  const Word* replacement = nullptr;  // kReplace only
  const Arith* arith = nullptr;       // kSubstring offset
  const Arith* arith2 = nullptr;      // kSubstring length, when given
};

// Arithmetic, as in $((...)), ((...)), for ((;;)), $[...], ${x:off:len}. bash expands the text
// (parameters, substitutions, quote removal) and then evaluates it; the tree keeps both: operands
// that contain an expansion are words.
enum class ArithKind : uint8_t {
  kNumber,    // `text`
  kVariable,  // `text` is the name; `index` when subscripted (a[i])
  kWord,      // an operand made of expansions: `word`
  kUnary,     // `op` with `a`: - + ! ~ ++ -- (prefix)
  kPostfix,   // `op` with `a`: ++ --
  kBinary,    // `op` with `a` and `b`, including = += ... and the comma
  kTernary,   // a ? b : c
  kGroup,     // ( a )
};

struct ArithExpr {
  ArithKind kind = ArithKind::kNumber;
  uint32_t begin = 0;
  uint32_t end = 0;
  std::string_view op;
  std::string_view text;
  const ArithExpr* a = nullptr;
  const ArithExpr* b = nullptr;
  const ArithExpr* c = nullptr;
  const ArithExpr* index = nullptr;
  const Word* word = nullptr;
};

// An arithmetic context as written: the expression, or nothing for an empty one (bash takes 0).
struct Arith {
  uint32_t begin = 0;
  uint32_t end = 0;
  const ArithExpr* expr = nullptr;
};

enum class RedirOp : uint8_t {
  kIn,            // <
  kOut,           // >
  kAppend,        // >>
  kClobber,       // >|
  kInOut,         // <>
  kOutErr,        // &>
  kAppendOutErr,  // &>>
  kDupIn,         // <&
  kDupOut,        // >&
  kHeredoc,       // <<
  kHeredocStrip,  // <<-
  kHereString,    // <<<
};

struct Heredoc {
  std::string_view delimiter;  // after quote removal
  bool quoted = false;         // a quoted delimiter: the body is literal
  bool strip_tabs = false;
  bool terminated = true;  // false when the input ended before the delimiter line
  uint32_t body_begin = 0;
  uint32_t body_end = 0;
  Word body;  // literal text, or (unquoted delimiter) text with expansions
};

struct Redirect {
  uint32_t begin = 0;
  uint32_t end = 0;
  RedirOp op = RedirOp::kOut;
  int fd = -1;              // an explicit descriptor number before the operator, else -1
  std::string_view fd_var;  // {name}> form: the variable that receives the descriptor
  bool close = false;       // <&- and >&-
  Word target;              // file, word, descriptor number, or here-document delimiter word
  Heredoc* heredoc = nullptr;
};

// name=value, name+=value, name[sub]=value, name=(...). In a command's prefix, or an argument of
// declare/typeset/local/export/readonly/alias lexed as an assignment.
struct Assignment {
  uint32_t begin = 0;
  uint32_t end = 0;
  std::string_view name;
  const Word* index = nullptr;
  bool append = false;
  Word value;  // for name=(...): one kArrayLit part
};

struct SimpleCommand {
  ArenaVec<Assignment> assigns;
  ArenaVec<Word> words;
  ArenaVec<Redirect> redirs;
};

struct Subshell {
  const List* body = nullptr;
};

struct Group {
  const List* body = nullptr;
};

struct IfClause {
  const List* cond = nullptr;
  const List* then_body = nullptr;
  struct Elif {
    const List* cond = nullptr;
    const List* body = nullptr;
  };
  ArenaVec<Elif> elifs;
  const List* else_body = nullptr;  // may be null
};

// for/select NAME [in WORDS]; do ...; done. Without `in`, bash loops over "$@".
struct ForClause {
  bool select = false;
  std::string_view name;
  uint32_t name_begin = 0;
  bool has_in = false;
  ArenaVec<Word> items;
  const List* body = nullptr;
};

struct ArithForClause {
  Arith init, cond, step;
  const List* body = nullptr;
};

struct WhileClause {
  bool until = false;
  const List* cond = nullptr;
  const List* body = nullptr;
};

struct CaseItem {
  uint32_t begin = 0;
  ArenaVec<Word> patterns;
  const List* body = nullptr;   // may be null (empty body)
  std::string_view terminator;  // ";;", ";&", ";;&", or "" for the last item
};

struct CaseClause {
  Word subject;
  ArenaVec<CaseItem> items;
};

struct ArithCommand {
  Arith arith;
};

// The expression of [[ ... ]].
enum class CondKind : uint8_t { kAnd, kOr, kNot, kGroup, kUnary, kBinary, kWord };

struct CondExpr {
  CondKind kind = CondKind::kWord;
  uint32_t begin = 0;
  std::string_view op;  // kUnary: -f ...; kBinary: == != =~ < > -eq ...
  const CondExpr* left = nullptr;
  const CondExpr* right = nullptr;
  Word word;   // kWord, and the operand of kUnary
  Word word2;  // kBinary: right operand (a pattern for == !=, a regex for =~)
};

struct CondCommand {
  const CondExpr* expr = nullptr;
};

struct Command;

struct FunctionDef {
  std::string_view name;
  Word name_word;
  bool keyword = false;  // written with `function`
  const Command* body = nullptr;
};

struct Coproc {
  std::string_view name;  // "COPROC" when not given
  const Command* body = nullptr;
};

using CommandNode =
    std::variant<SimpleCommand, Subshell, Group, IfClause, ForClause, ArithForClause, WhileClause,
                 CaseClause, ArithCommand, CondCommand, FunctionDef, Coproc>;

struct Command {
  uint32_t begin = 0;
  uint32_t end = 0;
  CommandNode node;
  ArenaVec<Redirect> redirs;  // redirections after a compound command (a simple command keeps
                              // its own inside SimpleCommand)
};

struct Pipeline {
  uint32_t begin = 0;
  bool negated = false;     // !
  bool timed = false;       // time
  bool time_posix = false;  // time -p
  ArenaVec<Command> commands;
  ArenaVec<bool> pipe_stderr;  // pipe_stderr[i]: commands[i] |& commands[i+1]
};

enum class AndOrOp : uint8_t { kAnd, kOr };

struct AndOr {
  ArenaVec<Pipeline> pipelines;
  ArenaVec<AndOrOp> ops;  // ops[i] joins pipelines[i] and pipelines[i+1]
};

struct Statement {
  uint32_t begin = 0;
  AndOr body;
  bool background = false;  // ended by &
};

struct List {
  ArenaVec<Statement> statements;
};

struct Comment {
  uint32_t begin = 0;
  std::string_view text;  // without the #
};

// A whole parsed script. It owns the memory of every node and string of its tree.
struct Script {
  std::shared_ptr<Arena> arena;
  std::string_view source;  // the parsed text (a copy kept in the arena)
  std::shared_ptr<const LineIndex> lines;
  List body;
  ArenaVec<Comment> comments;

  Position At(uint32_t offset) const { return lines->At(offset); }
};

}  // namespace safesh::shell
