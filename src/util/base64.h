// Base64 (RFC 4648, the standard alphabet, with padding): how `safesh hook --sandbox` hands a
// command to `safesh run --command-base64`, so that no byte of it is ever read by a shell.
#pragma once

#include <string>
#include <string_view>

namespace safesh::util {

std::string Base64Encode(std::string_view bytes);

// Decodes `text` into `*out`. Strict, because a lenient decoder would let two different texts
// mean the same command: only the standard alphabet, a length that is a multiple of four,
// padding only at the end, and unused bits zero. False (and `*out` unspecified) otherwise.
bool Base64Decode(std::string_view text, std::string* out);

}  // namespace safesh::util
