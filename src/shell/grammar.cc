// bash's yacc grammar (parse.y), as recursive descent: lists, pipelines, simple and compound
// commands, redirections, function definitions, coprocesses and [[ ]].
//
// Tokens are read exactly when bash's parser would read them, because the lexer's decisions
// (reserved words, assignments, here-documents) depend on the tokens before.
#include "shell/ansi_c.h"
#include "shell/parser_impl.h"

namespace safesh::shell::internal {

namespace {

bool IsListTerminator(Tok t) {
  return t == Tok::kNewline || t == Tok::kSemi || t == Tok::kEof;
}

bool StartsShellCommand(Tok t) {
  switch (t) {
    case Tok::kIf:
    case Tok::kFor:
    case Tok::kSelect:
    case Tok::kWhile:
    case Tok::kUntil:
    case Tok::kCase:
    case Tok::kLParen:
    case Tok::kLBrace:
    case Tok::kArithCmd:
    case Tok::kCondStart:
      return true;
    default:
      return false;
  }
}

bool IsRedirOperator(Tok t) {
  switch (t) {
    case Tok::kLess:
    case Tok::kGreat:
    case Tok::kGreatGreat:
    case Tok::kGreatPipe:
    case Tok::kLessGreat:
    case Tok::kLessLess:
    case Tok::kLessLessDash:
    case Tok::kLessLessLess:
    case Tok::kLessAnd:
    case Tok::kGreatAnd:
    case Tok::kAndGreat:
    case Tok::kAndGreatGreat:
      return true;
    default:
      return false;
  }
}

// bash's test_unop and test_binop.
bool IsCondUnaryOp(std::string_view s) {
  return s.size() == 2 && s[0] == '-' &&
         std::string_view("abcdefghknoprstuvwxzGLNORS").find(s[1]) != std::string_view::npos;
}

bool IsCondBinaryOp(std::string_view s) {
  return s == "=" || s == "==" || s == "!=" || s == "-nt" || s == "-ot" || s == "-ef" ||
         s == "-eq" || s == "-ne" || s == "-lt" || s == "-le" || s == "-gt" || s == "-ge";
}

}  // namespace

bool ParserImpl::IsRedirStart(const Token& t) const {
  return t.kind == Tok::kNumber || t.kind == Tok::kRedirWord || IsRedirOperator(t.kind);
}

bool ParserImpl::StartsCommand(const Token& t) const {
  switch (t.kind) {
    case Tok::kWord:
    case Tok::kAssignmentWord:
    case Tok::kFunction:
    case Tok::kCoproc:
    case Tok::kBang:
    case Tok::kTime:
      return true;
    default:
      return IsRedirStart(t) || StartsShellCommand(t.kind);
  }
}

void ParserImpl::Expect(Tok kind) {
  const Token& t = Peek();
  if (t.kind == kind) {
    Next();
    return;
  }
  UnexpectedToken(t);
}

// ---- lists ----

// The whole script: one input unit per line, as bash reads it (inputunit: simple_list followed
// by a newline or the end).
List ParserImpl::ParseScript() {
  List list;
  Arena::Mark mark = arena_.GetMark();
  for (;;) {
    if (discard_) {
      list = List{};
      arena_.Release(mark);
      // Nothing may keep pointing into the memory just released.
      parsed_substitutions_.clear();
    }
    while (Peek().kind == Tok::kNewline)
      Next();
    if (Peek().kind == Tok::kEof) break;
    ParseListInto(list, /*top_level=*/true);
    const Token& t = Peek();
    if (t.kind == Tok::kNewline) {
      Next();
      continue;
    }
    if (t.kind == Tok::kEof) break;
    UnexpectedToken(t);
  }
  return list;
}

// Statements separated by ; & (and newlines inside compound commands). At the top level a
// newline ends the input unit instead.
void ParserImpl::ParseListInto(List& list, bool top_level) {
  for (;;) {
    Statement st;
    st.begin = Peek().begin;
    st.body = ParseAndOr();
    const Token& t = Peek();
    bool sep =
        t.kind == Tok::kSemi || t.kind == Tok::kAmp || (!top_level && t.kind == Tok::kNewline);
    if (!sep) {
      list.statements.push_back(arena_, st);
      return;
    }
    st.background = t.kind == Tok::kAmp;
    list.statements.push_back(arena_, st);
    Next();
    if (top_level) {
      Tok k = Peek().kind;
      if (k == Tok::kNewline || k == Tok::kEof) return;
      continue;
    }
    while (Peek().kind == Tok::kNewline)
      Next();
    if (!StartsCommand(Peek())) return;
  }
}

// compound_list: at least one command, with optional newlines around.
List ParserImpl::ParseCompoundList() {
  List list;
  while (Peek().kind == Tok::kNewline)
    Next();
  const Token& t = Peek();
  if (!StartsCommand(t)) UnexpectedToken(t);
  ParseListInto(list, /*top_level=*/false);
  return list;
}

AndOr ParserImpl::ParseAndOr() {
  AndOr ao;
  ao.pipelines.push_back(arena_, ParsePipelineCommand());
  for (;;) {
    Tok k = Peek().kind;
    if (k != Tok::kAndAnd && k != Tok::kOrOr) break;
    Next();
    ao.ops.push_back(arena_, k == Tok::kAndAnd ? AndOrOp::kAnd : AndOrOp::kOr);
    while (Peek().kind == Tok::kNewline)
      Next();
    ao.pipelines.push_back(arena_, ParsePipelineCommand());
  }
  return ao;
}

// pipeline_command: [!] [time [-p] [--]] pipeline, in any order and repetition bash allows; `!` or
// `time` alone before a list terminator stands for an empty command.
Pipeline ParserImpl::ParsePipelineCommand() {
  Pipeline p;
  p.begin = Peek().begin;
  for (;;) {
    Tok k = Peek().kind;
    if (k == Tok::kBang) {
      Next();
      p.negated = !p.negated;
    } else if (k == Tok::kTime) {
      Next();
      p.timed = true;
      if (Peek().kind == Tok::kTimeOpt) {
        Next();
        p.time_posix = true;
      }
      if (Peek().kind == Tok::kTimeIgn) {
        Next();
        p.time_posix = true;
      }
    } else {
      break;
    }
    if (IsListTerminator(Peek().kind)) {
      // bash reads the terminator and pushes it back for the enclosing list.
      Token term = Next();
      if (term.kind != Tok::kEof) token_to_read_ = std::move(term);
      return p;
    }
  }
  p.commands.push_back(arena_, ParseCommand());
  for (;;) {
    Tok k = Peek().kind;
    if (k != Tok::kPipe && k != Tok::kPipeAmp) break;
    Next();
    p.pipe_stderr.push_back(arena_, k == Tok::kPipeAmp);
    while (Peek().kind == Tok::kNewline)
      Next();
    p.commands.push_back(arena_, ParseCommand());
  }
  return p;
}

// ---- commands ----

Command ParserImpl::ParseCommand() {
  Token t = Next();
  Enter(t.begin);
  Command cmd;
  switch (t.kind) {
    case Tok::kWord: {
      if (Peek().kind == Tok::kLParen) {
        uint32_t begin = t.begin;
        Next();
        Expect(Tok::kRParen);
        cmd = ParseFunctionDef(std::move(t), /*keyword=*/false, begin);
        break;
      }
      cmd = ParseSimpleCommand(std::move(t));
      break;
    }
    case Tok::kFunction: {
      uint32_t begin = t.begin;
      Token name = Next();
      if (name.kind != Tok::kWord) UnexpectedToken(name);
      cmd = ParseFunctionDef(std::move(name), /*keyword=*/true, begin);
      break;
    }
    case Tok::kCoproc:
      cmd = ParseCoproc(std::move(t));
      break;
    default:
      if (StartsShellCommand(t.kind)) {
        cmd = ParseShellCommand(std::move(t));
        ParseTrailingRedirects(cmd);
      } else if (t.kind == Tok::kAssignmentWord || IsRedirStart(t)) {
        cmd = ParseSimpleCommand(std::move(t));
      } else {
        UnexpectedToken(t);
      }
  }
  Leave();
  return cmd;
}

Command ParserImpl::ParseSimpleCommand(Token first) {
  Command cmd;
  cmd.begin = first.begin;
  SimpleCommand sc;
  Token t = std::move(first);
  for (;;) {
    cmd.end = t.end;
    if (t.kind == Tok::kAssignmentWord && sc.words.empty()) {
      sc.assigns.push_back(arena_, SplitAssignment(std::move(t.word)));
      state_ &= ~kRedirList;
    } else if (t.kind == Tok::kWord || t.kind == Tok::kAssignmentWord) {
      FinishWord(t.word, WordUse::kArgument);
      sc.words.push_back(arena_, t.word);
      state_ &= ~kRedirList;
    } else if (IsRedirStart(t)) {
      sc.redirs.push_back(arena_, ParseRedirect(std::move(t)));
      cmd.end = sc.redirs.back().end;
      if (sc.words.empty() && sc.assigns.empty()) state_ |= kRedirList;
    } else {
      UnexpectedToken(t);
    }
    const Token& p = Peek();
    if (!(p.kind == Tok::kWord || p.kind == Tok::kAssignmentWord || IsRedirStart(p))) break;
    t = Next();
  }
  state_ &= ~kRedirList;
  cmd.node = std::move(sc);
  return cmd;
}

// A here-document delimiter: quote removal of the word as written, when any part is quoted;
// otherwise the word exactly as written.
static std::string HeredocDelimiter(std::string_view raw, bool* quoted) {
  *quoted = raw.find_first_of("'\"\\") != std::string::npos;
  if (!*quoted) return std::string(raw);
  std::string out;
  for (size_t i = 0; i < raw.size(); ++i) {
    char c = raw[i];
    if (c == '\\') {
      if (i + 1 < raw.size()) out += raw[++i];
    } else if (c == '\'') {
      for (++i; i < raw.size() && raw[i] != '\''; ++i)
        out += raw[i];
    } else if (c == '"') {
      for (++i; i < raw.size() && raw[i] != '"'; ++i) {
        if (raw[i] == '\\' && i + 1 < raw.size() &&
            std::string_view("$`\"\\\n").find(raw[i + 1]) != std::string_view::npos) {
          ++i;
        }
        out += raw[i];
      }
    } else if (c == '$' && i + 1 < raw.size() && raw[i + 1] == '\'') {
      std::string inner;
      for (i += 2; i < raw.size() && raw[i] != '\''; ++i) {
        if (raw[i] == '\\' && i + 1 < raw.size()) inner += raw[i++];
        inner += raw[i];
      }
      out += DecodeAnsiC(inner);
    } else if (c == '$' && i + 1 < raw.size() && raw[i + 1] == '"') {
      // $"..." reads like "..." here.
    } else {
      out += c;
    }
  }
  return out;
}

Redirect ParserImpl::ParseRedirect(Token first) {
  Redirect r;
  r.begin = first.begin;
  Token op = std::move(first);
  if (op.kind == Tok::kNumber) {
    r.fd = op.number;
    op = Next();
  } else if (op.kind == Tok::kRedirWord) {
    r.fd_var = Intern(op.raw);
    op = Next();
  }
  bool dup = false;
  switch (op.kind) {
    case Tok::kLess:
      r.op = RedirOp::kIn;
      break;
    case Tok::kGreat:
      r.op = RedirOp::kOut;
      break;
    case Tok::kGreatGreat:
      r.op = RedirOp::kAppend;
      break;
    case Tok::kGreatPipe:
      r.op = RedirOp::kClobber;
      break;
    case Tok::kLessGreat:
      r.op = RedirOp::kInOut;
      break;
    case Tok::kAndGreat:
      r.op = RedirOp::kOutErr;
      break;
    case Tok::kAndGreatGreat:
      r.op = RedirOp::kAppendOutErr;
      break;
    case Tok::kLessLess:
      r.op = RedirOp::kHeredoc;
      break;
    case Tok::kLessLessDash:
      r.op = RedirOp::kHeredocStrip;
      break;
    case Tok::kLessLessLess:
      r.op = RedirOp::kHereString;
      break;
    case Tok::kLessAnd:
      r.op = RedirOp::kDupIn;
      dup = true;
      break;
    case Tok::kGreatAnd:
      r.op = RedirOp::kDupOut;
      dup = true;
      break;
    default:
      UnexpectedToken(op);
  }
  if ((op.kind == Tok::kAndGreat || op.kind == Tok::kAndGreatGreat) &&
      (r.fd >= 0 || !r.fd_var.empty())) {
    UnexpectedToken(op);
  }
  Token target = Next();
  r.end = target.end;
  if (dup && target.kind == Tok::kDash) {
    r.close = true;
    return r;
  }
  if (dup && target.kind == Tok::kNumber) {
    Part p;
    p.kind = PartKind::kLit;
    p.begin = target.begin;
    p.end = target.end;
    p.text = Intern(std::to_string(target.number));
    r.target.begin = target.begin;
    r.target.end = target.end;
    r.target.parts.push_back(arena_, p);
    return r;
  }
  if (target.kind != Tok::kWord) {
    if (target.kind == Tok::kEof || target.kind == Tok::kNewline) {
      FailAt(op.begin, std::string("syntax error: `") + TokText(op.kind) +
                           "' needs a word after it (found " + TokText(target.kind) + ")");
    }
    UnexpectedToken(target);
  }
  if (r.op == RedirOp::kHeredoc || r.op == RedirOp::kHeredocStrip) {
    for (const Part& part : target.word.parts) {
      if (part.kind == PartKind::kCmdSubst || part.kind == PartKind::kProcSubst) {
        throw ParseFailure{part.begin,
                           "a command substitution in a here-document delimiter is not supported",
                           ErrorKind::kUnsupported};
      }
    }
    Heredoc* doc = arena_.New<Heredoc>();
    doc->delimiter = Intern(HeredocDelimiter(target.raw, &doc->quoted));
    doc->strip_tabs = r.op == RedirOp::kHeredocStrip;
    r.target = std::move(target.word);
    pending_heredocs_.push_back(doc);
    r.heredoc = doc;
    return r;
  }
  FinishWord(target.word, r.op == RedirOp::kHereString ? WordUse::kHereString : WordUse::kArgument);
  r.target = std::move(target.word);
  return r;
}

void ParserImpl::ParseTrailingRedirects(Command& cmd) {
  while (IsRedirStart(Peek())) {
    cmd.redirs.push_back(arena_, ParseRedirect(Next()));
    cmd.end = cmd.redirs.back().end;
  }
}

Command ParserImpl::ParseFunctionDef(Token name, bool keyword, uint32_t begin) {
  Command cmd;
  cmd.begin = begin;
  FunctionDef fd;
  fd.keyword = keyword;
  fd.name = Intern(name.raw);
  fd.name_word = std::move(name.word);
  if (keyword) {
    // function NAME [()] [newlines] BODY
    if (Peek().kind == Tok::kLParen) {
      Next();
      Expect(Tok::kRParen);
    }
  }
  while (Peek().kind == Tok::kNewline)
    Next();
  Token t = Next();
  if (!StartsShellCommand(t.kind)) UnexpectedToken(t);
  Command* body = arena_.New<Command>(ParseShellCommand(std::move(t)));
  ParseTrailingRedirects(*body);
  cmd.end = body->end;
  fd.body = body;
  cmd.node = std::move(fd);
  return cmd;
}

Command ParserImpl::ParseCoproc(Token first) {
  uint32_t begin = first.begin;
  Token t = Next();
  Coproc co;
  co.name = "COPROC";
  Command* body = nullptr;
  if (StartsShellCommand(t.kind)) {
    body = arena_.New<Command>(ParseShellCommand(std::move(t)));
    ParseTrailingRedirects(*body);
  } else if (t.kind == Tok::kWord && StartsShellCommand(Peek().kind)) {
    co.name = Intern(t.raw);
    body = arena_.New<Command>(ParseShellCommand(Next()));
    ParseTrailingRedirects(*body);
  } else if (t.kind == Tok::kWord || t.kind == Tok::kAssignmentWord || IsRedirStart(t)) {
    body = arena_.New<Command>(ParseSimpleCommand(std::move(t)));
  } else {
    UnexpectedToken(t);
  }
  Command cmd;
  cmd.begin = begin;
  cmd.end = body->end;
  co.body = body;
  cmd.node = std::move(co);
  return cmd;
}

const List* ParserImpl::ParseBody() {
  return arena_.New<List>(ParseCompoundList());
}

Command ParserImpl::ParseShellCommand(Token first) {
  Command cmd;
  cmd.begin = first.begin;
  switch (first.kind) {
    case Tok::kLParen: {
      Push("(", ")", first.begin);
      Subshell s;
      s.body = ParseBody();
      cmd.end = Peek().end;
      Expect(Tok::kRParen);
      Pop();
      cmd.node = std::move(s);
      return cmd;
    }
    case Tok::kLBrace: {
      Push("{", "}", first.begin);
      Group g;
      g.body = ParseBody();
      cmd.end = Peek().end;
      Expect(Tok::kRBrace);
      Pop();
      cmd.node = std::move(g);
      return cmd;
    }
    case Tok::kIf:
      return ParseIf(std::move(first));
    case Tok::kFor:
    case Tok::kSelect:
      return ParseFor(std::move(first));
    case Tok::kWhile:
    case Tok::kUntil:
      return ParseWhile(std::move(first));
    case Tok::kCase:
      return ParseCase(std::move(first));
    case Tok::kArithCmd: {
      ArithCommand ac;
      ac.arith = std::move((*first.arith)[0]);
      cmd.end = first.end;
      cmd.node = std::move(ac);
      return cmd;
    }
    case Tok::kCondStart:
      return ParseCond(std::move(first));
    default:
      UnexpectedToken(first);
  }
}

Command ParserImpl::ParseIf(Token first) {
  Command cmd;
  cmd.begin = first.begin;
  Push("if", "fi", first.begin);
  IfClause ic;
  ic.cond = ParseBody();
  Expect(Tok::kThen);
  ic.then_body = ParseBody();
  for (;;) {
    const Token& t = Peek();
    if (t.kind == Tok::kElif) {
      Next();
      IfClause::Elif e;
      e.cond = ParseBody();
      Expect(Tok::kThen);
      e.body = ParseBody();
      ic.elifs.push_back(arena_, e);
      continue;
    }
    if (t.kind == Tok::kElse) {
      Next();
      ic.else_body = ParseBody();
    }
    break;
  }
  cmd.end = Peek().end;
  Expect(Tok::kFi);
  Pop();
  cmd.node = std::move(ic);
  return cmd;
}

Command ParserImpl::ParseFor(Token first) {
  bool select = first.kind == Tok::kSelect;
  if (!select && Peek().kind == Tok::kArithForExprs) return ParseArithFor(std::move(first), Next());
  Push(select ? "select" : "for", "done", first.begin);
  Command cmd;
  cmd.begin = first.begin;
  ForClause fc;
  fc.select = select;
  Token name = Next();
  if (name.kind != Tok::kWord) UnexpectedToken(name);
  fc.name = Intern(name.raw);
  fc.name_begin = name.begin;

  // for NAME [newlines] in WORDS ; ... | for NAME ; ... | for NAME [newlines] do ...
  if (Peek().kind == Tok::kSemi) {
    Next();
    while (Peek().kind == Tok::kNewline)
      Next();
  } else {
    while (Peek().kind == Tok::kNewline)
      Next();
    if (Peek().kind == Tok::kIn) {
      Next();
      fc.has_in = true;
      while (Peek().kind == Tok::kWord) {
        Token w = Next();
        FinishWord(w.word, WordUse::kArgument);
        fc.items.push_back(arena_, w.word);
      }
      const Token& term = Peek();
      if (term.kind != Tok::kSemi && term.kind != Tok::kNewline) UnexpectedToken(term);
      Next();
      while (Peek().kind == Tok::kNewline)
        Next();
    }
  }
  const Token& t = Peek();
  if (t.kind == Tok::kDo) {
    Next();
    fc.body = ParseBody();
    cmd.end = Peek().end;
    Expect(Tok::kDone);
  } else if (t.kind == Tok::kLBrace) {
    Next();
    fc.body = ParseBody();
    cmd.end = Peek().end;
    Expect(Tok::kRBrace);
  } else {
    UnexpectedToken(t);
  }
  Pop();
  cmd.node = std::move(fc);
  return cmd;
}

Command ParserImpl::ParseArithFor(Token first, Token exprs) {
  Command cmd;
  cmd.begin = first.begin;
  Push("for", "done", first.begin);
  ArithForClause af;
  af.init = std::move((*exprs.arith)[0]);
  af.cond = std::move((*exprs.arith)[1]);
  af.step = std::move((*exprs.arith)[2]);
  if (Peek().kind == Tok::kSemi || Peek().kind == Tok::kNewline) {
    Next();
    while (Peek().kind == Tok::kNewline)
      Next();
  }
  const Token& t = Peek();
  if (t.kind == Tok::kDo) {
    Next();
    af.body = ParseBody();
    cmd.end = Peek().end;
    Expect(Tok::kDone);
  } else if (t.kind == Tok::kLBrace) {
    Next();
    af.body = ParseBody();
    cmd.end = Peek().end;
    Expect(Tok::kRBrace);
  } else {
    UnexpectedToken(t);
  }
  Pop();
  cmd.node = std::move(af);
  return cmd;
}

Command ParserImpl::ParseWhile(Token first) {
  Command cmd;
  cmd.begin = first.begin;
  WhileClause wc;
  wc.until = first.kind == Tok::kUntil;
  Push(wc.until ? "until" : "while", "done", first.begin);
  wc.cond = ParseBody();
  Expect(Tok::kDo);
  wc.body = ParseBody();
  cmd.end = Peek().end;
  Expect(Tok::kDone);
  Pop();
  cmd.node = std::move(wc);
  return cmd;
}

Command ParserImpl::ParseCase(Token first) {
  Command cmd;
  cmd.begin = first.begin;
  Push("case", "esac", first.begin);
  CaseClause cc;
  Token subject = Next();
  if (subject.kind != Tok::kWord) UnexpectedToken(subject);
  FinishWord(subject.word, WordUse::kCond);
  cc.subject = std::move(subject.word);
  while (Peek().kind == Tok::kNewline)
    Next();
  Expect(Tok::kIn);
  for (;;) {
    while (Peek().kind == Tok::kNewline)
      Next();
    if (Peek().kind == Tok::kEsac) {
      cmd.end = Peek().end;
      Next();
      break;
    }
    CaseItem item;
    item.begin = Peek().begin;
    if (Peek().kind == Tok::kLParen) Next();
    for (;;) {
      Token pat = Next();
      if (pat.kind != Tok::kWord) UnexpectedToken(pat);
      FinishWord(pat.word, WordUse::kPattern);
      item.patterns.push_back(arena_, pat.word);
      if (Peek().kind == Tok::kPipe) {
        Next();
        continue;
      }
      break;
    }
    Expect(Tok::kRParen);
    while (Peek().kind == Tok::kNewline)
      Next();
    if (StartsCommand(Peek())) {
      List* body = arena_.New<List>();
      ParseListInto(*body, /*top_level=*/false);
      item.body = body;
    }
    const Token& t = Peek();
    if (t.kind == Tok::kSemiSemi || t.kind == Tok::kSemiAnd || t.kind == Tok::kSemiSemiAnd) {
      item.terminator = TokText(t.kind);
      Next();
      cc.items.push_back(arena_, item);
      continue;
    }
    cc.items.push_back(arena_, item);
    if (t.kind == Tok::kEsac) {
      cmd.end = t.end;
      Next();
      break;
    }
    UnexpectedToken(t);
  }
  Pop();
  cmd.node = std::move(cc);
  return cmd;
}

// ---- [[ ]] (bash's cond_expr, cond_or, cond_and, cond_term) ----

Token ParserImpl::CondRead() {
  Token t = ReadToken();
  cond_kind_ = t.kind;
  cond_begin_ = t.begin;
  cond_end_ = t.end;
  cond_raw_ = t.raw;
  return t;
}

Token ParserImpl::CondSkipNewlines() {
  Token t;
  do {
    t = CondRead();
  } while (t.kind == Tok::kNewline);
  return t;
}

void ParserImpl::CondError(Tok kind, uint32_t begin, std::string_view raw,
                           const std::string& message) {
  if (kind == Tok::kEof) UnexpectedToken(Operator(Tok::kEof, reader_.pos()));
  FailAt(begin, "syntax error in conditional expression near `" +
                    (raw.empty() ? std::string(TokText(kind)) : std::string(raw)) +
                    "': " + message);
}

Command ParserImpl::ParseCond(Token first) {
  Command cmd;
  cmd.begin = first.begin;
  Push("[[", "]]", first.begin);
  state_ |= kCondExprState;
  CondCommand cc;
  Enter(first.begin);
  cc.expr = CondOr();
  Leave();
  if (cond_kind_ != Tok::kCondEnd) CondError(cond_kind_, cond_begin_, cond_raw_, "expected `]]'");
  cmd.end = cond_end_;
  state_ &= ~kCondExprState;
  Pop();
  // The history bash keeps: COND_CMD, then COND_END.
  two_ago_ = before_;
  before_ = last_;
  last_ = Tok::kCondCmd;
  two_ago_ = before_;
  before_ = last_;
  last_ = Tok::kCondEnd;
  cmd.node = std::move(cc);
  return cmd;
}

CondExpr* ParserImpl::CondOr() {
  auto left = CondAnd();
  if (cond_kind_ == Tok::kOrOr) {
    auto right = CondOr();
    CondExpr* n = arena_.New<CondExpr>();
    n->kind = CondKind::kOr;
    n->begin = left->begin;
    n->left = left;
    n->right = right;
    return n;
  }
  return left;
}

CondExpr* ParserImpl::CondAnd() {
  auto left = CondTerm();
  if (cond_kind_ == Tok::kAndAnd) {
    auto right = CondAnd();
    CondExpr* n = arena_.New<CondExpr>();
    n->kind = CondKind::kAnd;
    n->begin = left->begin;
    n->left = left;
    n->right = right;
    return n;
  }
  return left;
}

CondExpr* ParserImpl::CondTerm() {
  Token t = CondSkipNewlines();
  CondExpr* n = arena_.New<CondExpr>();
  n->begin = t.begin;
  if (t.kind == Tok::kCondEnd) CondError(t.kind, t.begin, t.raw, "an expression is expected");
  if (t.kind == Tok::kLParen) {
    Enter(t.begin);
    n->kind = CondKind::kGroup;
    n->left = CondOr();
    Leave();
    if (cond_kind_ != Tok::kRParen) CondError(cond_kind_, cond_begin_, cond_raw_, "expected `)'");
    CondSkipNewlines();
    return n;
  }
  if (t.kind == Tok::kBang || (t.kind == Tok::kWord && t.raw == "!")) {
    Enter(t.begin);
    n->kind = CondKind::kNot;
    n->left = CondTerm();
    Leave();
    return n;
  }
  if (t.kind == Tok::kWord && IsCondUnaryOp(t.raw)) {
    n->kind = CondKind::kUnary;
    n->op = Intern(t.raw);
    Token arg = CondRead();
    if (arg.kind != Tok::kWord)
      CondError(arg.kind, arg.begin, arg.raw,
                "an argument for `" + std::string(t.raw) + "' is expected");
    FinishWord(arg.word, WordUse::kCond);
    n->word = std::move(arg.word);
    CondSkipNewlines();
    return n;
  }
  if (t.kind == Tok::kWord) {
    FinishWord(t.word, WordUse::kCond);
    Token op = CondRead();
    bool pattern = false;
    bool regex = false;
    if (op.kind == Tok::kWord && IsCondBinaryOp(op.raw)) {
      pattern = op.raw == "=" || op.raw == "==" || op.raw == "!=";
    } else if (op.kind == Tok::kWord && op.raw == "=~") {
      regex = true;
    } else if (op.kind == Tok::kLess || op.kind == Tok::kGreat) {
      op.raw = TokText(op.kind);
    } else if (op.kind == Tok::kCondEnd || op.kind == Tok::kAndAnd || op.kind == Tok::kOrOr ||
               op.kind == Tok::kRParen) {
      // [[ word ]] means [[ -n word ]].
      n->kind = CondKind::kWord;
      n->word = std::move(t.word);
      return n;
    } else {
      CondError(op.kind, op.begin, op.raw, "a conditional binary operator is expected");
    }
    bool saved_extglob = extglob_;
    if (pattern) extglob_ = true;
    if (regex) state_ |= kRegexp;
    Token rhs = CondRead();
    extglob_ = saved_extglob;
    state_ &= ~kRegexp;
    if (rhs.kind != Tok::kWord)
      CondError(rhs.kind, rhs.begin, rhs.raw,
                "an argument for `" + std::string(op.raw) + "' is expected");
    FinishWord(rhs.word, pattern ? WordUse::kPattern : WordUse::kCond);
    n->kind = CondKind::kBinary;
    n->op = Intern(op.raw);
    n->word = std::move(t.word);
    n->word2 = std::move(rhs.word);
    CondSkipNewlines();
    return n;
  }
  CondError(t.kind, t.begin, t.raw, "unexpected token in conditional command");
}

}  // namespace safesh::shell::internal
