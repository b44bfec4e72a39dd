// The parser's entry points and error handling.
#include "shell/parser.h"

#include "shell/parser_impl.h"

namespace safesh::shell {

std::string SyntaxError::ToString() const {
  return FormatPosition(pos) + ": " + message;
}

namespace internal {

ParserImpl::ParserImpl(std::string_view text, const std::vector<uint32_t>* origin, uint32_t base,
                       Arena& arena, const ParseOptions& options, int depth,
                       ArenaVec<Comment>* comments, std::shared_ptr<const LineIndex> lines)
    : reader_(text, origin, base),
      arena_(arena),
      options_(options),
      depth_(depth),
      comments_(comments),
      lines_(std::move(lines)),
      extglob_(options.extglob) {}

void ParserImpl::Fail(size_t pos, const std::string& message) {
  FailAt(Off(pos), message);
}

void ParserImpl::FailAt(uint32_t offset, const std::string& message) {
  throw ParseFailure{offset, message, deferred_ > 0 ? ErrorKind::kDeferred : ErrorKind::kSyntax};
}

void ParserImpl::Unsupported(size_t pos, const std::string& message) {
  throw ParseFailure{Off(pos), message, ErrorKind::kUnsupported};
}

void ParserImpl::UnexpectedToken(const Token& t) {
  if (t.kind == Tok::kEof) {
    if (!open_.empty()) {
      const Open& o = open_.back();
      FailAt(o.offset, std::string("unexpected end of input: `") + o.opener + "' at " +
                           FormatPosition(At(o.offset)) + " is not closed (expected `" + o.closer +
                           "')");
    }
    FailAt(t.begin, "syntax error: unexpected end of input");
  }
  std::string shown(t.raw.empty() ? TokText(t.kind) : t.raw);
  if (t.kind == Tok::kNewline) shown = "newline";
  FailAt(t.begin, "syntax error near unexpected token `" + shown + "'");
}

void ParserImpl::Enter(uint32_t offset) {
  if (++depth_ > options_.max_depth) {
    FailAt(offset, "nesting deeper than " + std::to_string(options_.max_depth) +
                       " levels is not supported");
  }
}

Word ParserImpl::ParseHeredocText() {
  Word w;
  w.begin = reader_.Offset(0);
  w.end = reader_.Offset(reader_.size());
  ScanDoubleQuotedParts(w.parts, -1, 0);
  return w;
}

}  // namespace internal

namespace {

SyntaxError MakeError(const internal::ParseFailure& f, const LineIndex& lines) {
  SyntaxError e;
  e.offset = f.offset;
  e.pos = lines.At(f.offset);
  e.message = f.message;
  e.kind = f.kind;
  return e;
}

// bash cannot see a NUL byte in a -c string; a command that contains one is not what it seems.
std::optional<SyntaxError> CheckNul(std::string_view text, const LineIndex& lines) {
  size_t nul = text.find('\0');
  if (nul == std::string_view::npos) return std::nullopt;
  SyntaxError e;
  e.offset = static_cast<uint32_t>(nul);
  e.pos = lines.At(e.offset);
  e.message = "a NUL byte in the input (bash would not see the text after it)";
  return e;
}

}  // namespace

ParseResult Parse(std::string_view input, const ParseOptions& options) {
  ParseResult result;
  auto arena = std::make_shared<Arena>();
  // The tree points into the text: keep a copy with it.
  std::string_view text = arena->Copy(input);
  auto lines = std::make_shared<const LineIndex>(text);
  result.script.arena = arena;
  result.script.source = text;
  result.script.lines = lines;
  if (text.size() >= UINT32_MAX) {
    result.error = SyntaxError{0, Position{}, "input larger than 4 GiB"};
    return result;
  }
  if (auto nul = CheckNul(text, *lines)) {
    result.error = std::move(nul);
    return result;
  }
  try {
    internal::ParserImpl impl(text, nullptr, 0, *arena, options, 0, &result.script.comments, lines);
    result.script.body = impl.ParseScript();
  } catch (const internal::ParseFailure& f) {
    result.error = MakeError(f, *lines);
    result.script.body = List{};
    result.script.comments = ArenaVec<Comment>{};
  }
  return result;
}

std::optional<SyntaxError> Check(std::string_view input, const ParseOptions& options) {
  Arena arena;
  std::string_view text = arena.Copy(input);
  auto lines = std::make_shared<const LineIndex>(text);
  if (text.size() >= UINT32_MAX) return SyntaxError{0, Position{}, "input larger than 4 GiB"};
  if (auto nul = CheckNul(text, *lines)) return nul;
  try {
    internal::ParserImpl impl(text, nullptr, 0, arena, options, 0, nullptr, lines);
    impl.DiscardEachCommand();
    impl.ParseScript();
  } catch (const internal::ParseFailure& f) {
    return MakeError(f, *lines);
  }
  return std::nullopt;
}

ArithParseResult ParseArithmetic(std::string_view input, const ParseOptions& options) {
  ArithParseResult result;
  result.arena = std::make_shared<Arena>();
  std::string_view text = result.arena->Copy(input);
  auto lines = std::make_shared<const LineIndex>(text);
  if (auto nul = CheckNul(text, *lines)) {
    result.error = std::move(nul);
    return result;
  }
  try {
    internal::ParserImpl impl(text, nullptr, 0, *result.arena, options, 0, nullptr, lines);
    result.arith = impl.ParseArithText();
  } catch (const internal::ParseFailure& f) {
    result.error = MakeError(f, *lines);
  }
  return result;
}

}  // namespace safesh::shell
