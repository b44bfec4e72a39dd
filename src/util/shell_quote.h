// Quoting a word for people to read: the result is valid bash that means the same word, and
// every character that would not show on a terminal is spelled out.
//
// Plain words stay as they are; others are single-quoted; a word holding control characters,
// invalid UTF-8, or invisible or direction-changing characters (zero-width spaces, no-break
// space, bidi overrides, byte order mark) is written as $'...' with escapes, so that what a
// person approves is what runs.
#pragma once

#include <string>
#include <string_view>

namespace safesh::util {

std::string ShellQuote(std::string_view word);

// True when `text` holds something a terminal would not show as written: control characters
// other than newline and tab, invalid UTF-8, or invisible or direction-changing characters.
bool HasHiddenCharacters(std::string_view text);

}  // namespace safesh::util
