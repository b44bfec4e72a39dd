// The syntax tree as JSON (for `safesh parse --json`) and as an indented text tree (for people).
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "shell/ast.h"

namespace safesh::shell {

// Every node is an object with "type" and "pos" ([line, col]); words and commands also carry
// "end" and "text" (their source text).
nlohmann::ordered_json ToJson(const Script& script, std::string_view source);

// A compact, indented rendering, one node per line.
std::string ToTree(const Script& script, std::string_view source);

}  // namespace safesh::shell
