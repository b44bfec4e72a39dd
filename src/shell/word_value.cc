#include "shell/word_value.h"

namespace safesh::shell {

namespace {

bool Append(const ArenaVec<Part>& parts, std::string& out) {
  for (const Part& p : parts) {
    switch (p.kind) {
      case PartKind::kLit:
      case PartKind::kEscaped:
      case PartKind::kSingleQuoted:
      case PartKind::kAnsiC:
        out += p.text;
        break;
      case PartKind::kDoubleQuoted:
      case PartKind::kLocale:
        // Inside double quotes only expansions are special; literal parts are the text itself.
        if (!Append(p.parts, out)) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

}  // namespace

std::optional<std::string> LiteralValue(const Word& word) {
  std::string out;
  if (!Append(word.parts, out)) return std::nullopt;
  return out;
}

}  // namespace safesh::shell
