#include "exec/redact.h"

#include <string.h>

#include <algorithm>

namespace safesh::exec {

Redactor::Redactor(const std::vector<Secret>& secrets) {
  for (const Secret& s : secrets) {
    if (s.value.size() < kMinSecretLength) continue;
    secrets_.push_back({s.value, "[redacted " + s.name + "]"});
    longest_ = std::max(longest_, s.value.size());
  }
  // Longest first, so that of two secrets starting at one place the longer is masked whole.
  std::stable_sort(secrets_.begin(), secrets_.end(), [](const Pattern& a, const Pattern& b) {
    return a.value.size() > b.value.size();
  });
}

size_t Redactor::Find(size_t k, const char* data, size_t n, size_t from, size_t limit) const {
  const std::string& v = secrets_[k].value;
  // Only a start before `limit` counts, but the match may run past it (up to n).
  size_t end = std::min(n, limit + v.size() - 1);
  if (end <= from || end - from < v.size()) return n;
  const void* hit = memmem(data + from, end - from, v.data(), v.size());
  return hit == nullptr ? n : static_cast<size_t>(static_cast<const char*>(hit) - data);
}

size_t Redactor::Releasable(const char* data, size_t n) const {
  // The earliest suffix that is the start of a secret (a proper prefix: a whole one is found
  // below).
  size_t j = n;
  for (size_t i = 0; i < n && j == n; ++i) {
    for (const Pattern& p : secrets_) {
      if (n - i < p.value.size() && memcmp(data + i, p.value.data(), n - i) == 0) {
        j = i;
        break;
      }
    }
  }
  // A secret found whole that crosses the cut moves it to the secret's start (and a secret
  // overlapping that one, further).
  for (bool moved = true; moved && j > 0;) {
    moved = false;
    for (const Pattern& p : secrets_) {
      for (size_t from = 0; from < j;) {
        const void* hit = memmem(data + from, n - from, p.value.data(), p.value.size());
        if (hit == nullptr) break;
        size_t at = static_cast<size_t>(static_cast<const char*>(hit) - data);
        if (at >= j) break;
        if (at + p.value.size() > j) {
          j = at;
          moved = true;
          break;
        }
        from = at + 1;
      }
    }
  }
  return j;
}

void Redactor::Feed(std::string_view piece, std::string* out) {
  if (secrets_.empty()) {
    out->append(piece);
    return;
  }
  pending_.append(piece);
  size_t keep = Scan(pending_.data(), pending_.size(), false,
                     [out](const char* p, size_t len) { out->append(p, len); });
  pending_.erase(0, pending_.size() - keep);
}

void Redactor::Finish(std::string* out) {
  Scan(pending_.data(), pending_.size(), true,
       [out](const char* p, size_t len) { out->append(p, len); });
  pending_.clear();
}

}  // namespace safesh::exec
