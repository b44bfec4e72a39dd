// The inside of words: bash's read_token_word and the constructs it reads as one piece (quotes,
// $-expansions, substitutions, subscripts, compound assignments, extended globs).
//
// Where bash finds the end of a construct with parse_matched_pair and leaves its meaning for run
// time, SkipMatched() finds the end exactly as bash does and the construct is then parsed inside
// those bounds, so the extent always agrees with bash and the structure is never a guess.
#include <algorithm>
#include <array>
#include <cstring>

#include "shell/ansi_c.h"
#include "shell/parser_impl.h"

namespace safesh::shell::internal {

namespace {

// Characters that read_token_word adds to a word with no further thought: not a quote, a
// backslash, `$`, a metacharacter, nor one that may start a construct depending on the state
// ([ = and the extended-glob characters).
constexpr auto kPlainWordChar = [] {
  std::array<bool, 256> t{};
  for (int c = 0; c < 256; ++c)
    t[c] = true;
  for (unsigned char c : std::string_view("\\'\"`$<> \t\n|&;()[=?*+@!"))
    t[c] = false;
  return t;
}();

bool IsQuoteChar(int c) {
  return c == '\'' || c == '"' || c == '`';
}

}  // namespace

// bash's assignment(): is RAW (the token text before an `=`) the left side of an assignment?
// name, name[subscript], and either followed by `+`. In a compound assignment `[k]` alone too.
bool IsAssignmentLhs(std::string_view raw, bool compound) {
  size_t i = 0;
  if (compound && !raw.empty() && raw[0] == '[') {
    // [subscript]
  } else {
    if (raw.empty() || !IsNameStart(static_cast<unsigned char>(raw[0]))) return false;
    while (i < raw.size() && IsNameChar(static_cast<unsigned char>(raw[i])))
      ++i;
  }
  if (i < raw.size() && raw[i] == '[') {
    int depth = 0;
    size_t j = i;
    for (; j < raw.size(); ++j) {
      if (raw[j] == '\\') {
        ++j;
        continue;
      }
      if (raw[j] == '[') ++depth;
      if (raw[j] == ']' && --depth == 0) break;
    }
    if (j >= raw.size()) return false;
    i = j + 1;
  }
  if (i == raw.size()) return true;
  return raw[i] == '+' && i + 1 == raw.size();
}

// The text [from, to) as bash's token text: without what the reader skipped inside it since
// the token began (joined backslash-newlines, jumped here-document bodies). Only those: a
// backslash-newline inside single quotes, or after an escaped backslash, stays.
std::string_view ParserImpl::TokenText(size_t from, size_t to, size_t skips_before) {
  std::string_view t = reader_.text().substr(from, to - from);
  const std::vector<Reader::Skip>& all = reader_.skips();
  if (all.size() == skips_before) return t;
  // After a rewind the same skip can be recorded twice; order them and drop repeats.
  std::vector<Reader::Skip> inside;
  for (size_t i = skips_before; i < all.size(); ++i) {
    if (all[i].from >= from && all[i].to <= to) inside.push_back(all[i]);
  }
  if (inside.empty()) return t;
  std::sort(inside.begin(), inside.end(),
            [](const Reader::Skip& a, const Reader::Skip& b) { return a.from < b.from; });
  std::string out;
  size_t at = from;
  for (const Reader::Skip& k : inside) {
    if (k.from < at) continue;
    out.append(reader_.text().substr(at, k.from - at));
    at = k.to;
  }
  out.append(reader_.text().substr(at, to - at));
  return Intern(out);
}

// A word's literal text, as views of the text being parsed. A new part starts whenever the next
// character is not adjacent (a backslash-newline was skipped, or the text was rewritten), so
// each literal part is one contiguous run and its positions are exact.
void ParserImpl::AddLit(ArenaVec<Part>& parts, size_t pos, size_t end) {
  AddLitRun(parts, pos, pos + 1);
  parts.back().end = Off(end);
}

void ParserImpl::AddLitRun(ArenaVec<Part>& parts, size_t pos, size_t end) {
  uint32_t b = Off(pos);
  uint32_t e = Off(end);
  // Through an origin map a run may not be contiguous in the original: add it by character.
  if (e - b != end - pos && end - pos > 1) {
    for (size_t i = pos; i < end; ++i)
      AddLitRun(parts, i, i + 1);
    return;
  }
  const char* ch = reader_.text().data() + pos;
  if (!parts.empty()) {
    Part& last = parts.back();
    if (last.kind == PartKind::kLit && last.end == b && last.text.data() + last.text.size() == ch) {
      last.text = std::string_view(last.text.data(), last.text.size() + (end - pos));
      last.end = e;
      return;
    }
  }
  Part p;
  p.kind = PartKind::kLit;
  p.begin = b;
  p.end = e;
  p.text = std::string_view(ch, end - pos);
  parts.push_back(arena_, p);
}

// bash's parse_matched_pair, reduced to finding the end: returns the position of the closing
// character and leaves the reader after it. `qc` is the quote context bash passes.
size_t ParserImpl::SkipMatched(int qc, int open, int close, unsigned flags) {
  size_t start = reader_.pos();
  // Each nested quote, ${, $[ or `...` recurses: count it against the nesting limit, or deep
  // enough input (`${x:-' repeated) overflows the stack before any other limit applies.
  Enter(Off(start > 0 ? start - 1 : 0));
  int count = 1;
  bool passnext = false;
  bool wasdol = false;
  bool gtlt = false;
  unsigned rflags = (qc == '"') ? match::kDQuote : (flags & match::kDQuote);
  for (;;) {
    bool join = qc != '\'' && !passnext;
    reader_.Peek(join);
    size_t cpos = reader_.pos();
    int ch = reader_.Get(join);
    if (ch < 0) {
      Fail(start > 0 ? start - 1 : 0,
           std::string("unexpected end of input while looking for the matching `") +
               static_cast<char>(close) + "'");
    }
    if (passnext) {
      passnext = false;
      wasdol = false;
      gtlt = false;
      continue;
    }
    if (ch == close) {
      --count;
    } else if (open != close && wasdol && open == '{' && ch == open) {
      ++count;
    } else if (!(flags & match::kFirstClose) && ch == open) {
      ++count;
    }
    if (count == 0) {
      Leave();
      return cpos;
    }

    if (open == '\'') {
      if ((flags & match::kAllowEsc) && ch == '\\') passnext = true;
      continue;
    }
    if (ch == '\\') passnext = true;

    bool dollar_word = false;
    if (open != close) {
      if (IsQuoteChar(ch)) {
        char saved_cd = cd_;
        cd_ = static_cast<char>(ch);
        if (wasdol && ch == '\'') {
          SkipMatched(ch, ch, ch, match::kAllowEsc | rflags);
        } else {
          SkipMatched(ch, ch, ch, rflags);
        }
        cd_ = saved_cd;
      } else if ((flags & (match::kArraySub | match::kDolBrace)) && wasdol &&
                 (ch == '(' || ch == '{' || ch == '[')) {
        dollar_word = true;
      } else if ((flags & match::kArith) && wasdol && ch == '(') {
        dollar_word = true;
      } else if ((flags & (match::kArraySub | match::kDolBrace)) && gtlt && ch == '(') {
        dollar_word = true;
      }
    } else if (open == '"' && ch == '`') {
      SkipMatched(0, '`', '`', rflags);
    } else if (open != '`' && wasdol && (ch == '(' || ch == '{' || ch == '[')) {
      dollar_word = true;
    }
    if (dollar_word) {
      if (open == ch) --count;
      if (ch == '(') {
        // bash's parse_comsub: $(( is read as arithmetic text, anything else is parsed.
        if (reader_.Peek(true) == '(') {
          SkipMatched(0, '(', ')', match::kArith);
        } else {
          // bash parses $(...) here to find its end; keep the result for when the text is
          // read again, so nested constructs are parsed once, not once per level.
          size_t body_start = reader_.pos();
          const List* body = ParseSubstitutionBody(cpos);
          parsed_substitutions_[body_start] = ParsedSubstitution{reader_.pos(), body};
        }
      } else if (ch == '{') {
        SkipMatched(0, '{', '}', match::kFirstClose | match::kDolBrace | rflags);
      } else {
        SkipMatched(0, '[', ']', rflags | match::kArith);
      }
    }
    gtlt = (ch == '<' || ch == '>') && !gtlt;
    wasdol = ch == '$' && !wasdol;
  }
}

void ParserImpl::ScanSingleQuoted(ArenaVec<Part>& parts, size_t start) {
  Part p;
  p.kind = PartKind::kSingleQuoted;
  p.begin = Off(start);
  size_t first = reader_.pos();
  std::string copy;  // needed only when the contents are not contiguous (a here-document jump)
  bool contiguous = true;
  for (;;) {
    size_t at = reader_.pos();
    int ch = reader_.Get(false);
    if (ch < 0) Fail(start, "unexpected end of input while looking for the matching `''");
    if (ch == '\'') {
      p.text = contiguous ? View(first, at - first) : Intern(copy);
      break;
    }
    if (reader_.pos() != at + 1) contiguous = false;
    copy += static_cast<char>(ch);
  }
  p.end = Off(reader_.pos());
  parts.push_back(arena_, p);
}

void ParserImpl::ScanAnsiC(ArenaVec<Part>& parts, size_t start) {
  // $'...': a backslash escapes the next character (so \' does not end it); no line joining.
  std::string raw;
  for (;;) {
    int ch = reader_.Get(false);
    if (ch < 0) Fail(start, "unexpected end of input while looking for the matching `''");
    if (ch == '\'') break;
    raw += static_cast<char>(ch);
    if (ch == '\\') {
      int n = reader_.Get(false);
      if (n < 0) Fail(start, "unexpected end of input while looking for the matching `''");
      raw += static_cast<char>(n);
    }
  }
  Part p;
  p.kind = PartKind::kAnsiC;
  p.begin = Off(start);
  p.end = Off(reader_.pos());
  p.text = Intern(DecodeAnsiC(raw));
  parts.push_back(arena_, p);
}

// The inside of "..." (close == '"') or of an unquoted here-document body (close == -1, which
// runs to the end of the text and leaves `"` ordinary).
void ParserImpl::ScanDoubleQuotedParts(ArenaVec<Part>& parts, int close, size_t open_pos) {
  for (;;) {
    reader_.Peek(true);
    size_t cpos = reader_.pos();
    int ch = reader_.Get(true);
    if (ch < 0) {
      if (close < 0) return;
      Fail(open_pos, "unexpected end of input while looking for the matching `\"'");
    }
    if (ch == close) return;
    if (ch == '\\') {
      size_t npos = reader_.pos();
      int n = reader_.Get(false);
      if (n < 0) {
        if (close >= 0)
          Fail(open_pos, "unexpected end of input while looking for the matching `\"'");
        AddLit(parts, cpos, npos);
        return;
      }
      if (n == '\n') continue;  // a backslash-newline disappears
      bool special = n == '$' || n == '`' || n == '\\' || (n == '"' && close == '"');
      if (!special) AddLit(parts, cpos, npos);
      AddLit(parts, npos, reader_.pos());
      continue;
    }
    if (ch == '`') {
      ScanBackquote(parts, cpos, /*in_dquote=*/close == '"');
      continue;
    }
    if (ch == '$') {
      if (ScanDollar(parts, cpos, /*in_dquote=*/true)) continue;
    }
    AddLit(parts, cpos, reader_.pos());
  }
}

void ParserImpl::ScanDoubleQuoted(ArenaVec<Part>& parts, size_t start, bool locale) {
  Part p;
  p.kind = locale ? PartKind::kLocale : PartKind::kDoubleQuoted;
  p.begin = Off(start);
  Enter(Off(start));
  char saved_cd = cd_;
  cd_ = '"';
  ScanDoubleQuotedParts(p.parts, '"', start);
  cd_ = saved_cd;
  Leave();
  p.end = Off(reader_.pos());
  parts.push_back(arena_, p);
}

// `...`: bash finds the closing backquote, removes the backslashes that quote $ ` \ (and " inside
// double quotes), and parses the rest as a script of its own.
void ParserImpl::ScanBackquote(ArenaVec<Part>& parts, size_t start, bool in_dquote) {
  std::string text;
  std::vector<uint32_t> origin;
  for (;;) {
    reader_.Peek(true);
    size_t cpos = reader_.pos();
    int ch = reader_.Get(true);
    if (ch < 0) Fail(start, "unexpected end of input while looking for the matching ``'");
    if (ch == '`') break;
    if (ch == '\\') {
      size_t npos = reader_.pos();
      int n = reader_.Get(false);
      if (n < 0) Fail(start, "unexpected end of input while looking for the matching ``'");
      if (n == '\n') continue;
      if (n == '$' || n == '`' || n == '\\' || (in_dquote && n == '"')) {
        text += static_cast<char>(n);
        origin.push_back(Off(npos));
      } else {
        text += '\\';
        origin.push_back(Off(cpos));
        text += static_cast<char>(n);
        origin.push_back(Off(npos));
      }
      continue;
    }
    text += static_cast<char>(ch);
    origin.push_back(Off(cpos));
  }
  origin.push_back(Off(reader_.pos() - 1));
  Part p;
  p.kind = PartKind::kCmdSubst;
  p.backquote = true;
  p.begin = Off(start);
  p.end = Off(reader_.pos());
  p.body = ParseDetachedScript(text, origin);
  parts.push_back(arena_, p);
}

// TEXT (a copy of some of the script, `origin` mapping it back) parsed as a script of its own.
// Its words point into the copy, so the copy is kept in the arena.
const List* ParserImpl::ParseDetachedScript(const std::string& text,
                                            const std::vector<uint32_t>& origin) {
  std::string_view kept = Intern(text);
  ParserImpl sub(kept, &origin, 0, arena_, options_, depth_ + 1, comments_, lines_);
  sub.MarkDeferred();  // bash parses such text only when it runs it
  return arena_.New<List>(sub.ParseScript());
}

// After a `$` at `start` (already read): the expansion it begins, or false for a literal `$`.
bool ParserImpl::ScanDollar(ArenaVec<Part>& parts, size_t start, bool in_dquote) {
  int p = reader_.Peek(true);
  if (p == '(') {
    reader_.Get(true);
    ScanDollarParen(parts, start);
    return true;
  }
  if (p == '{') {
    reader_.Get(true);
    ScanBracedParam(parts, start, in_dquote);
    return true;
  }
  if (p == '[') {
    reader_.Get(true);
    ScanDollarBracket(parts, start);
    return true;
  }
  Part part;
  part.kind = PartKind::kParam;
  part.begin = Off(start);
  std::string name;
  if (IsNameStart(p)) {
    while (IsNameChar(reader_.Peek(true)))
      name += static_cast<char>(reader_.Get(true));
  } else if (IsDigit(p) || p == '@' || p == '*' || p == '#' || p == '?' || p == '-' || p == '$' ||
             p == '!') {
    name = static_cast<char>(reader_.Get(true));
  } else {
    return false;
  }
  ParamExp* pe = arena_.New<ParamExp>();
  pe->begin = part.begin;
  pe->name = Intern(name);
  part.end = Off(reader_.pos());
  pe->end = part.end;
  part.param = pe;
  parts.push_back(arena_, part);
  return true;
}

// $( after `$(` was read at `start`. When the text starts with `(`, bash reads it as matched
// parentheses (parse_matched_pair) and decides only when it expands it: arithmetic when the
// text is `(EXPR)` with EXPR's parentheses balanced (chk_arithsub), otherwise a command. Anything
// else is a command substitution, parsed now.
void ParserImpl::ScanDollarParen(ArenaVec<Part>& parts, size_t start) {
  size_t after_open = reader_.pos();
  if (reader_.Peek(true) == '(') {
    size_t first = reader_.pos();
    size_t close = SkipMatched(0, '(', ')', match::kArith);
    size_t after = reader_.pos();
    size_t expr_end = 0;
    if (IsArithText(first, close, &expr_end)) {
      Part p;
      p.kind = PartKind::kArith;
      p.begin = Off(start);
      p.end = Off(after);
      p.arith = arena_.New<Arith>(ScanArithRegion(first + 1, expr_end));
      reader_.set_pos(after);
      parts.push_back(arena_, p);
      return;
    }
    // A command after all: bash parses it when it runs it, as a script of its own.
    Part p;
    p.kind = PartKind::kCmdSubst;
    p.begin = Off(start);
    p.end = Off(after);
    ++deferred_;
    p.body = ParseDetachedRegion(after_open, close);
    --deferred_;
    reader_.set_pos(after);
    parts.push_back(arena_, p);
    return;
  }
  Part p;
  p.kind = PartKind::kCmdSubst;
  p.begin = Off(start);
  p.body = ParseSubstitutionBody(start);
  p.end = Off(reader_.pos());
  parts.push_back(arena_, p);
}

// bash's chk_arithsub on the text [first, close): `(` EXPR `)` with EXPR's parentheses
// balanced outside quotes. Sets *expr_end to the position of the final `)`.
bool ParserImpl::IsArithText(size_t first, size_t close, size_t* expr_end) const {
  std::string_view t = reader_.text();
  size_t last = close;
  // The final `)`, skipping backslash-newline pairs bash would have removed.
  for (;;) {
    if (last == first) return false;
    --last;
    if (t[last] == '\n' && last > first && t[last - 1] == '\\') {
      --last;
      continue;
    }
    break;
  }
  if (t[first] != '(' || t[last] != ')' || last == first) return false;
  int count = 0;
  for (size_t i = first + 1; i < last; ++i) {
    char c = t[i];
    if (c == '(') {
      ++count;
    } else if (c == ')') {
      if (--count < 0) return false;
    } else if (c == '\\') {
      ++i;
    } else if (c == '\'') {
      while (++i < last && t[i] != '\'') {
      }
    } else if (c == '"') {
      while (++i < last && t[i] != '"') {
        if (t[i] == '\\') ++i;
      }
    }
  }
  if (count != 0) return false;
  *expr_end = last;
  return true;
}

// The text [begin, end) parsed as a script of its own, as bash parses a command it stored as
// text (a $((...)) that turns out to be a command).
const List* ParserImpl::ParseDetachedRegion(size_t begin, size_t end) {
  std::string text;
  std::vector<uint32_t> origin;
  for (size_t i = begin; i < end; ++i) {
    if (reader_.at(i) == '\\' && i + 1 < end && reader_.at(i + 1) == '\n') {
      ++i;
      continue;
    }
    text += reader_.at(i);
    origin.push_back(Off(i));
  }
  origin.push_back(Off(end));
  return ParseDetachedScript(text, origin);
}

// <( or >( after both characters were read. Like $((, a `<((` is only matched as text when
// bash reads it (parse_comsub); bash parses it when it runs it.
void ParserImpl::ScanProcessSubst(ArenaVec<Part>& parts, size_t start, char dir) {
  Part p;
  p.kind = PartKind::kProcSubst;
  p.text = dir == '<' ? "<" : ">";
  p.begin = Off(start);
  size_t after_open = reader_.pos();
  if (reader_.Peek(true) == '(') {
    size_t close = SkipMatched(0, '(', ')', match::kArith);
    size_t after = reader_.pos();
    ++deferred_;
    p.body = ParseDetachedRegion(after_open, close);
    --deferred_;
    reader_.set_pos(after);
  } else {
    p.body = ParseSubstitutionBody(start);
  }
  p.end = Off(reader_.pos());
  parts.push_back(arena_, p);
}

// $[...]: old-style arithmetic.
void ParserImpl::ScanDollarBracket(ArenaVec<Part>& parts, size_t start) {
  size_t inner = reader_.pos();
  size_t close = SkipMatched(0, '[', ']', match::kArith);
  size_t after = reader_.pos();
  Part p;
  p.kind = PartKind::kArith;
  p.begin = Off(start);
  p.end = Off(after);
  p.arith = arena_.New<Arith>(ScanArithRegion(inner, close));
  reader_.set_pos(after);
  parts.push_back(arena_, p);
}

// The script of $(...), <(...) or >(...), read in place up to its `)`, with the lexer state
// bash saves and resets in parse_comsub.
const List* ParserImpl::ParseSubstitutionBody(size_t start) {
  auto done = parsed_substitutions_.find(reader_.pos());
  if (done != parsed_substitutions_.end()) {
    const List* body = done->second.body;
    reader_.set_pos(done->second.end);
    parsed_substitutions_.erase(done);
    return body;
  }
  Enter(Off(start));
  Tok saved_last = last_, saved_before = before_, saved_two = two_ago_;
  uint32_t saved_state = state_;
  int saved_esacs = esacs_needed_, saved_expecting = expecting_in_;
  bool saved_in_comsub = in_comsub_;
  std::vector<Heredoc*> saved_heredocs = std::move(pending_heredocs_);
  pending_heredocs_.clear();
  auto saved_peek = std::move(peeked_);
  peeked_.reset();
  auto saved_to_read = std::move(token_to_read_);
  token_to_read_.reset();

  state_ &=
      ~(kRegexp | kExtPat | kCondExprState | kCompAssign | kCasePat | kSubshellState | kRedirList);
  esacs_needed_ = 0;
  expecting_in_ = 0;
  in_comsub_ = true;
  // bash shifts a newline and then its DOLPAREN marker into the history.
  two_ago_ = before_;
  before_ = Tok::kNewline;
  last_ = Tok::kDolParen;

  List* body = arena_.New<List>();
  Push(reader_.at(start) == '$' ? "$(" : reader_.at(start) == '<' ? "<(" : ">(", ")", Off(start));
  // comsub: DOLPAREN compound_list ')' | DOLPAREN newline_list ')'
  while (Peek().kind == Tok::kNewline)
    Next();
  if (Peek().kind != Tok::kRParen) {
    ParseListInto(*body, /*top_level=*/false);
  }
  const Token& close = Peek();
  if (close.kind != Tok::kRParen) UnexpectedToken(close);
  // Do not shift the closing `)` through the history: bash restores the saved history.
  peeked_.reset();
  if (!pending_heredocs_.empty()) GatherHeredocs(false);

  last_ = saved_last;
  before_ = saved_before;
  two_ago_ = saved_two;
  state_ = saved_state;
  esacs_needed_ = saved_esacs;
  expecting_in_ = saved_expecting;
  in_comsub_ = saved_in_comsub;
  pending_heredocs_ = std::move(saved_heredocs);
  peeked_ = std::move(saved_peek);
  token_to_read_ = std::move(saved_to_read);
  Pop();
  Leave();
  return body;
}

Word ParserImpl::ScanSubscript(size_t start) {
  // `start` is the position of `[`, already read.
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
  ++deferred_;
  ScanBoundedParts(w.parts, o);
  --deferred_;
  reader_.SetLimit(old);
  reader_.set_pos(after);
  (void)start;
  return w;
}

// A parenthesised group read as one piece of a word: an extended glob ?(..) *(..) +(..) @(..) !(..)
// or a group in the regex of =~. `start` is where the group's text starts; `(` was read.
void ParserImpl::ScanBoundedGroup(ArenaVec<Part>& parts, PartKind kind, std::string_view text,
                                  size_t start) {
  size_t inner = reader_.pos();
  size_t close = SkipMatched(0, '(', ')', 0);
  size_t after = reader_.pos();
  Part p;
  p.kind = kind;
  p.text = text;
  p.begin = Off(start);
  p.end = Off(after);
  reader_.set_pos(inner);
  size_t old = reader_.SetLimit(close);
  ++deferred_;
  ScanBoundedParts(p.parts, RegionOptions{});
  --deferred_;
  reader_.SetLimit(old);
  reader_.set_pos(after);
  parts.push_back(arena_, p);
}

// name=( ... ): words read as tokens up to `)`, like bash's parse_compound_assignment. `start` is
// the position of the `(`, already read.
Part ParserImpl::ScanArrayLiteral(size_t start) {
  Enter(Off(start));
  Part p;
  p.kind = PartKind::kArrayLit;
  p.begin = Off(start);
  Tok saved_last = last_;
  uint32_t saved_state = state_;
  last_ = Tok::kWord;  // bash: so that reserved words are plain words here
  state_ |= kCompAssign;
  for (;;) {
    Token t = ReadToken();
    if (t.kind == Tok::kRParen) break;
    if (t.kind == Tok::kNewline) continue;
    if (t.kind == Tok::kEof) {
      FailAt(Off(start), "unexpected end of input while looking for the matching `)' of an array");
    }
    if (t.kind != Tok::kWord && t.kind != Tok::kAssignmentWord) UnexpectedToken(t);
    FinishWord(t.word, t.kind == Tok::kAssignmentWord ? WordUse::kAssignValue : WordUse::kArgument);
    p.words.push_back(arena_, t.word);
  }
  p.end = Off(reader_.pos());
  last_ = saved_last;
  state_ = saved_state;
  Leave();
  return p;
}

Token ParserImpl::ReadTokenWord(int c, size_t start) {
  Token tok;
  ArenaVec<Part>& parts = tok.word.parts;
  size_t skips = reader_.skips().size();
  // bash's token text so far: the text read, without the backslash-newlines it skipped.
  auto raw_to = [&](size_t to) { return TokenText(start, to, skips); };
  bool all_digit = IsDigit(c);
  bool dollar_present = false;
  bool quoted = false;
  size_t cstart = start;
  int endc = -1;

  for (;;) {
    if (c < 0) {
      endc = -1;
      break;
    }
    size_t before = reader_.pos();  // just after c
    if (c == '\\') {
      size_t npos = reader_.pos();
      int n = reader_.Peek(false);
      // In a compound assignment inside $(...), bash reads a backslash by the delimiter around
      // it (read_token_word's current_delimiter): it may not quote the next character. What the
      // command means then differs between parsing and running it; refuse it.
      bool noexpand = in_comsub_ && !(state_ & kCompAssign);
      if (!noexpand && n >= 0 && n != '\n' && cd_ != 0 && cd_ != '`' &&
          !(cd_ == '"' && (n == '"' || n == '$' || n == '`' || n == '\\'))) {
        Unsupported(cstart,
                    "a backslash inside an array assignment within $(...) is read "
                    "differently when bash parses it and when it runs it");
      }
      n = reader_.Get(false);
      if (n == '\n') {
        // A backslash-newline bash did not join earlier: it still disappears.
        reader_.NoteSkip(npos - 1, reader_.pos());
      } else if (n < 0) {
        // bash ends a -c string that stops after a backslash with another backslash.
        AddLit(parts, cstart, npos);
        all_digit = false;
      } else {
        Part e;
        e.kind = PartKind::kEscaped;
        e.begin = Off(cstart);
        e.end = Off(reader_.pos());
        e.text = View(npos, 1);
        parts.push_back(arena_, e);
        quoted = true;
        all_digit = false;
      }
      goto next;
    }
    if (IsQuoteChar(c)) {
      if (c == '\'') {
        ScanSingleQuoted(parts, cstart);
      } else if (c == '"') {
        ScanDoubleQuoted(parts, cstart, /*locale=*/false);
      } else {
        ScanBackquote(parts, cstart, /*in_dquote=*/false);
      }
      all_digit = false;
      if (c != '`') quoted = true;
      goto next;
    }
    if ((state_ & kRegexp) && (c == '(' || c == '|')) {
      if (c == '(') {
        ScanBoundedGroup(parts, PartKind::kRegexGroup, "", cstart);
        dollar_present = false;
        all_digit = false;
        goto next;
      }
      goto got_character;
    }
    if (extglob_ && (c == '?' || c == '*' || c == '+' || c == '@' || c == '!')) {
      if (reader_.Peek(true) == '(') {
        reader_.Get(true);
        ScanBoundedGroup(parts, PartKind::kExtGlob, View(cstart, 1), cstart);
        dollar_present = false;
        all_digit = false;
        goto next;
      }
    }
    if (c == '$' || c == '<' || c == '>') {
      int p = reader_.Get(true);
      if (p == '(' || ((p == '{' || p == '[') && c == '$')) {
        if (p == '{') {
          ScanBracedParam(parts, cstart, /*in_dquote=*/false);
        } else if (p == '(') {
          char saved_cd = cd_;
          cd_ = '(';  // bash pushes `(' for the $(...) it reads from a word
          if (c == '$') {
            ScanDollarParen(parts, cstart);
          } else {
            ScanProcessSubst(parts, cstart, static_cast<char>(c));
          }
          cd_ = saved_cd;
        } else {
          ScanDollarBracket(parts, cstart);
        }
        dollar_present = true;
        all_digit = false;
        goto next;
      }
      if (c == '$' && (p == '\'' || p == '"')) {
        if (p == '\'') {
          ScanAnsiC(parts, cstart);
        } else {
          ScanDoubleQuoted(parts, cstart, /*locale=*/true);
        }
        quoted = true;
        all_digit = false;
        goto next;
      }
      if (p >= 0) reader_.Unget();
      if (c == '$' && ScanDollar(parts, cstart, /*in_dquote=*/false)) {
        dollar_present = true;
        all_digit = false;
        goto next;
      }
    } else if (c == '[' &&
               ((cstart > start && AssignmentAcceptable(last_) && IsName(raw_to(cstart))) ||
                (cstart == start && (state_ & kCompAssign)))) {
      Part sp;
      sp.kind = PartKind::kSubscript;
      sp.begin = Off(cstart);
      Word sub = ScanSubscript(cstart);
      sp.parts = sub.parts;
      sp.end = Off(reader_.pos());
      parts.push_back(arena_, sp);
      all_digit = false;
      goto next;
    } else if (c == '=' && cstart > start &&
               (AssignmentAcceptable(last_) || (state_ & kAssignOk)) &&
               IsAssignmentLhs(raw_to(cstart), (state_ & kCompAssign) != 0)) {
      size_t eq_end = reader_.pos();
      int p = reader_.Get(true);
      if (p == '(') {
        AddLit(parts, cstart, eq_end);
        size_t paren = reader_.pos() - 1;
        parts.push_back(arena_, ScanArrayLiteral(paren));
        all_digit = false;
        goto next;
      }
      if (p >= 0) reader_.Unget();
    }

    if (IsMeta(c)) {
      reader_.set_pos(cstart);  // the operator starts the next token
      endc = c;
      break;
    }

  got_character:
    AddLit(parts, cstart, before);
    all_digit = all_digit && IsDigit(c);
    dollar_present = dollar_present || c == '$';
    {
      // The common case: a run of characters with no meaning to the lexer, taken at once.
      size_t from = reader_.pos();
      size_t to = from;
      std::string_view t = reader_.text();
      size_t limit = reader_.size();
      while (to < limit && kPlainWordChar[static_cast<unsigned char>(t[to])]) {
        all_digit = all_digit && IsDigit(t[to]);
        ++to;
      }
      if (to > from) {
        AddLitRun(parts, from, to);
        reader_.set_pos(to);
      }
    }

  next:
    reader_.Peek(true);
    cstart = reader_.pos();
    c = reader_.Get(true);
  }

  tok.begin = Off(start);
  tok.end = Off(reader_.pos());
  tok.word.begin = tok.begin;
  tok.word.end = tok.end;
  size_t word_end = endc >= 0 ? cstart : reader_.pos();
  return ClassifyWord(std::move(tok), raw_to(word_end), all_digit, dollar_present, quoted, endc);
}

}  // namespace safesh::shell::internal
