// Writing TOML text that safesh prints for people to keep (`safesh config show`,
// `safesh import claude`): values that read back as they were, comments that stay comments.
#pragma once

#include <string>
#include <string_view>

namespace safesh::config {

// `s` as a TOML basic string, in double quotes: quote, backslash and every control character
// escaped (TOML allows none raw but tab; DEL included). `s` must be valid UTF-8.
std::string TomlString(std::string_view s);

// `s` made safe for the rest of a `#` comment line, and for a terminal: as it is when it holds
// only visible characters, otherwise quoted as bash's $'...' with the others spelled out, so that
// a line break cannot end the comment and an escape sequence cannot reach the terminal.
std::string CommentText(std::string_view s);

}  // namespace safesh::config
