// Arithmetic: $((...)), ((...)), for ((;;)), $[...], ${x:offset:length}, subscripts.
//
// bash expands the text first (parameters, substitutions, quote removal) and then evaluates it
// with expr.c's grammar. The tree follows expr.c's precedence; an operand that contains an
// expansion is kept as a word. bash reports arithmetic syntax errors only when it evaluates;
// here they are syntax errors of the script.
#include <cstring>

#include "shell/parser_impl.h"

namespace safesh::shell::internal {

struct ParserImpl::ArithState {
  enum Kind { kEnd, kNum, kIdent, kWord, kOp };
  Kind kind = kEnd;
  std::string_view text;  // operators: a static string; operands: a view of the text
  size_t pos = 0;         // reader position where the token starts
  size_t end = 0;
  Word* word = nullptr;
  bool after_operand = false;  // the previous token ended an operand (for postfix ++ --)
  bool stop_at_colon = false;
};

namespace {

// Operators, longest first.
constexpr const char* kArithOps[] = {
    "<<=", ">>=", "**", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "*=",
    "/=",  "%=",  "+=", "-=", "&=", "^=", "|=", "+",  "-",  "*",  "/",  "%",  "<",  ">",
    "=",   "!",   "~",  "&",  "^",  "|",  "?",  ":",  ",",  "(",  ")",  "[",  "]"};

bool IsAssignOp(std::string_view op) {
  return op == "=" || op == "*=" || op == "/=" || op == "%=" || op == "+=" || op == "-=" ||
         op == "<<=" || op == ">>=" || op == "&=" || op == "^=" || op == "|=";
}

// Binary operator levels from loosest to tightest (expr.c: explor ... expmuldiv).
const std::vector<std::vector<std::string_view>>& BinaryLevels() {
  static const std::vector<std::vector<std::string_view>> levels = {
      {"||"},       {"&&"},     {"|"},           {"^"}, {"&"}, {"==", "!="}, {"<", ">", "<=", ">="},
      {"<<", ">>"}, {"+", "-"}, {"*", "/", "%"},
  };
  return levels;
}

bool IsArithSpace(int c) {
  return c == ' ' || c == '\t' || c == '\n';
}

}  // namespace

void ParserImpl::ArithSkipSpace() {
  while (IsArithSpace(reader_.Peek(true)))
    reader_.Get(true);
}

// Reads the next token into arith_.
void ParserImpl::ArithLex() {
  ArithState& st = *arith_;
  bool prev_operand = st.kind == ArithState::kNum || st.kind == ArithState::kIdent ||
                      st.kind == ArithState::kWord ||
                      (st.kind == ArithState::kOp && st.text == ")");
  bool prev_ident = st.kind == ArithState::kIdent || st.kind == ArithState::kWord;
  st.after_operand = prev_operand;
  st.word = nullptr;
  st.text = {};
  ArithSkipSpace();
  st.pos = reader_.pos();
  int c = reader_.Peek(true);
  if (c < 0) {
    st.kind = ArithState::kEnd;
    st.end = st.pos;
    return;
  }
  if (c == '\'') Fail(st.pos, "single quotes are not allowed in an arithmetic expression");
  if (c == '\\') Fail(st.pos, "a backslash is not allowed in an arithmetic expression");

  if (IsNameChar(c) || c == '$' || c == '`' || c == '"') {
    // An operand: digits and names, possibly joined with expansions into one word.
    ArenaVec<Part> parts;
    bool starts_digit = IsDigit(c);
    bool plain = true;
    for (;;) {
      reader_.Peek(true);
      size_t cpos = reader_.pos();
      int ch = reader_.Peek(true);
      if (ch < 0) break;
      if (IsNameChar(ch) || (starts_digit && plain && (ch == '#' || ch == '@'))) {
        reader_.Get(true);
        AddLit(parts, cpos, reader_.pos());
        continue;
      }
      if (ch == '$') {
        reader_.Get(true);
        if (!ScanDollar(parts, cpos, /*in_dquote=*/true)) {
          Fail(cpos, "a lone `$' in an arithmetic expression");
        }
        plain = false;
        continue;
      }
      if (ch == '`') {
        reader_.Get(true);
        ScanBackquote(parts, cpos, /*in_dquote=*/true);
        plain = false;
        continue;
      }
      if (ch == '"') {
        reader_.Get(true);
        ScanDoubleQuoted(parts, cpos, /*locale=*/false);
        plain = false;
        continue;
      }
      break;
    }
    st.end = reader_.pos();
    if (plain && parts.size() == 1) {
      st.text = parts[0].text;
      st.kind = starts_digit ? ArithState::kNum : ArithState::kIdent;
      return;
    }
    st.kind = ArithState::kWord;
    st.word = arena_.New<Word>();
    st.word->begin = Off(st.pos);
    st.word->end = Off(st.end);
    st.word->parts = parts;
    return;
  }

  std::string_view rest = reader_.text().substr(reader_.pos(), reader_.size() - reader_.pos());
  for (const char* op : kArithOps) {
    size_t n = std::strlen(op);
    if (rest.size() < n || rest.compare(0, n, op) != 0) continue;
    std::string_view text(op);
    if (text == "++" || text == "--") {
      // Postfix after a variable; prefix only when a name follows; otherwise a single + or -.
      if (!prev_ident) {
        size_t p = reader_.pos() + 2;
        while (p < reader_.size() && IsArithSpace(reader_.at(p)))
          ++p;
        if (p >= reader_.size() || !IsNameStart(static_cast<unsigned char>(reader_.at(p)))) {
          text = text.substr(0, 1);
          n = 1;
        }
      }
    }
    for (size_t i = 0; i < n; ++i)
      reader_.Get(true);
    st.kind = ArithState::kOp;
    st.text = text;
    st.end = reader_.pos();
    return;
  }
  Fail(st.pos, std::string("unexpected character `") + static_cast<char>(c) +
                   "' in an arithmetic expression");
}

namespace {

ArithExpr* MakeNode(Arena& arena, ArithKind kind, uint32_t begin, uint32_t end) {
  ArithExpr* n = arena.New<ArithExpr>();
  n->kind = kind;
  n->begin = begin;
  n->end = end;
  return n;
}

}  // namespace

bool ParserImpl::ArithIsOp(const char* op) const {
  return arith_->kind == ArithState::kOp && arith_->text == op;
}

[[noreturn]] void ParserImpl::ArithUnexpected() {
  const ArithState& st = *arith_;
  if (st.kind == ArithState::kEnd) {
    Fail(st.pos, "arithmetic syntax error: operand expected at the end of the expression");
  }
  std::string shown(reader_.text().substr(st.pos, st.end - st.pos));
  Fail(st.pos, "arithmetic syntax error near `" + shown + "'");
}

// `1+1+...+1' is read in a loop, but makes a tree as deep as it is long, which every walk of the
// tree recurses through: such chains are bounded too, more generously than nesting.
constexpr int kMaxArithChain = 2000;

ArithExpr* ParserImpl::ArithComma() {
  auto left = ArithAssign();
  for (int chain = 0; ArithIsOp(","); ++chain) {
    if (chain >= kMaxArithChain) {
      Unsupported(arith_->pos, "arithmetic with more than " + std::to_string(kMaxArithChain) +
                                   " operators in a row is not supported");
    }
    ArithLex();
    auto right = ArithAssign();
    auto n = MakeNode(arena_, ArithKind::kBinary, left->begin, right->end);
    n->op = ",";
    n->a = left;
    n->b = right;
    left = n;
  }
  return left;
}

ArithExpr* ParserImpl::ArithAssign() {
  auto left = ArithTernary();
  if (arith_->kind == ArithState::kOp && IsAssignOp(arith_->text)) {
    if (left->kind != ArithKind::kVariable && left->kind != ArithKind::kWord) {
      Fail(arith_->pos, "arithmetic: attempted assignment to a non-variable");
    }
    std::string_view op = arith_->text;
    // x=y=z=... recurses once per operator: bounded like any other nesting.
    Enter(Off(arith_->pos));
    ArithLex();
    auto right = ArithAssign();
    Leave();
    auto n = MakeNode(arena_, ArithKind::kBinary, left->begin, right->end);
    n->op = op;
    n->a = left;
    n->b = right;
    return n;
  }
  return left;
}

ArithExpr* ParserImpl::ArithTernary() {
  auto cond = ArithBinary(0);
  if (!ArithIsOp("?")) return cond;
  Enter(Off(arith_->pos));
  ArithLex();
  bool saved = arith_->stop_at_colon;
  arith_->stop_at_colon = false;
  auto then_e = ArithComma();
  arith_->stop_at_colon = saved;
  Leave();
  if (!ArithIsOp(":")) Fail(arith_->pos, "arithmetic: `:' expected for conditional expression");
  Enter(Off(arith_->pos));
  ArithLex();
  auto else_e = ArithTernary();
  Leave();
  auto n = MakeNode(arena_, ArithKind::kTernary, cond->begin, else_e->end);
  n->op = "?:";
  n->a = cond;
  n->b = then_e;
  n->c = else_e;
  return n;
}

ArithExpr* ParserImpl::ArithBinary(int level) {
  const auto& levels = BinaryLevels();
  if (level >= static_cast<int>(levels.size())) return ArithPower();
  auto left = ArithBinary(level + 1);
  for (int chain = 0;; ++chain) {
    if (arith_->kind != ArithState::kOp) break;
    if (chain >= kMaxArithChain) {
      Unsupported(arith_->pos, "arithmetic with more than " + std::to_string(kMaxArithChain) +
                                   " operators in a row is not supported");
    }
    bool match = false;
    for (const auto& op : levels[level]) {
      if (arith_->text == op) match = true;
    }
    if (!match) break;
    std::string_view op = arith_->text;
    ArithLex();
    auto right = ArithBinary(level + 1);
    auto n = MakeNode(arena_, ArithKind::kBinary, left->begin, right->end);
    n->op = op;
    n->a = left;
    n->b = right;
    left = n;
  }
  return left;
}

ArithExpr* ParserImpl::ArithPower() {
  auto left = ArithUnary();
  if (!ArithIsOp("**")) return left;
  Enter(Off(arith_->pos));
  ArithLex();
  auto right = ArithPower();  // right-associative
  Leave();
  auto n = MakeNode(arena_, ArithKind::kBinary, left->begin, right->end);
  n->op = "**";
  n->a = left;
  n->b = right;
  return n;
}

ArithExpr* ParserImpl::ArithUnary() {
  if (arith_->kind == ArithState::kOp &&
      (arith_->text == "!" || arith_->text == "~" || arith_->text == "-" || arith_->text == "+")) {
    size_t pos = arith_->pos;
    Enter(Off(pos));
    std::string_view op = arith_->text;
    ArithLex();
    auto operand = ArithUnary();
    Leave();
    auto n = MakeNode(arena_, ArithKind::kUnary, Off(pos), operand->end);
    n->op = op;
    n->a = operand;
    return n;
  }
  return ArithPostfix();
}

ArithExpr* ParserImpl::ArithPostfix() {
  if (ArithIsOp("++") || ArithIsOp("--")) {
    size_t pos = arith_->pos;
    std::string_view op = arith_->text;
    ArithLex();
    if (arith_->kind != ArithState::kIdent && arith_->kind != ArithState::kWord) {
      Fail(arith_->pos, "arithmetic: a name is expected after `" + std::string(op) + "'");
    }
    auto operand = ArithPrimary();
    auto n = MakeNode(arena_, ArithKind::kUnary, Off(pos), operand->end);
    n->op = op;
    n->a = operand;
    return n;
  }
  auto e = ArithPrimary();
  if ((e->kind == ArithKind::kVariable || e->kind == ArithKind::kWord) &&
      (ArithIsOp("++") || ArithIsOp("--"))) {
    auto n = MakeNode(arena_, ArithKind::kPostfix, e->begin, Off(arith_->end));
    n->op = arith_->text;
    n->a = e;
    ArithLex();
    return n;
  }
  return e;
}

ArithExpr* ParserImpl::ArithPrimary() {
  ArithState& st = *arith_;
  if (ArithIsOp("(")) {
    size_t pos = st.pos;
    Enter(Off(pos));
    ArithLex();
    bool saved = st.stop_at_colon;
    st.stop_at_colon = false;
    auto inner = ArithComma();
    st.stop_at_colon = saved;
    if (!ArithIsOp(")")) Fail(st.pos, "arithmetic: missing `)'");
    auto n = MakeNode(arena_, ArithKind::kGroup, Off(pos), Off(st.end));
    n->a = inner;
    ArithLex();
    Leave();
    return n;
  }
  if (st.kind == ArithState::kNum) {
    auto n = MakeNode(arena_, ArithKind::kNumber, Off(st.pos), Off(st.end));
    n->text = st.text;
    ArithLex();
    return n;
  }
  if (st.kind == ArithState::kIdent) {
    auto n = MakeNode(arena_, ArithKind::kVariable, Off(st.pos), Off(st.end));
    n->text = st.text;
    if (reader_.Peek(true) == '[') {
      // name[subscript], directly after the name.
      size_t lb = reader_.pos();
      Enter(Off(lb));
      reader_.Get(true);
      st.kind = ArithState::kOp;
      st.text = "[";
      bool saved = st.stop_at_colon;
      st.stop_at_colon = false;
      ArithLex();
      n->index = ArithComma();
      st.stop_at_colon = saved;
      if (!ArithIsOp("]")) Fail(st.pos, "arithmetic: missing `]' after a subscript");
      n->end = Off(st.end);
      Leave();
    }
    ArithLex();
    return n;
  }
  if (st.kind == ArithState::kWord) {
    auto n = MakeNode(arena_, ArithKind::kWord, Off(st.pos), Off(st.end));
    n->word = st.word;
    ArithLex();
    return n;
  }
  ArithUnexpected();
}

// Parses [begin, end) of the current text as one arithmetic expression.
Arith ParserImpl::ScanArithRegion(size_t begin, size_t end) {
  reader_.set_pos(begin);
  size_t old = reader_.SetLimit(end);
  Arith a;
  a.begin = Off(begin);
  a.end = Off(end);
  ArithState st;
  ArithState* saved = arith_;
  arith_ = &st;
  Enter(Off(begin));
  ++deferred_;  // bash checks arithmetic when it evaluates it
  ArithLex();
  if (st.kind != ArithState::kEnd) {
    a.expr = ArithComma();
    if (st.kind != ArithState::kEnd) ArithUnexpected();
  }
  --deferred_;
  Leave();
  arith_ = saved;
  reader_.SetLimit(old);
  return a;
}

// ${x:offset:length}: an expression that ends at the limit or at a `:` outside any ?: pair.
Arith ParserImpl::ScanArithUntilColon(bool* stopped_at_colon) {
  Arith a;
  a.begin = Off(reader_.pos());
  ArithState st;
  st.stop_at_colon = true;
  ArithState* saved = arith_;
  arith_ = &st;
  Enter(Off(reader_.pos()));
  ++deferred_;
  ArithLex();
  *stopped_at_colon = false;
  if (st.kind != ArithState::kEnd && !ArithIsOp(":")) a.expr = ArithComma();
  if (ArithIsOp(":")) {
    *stopped_at_colon = true;
    a.end = Off(st.pos);
  } else if (st.kind != ArithState::kEnd) {
    ArithUnexpected();
  } else {
    a.end = Off(st.pos);
  }
  --deferred_;
  Leave();
  arith_ = saved;
  return a;
}

Arith ParserImpl::ParseArithText() {
  return ScanArithRegion(0, reader_.size());
}

}  // namespace safesh::shell::internal
