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

void Redactor::Feed(std::string_view piece, std::string* out) {
  if (secrets_.empty()) {
    out->append(piece);
    return;
  }
  pending_.append(piece);
  Process(false, out);
}

void Redactor::Finish(std::string* out) {
  Process(true, out);
  pending_.clear();
}

void Redactor::Process(bool at_end, std::string* out) {
  const char* data = pending_.data();
  size_t n = pending_.size();
  // A match that starts before `safe` fits wholly in the data seen, so it can be decided now.
  size_t safe = at_end ? n : (n >= longest_ ? n - longest_ + 1 : 0);
  // The next place each secret occurs at or after `from` (n when it does not).
  std::vector<size_t> next(secrets_.size(), 0);
  std::vector<bool> known(secrets_.size(), false);
  size_t i = 0;
  while (i < safe) {
    size_t best = n;
    size_t best_k = 0;
    for (size_t k = 0; k < secrets_.size(); ++k) {
      if (!known[k] || next[k] < i) {
        const std::string& v = secrets_[k].value;
        const void* hit = n - i >= v.size() ? memmem(data + i, n - i, v.data(), v.size()) : nullptr;
        next[k] = hit ? static_cast<size_t>(static_cast<const char*>(hit) - data) : n;
        known[k] = true;
      }
      if (next[k] < best) {
        best = next[k];
        best_k = k;
      }
    }
    if (best >= safe) break;
    out->append(data + i, best - i);
    out->append(secrets_[best_k].replacement);
    i = best + secrets_[best_k].value.size();
  }
  size_t keep_from = std::max(i, safe);
  out->append(data + i, keep_from - i);
  pending_.erase(0, keep_from);
}

}  // namespace safesh::exec
