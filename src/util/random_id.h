// Random identifiers: audit request ids and remembered-approval ids.
#pragma once

#include <cstddef>
#include <string>

namespace safesh::util {

// `bytes` random bytes from the kernel (getrandom) as lowercase hex (2 * bytes characters).
// Should the kernel's generator fail, the clock and the process id are mixed in instead: an id
// only has to be unique among this user's records, not secret.
std::string RandomHex(size_t bytes);

}  // namespace safesh::util
