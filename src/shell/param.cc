// ${...}: where it ends is bash's decision at parse time (parse_matched_pair); what it means is
// bash's decision at run time (parameter_brace_expand). Both are made here, so a form bash would
// reject when it runs ("bad substitution") is a syntax error instead of a guess.
#include <cstring>
#include <functional>

#include "shell/parser_impl.h"

namespace safesh::shell::internal {

namespace {

bool IsSpecialParam(int c) {
  return c == '@' || c == '*' || c == '#' || c == '?' || c == '-' || c == '$' || c == '!';
}

// ${x@OP}: the operators bash 5.2 knows.
bool IsTransformOp(int c) {
  return c > 0 && std::strchr("QEPAKaUuLk", c) != nullptr;
}

}  // namespace

// A parameter name at the reader: an identifier, a run of digits, or one special character.
std::string ParserImpl::ReadParamName() {
  std::string name;
  int c = reader_.Peek(true);
  if (IsNameStart(c)) {
    while (IsNameChar(reader_.Peek(true)))
      name += static_cast<char>(reader_.Get(true));
  } else if (IsDigit(c)) {
    while (IsDigit(reader_.Peek(true)))
      name += static_cast<char>(reader_.Get(true));
  } else if (IsSpecialParam(c)) {
    name = static_cast<char>(reader_.Get(true));
  }
  return name;
}

// The parts of an operand inside ${...}, up to the end of the braces or one of `stops` (which is
// consumed and returned). Inside double quotes a single quote is an ordinary character for the
// - = + operators (`squote_literal`), as bash treats it; for ? it still quotes.
int ParserImpl::ScanBoundedParts(ArenaVec<Part>& parts, const RegionOptions& o) {
  for (;;) {
    reader_.Peek(true);
    size_t cpos = reader_.pos();
    int ch = reader_.Get(true);
    if (ch < 0) return -1;
    if (o.stops != nullptr && std::strchr(o.stops, ch) != nullptr) return ch;
    if (ch == '\\') {
      size_t npos = reader_.pos();
      int n = reader_.Get(false);
      if (n < 0) {
        AddLit(parts, cpos, npos);
        return -1;
      }
      if (n == '\n') continue;
      if (o.in_dquote && !(n == '$' || n == '`' || n == '"' || n == '\\' || n == '}')) {
        AddLit(parts, cpos, npos);
        AddLit(parts, npos, reader_.pos());
        continue;
      }
      Part e;
      e.kind = PartKind::kEscaped;
      e.begin = Off(cpos);
      e.end = Off(reader_.pos());
      e.text = View(npos, 1);
      parts.push_back(arena_, e);
      continue;
    }
    if (ch == '\'') {
      if (o.squote_literal) {
        // An ordinary character: what follows it is still expanded, $(...) and `...` run
        // ("${x:-'$(cmd)'}" runs cmd). The quotes were matched as a pair only to find the end
        // of ${...}, which the reader's limit already marks.
        AddLit(parts, cpos, reader_.pos());
      } else {
        ScanSingleQuoted(parts, cpos);
      }
      continue;
    }
    if (ch == '"') {
      ScanDoubleQuoted(parts, cpos, /*locale=*/false);
      continue;
    }
    if (ch == '`') {
      ScanBackquote(parts, cpos, o.in_dquote);
      continue;
    }
    if (ch == '$') {
      int p = reader_.Peek(true);
      if (p == '\'' && !o.in_dquote) {
        reader_.Get(true);
        ScanAnsiC(parts, cpos);
        continue;
      }
      if (p == '"' && !o.in_dquote) {
        reader_.Get(true);
        ScanDoubleQuoted(parts, cpos, /*locale=*/true);
        continue;
      }
      if (ScanDollar(parts, cpos, o.in_dquote)) continue;
    }
    if (o.procsubst && (ch == '<' || ch == '>') && reader_.Peek(true) == '(') {
      reader_.Get(true);
      ScanProcessSubst(parts, cpos, static_cast<char>(ch));
      continue;
    }
    AddLit(parts, cpos, reader_.pos());
  }
}

Word ParserImpl::ScanParamOperand(const char* stops, bool in_dquote, bool squote_literal,
                                  WordUse use, int* stopped) {
  Word w;
  reader_.Peek(true);
  w.begin = Off(reader_.pos());
  RegionOptions o;
  o.in_dquote = in_dquote;
  o.procsubst = !in_dquote;
  o.stops = stops;
  o.squote_literal = squote_literal;
  int s = ScanBoundedParts(w.parts, o);
  if (stopped != nullptr) *stopped = s;
  w.end = Off(s < 0 ? reader_.pos() : reader_.pos() - 1);
  if (!in_dquote) FinishWord(w, use);
  return w;
}

// After `${` at `start`: finds the closing brace as bash does, then parses what is inside.
void ParserImpl::ScanBracedParam(ArenaVec<Part>& parts, size_t start, bool in_dquote) {
  size_t content = reader_.pos();
  size_t close = SkipMatched(
      0, '{', '}', match::kFirstClose | match::kDolBrace | (in_dquote ? match::kDQuote : 0));
  size_t after = reader_.pos();
  reader_.set_pos(content);
  size_t old_limit = reader_.SetLimit(close);
  Enter(Off(start));
  ++deferred_;  // bash reads what is inside the braces only when it expands them

  ParamExp* pe = arena_.New<ParamExp>();
  pe->braced = true;
  pe->begin = Off(start);
  pe->end = Off(after);
  auto bad = [&](const std::string& why) {
    std::string text(reader_.text().substr(start, after - start));
    Fail(start, "bad substitution `" + text + "': " + why);
  };

  int c = reader_.Peek(true);
  bool name_done = false;
  if (c < 0) bad("no parameter name");
  if (c == '#') {
    // ${#}, ${#name}, ${#name[i]}, ${#@} ...: a length. Otherwise `#` is the parameter $#.
    reader_.Get(true);
    size_t after_hash = reader_.pos();
    int n = reader_.Peek(true);
    if (n >= 0) {
      std::string name = ReadParamName();
      if (!name.empty()) {
        const Word* index = nullptr;
        if (IsName(name) && reader_.Peek(true) == '[') {
          size_t lb = reader_.pos();
          reader_.Get(true);
          index = arena_.New<Word>(ScanSubscriptInLimit(lb));
        }
        if (reader_.Peek(true) < 0) {
          pe->op = ParamOp::kLength;
          pe->op_text = "#";
          pe->name = Intern(name);
          pe->index = index;
          name_done = true;
        }
      }
      if (!name_done) reader_.set_pos(after_hash);
    }
    if (!name_done) pe->name = "#";
    name_done = true;
  } else if (c == '!') {
    reader_.Get(true);
    int n = reader_.Peek(true);
    if (n < 0) {
      pe->name = "!";  // ${!}: the last background process
    } else if (IsNameStart(n) || IsDigit(n) || n == '#' || n == '?' || n == '@' || n == '*') {
      pe->indirect = true;
      pe->name = Intern(ReadParamName());
      if (IsName(pe->name)) {
        int m = reader_.Peek(true);
        if (m == '*' || m == '@') {
          size_t mpos = reader_.pos();
          reader_.Get(true);
          if (reader_.Peek(true) < 0) {
            pe->indirect = false;
            pe->op = ParamOp::kNamesPrefix;
            pe->op_text = m == '*' ? "*" : "@";
          } else {
            reader_.set_pos(mpos);
          }
        } else if (m == '[') {
          size_t lb = reader_.pos();
          reader_.Get(true);
          pe->index = arena_.New<Word>(ScanSubscriptInLimit(lb));
          if (reader_.Peek(true) < 0 && pe->index->parts.size() == 1 &&
              pe->index->parts[0].kind == PartKind::kLit &&
              (pe->index->parts[0].text == "@" || pe->index->parts[0].text == "*")) {
            pe->indirect = false;
            pe->op = ParamOp::kKeys;
            pe->op_text = pe->index->parts[0].text;
          }
        }
      }
    } else {
      pe->name = "!";
    }
    name_done = true;
  }
  if (!name_done) {
    pe->name = Intern(ReadParamName());
    if (pe->name.empty()) bad("not a parameter name");
    if (IsName(pe->name) && reader_.Peek(true) == '[') {
      size_t lb = reader_.pos();
      reader_.Get(true);
      pe->index = arena_.New<Word>(ScanSubscriptInLimit(lb));
    }
  }

  if (pe->op == ParamOp::kNone && reader_.Peek(true) >= 0) ParseParamOperator(*pe, in_dquote, bad);
  if (reader_.Peek(true) >= 0) bad("unexpected text after the operator");

  --deferred_;
  reader_.SetLimit(old_limit);
  reader_.set_pos(after);
  Leave();
  Part p;
  p.kind = PartKind::kParam;
  p.begin = pe->begin;
  p.end = pe->end;
  p.param = pe;
  parts.push_back(arena_, p);
}

// The operator of ${name OP ...} and its operands, up to the closing brace (the reader's limit).
void ParserImpl::ParseParamOperator(ParamExp& pe, bool in_dquote,
                                    const std::function<void(const std::string&)>& bad) {
  int op = reader_.Get(true);
  if (op == ':') {
    int n = reader_.Peek(true);
    if (n == '-' || n == '=' || n == '?' || n == '+') {
      reader_.Get(true);
      pe.colon = true;
      op = n;
    } else {
      // ${x:offset} and ${x:offset:length}: arithmetic.
      pe.op = ParamOp::kSubstring;
      pe.op_text = ":";
      if (n < 0) bad("no offset after `:'");
      bool more = false;
      pe.arith = arena_.New<Arith>(ScanArithUntilColon(&more));
      if (more) {
        pe.arith2 = arena_.New<Arith>(ScanArithUntilColon(&more));
        if (more) bad("too many `:'");
      }
      return;
    }
  }
  // A doubled operator (## %% // ^^ ,,) or / followed by # or %.
  auto doubled = [&](int second) {
    if (reader_.Peek(true) != second) return false;
    reader_.Get(true);
    return true;
  };
  switch (op) {
    case '-':
    case '=':
    case '?':
    case '+': {
      static constexpr std::string_view kOps[] = {"-", ":-", "=", ":=", "?", ":?", "+", ":+"};
      int at = op == '-' ? 0 : op == '=' ? 2 : op == '?' ? 4 : 6;
      pe.op = op == '-'   ? ParamOp::kDefault
              : op == '=' ? ParamOp::kAssign
              : op == '?' ? ParamOp::kError
                          : ParamOp::kAlternative;
      pe.op_text = kOps[at + (pe.colon ? 1 : 0)];
      pe.operand = arena_.New<Word>(ScanParamOperand(nullptr, in_dquote,
                                                     /*squote_literal=*/in_dquote && op != '?',
                                                     WordUse::kCond, nullptr));
      return;
    }
    case '#':
      pe.op = ParamOp::kRemovePrefix;
      pe.op_text = doubled('#') ? "##" : "#";
      pe.operand =
          arena_.New<Word>(ScanParamOperand(nullptr, in_dquote, false, WordUse::kPattern, nullptr));
      return;
    case '%':
      pe.op = ParamOp::kRemoveSuffix;
      pe.op_text = doubled('%') ? "%%" : "%";
      pe.operand =
          arena_.New<Word>(ScanParamOperand(nullptr, in_dquote, false, WordUse::kPattern, nullptr));
      return;
    case '/': {
      pe.op = ParamOp::kReplace;
      pe.op_text = doubled('/') ? "//" : doubled('#') ? "/#" : doubled('%') ? "/%" : "/";
      int stopped = -1;
      pe.operand =
          arena_.New<Word>(ScanParamOperand("/", in_dquote, false, WordUse::kPattern, &stopped));
      if (stopped == '/') {
        pe.replacement =
            arena_.New<Word>(ScanParamOperand(nullptr, in_dquote, false, WordUse::kCond, nullptr));
      }
      return;
    }
    case '^':
      pe.op = ParamOp::kUpper;
      pe.op_text = doubled('^') ? "^^" : "^";
      pe.operand =
          arena_.New<Word>(ScanParamOperand(nullptr, in_dquote, false, WordUse::kPattern, nullptr));
      return;
    case ',':
      pe.op = ParamOp::kLower;
      pe.op_text = doubled(',') ? ",," : ",";
      pe.operand =
          arena_.New<Word>(ScanParamOperand(nullptr, in_dquote, false, WordUse::kPattern, nullptr));
      return;
    case '@': {
      reader_.Peek(true);
      size_t at = reader_.pos();
      int n = reader_.Get(true);
      if (!IsTransformOp(n) || reader_.Peek(true) >= 0) bad("unknown `@' operator");
      pe.op = ParamOp::kTransform;
      pe.op_text = View(at, 1);
      return;
    }
    default:
      bad(std::string("unexpected `") + static_cast<char>(op) + "'");
  }
}

// A [...] subscript inside ${...}, after `[` at `open`: bash's valid_array_reference finds its
// end by matching brackets, skipping quotes.
Word ParserImpl::ScanSubscriptInLimit(size_t open) {
  size_t inner = reader_.pos();
  size_t close = SkipMatched(0, '[', ']', match::kArraySub);
  size_t after = reader_.pos();
  Word w;
  w.begin = Off(inner);
  w.end = Off(close);
  reader_.set_pos(inner);
  size_t old = reader_.SetLimit(close);
  RegionOptions o;
  o.procsubst = true;
  ScanBoundedParts(w.parts, o);
  reader_.SetLimit(old);
  reader_.set_pos(after);
  (void)open;
  return w;
}

}  // namespace safesh::shell::internal
