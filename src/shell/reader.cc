// Character input for the parser. bash removes a backslash-newline pair almost everywhere
// (shell_getc with remove_quoted_newline) before the lexer sees it; not inside single quotes,
// comments, or right after another backslash. Get(true) does the same.
#include "shell/parser_impl.h"

namespace safesh::shell::internal {

Reader::Reader(std::string_view text, const std::vector<uint32_t>* origin, uint32_t base)
    : text_(text), origin_(origin), base_(base), end_(text.size()) {}

size_t Reader::NextLineStart(size_t p) const {
  while (p < text_.size() && text_[p] != '\n')
    ++p;
  if (p >= text_.size()) return text_.size();
  if (p == jump_from_) return jump_to_;
  return p + 1;
}

}  // namespace safesh::shell::internal
