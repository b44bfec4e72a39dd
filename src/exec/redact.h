// Redactor: masks secret values in a byte stream that arrives in pieces.
//
// A secret may be split across two reads, so the last (longest secret - 1) bytes of each piece
// are held back until the next piece (or the end) shows whether they start a secret.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "exec/env.h"

namespace safesh::exec {

// Values shorter than this are not masked: a variable holding "1" or "true" is not a credential,
// and masking every "true" would make output unreadable.
inline constexpr size_t kMinSecretLength = 8;

class Redactor {
 public:
  // Secrets shorter than kMinSecretLength are ignored. Each is replaced by "[redacted NAME]".
  explicit Redactor(const std::vector<Secret>& secrets);

  // False when there is nothing to mask: the caller may then skip the redactor.
  bool active() const { return !secrets_.empty(); }

  // Scan holds back fewer than this many bytes: room a caller's buffer needs for them.
  size_t holdback() const { return 2 * longest_; }

  // The zero-copy form: scans data[0, n), passing each final piece of output to emit(p, len),
  // and returns how many bytes at the end are not final yet (a secret may start there). The
  // caller passes them again, at the front of the next data; with at_end, everything is final.
  template <typename Emit>
  size_t Scan(const char* data, size_t n, bool at_end, Emit&& emit) const;

  // Of bytes Scan held back, data[0, n), how many can be released now, before more data
  // arrives (when a stream goes quiet: a long-lived process's last line must not wait for its
  // next one): everything before the earliest point from which the bytes could still begin a
  // secret, and before any secret found whole in them that crosses that point. Scan them with
  // at_end; the rest stays held back.
  size_t Releasable(const char* data, size_t n) const;

  // The same with the held-back bytes kept here: appends what is final to `out`.
  void Feed(std::string_view piece, std::string* out);
  // Appends what was held back. The stream is over.
  void Finish(std::string* out);

 private:
  // Where secret k next occurs at or after `from` with its start before `limit`; n if nowhere.
  size_t Find(size_t k, const char* data, size_t n, size_t from, size_t limit) const;

  struct Pattern {
    std::string value;
    std::string replacement;
  };
  std::vector<Pattern> secrets_;
  size_t longest_ = 0;
  std::string pending_;
};

template <typename Emit>
size_t Redactor::Scan(const char* data, size_t n, bool at_end, Emit&& emit) const {
  // A match that starts before `safe` fits wholly in the data, and so does any secret that
  // overlaps it, so it can be decided now.
  size_t safe = at_end ? n : (n >= 2 * longest_ ? n - 2 * longest_ + 1 : 0);
  // Where each secret occurs next: found once, searched again only after the scan passes it,
  // so a stream full of one secret is not searched again for all the others at each match.
  std::vector<size_t> next(secrets_.size());
  for (size_t k = 0; k < secrets_.size(); ++k)
    next[k] = Find(k, data, n, 0, safe);
  size_t i = 0;
  while (i < safe) {
    size_t best = n, which = 0;
    for (size_t k = 0; k < secrets_.size(); ++k) {
      if (next[k] < i) next[k] = Find(k, data, n, i, safe);
      // Secrets are sorted longest first: at an equal start the earlier (longer) one stays.
      if (next[k] < best) {
        best = next[k];
        which = k;
      }
    }
    if (best >= safe) break;
    // Secrets that overlap this one are masked with it: the union goes, so no part of either
    // is left showing. (The masked run can end past `safe`: it was seen whole. A chain of three
    // or more overlapping secrets may reach past the data and is masked up to its end.)
    size_t end = best + secrets_[which].value.size();
    for (bool grew = true; grew;) {
      grew = false;
      for (size_t k = 0; k < secrets_.size(); ++k) {
        size_t at = Find(k, data, n, best + 1, end);
        if (at < end && at + secrets_[k].value.size() > end) {
          end = std::min(n, at + secrets_[k].value.size());
          grew = true;
        }
      }
    }
    if (best > i) emit(data + i, best - i);
    emit(secrets_[which].replacement.data(), secrets_[which].replacement.size());
    i = end;
  }
  if (safe > i) {
    emit(data + i, safe - i);
    i = safe;
  }
  return n - i;
}

}  // namespace safesh::exec
