// The parser's internals, shared by the files that implement it:
//   reader.cc      characters, with bash's removal of backslash-newline
//   lexer.cc       tokens: operators, reserved words, here-documents (bash's read_token)
//   words.cc       the inside of a word: quotes, $-expansions, substitutions (read_token_word)
//   param.cc       ${...}
//   arith.cc       arithmetic expressions
//   grammar.cc     commands, lists, compound commands, [[ ]] (bash's yacc grammar)
//   word_shape.cc  tilde, brace and glob expansions in a word's literal text
//   parser.cc      entry points and errors
// Not part of the library's interface: include "shell/parser.h" instead.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "shell/ast.h"
#include "shell/parser.h"

namespace safesh::shell::internal {

// Thrown inside the parser and turned into a SyntaxError at the API boundary. `offset` is already
// an offset into the original text.
struct ParseFailure {
  uint32_t offset;
  std::string message;
  ErrorKind kind;
};

// The characters of one text being parsed. Offsets into a derived text (the inside of backquotes,
// a here-document body after bash's line joining) map back to the original through `origin`.
class Reader {
 public:
  Reader(std::string_view text, const std::vector<uint32_t>* origin, uint32_t base);

  // The next character, or -1 at the end. With `join_lines`, backslash-newline pairs before it
  // are skipped for good, as bash's shell_getc(1) does.
  int Get(bool join_lines) {
    if (join_lines) SkipJoins();
    last_ = pos_;
    if (pos_ >= end_) return -1;
    unsigned char c = static_cast<unsigned char>(text_[pos_]);
    ++pos_;
    if (c == '\n' && pos_ - 1 == jump_from_) {
      skips_.push_back({static_cast<uint32_t>(pos_), static_cast<uint32_t>(jump_to_)});
      pos_ = jump_to_;
    }
    return c;
  }
  int Peek(bool join_lines) {
    if (join_lines) SkipJoins();
    if (pos_ >= end_) return -1;
    return static_cast<unsigned char>(text_[pos_]);
  }
  // Steps back over the last character returned by Get (one level, like shell_ungetc).
  void Unget() { pos_ = last_; }

  size_t pos() const { return pos_; }
  void set_pos(size_t p) { pos_ = p; }
  // The end of what may be read: the text's size, or a limit set with SetLimit.
  size_t size() const { return end_; }
  // Limits reading to before `limit`; returns the previous limit, to restore.
  size_t SetLimit(size_t limit) {
    size_t old = end_;
    end_ = limit;
    return old;
  }
  std::string_view text() const { return text_; }
  char at(size_t p) const { return text_[p]; }
  // The offset in the original text of position `p` of this text.
  uint32_t Offset(size_t p) const {
    if (origin_ == nullptr) return base_ + static_cast<uint32_t>(p);
    if (p < origin_->size()) return (*origin_)[p];
    return origin_->empty() ? base_ : origin_->back();
  }

  // After here-documents are read in the middle of a line, the newline that ends the line
  // continues at `to`, past the bodies, as bash's line buffer does.
  void SetJump(size_t newline_at, size_t to) {
    jump_from_ = newline_at;
    jump_to_ = to;
  }
  // Text the reader passed over: a backslash-newline pair it joined, or here-document bodies
  // it jumped. A token's text is the text it spans without the skips inside it.
  struct Skip {
    uint32_t from;
    uint32_t to;
  };
  const std::vector<Skip>& skips() const { return skips_; }
  // Records a backslash-newline that the lexer itself removed (not through Get(true)).
  void NoteSkip(size_t from, size_t to) {
    skips_.push_back({static_cast<uint32_t>(from), static_cast<uint32_t>(to)});
  }
  // Where the line after the one containing `p` starts (past here-document bodies already read).
  size_t NextLineStart(size_t p) const;

 private:
  void SkipJoins() {
    while (pos_ + 1 < end_ && text_[pos_] == '\\' && text_[pos_ + 1] == '\n') {
      size_t from = pos_;
      pos_ += 2;
      if (from + 1 == jump_from_) pos_ = jump_to_;
      NoteSkip(from, pos_);
    }
  }

