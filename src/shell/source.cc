#include "shell/source.h"

#include <algorithm>

namespace safesh::shell {

LineIndex::LineIndex(std::string_view text) {
  starts_.push_back(0);
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') starts_.push_back(static_cast<uint32_t>(i + 1));
  }
}

Position LineIndex::At(uint32_t offset) const {
  auto it = std::upper_bound(starts_.begin(), starts_.end(), offset);
  size_t line = static_cast<size_t>(it - starts_.begin());  // >= 1: starts_[0] == 0
  return Position{static_cast<uint32_t>(line), offset - starts_[line - 1] + 1};
}

std::string FormatPosition(Position p) {
  return std::to_string(p.line) + ":" + std::to_string(p.col);
}

}  // namespace safesh::shell
