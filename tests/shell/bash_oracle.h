// bash as the oracle: what does `bash -n` say about a script?
#pragma once

#include <string>
#include <vector>

namespace safesh::testing {

struct BashVerdict {
  bool accepted = false;
  std::string message;  // bash's first error line, without warnings
  bool unterminated_heredoc = false;
  std::vector<std::string> wanted_delimiters;  // of here-documents the input ended in
  bool broken = false;  // bash crashed (a signal) or did not finish: no verdict
};

// `bash -n -c SCRIPT`, the form in which safesh hands commands to bash.
BashVerdict BashCheckString(const std::string& script);
// `bash -n FILE`; `content` is the file's text.
BashVerdict BashCheckFile(const std::string& path, const std::string& content);

}  // namespace safesh::testing