  std::string_view text_;
  const std::vector<uint32_t>* origin_;
  uint32_t base_;
  size_t pos_ = 0;
  size_t last_ = 0;
  size_t end_;
  size_t jump_from_ = SIZE_MAX;
  size_t jump_to_ = 0;
  std::vector<Skip> skips_;
};

// Token kinds, named after bash's. The last few only appear in the token history.
enum class Tok : uint8_t {
  kEof,
  kNewline,
  kSemi,
  kAmp,
  kPipe,
  kLParen,
  kRParen,
  kLess,
  kGreat,
  kDash,  // the - of <&- and >&-
  kAndAnd,
  kOrOr,
  kSemiSemi,
  kSemiAnd,
  kSemiSemiAnd,
  kPipeAmp,
  kGreatGreat,
  kLessLess,
  kLessLessDash,
  kLessLessLess,
  kLessAnd,
  kGreatAnd,
  kLessGreat,
  kGreatPipe,
  kAndGreat,
  kAndGreatGreat,
  kWord,
  kAssignmentWord,
  kNumber,
  kRedirWord,
  kIf,
  kThen,
  kElse,
  kElif,
  kFi,
  kCase,
  kEsac,
  kFor,
  kSelect,
  kWhile,
  kUntil,
  kDo,
  kDone,
  kIn,
  kFunction,
  kTime,
  kLBrace,
  kRBrace,
  kBang,
  kCondStart,
  kCondEnd,
  kCoproc,
  kTimeOpt,
  kTimeIgn,
  kArithCmd,
  kArithForExprs,
  kCondCmd,   // history only: the inside of [[ ]]
  kDolParen,  // history only: the start of $(...)
  kNone,      // history only: nothing read yet
};

const char* TokText(Tok t);

struct Token {
  Tok kind = Tok::kNone;
  uint32_t begin = 0;  // offsets in the original text
  uint32_t end = 0;
  std::string_view raw;  // the token as bash spells it, for reserved words and messages
  Word word;             // kWord, kAssignmentWord
  int number = 0;        // kNumber
  std::array<Arith, 3>* arith = nullptr;  // kArithCmd: [0]; kArithForExprs: init, test, step
};

// Where a word is used decides which expansions apply to it (see FinishWord).
enum class WordUse : uint8_t {
  kArgument,     // command words, for-in items, redirection targets, array elements
  kAssignValue,  // the value of an assignment: tilde after = and :, no globbing or braces
  kPattern,      // case patterns, [[ == rhs ]], ${x#pattern}: globs and tilde, no braces
  kCond,         // other [[ ]] operands, case subjects, ${x:-word}: tilde only
  kHereString,   // <<< word: tilde only
  kQuoted,       // text that is quoted as a whole: nothing
};

// Flags of bash's parse_matched_pair (P_*), for SkipMatched.
namespace match {
constexpr unsigned kFirstClose = 1;
constexpr unsigned kAllowEsc = 2;
constexpr unsigned kDQuote = 4;
constexpr unsigned kArith = 8;
constexpr unsigned kArraySub = 16;
constexpr unsigned kDolBrace = 32;
}  // namespace match

// Options for reading the parts of a bounded region (see ScanBoundedParts).
struct RegionOptions {
  bool in_dquote = false;       // inside "...": $'...' and $"..." are not special
  bool procsubst = false;       // <(...) and >(...) are recognised
  const char* stops = nullptr;  // unquoted characters that end the region early
  bool squote_literal = false;  // a single quote is an ordinary character
};

class ParserImpl {
 public:
  // `origin` (may be null) maps offsets of `text` to the original text; without it `base` is
  // added. `depth` is the nesting level at which this text starts; `lines` locates offsets of the
  // original text for messages.
  ParserImpl(std::string_view text, const std::vector<uint32_t>* origin, uint32_t base,
             Arena& arena, const ParseOptions& options, int depth, ArenaVec<Comment>* comments,
             std::shared_ptr<const LineIndex> lines);

  // Text that bash parses only when it runs it (backquotes, here-document bodies): errors in it
  // are reported as deferred.
  void MarkDeferred() { ++deferred_; }
  // Forget each top-level command once it is parsed, reusing its memory: for checking a script
  // without keeping its tree (bash -n does the same).
  void DiscardEachCommand() { discard_ = true; }

  List ParseScript();       // the whole text as a script
  Word ParseHeredocText();  // the whole text as an unquoted here-document body
  Arith ParseArithText();   // the whole text as an arithmetic expression

  // Parser state bits (bash's PST_*).
  static constexpr uint32_t kCasePat = 1u << 0;
  static constexpr uint32_t kCaseStmt = 1u << 1;
  static constexpr uint32_t kAllowOpenBrace = 1u << 2;
  static constexpr uint32_t kCondExprState = 1u << 3;
  static constexpr uint32_t kRegexp = 1u << 4;
  static constexpr uint32_t kExtPat = 1u << 5;
  static constexpr uint32_t kAssignOk = 1u << 6;
  static constexpr uint32_t kCompAssign = 1u << 7;
  static constexpr uint32_t kSubshellState = 1u << 8;
  static constexpr uint32_t kRedirList = 1u << 9;

