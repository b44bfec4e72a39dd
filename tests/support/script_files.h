// Finding real shell scripts on this machine, for the agreement tests and the parser benchmark.
#ifndef SAFESH_TESTS_SUPPORT_SCRIPT_FILES_H_
#define SAFESH_TESTS_SUPPORT_SCRIPT_FILES_H_

#include <functional>
#include <string>
#include <vector>

namespace safesh::testing {

// Reads a whole file; false when it cannot be opened.
bool ReadFile(const std::string& path, std::string* out);

// Calls `fn` for each regular file under `dir` (1 byte to 1 MiB), in name order, without
// following symbolic links, at most 12 directories deep.
void WalkFiles(const std::string& dir, const std::function<void(const std::string&)>& fn);

// True when the first line is a #! line naming sh, bash or dash.
bool IsShellScript(const std::string& text);

struct ScriptFile {
  std::string path;
  std::string text;
};

// Every shell script under /usr/bin, /usr/sbin, /etc, /usr/share and /usr/lib, without those
// holding NUL bytes (bash drops NUL bytes from files, so they cannot be compared).
std::vector<ScriptFile> ShellScriptsOnThisMachine();

}  // namespace safesh::testing

#endif  // SAFESH_TESTS_SUPPORT_SCRIPT_FILES_H_
