// The value of a word that needs no expansion: quote removal only.
#pragma once

#include <optional>
#include <string>

#include "shell/ast.h"

namespace safesh::shell {

// The word's value after bash's quote removal, when every part of it is literal text (plain,
// escaped, single-quoted, $'...', or double-quoted without expansions). Empty when any part is
// an expansion, a substitution, a glob, a brace expansion or a tilde: its value is known only
// when bash runs it.
std::optional<std::string> LiteralValue(const Word& word);

}  // namespace safesh::shell