 private:
  struct ArithState;

  // Errors and positions (parser.cc).
  [[noreturn]] void Fail(size_t pos, const std::string& message);
  [[noreturn]] void FailAt(uint32_t offset, const std::string& message);
  // A construct bash accepts but safesh refuses to interpret (ErrorKind::kUnsupported).
  [[noreturn]] void Unsupported(size_t pos, const std::string& message);
  [[noreturn]] void UnexpectedToken(const Token& t);
  void Enter(uint32_t offset);
  void Leave() { --depth_; }
  uint32_t Off(size_t pos) const { return reader_.Offset(pos); }
  Position At(uint32_t offset) const { return lines_->At(offset); }

  // Tokens (lexer.cc).
  const Token& Peek();
  Token Next();
  Token ReadToken();
  Token Operator(Tok kind, size_t start);
  int SpecialCaseTokens(std::string_view raw);
  bool ReservedWordAcceptable(Tok t) const;
  bool TimeCommandAcceptable() const;
  bool CommandTokenPosition(Tok t) const;
  bool AssignmentAcceptable(Tok t) const;
  bool ParseDoubleParen(size_t start, Token* out);
  Token ClassifyWord(Token tok, std::string_view raw, bool all_digit, bool dollar_present,
                     bool quoted, int endc);
  std::string_view TokenText(size_t from, size_t to, size_t skips_before);
  void GatherHeredocs(bool after_newline);
  size_t ReadHeredoc(Heredoc* doc, size_t pos, bool mid_line);

  // Word contents (words.cc).
  Token ReadTokenWord(int c, size_t start);
  void AddLit(ArenaVec<Part>& parts, size_t pos, size_t end);
  void AddLitRun(ArenaVec<Part>& parts, size_t pos, size_t end);
  size_t SkipMatched(int qc, int open, int close, unsigned flags);
  void ScanSingleQuoted(ArenaVec<Part>& parts, size_t start);
  void ScanAnsiC(ArenaVec<Part>& parts, size_t start);
  void ScanDoubleQuoted(ArenaVec<Part>& parts, size_t start, bool locale);
  void ScanDoubleQuotedParts(ArenaVec<Part>& parts, int close, size_t open_pos);
  void ScanBackquote(ArenaVec<Part>& parts, size_t start, bool in_dquote);
  const List* ParseDetachedScript(const std::string& text, const std::vector<uint32_t>& origin);
  bool ScanDollar(ArenaVec<Part>& parts, size_t start, bool in_dquote);
  void ScanDollarParen(ArenaVec<Part>& parts, size_t start);
  bool IsArithText(size_t first, size_t close, size_t* expr_end) const;
  const List* ParseDetachedRegion(size_t begin, size_t end);
  void ScanProcessSubst(ArenaVec<Part>& parts, size_t start, char dir);
  void ScanDollarBracket(ArenaVec<Part>& parts, size_t start);
  const List* ParseSubstitutionBody(size_t start);
  Word ScanSubscript(size_t start);
  void ScanBoundedGroup(ArenaVec<Part>& parts, PartKind kind, std::string_view text, size_t start);
  Part ScanArrayLiteral(size_t start);

  // ${...} (param.cc).
  std::string ReadParamName();
  int ScanBoundedParts(ArenaVec<Part>& parts, const RegionOptions& o);
  Word ScanParamOperand(const char* stops, bool in_dquote, bool squote_literal, WordUse use,
                        int* stopped);
  void ScanBracedParam(ArenaVec<Part>& parts, size_t start, bool in_dquote);
  std::string_view Intern(std::string_view s) { return arena_.Copy(s); }
  // A view of `n` characters of the text at `pos`, which must not contain joined lines.
  std::string_view View(size_t pos, size_t n) const { return reader_.text().substr(pos, n); }
  void ParseParamOperator(ParamExp& pe, bool in_dquote,
                          const std::function<void(const std::string&)>& bad);
  Word ScanSubscriptInLimit(size_t open);

