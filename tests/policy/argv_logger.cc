// A stand-in for every program in the soundness test's sandbox: it records how it was run (one
// JSON array of its arguments per line, in the file named by $SAFESH_EXEC_LOG) and exits 0.
// Installed under many names (symbolic links), it shows which programs a script really ran.
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "util/json_writer.h"

int main(int argc, char** argv) {
  const char* log = std::getenv("SAFESH_EXEC_LOG");
  if (log == nullptr) return 0;
  std::string line;
  safesh::util::JsonWriter w(&line);
  w.BeginArray();
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    if (i == 0 && a.rfind('/') != std::string::npos) a = a.substr(a.rfind('/') + 1);
    w.String(a);
  }
  w.EndArray();
  line += '\n';
  int fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return 0;
  // One write per line, so lines from processes running at once do not interleave.
  ssize_t n = write(fd, line.data(), line.size());
  (void)n;
  close(fd);
  return 0;
}
