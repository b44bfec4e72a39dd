// Redactor: masks secret values in a byte stream that arrives in pieces.
//
// A secret may be split across two reads, so the last (longest secret - 1) bytes of each piece
// are held back until the next piece (or the end) shows whether they start a secret.
#pragma once

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

  // Appends to `out` the part of the stream (so far, with `piece`) that is final.
  void Feed(std::string_view piece, std::string* out);
  // Appends what was held back. The stream is over.
  void Finish(std::string* out);

 private:
  void Process(bool at_end, std::string* out);

  struct Pattern {
    std::string value;
    std::string replacement;
  };
  std::vector<Pattern> secrets_;
  size_t longest_ = 0;
  std::string pending_;
};

}  // namespace safesh::exec
