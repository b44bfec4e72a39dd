// The syntax tree as JSON (for `safesh parse --json`) and as an indented text tree (for people).
#pragma once

#include <string>
#include <string_view>

#include "shell/ast.h"

namespace safesh::shell {

// The tree as one line of JSON. Every node is an object with "type" and "pos" ([line, col]);
// words and commands also carry "end" and "text" (their source text). Bytes of the script that
// are not valid UTF-8 appear as U+FFFD.
std::string ToJson(const Script& script, std::string_view source);

// A compact, indented rendering, one node per line.
std::string ToTree(const Script& script, std::string_view source);

}  // namespace safesh::shell