  // Arithmetic (arith.cc).
  void ArithSkipSpace();
  void ArithLex();
  bool ArithIsOp(const char* op) const;
  [[noreturn]] void ArithUnexpected();
  ArithExpr* ArithComma();
  ArithExpr* ArithAssign();
  ArithExpr* ArithTernary();
  ArithExpr* ArithBinary(int level);
  ArithExpr* ArithPower();
  ArithExpr* ArithUnary();
  ArithExpr* ArithPostfix();
  ArithExpr* ArithPrimary();
  Arith ScanArithRegion(size_t begin, size_t end);
  Arith ScanArithUntilColon(bool* stopped_at_colon);

  // Grammar (grammar.cc).
  bool IsRedirStart(const Token& t) const;
  bool StartsCommand(const Token& t) const;
  void Expect(Tok kind);
  // The compound commands and substitutions being read, innermost last, so that the end of the
  // input can say which one is not closed.
  struct Open {
    const char* opener;
    const char* closer;
    uint32_t offset;
  };
  void Push(const char* opener, const char* closer, uint32_t offset) {
    open_.push_back(Open{opener, closer, offset});
  }
  void Pop() { open_.pop_back(); }
  void ParseListInto(List& list, bool top_level);
  List ParseCompoundList();
  AndOr ParseAndOr();
  Pipeline ParsePipelineCommand();
  Command ParseCommand();
  Command ParseSimpleCommand(Token first);
  Redirect ParseRedirect(Token first);
  void ParseTrailingRedirects(Command& cmd);
  Command ParseFunctionDef(Token name, bool keyword, uint32_t begin);
  Command ParseCoproc(Token first);
  const List* ParseBody();
  Command ParseShellCommand(Token first);
  Command ParseIf(Token first);
  Command ParseFor(Token first);
  Command ParseArithFor(Token first, Token exprs);
  Command ParseWhile(Token first);
  Command ParseCase(Token first);
  Command ParseCond(Token first);
  CondExpr* CondOr();
  CondExpr* CondAnd();
  CondExpr* CondTerm();
  Token CondRead();
  Token CondSkipNewlines();
  [[noreturn]] void CondError(Tok kind, uint32_t begin, std::string_view raw,
                              const std::string& message);

  // Expansions found in a word's literal text (word_shape.cc).
  void FinishWord(Word& w, WordUse use);
  Assignment SplitAssignment(Word&& w);

  Reader reader_;
  Arena& arena_;
  const ParseOptions& options_;
  int depth_;
  ArenaVec<Comment>* comments_;
  std::shared_ptr<const LineIndex> lines_;

  // Lexer state, as bash keeps it.
  Tok last_ = Tok::kNone;
  Tok before_ = Tok::kNone;
  Tok two_ago_ = Tok::kNone;
  uint32_t state_ = 0;
  int open_braces_ = 0;
  int esacs_needed_ = 0;
  int expecting_in_ = 0;
  bool extglob_;
  bool in_comsub_ = false;  // parsing $(...): a here-document delimiter may be followed by `)'
  // $(...) bodies parsed while finding where an enclosing construct ends (SkipMatched), by the
  // position where the body starts, for the second reading of that text.
  struct ParsedSubstitution {
    size_t end;
    const List* body;
  };
  std::unordered_map<size_t, ParsedSubstitution> parsed_substitutions_;
  int deferred_ = 0;      // > 0 inside text that bash checks only at run time
  bool discard_ = false;  // see DiscardEachCommand
  // bash's current_delimiter(dstack): the innermost quote or `(` of $(...) being read. It changes
  // how a backslash reads in a compound assignment inside $(...).
  char cd_ = 0;
  std::vector<Heredoc*> pending_heredocs_;
  std::optional<Token> token_to_read_;  // pushed back as bash's token_to_read
  std::optional<Token> peeked_;
  Tok cond_kind_ = Tok::kNone;  // the current token inside [[ ]] (bash's cond_token)
  uint32_t cond_begin_ = 0;
  uint32_t cond_end_ = 0;
  std::string cond_raw_;
  ArithState* arith_ = nullptr;
  std::vector<Open> open_;
};

// Character classes of bash's lexer.
inline bool IsBlank(int c) {
  return c == ' ' || c == '\t';
}
inline bool IsMeta(int c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '|' || c == '&' || c == ';' || c == '(' ||
         c == ')' || c == '<' || c == '>';
}
inline bool IsDigit(int c) {
  return c >= '0' && c <= '9';
}
inline bool IsNameStart(int c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
inline bool IsNameChar(int c) {
  return IsNameStart(c) || IsDigit(c);
}
bool IsName(std::string_view s);
// bash's assignment(): is RAW (the text before an `=`) the left side of an assignment?
bool IsAssignmentLhs(std::string_view raw, bool compound);

}  // namespace safesh::shell::internal
