// SHA-256 (FIPS 180-4), for pinning the exact content of a file a person has reviewed.
//
// Our own few lines rather than libcrypto: every `safesh run` starts a process, and loading
// another shared library costs more than hashing a settings file.
#pragma once

#include <string>
#include <string_view>

namespace safesh::util {

// The digest of `data` as 64 lowercase hexadecimal digits.
std::string Sha256Hex(std::string_view data);

}  // namespace safesh::util
