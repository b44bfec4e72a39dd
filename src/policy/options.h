// Reading a command's options the way getopt_long does, over words that may be computed.
//
// The policy must know exactly which words of a wrapper or a tool are options, which are their
// values and where the command or the operands begin: `timeout --kill-after 5 10 rm` runs rm,
// and `sort --comp=sh` is sort's --compress-program. Long options may be abbreviated to any
// unambiguous prefix, as GNU getopt_long allows. A word the table does not know, or a computed
// word where an option could be, is reported as an error: the caller treats the command as
// unverified rather than guess.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "policy/words.h"

namespace safesh::policy {

struct OptionSpec {
  std::string_view flags;         // short options without an argument
  std::string_view with_arg;      // short options with a required argument (-k5 or -k 5)
  std::string_view optional_arg;  // short options whose argument must be attached (-m/path)
  // Long options, without the leading dashes: "verbose", "kill-after=" (required argument),
  // "mount?" (optional argument, only as --mount=VALUE).
  std::vector<std::string_view> longs;
  // true: options end at the first operand (getopt's '+', as command-running tools do);
  // false: options and operands may be mixed (GNU's default permutation).
  bool stop_at_operand = true;
  // Single-dash long options (find's -name, -exec, ...) are not handled here.
};

struct ParsedOption {
  std::string name;   // "-k" or "--kill-after" (the full name, even when abbreviated)
  std::string value;  // the argument, if any
  bool has_value = false;
  bool value_static = true;
  size_t index = 0;  // where the option's word is in argv
};

struct ParsedOptions {
  std::vector<ParsedOption> options;
  std::vector<size_t> operands;  // indices of the operands, in order
  size_t first_operand = 0;      // with stop_at_operand: where the operands begin
  std::string error;             // non-empty: the words could not be read with certainty

  bool Has(std::string_view name) const;
  const ParsedOption* Find(std::string_view name) const;
};

// Reads argv[start..] according to `spec`.
ParsedOptions ParseOptions(const Argv& argv, size_t start, const OptionSpec& spec);

}  // namespace safesh::policy
