// Character input for the parser. bash removes a backslash-newline pair almost everywhere
// (shell_getc with remove_quoted_newline) before the lexer sees it; not inside single quotes,
// comments, or right after another backslash. Get(true) does the same.
#include "shell/parser_impl.h"

namespace safesh::shell::internal {

Reader::Reader(std::string_view text, const std::vector<uint32_t>* origin, uint32_t base)
    : text_(text), origin_(origin), base_(base), end_(text.size()) {}

uint32_t Reader::Offset(size_t p) const {
  if (origin_ != nullptr) {
    if (p < origin_->size()) return (*origin_)[p];
    return origin_->empty() ? base_ : origin_->back();
  }
  return base_ + static_cast<uint32_t>(p);
}

void Reader::SkipJoins() {
  while (pos_ + 1 < end_ && text_[pos_] == '\\' && text_[pos_ + 1] == '\n') {
    size_t newline = pos_ + 1;
    pos_ += 2;
    if (newline == jump_from_) pos_ = jump_to_;
  }
}

int Reader::Get(bool join_lines) {
  if (join_lines) SkipJoins();
  last_ = pos_;
  if (pos_ >= end_) return -1;
  unsigned char c = static_cast<unsigned char>(text_[pos_]);
  ++pos_;
  if (c == '\n' && pos_ - 1 == jump_from_) pos_ = jump_to_;
  return c;
}

int Reader::Peek(bool join_lines) {
  if (join_lines) SkipJoins();
  if (pos_ >= end_) return -1;
  return static_cast<unsigned char>(text_[pos_]);
}

size_t Reader::NextLineStart(size_t p) const {
  while (p < text_.size() && text_[p] != '\n')
    ++p;
  if (p >= text_.size()) return text_.size();
  if (p == jump_from_) return jump_to_;
  return p + 1;
}

}  // namespace safesh::shell::internal
