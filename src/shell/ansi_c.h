// $'...' strings: bash's escape decoding (ansicstr), so their value is known exactly.
#pragma once

#include <string>
#include <string_view>

namespace safesh::shell {

// Decodes the inside of $'...' the way bash 5.2 does in a UTF-8 locale: \a \b \e \E \f \n \r \t
// \v \\ \' \" \? \NNN \xHH \x{H...} \uHHHH \UHHHHHHHH \cX; an unknown escape keeps its backslash.
// bash's value ends at the first NUL byte, and so does the result.
std::string DecodeAnsiC(std::string_view raw);

}  // namespace safesh::shell
