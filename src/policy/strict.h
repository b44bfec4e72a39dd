// Strict mode (`[commands] strict = true`): the command line must be one plain command.
//
// No operators, pipes, substitutions, expansions, redirections or grouping, checked on the raw
// text before any parsing, so no reading of the shell's grammar is involved at all: the
// characters ; & | ` $ < > ( ) { } \ and line breaks are refused anywhere, even inside quotes,
// and the command name must be written plainly (not quoted or escaped).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace safesh::policy {

// Empty when `command` is one plain command; otherwise why not, naming the character and its
// column.
std::optional<std::string> StrictModeProblem(std::string_view command);

}  // namespace safesh::policy
