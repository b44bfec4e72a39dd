// What the little languages of ordinary tools can do: sed scripts and awk programs.
//
// `sed` and `awk` are usually read-only filters, so policies approve them freely, but both can
// run shell commands (sed's `e`, awk's system() and pipes) and write files (sed's `w`, awk's
// `print > FILE`). These functions read a script the way the tool would and report those
// effects; the policy then judges a literal command like any other and treats anything computed
// or not understood as unverified.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace safesh::policy {

struct ScriptEffects {
  // Shell command lines the script runs, when they are literal in it (sed `e CMD`,
  // awk system("CMD"), print | "CMD", "CMD" | getline).
  std::vector<std::string> commands;
  // Files the script writes, when named literally (sed `w FILE`, awk print > "FILE").
  std::vector<std::string> writes;
  // The script runs or writes something whose command or file is computed when it runs
  // (sed `e` without a command, s///e; awk system(x), print > f). Says what, for a person.
  std::vector<std::string> computed;
  // Non-empty when the script could not be read with certainty: the reason. The policy then
  // treats the whole tool invocation as unverified.
  std::string problem;
};

// A sed script as GNU sed 4.9 reads it (the text of -e or the first operand).
ScriptEffects AnalyzeSedScript(std::string_view script);

// An awk program as gawk/mawk read it (the first operand or -e/--source text).
ScriptEffects AnalyzeAwkProgram(std::string_view program);

}  // namespace safesh::policy
