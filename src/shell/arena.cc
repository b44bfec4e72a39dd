#include "shell/arena.h"

namespace safesh::shell {

void* Arena::AllocateSlow(size_t bytes, size_t align) {
  // After a Release, the blocks already taken are used again, in order, when they are big enough.
  while (block_ < blocks_.size()) {
    Block& b = blocks_[block_++];
    cur_ = b.data.get();
    left_ = b.size;
    if (bytes + align <= left_) return Allocate(bytes, align);
  }
  // Blocks double up to 1 MiB; a large request gets a block of its own.
  size_t size = next_block_;
  if (next_block_ < (1u << 20)) next_block_ *= 2;
  if (size < bytes + align) size = bytes + align;
  blocks_.push_back(Block{std::make_unique_for_overwrite<char[]>(size), size});
  block_ = blocks_.size();
  reserved_ += size;
  cur_ = blocks_.back().data.get();
  left_ = size;
  return Allocate(bytes, align);
}

}  // namespace safesh::shell
