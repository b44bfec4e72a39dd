// A compact one-line rendering of the syntax tree, for tests that state the expected structure.
//
//   Parse("a=1 echo \"$x\"{b,c} >f") renders as  (cmd [a=1] echo "$x"{b|c} >f)
//
// Words: literal text as is; 'single' quoted; \c escaped; "..." double quoted; $'..'= decoded
// ansi-c shown as $'<value>'; $x ${x<op><operand>}; $(...) and `...` with the inner script;
// $((<expr>)) with the expression in prefix form; <(...) >(...); glob characters as <*>;
// brace expansion {a|b}; sequences {1..3}; tildes as <~user>; subscripts [..]; arrays (..).
// Commands: (cmd ...), (sub ...), (group ...), (if ...), (for x in ...), (while ...), (case ...),
// (arith ...), (cond ...), (fn name ...), (coproc name ...). Statements are joined by " ; ",
// background ones end in " &"; && || | |& ! time as written.
#pragma once

#include <string>

#include "shell/ast.h"

namespace safesh::testing {

std::string Sexp(const shell::List& list);
std::string Sexp(const shell::Word& word);
std::string Sexp(const shell::ArithExpr& e);

}  // namespace safesh::testing
