// Memory for a syntax tree: one owner for every node and string, released at once.
//
// The parser allocates all nodes of a Script from its Arena. Nodes are plain, trivially
// copyable structs that point into the arena; nothing in a tree is freed on its own, so
// building a tree is a few pointer bumps and dropping it is a few block frees. A node (or a
// string_view taken from one) is valid as long as the Script that owns its arena.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace safesh::shell {

class Arena {
 public:
  Arena() = default;
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  void* Allocate(size_t bytes, size_t align) {
    size_t pad = (align - (reinterpret_cast<uintptr_t>(cur_) & (align - 1))) & (align - 1);
    if (bytes + pad > left_) return AllocateSlow(bytes, align);
    char* p = cur_ + pad;
    cur_ = p + bytes;
    left_ -= bytes + pad;
    return p;
  }

  // A T built in the arena. T must be trivially destructible: its destructor never runs.
  template <class T, class... Args>
  T* New(Args&&... args) {
    static_assert(std::is_trivially_destructible_v<T>);
    return new (Allocate(sizeof(T), alignof(T))) T(std::forward<Args>(args)...);
  }

  // A copy of `s` that lives as long as the arena.
  std::string_view Copy(std::string_view s) {
    if (s.empty()) return {};
    char* p = static_cast<char*>(Allocate(s.size(), 1));
    std::memcpy(p, s.data(), s.size());
    return {p, s.size()};
  }

  // Bytes taken from the system so far.
  size_t reserved() const { return reserved_; }

  // A point to come back to: Release(mark) makes everything allocated after it free for reuse
  // (its memory is kept). Nothing allocated after the mark may be used again.
  struct Mark {
    size_t block;
    char* cur;
    size_t left;
  };
  Mark GetMark() const { return Mark{block_, cur_, left_}; }
  void Release(const Mark& m) {
    block_ = m.block;
    cur_ = m.cur;
    left_ = m.left;
  }

 private:
  struct Block {
    std::unique_ptr<char[]> data;
    size_t size;
  };
  void* AllocateSlow(size_t bytes, size_t align);

  std::vector<Block> blocks_;
  size_t block_ = 0;  // blocks_[block_ - 1] is the block in use
  char* cur_ = nullptr;
  size_t left_ = 0;
  size_t next_block_ = 4096;
  size_t reserved_ = 0;
};

// A growable array in an arena. Copying an ArenaVec copies the handle, not the elements (trees
// are built once and then read); growth copies the elements to a larger block of the arena.
template <class T>
class ArenaVec {
 public:
  using value_type = T;

  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const T& operator[](size_t i) const { return data_[i]; }
  T& operator[](size_t i) { return data_[i]; }
  const T& front() const { return data_[0]; }
  T& front() { return data_[0]; }
  const T& back() const { return data_[size_ - 1]; }
  T& back() { return data_[size_ - 1]; }

  void push_back(Arena& arena, const T& v) {
    if (size_ == cap_) Grow(arena, size_ + 1);
    data_[size_++] = v;
  }
  void pop_back() { --size_; }
  void clear() { size_ = 0; }
  void reserve(Arena& arena, size_t n) {
    if (n > cap_) Grow(arena, n);
  }
  // Replaces element `at` with the elements [first, last).
  void Splice(Arena& arena, size_t at, const T* first, const T* last) {
    size_t n = static_cast<size_t>(last - first);
    size_t new_size = size_ - 1 + n;
    T* fresh = static_cast<T*>(arena.Allocate(sizeof(T) * (new_size ? new_size : 1), alignof(T)));
    if (at) std::memcpy(static_cast<void*>(fresh), data_, sizeof(T) * at);
    if (n) std::memcpy(static_cast<void*>(fresh + at), first, sizeof(T) * n);
    if (size_ > at + 1) {
      std::memcpy(static_cast<void*>(fresh + at + n), data_ + at + 1, sizeof(T) * (size_ - at - 1));
    }
    data_ = fresh;
    size_ = static_cast<uint32_t>(new_size);
    cap_ = size_;
  }

 private:
  void Grow(Arena& arena, size_t need) {
    static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                  "arena nodes are plain data");
    size_t cap = cap_ ? cap_ * 2 : 1;
    if (cap < need) cap = need;
    T* fresh = static_cast<T*>(arena.Allocate(sizeof(T) * cap, alignof(T)));
    if (size_) std::memcpy(static_cast<void*>(fresh), data_, sizeof(T) * size_);
    data_ = fresh;
    cap_ = static_cast<uint32_t>(cap);
  }

  T* data_ = nullptr;
  uint32_t size_ = 0;
  uint32_t cap_ = 0;
};

}  // namespace safesh::shell
