// Tokens, as bash's read_token makes them: operators, words, and the context rules that decide
// when a word is a reserved word, an assignment, a file descriptor number or `{var}`.
//
// The lexer keeps bash's token history (last_, before_, two_ago_) and parser-state bits, because
// bash decides reserved words and assignments from them, not from the grammar.
#include <cstring>

#include "shell/parser_impl.h"

namespace safesh::shell::internal {

const char* TokText(Tok t) {
  switch (t) {
    case Tok::kEof:
      return "end of file";
    case Tok::kNewline:
      return "newline";
    case Tok::kSemi:
      return ";";
    case Tok::kAmp:
      return "&";
    case Tok::kPipe:
      return "|";
    case Tok::kLParen:
      return "(";
    case Tok::kRParen:
      return ")";
    case Tok::kLess:
      return "<";
    case Tok::kGreat:
      return ">";
    case Tok::kDash:
      return "-";
    case Tok::kAndAnd:
      return "&&";
    case Tok::kOrOr:
      return "||";
    case Tok::kSemiSemi:
      return ";;";
    case Tok::kSemiAnd:
      return ";&";
    case Tok::kSemiSemiAnd:
      return ";;&";
    case Tok::kPipeAmp:
      return "|&";
    case Tok::kGreatGreat:
      return ">>";
    case Tok::kLessLess:
      return "<<";
    case Tok::kLessLessDash:
      return "<<-";
    case Tok::kLessLessLess:
      return "<<<";
    case Tok::kLessAnd:
      return "<&";
    case Tok::kGreatAnd:
      return ">&";
    case Tok::kLessGreat:
      return "<>";
    case Tok::kGreatPipe:
      return ">|";
    case Tok::kAndGreat:
      return "&>";
    case Tok::kAndGreatGreat:
      return "&>>";
    case Tok::kWord:
      return "word";
    case Tok::kAssignmentWord:
      return "assignment";
    case Tok::kNumber:
      return "number";
    case Tok::kRedirWord:
      return "{var}";
    case Tok::kIf:
      return "if";
    case Tok::kThen:
      return "then";
    case Tok::kElse:
      return "else";
    case Tok::kElif:
      return "elif";
    case Tok::kFi:
      return "fi";
    case Tok::kCase:
      return "case";
    case Tok::kEsac:
      return "esac";
    case Tok::kFor:
      return "for";
    case Tok::kSelect:
      return "select";
    case Tok::kWhile:
      return "while";
    case Tok::kUntil:
      return "until";
    case Tok::kDo:
      return "do";
    case Tok::kDone:
      return "done";
    case Tok::kIn:
      return "in";
    case Tok::kFunction:
      return "function";
    case Tok::kTime:
      return "time";
    case Tok::kLBrace:
      return "{";
    case Tok::kRBrace:
      return "}";
    case Tok::kBang:
      return "!";
    case Tok::kCondStart:
      return "[[";
    case Tok::kCondEnd:
      return "]]";
    case Tok::kCoproc:
      return "coproc";
    case Tok::kTimeOpt:
      return "-p";
    case Tok::kTimeIgn:
      return "--";
    case Tok::kArithCmd:
      return "((";
    case Tok::kArithForExprs:
      return "((";
    case Tok::kCondCmd:
      return "[[";
    case Tok::kDolParen:
      return "$(";
    case Tok::kNone:
      return "";
  }
  return "";
}

namespace {

struct Reserved {
  const char* text;
  Tok tok;
};

// bash's word_token_alist.
constexpr Reserved kReservedWords[] = {
    {"if", Tok::kIf},         {"then", Tok::kThen},    {"else", Tok::kElse},
    {"elif", Tok::kElif},     {"fi", Tok::kFi},        {"case", Tok::kCase},
    {"esac", Tok::kEsac},     {"for", Tok::kFor},      {"select", Tok::kSelect},
    {"while", Tok::kWhile},   {"until", Tok::kUntil},  {"do", Tok::kDo},
    {"done", Tok::kDone},     {"in", Tok::kIn},        {"function", Tok::kFunction},
    {"time", Tok::kTime},     {"{", Tok::kLBrace},     {"}", Tok::kRBrace},
    {"!", Tok::kBang},        {"[[", Tok::kCondStart}, {"]]", Tok::kCondEnd},
    {"coproc", Tok::kCoproc},
};

// bash's word_token_alist, looked up without comparing against every entry.
Tok FindReserved(std::string_view raw) {
  if (raw.empty() || raw.size() > 8) return Tok::kNone;
  for (const auto& r : kReservedWords) {
    if (r.text[0] == raw[0] && raw == r.text) return r.tok;
  }
  return Tok::kNone;
}

// Builtins after which `name=(...)` is a compound assignment (bash's ASSIGNMENT_BUILTIN, plus
// eval and let).
bool IsAssignmentBuiltin(std::string_view s) {
  return s == "alias" || s == "declare" || s == "export" || s == "local" || s == "readonly" ||
         s == "typeset" || s == "eval" || s == "let";
}

}  // namespace

bool IsName(std::string_view s) {
  if (s.empty() || !IsNameStart(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s) {
    if (!IsNameChar(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

bool ParserImpl::ReservedWordAcceptable(Tok t) const {
  switch (t) {
    case Tok::kNewline:
    case Tok::kSemi:
    case Tok::kLParen:
    case Tok::kRParen:
    case Tok::kPipe:
    case Tok::kAmp:
    case Tok::kLBrace:
    case Tok::kRBrace:
    case Tok::kAndAnd:
    case Tok::kArithCmd:
    case Tok::kBang:
    case Tok::kPipeAmp:
    case Tok::kCondEnd:
    case Tok::kDo:
    case Tok::kDone:
    case Tok::kElif:
    case Tok::kElse:
    case Tok::kEsac:
    case Tok::kFi:
    case Tok::kIf:
    case Tok::kOrOr:
    case Tok::kSemiSemi:
    case Tok::kSemiAnd:
    case Tok::kSemiSemiAnd:
    case Tok::kThen:
    case Tok::kTime:
    case Tok::kTimeOpt:
    case Tok::kTimeIgn:
    case Tok::kCoproc:
    case Tok::kUntil:
    case Tok::kWhile:
    case Tok::kNone:
    case Tok::kDolParen:
      return true;
    default:
      // `coproc NAME` and `function NAME` may be followed by a compound command.
      return last_ == Tok::kWord && (before_ == Tok::kCoproc || before_ == Tok::kFunction);
  }
}

bool ParserImpl::TimeCommandAcceptable() const {
  switch (last_) {
    case Tok::kNone:
    case Tok::kSemi:
    case Tok::kNewline:
      if (before_ == Tok::kPipe) return false;
      return true;
    case Tok::kAndAnd:
    case Tok::kOrOr:
    case Tok::kAmp:
    case Tok::kWhile:
    case Tok::kDo:
    case Tok::kUntil:
    case Tok::kIf:
    case Tok::kThen:
    case Tok::kElif:
    case Tok::kElse:
    case Tok::kLBrace:
    case Tok::kLParen:
    case Tok::kRParen:
    case Tok::kBang:
    case Tok::kTime:
    case Tok::kTimeOpt:
    case Tok::kTimeIgn:
      return true;
    default:
      return false;
  }
}

static bool ParsingRedirection(Tok t) {
  return t == Tok::kLess || t == Tok::kGreat || t == Tok::kGreatGreat || t == Tok::kGreatPipe ||
         t == Tok::kLessGreat || t == Tok::kLessLessDash || t == Tok::kLessLess ||
         t == Tok::kLessLessLess || t == Tok::kLessAnd || t == Tok::kGreatAnd ||
         t == Tok::kAndGreat;
}

bool ParserImpl::CommandTokenPosition(Tok t) const {
  return t == Tok::kAssignmentWord || ((state_ & kRedirList) && !ParsingRedirection(t)) ||
         (t != Tok::kSemiSemi && t != Tok::kSemiAnd && t != Tok::kSemiSemiAnd &&
          ReservedWordAcceptable(t));
}

bool ParserImpl::AssignmentAcceptable(Tok t) const {
  return CommandTokenPosition(t) && !(state_ & kCasePat);
}

int ParserImpl::SpecialCaseTokens(std::string_view raw) {
  // Every special case is a short word. A longer one still ends the place where bash would take
  // `{' as a group (after a function's name), as any word does.
  if (raw.size() > 4) {
    state_ &= ~kAllowOpenBrace;
    return -1;
  }
  if (last_ == Tok::kWord &&
      (before_ == Tok::kFor || before_ == Tok::kCase || before_ == Tok::kSelect) && raw == "in") {
    if (before_ == Tok::kCase) {
      state_ |= kCasePat;
      ++esacs_needed_;
    }
    if (expecting_in_) --expecting_in_;
    return static_cast<int>(Tok::kIn);
  }
  if (expecting_in_ && (last_ == Tok::kWord || last_ == Tok::kNewline) && raw == "in") {
    if (state_ & kCaseStmt) {
      state_ |= kCasePat;
      ++esacs_needed_;
    }
    --expecting_in_;
    return static_cast<int>(Tok::kIn);
  } else if (expecting_in_ && (last_ == Tok::kNewline || last_ == Tok::kSemi) && raw == "do") {
    --expecting_in_;
    return static_cast<int>(Tok::kDo);
  }
  if (last_ == Tok::kWord && (before_ == Tok::kFor || before_ == Tok::kSelect) && raw == "do") {
    if (expecting_in_) --expecting_in_;
    return static_cast<int>(Tok::kDo);
  }
  if (esacs_needed_ && last_ == Tok::kIn && raw == "esac") {
    --esacs_needed_;
    state_ &= ~kCasePat;
    return static_cast<int>(Tok::kEsac);
  }
  if (state_ & kAllowOpenBrace) {
    state_ &= ~kAllowOpenBrace;
    if (raw == "{") {
      ++open_braces_;
      return static_cast<int>(Tok::kLBrace);
    }
  }
  if (last_ == Tok::kArithForExprs && raw == "do") return static_cast<int>(Tok::kDo);
  if (last_ == Tok::kArithForExprs && raw == "{") {
    ++open_braces_;
    return static_cast<int>(Tok::kLBrace);
  }
  if (open_braces_ && ReservedWordAcceptable(last_) && raw == "}") {
    --open_braces_;
    return static_cast<int>(Tok::kRBrace);
  }
  if (last_ == Tok::kTime && raw == "-p") return static_cast<int>(Tok::kTimeOpt);
  if (last_ == Tok::kTime && raw == "--") return static_cast<int>(Tok::kTimeIgn);
  if (last_ == Tok::kTimeOpt && raw == "--") return static_cast<int>(Tok::kTimeIgn);
  if ((state_ & kCondExprState) && raw == "]]") return static_cast<int>(Tok::kCondEnd);
  return -1;
}

const Token& ParserImpl::Peek() {
  if (!peeked_) peeked_ = Next();
  return *peeked_;
}

// bash's yylex: read a token and shift the token history.
Token ParserImpl::Next() {
  if (peeked_) {
    Token t = std::move(*peeked_);
    peeked_.reset();
    return t;
  }
  Token t;
  if (token_to_read_) {
    t = std::move(*token_to_read_);
    token_to_read_.reset();
  } else {
    t = ReadToken();
  }
  two_ago_ = before_;
  before_ = last_;
  last_ = t.kind;
  return t;
}

Token ParserImpl::Operator(Tok kind, size_t start) {
  Token t;
  t.kind = kind;
  t.begin = Off(start);
  t.end = Off(reader_.pos());
  return t;
}

Token ParserImpl::ReadToken() {
  for (;;) {
    int c = reader_.Peek(true);
    if (!IsBlank(c)) break;
    reader_.Get(true);
  }
  size_t start = reader_.pos();
  int c = reader_.Get(true);

  if (c < 0) {
    // bash ends the last line with a newline of its own; pending here-documents end there.
    if (!pending_heredocs_.empty()) GatherHeredocs(true);
    return Operator(Tok::kEof, start);
  }

  if (c == '#') {
    // A comment runs to the end of the line; a backslash-newline inside does not continue it.
    size_t text_start = reader_.pos();
    for (;;) {
      int d = reader_.Peek(false);
      if (d < 0 || d == '\n') break;
      reader_.Get(false);
    }
    if (comments_ != nullptr) {
      comments_->push_back(arena_,
                           Comment{Off(start), View(text_start, reader_.pos() - text_start)});
    }
    start = reader_.pos();
    reader_.Get(false);  // the newline (or the end)
    c = '\n';
  }

  if (c == '\n') {
    Token t = Operator(Tok::kNewline, start);
    if (!pending_heredocs_.empty()) GatherHeredocs(true);
    state_ &= ~kAssignOk;
    return t;
  }

  if (state_ & kRegexp) return ReadTokenWord(c, start);

  if (IsMeta(c)) {
    state_ &= ~kAssignOk;
    // At the `)` that may end a $(...), bash looks at the next character without joining lines.
    int peek = reader_.Get(!(in_comsub_ && c == ')'));
    if (c == peek) {
      switch (c) {
        case '<': {
          int p2 = reader_.Get(true);
          if (p2 == '-') return Operator(Tok::kLessLessDash, start);
          if (p2 == '<') return Operator(Tok::kLessLessLess, start);
          reader_.Unget();
          return Operator(Tok::kLessLess, start);
        }
        case '>':
          return Operator(Tok::kGreatGreat, start);
        case ';': {
          state_ |= kCasePat;
          int p2 = reader_.Get(true);
          if (p2 == '&') return Operator(Tok::kSemiSemiAnd, start);
          reader_.Unget();
          return Operator(Tok::kSemiSemi, start);
        }
        case '&':
          return Operator(Tok::kAndAnd, start);
        case '|':
          return Operator(Tok::kOrOr, start);
        case '(': {
          Token t;
          if (ParseDoubleParen(start, &t)) return t;
          break;  // not arithmetic here: an ordinary `(`
        }
      }
    } else if (c == '<' && peek == '&') {
      return Operator(Tok::kLessAnd, start);
    } else if (c == '>' && peek == '&') {
      return Operator(Tok::kGreatAnd, start);
    } else if (c == '<' && peek == '>') {
      return Operator(Tok::kLessGreat, start);
    } else if (c == '>' && peek == '|') {
      return Operator(Tok::kGreatPipe, start);
    } else if (c == '&' && peek == '>') {
      int p2 = reader_.Get(true);
      if (p2 == '>') return Operator(Tok::kAndGreatGreat, start);
      reader_.Unget();
      return Operator(Tok::kAndGreat, start);
    } else if (c == '|' && peek == '&') {
      return Operator(Tok::kPipeAmp, start);
    } else if (c == ';' && peek == '&') {
      state_ |= kCasePat;
      return Operator(Tok::kSemiAnd, start);
    }
    if (peek >= 0) reader_.Unget();

    if (c == ')' && last_ == Tok::kLParen && before_ == Tok::kWord) state_ |= kAllowOpenBrace;
    if (c == '(' && !(state_ & kCasePat)) {
      state_ |= kSubshellState;
    } else if ((state_ & kCasePat) && c == ')') {
      state_ &= ~kCasePat;
    } else if ((state_ & kSubshellState) && c == ')') {
      state_ &= ~kSubshellState;
    }

    // <( and >( begin a word (process substitution); everything else is an operator.
    if (!((c == '<' || c == '>') && peek == '(')) {
      switch (c) {
        case ';':
          return Operator(Tok::kSemi, start);
        case '&':
          return Operator(Tok::kAmp, start);
        case '|':
          return Operator(Tok::kPipe, start);
        case '(':
          return Operator(Tok::kLParen, start);
        case ')':
          return Operator(Tok::kRParen, start);
        case '<':
          return Operator(Tok::kLess, start);
        case '>':
          return Operator(Tok::kGreat, start);
      }
    }
  }

  // The - of <&- and >&-.
  if (c == '-' && (last_ == Tok::kLessAnd || last_ == Tok::kGreatAnd)) {
    return Operator(Tok::kDash, start);
  }

  return ReadTokenWord(c, start);
}

// The positions of the `;` that separate the expressions of for ((...)): outside quotes,
// backquotes, $(...) and ${...} (bash's skip_to_delim; plain parentheses do not nest).
static std::vector<size_t> ArithForSemicolons(std::string_view t, size_t begin, size_t end) {
  std::vector<size_t> semis;
  for (size_t i = begin; i < end; ++i) {
    char c = t[i];
    if (c == '\\') {
      ++i;
    } else if (c == '`') {
      for (++i; i < end && t[i] != '`'; ++i) {
        if (t[i] == '\\') ++i;
      }
    } else if (c == ';') {
      semis.push_back(i);
    } else if (c == '\'') {
      while (++i < end && t[i] != '\'') {
      }
    } else if (c == '"') {
      for (++i; i < end && t[i] != '"'; ++i) {
        if (t[i] == '\\') ++i;
      }
    } else if (c == '$' && i + 1 < end && (t[i + 1] == '(' || t[i + 1] == '{')) {
      char open = t[i + 1];
      char close = open == '(' ? ')' : '}';
      int depth = 0;
      for (++i; i < end; ++i) {
        if (t[i] == '\\') {
          ++i;
        } else if (t[i] == '\'') {
          while (++i < end && t[i] != '\'') {
          }
        } else if (t[i] == open) {
          ++depth;
        } else if (t[i] == close && --depth == 0) {
          break;
        }
      }
    }
  }
  return semis;
}

// (( at a command position: an arithmetic command when a matching `))` follows, otherwise two
// subshell parens (bash's parse_dparen and parse_arith_cmd). Returns false for an ordinary `(`.
bool ParserImpl::ParseDoubleParen(size_t start, Token* out) {
  bool for_exprs = last_ == Tok::kFor;
  if (!for_exprs && !ReservedWordAcceptable(last_)) {
    reader_.Unget();  // the second `(`
    return false;
  }
  size_t inner = reader_.pos();
  size_t close = SkipMatched(0, '(', ')', match::kArith);
  // `close` is the position of the `)` that balanced the second paren.
  int after_close = reader_.Peek(false);
  if (after_close != ')') {
    if (for_exprs) Fail(start, "expected `))' to end the arithmetic of `for ((...))'");
    // bash re-reads `((...)X` as `( (...)X`, from a copy that ends with X: when X ends the line,
    // the copy ends the input and the outer `(` is never closed.
    if (after_close == '\n' || after_close < 0 || after_close == '\\') {
      Fail(start,
           "`((' that is not arithmetic must be written `( (': bash reads the rest of the "
           "line as the end of the input here");
    }
    // A nested subshell: re-read from just after the first `(`.
    reader_.set_pos(start + 1);
    if (!(state_ & kCasePat)) state_ |= kSubshellState;
    *out = Operator(Tok::kLParen, start);
    return true;
  }
  reader_.Get(false);
  size_t after = reader_.pos();
  Token t;
  t.begin = Off(start);
  t.end = Off(after);
  t.arith = arena_.New<std::array<Arith, 3>>();
  if (!for_exprs) {
    t.kind = Tok::kArithCmd;
    t.raw = "((";
    (*t.arith)[0] = ScanArithRegion(inner, close);
  } else {
    t.kind = Tok::kArithForExprs;
    t.raw = "((";
    // Split at the semicolons outside quotes and $(...) ${...}, as bash's skip_to_delim does.
    std::vector<size_t> semis = ArithForSemicolons(reader_.text(), inner, close);
    if (semis.size() != 2) {
      Fail(inner, "`for ((...))' needs three expressions separated by `;'");
    }
    (*t.arith)[0] = ScanArithRegion(inner, semis[0]);
    (*t.arith)[1] = ScanArithRegion(semis[0] + 1, semis[1]);
    (*t.arith)[2] = ScanArithRegion(semis[1] + 1, close);
  }
  reader_.set_pos(after);
  *out = std::move(t);
  return true;
}

// What a word token is, once read (the end of bash's read_token_word): a descriptor number, a
// special-case token, a reserved word, an assignment, `{var}`, or a plain word.
Token ParserImpl::ClassifyWord(Token tok, std::string_view raw, bool all_digit, bool dollar_present,
                               bool quoted, int endc) {
  if (all_digit &&
      (endc == '<' || endc == '>' || last_ == Tok::kLessAnd || last_ == Tok::kGreatAnd)) {
    if (raw.size() <= 10) {
      long long v = std::stoll(std::string(raw));
      if (v <= 2147483647LL) {
        tok.kind = Tok::kNumber;
        tok.number = static_cast<int>(v);
        tok.raw = raw;
        return tok;
      }
    }
  }

  int special = SpecialCaseTokens(raw);
  if (special >= 0) {
    tok.kind = static_cast<Tok>(special);
    tok.raw = raw;
    return tok;
  }

  // bash's CHECK_FOR_RESERVED_WORD.
  Tok reserved = Tok::kNone;
  if (!dollar_present && !quoted && ReservedWordAcceptable(last_)) reserved = FindReserved(raw);
  if (reserved != Tok::kNone) {
    do {
      const Reserved r{nullptr, reserved};
      if ((state_ & kCasePat) && r.tok != Tok::kEsac) break;
      if (r.tok == Tok::kTime && !TimeCommandAcceptable()) break;
      if ((state_ & kCasePat) && last_ == Tok::kPipe && r.tok == Tok::kEsac) break;
      if ((state_ & kCasePat) && last_ == Tok::kLParen && r.tok == Tok::kEsac) break;
      if (r.tok == Tok::kEsac) {
        state_ &= ~(kCasePat | kCaseStmt);
        --esacs_needed_;
      } else if (r.tok == Tok::kCase) {
        state_ |= kCaseStmt;
      } else if (r.tok == Tok::kCondEnd) {
        state_ &= ~kCondExprState;
      } else if (r.tok == Tok::kLBrace) {
        ++open_braces_;
      } else if (r.tok == Tok::kRBrace && open_braces_) {
        --open_braces_;
      }
      tok.kind = r.tok;
      tok.raw = raw;
      return tok;
    } while (false);
  }

  tok.kind = Tok::kWord;
  size_t eq = raw.find('=');
  if (eq != std::string::npos && eq > 0 &&
      IsAssignmentLhs(std::string_view(raw).substr(0, eq), (state_ & kCompAssign) != 0) &&
      (AssignmentAcceptable(last_) || (state_ & kCompAssign))) {
    tok.kind = Tok::kAssignmentWord;
  }

  if (CommandTokenPosition(last_) && IsAssignmentBuiltin(raw)) state_ |= kAssignOk;

  // {name}< and {name}>: a variable that receives the new descriptor.
  if (raw.size() > 2 && raw.front() == '{' && raw.back() == '}' && (endc == '<' || endc == '>')) {
    std::string_view inner = raw.substr(1, raw.size() - 2);
    size_t br = inner.find('[');
    std::string_view base = br == std::string_view::npos ? inner : inner.substr(0, br);
    bool valid = IsName(base) &&
                 (br == std::string_view::npos || (inner.back() == ']' && inner.size() > br + 2));
    if (valid) {
      tok.kind = Tok::kRedirWord;
      tok.raw = inner;
      return tok;
    }
  }

  switch (last_) {
    case Tok::kFunction:
      state_ |= kAllowOpenBrace;
      break;
    case Tok::kCase:
    case Tok::kSelect:
    case Tok::kFor:
      ++expecting_in_;
      break;
    default:
      break;
  }
  tok.raw = raw;
  return tok;
}

// ---- here-documents ----

// Reads the bodies of every pending here-document, starting on the line after the current one
// (bash reads them from its input when it returns the newline token, or at the end of a $(...)).
void ParserImpl::GatherHeredocs(bool after_newline) {
  std::vector<Heredoc*> docs = std::move(pending_heredocs_);
  pending_heredocs_.clear();
  size_t pos = reader_.pos();
  size_t newline_at = SIZE_MAX;
  if (!after_newline) {
    // In the middle of a line: the bodies follow the line, and the line goes on past them.
    size_t p = pos;
    while (p < reader_.text().size() && reader_.text()[p] != '\n')
      ++p;
    newline_at = p;
    pos = reader_.NextLineStart(pos);
  }
  for (Heredoc* doc : docs)
    pos = ReadHeredoc(doc, pos, newline_at != SIZE_MAX);
  if (newline_at == SIZE_MAX) {
    reader_.set_pos(pos);
  } else if (newline_at < reader_.text().size()) {
    reader_.SetJump(newline_at, pos);
  }
}

// Reads one body from `pos` (bash's make_here_document); returns where the next one starts.
size_t ParserImpl::ReadHeredoc(Heredoc* doc, size_t pos, bool mid_line) {
  std::string_view text = reader_.text();
  std::string body;
  std::vector<uint32_t> origin;
  doc->body_begin = Off(pos);
  doc->terminated = false;
  std::string_view delim = doc->delimiter;
  for (;;) {
    if (pos >= text.size()) break;
    // One line, with backslash-newline removed when the delimiter was not quoted.
    std::string line;
    std::vector<uint32_t> line_origin;
    size_t line_start = pos;
    bool ended = false;
    while (pos < text.size()) {
      char ch = text[pos];
      if (!doc->quoted && ch == '\\' && pos + 1 < text.size()) {
        if (text[pos + 1] == '\n') {
          pos += 2;
          continue;
        }
        line += ch;
        line_origin.push_back(Off(pos));
        line += text[pos + 1];
        line_origin.push_back(Off(pos + 1));
        pos += 2;
        continue;
      }
      line += ch;
      line_origin.push_back(Off(pos));
      ++pos;
      if (ch == '\n') {
        ended = true;
        break;
      }
    }
    if (!ended) {
      line += '\n';
      line_origin.push_back(Off(pos));
    }
    (void)line_start;
    size_t skip = 0;
    if (doc->strip_tabs) {
      if (line.size() == delim.size() + 1 && line.compare(0, delim.size(), delim) == 0) {
        doc->terminated = true;
        break;
      }
      while (skip < line.size() && line[skip] == '\t')
        ++skip;
    }
    std::string_view rest = std::string_view(line).substr(skip);
    if (rest.size() == delim.size() + 1 && rest.compare(0, delim.size(), delim) == 0) {
      doc->terminated = true;
      break;
    }
    // bash accepts `DELIM)` (or DELIM followed by anything with a `)`) inside $(...): the rest of
    // the line goes back to the parser.
    if (in_comsub_ && rest.compare(0, delim.size(), delim) == 0 &&
        rest.find(')', delim.size()) != std::string_view::npos) {
      if (mid_line) {
        Unsupported(reader_.pos(),
                    "a here-document delimiter followed by `)' after the end of "
                    "`$(...)' is not supported");
      }
      doc->terminated = true;
      size_t consumed = 0;
      for (size_t i = 0; i < skip + delim.size(); ++i)
        consumed++;
      // Position just after the delimiter in the original line.
      pos = line_start;
      size_t k = 0;
      while (k < consumed && pos < text.size()) {
        if (!doc->quoted && text[pos] == '\\' && pos + 1 < text.size() && text[pos + 1] == '\n') {
          pos += 2;
          continue;
        }
        ++pos;
        ++k;
      }
      break;
    }
    body.append(rest);
    origin.insert(origin.end(), line_origin.begin() + skip, line_origin.end());
  }
  doc->body_end = Off(pos);
  origin.push_back(Off(pos));
  doc->body.begin = doc->body_begin;
  doc->body.end = Off(pos);
  if (doc->quoted) {
    if (!body.empty()) {
      Part p;
      p.kind = PartKind::kSingleQuoted;
      p.begin = doc->body_begin;
      p.end = doc->body.end;
      p.text = Intern(body);
      doc->body.parts.push_back(arena_, p);
    }
  } else {
    std::string_view kept = Intern(body);  // the body's words point into it
    ParserImpl sub(kept, &origin, 0, arena_, options_, depth_ + 1, comments_, lines_);
    sub.MarkDeferred();  // bash expands (and so parses) a body only when it runs the command
    Word w = sub.ParseHeredocText();
    doc->body.parts = w.parts;
  }
  return pos;
}

}  // namespace safesh::shell::internal
