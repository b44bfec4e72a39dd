// Positions in parsed text: byte offsets, and the table that turns them into line:col.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace safesh::shell {

// 1-based line and column; the column counts bytes, as bash's own messages do.
struct Position {
  uint32_t line = 1;
  uint32_t col = 1;
};

// The start offset of every line of a text, for offset -> Position lookups.
class LineIndex {
 public:
  explicit LineIndex(std::string_view text);
  Position At(uint32_t offset) const;

 private:
  std::vector<uint32_t> starts_;
};

// "line:col" of a position, as used in every error message.
std::string FormatPosition(Position p);

}  // namespace safesh::shell
