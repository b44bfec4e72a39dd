// UTF-8: encoding code points and checking byte sequences.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace safesh::util {

// Appends the UTF-8 encoding of `cp`. Code points above U+10FFFF append nothing; surrogates are
// encoded like any other value below U+10000 (as bash's $'\uD800' does).
void AppendUtf8(uint32_t cp, std::string* out);

// The length of the valid UTF-8 sequence starting at s[i] (1 to 4), or 0 when the bytes there
// are not one: stray continuation bytes, truncated sequences, overlong forms, surrogates and
// values above U+10FFFF are all invalid (RFC 3629).
size_t Utf8SequenceLength(std::string_view s, size_t i);

}  // namespace safesh::util
