#include "util/file.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "util/unique_fd.h"

namespace safesh::util {

bool ReadToEnd(int fd, const std::string& name, std::string* text, std::string* error) {
  text->clear();
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *error = name + ": " + std::strerror(errno);
      return false;
    }
    if (n == 0) return true;
    text->append(buf, static_cast<size_t>(n));
  }
}

bool ReadWholeFile(const std::string& path, std::string* text, std::string* error) {
  auto fail = [&](const char* why) {
    *error = path + ": " + why;
    return false;
  };
  UniqueFd fd;
  do {
    // Opening a FIFO waits for its writer, and a signal can interrupt the wait.
    fd.Reset(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  } while (!fd.valid() && errno == EINTR);
  if (!fd.valid()) return fail(std::strerror(errno));
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return fail(std::strerror(errno));
  // A directory opens fine and then fails to read; a device such as /dev/zero never ends.
  // Both get a clear error instead.
  if (S_ISDIR(st.st_mode)) return fail("is a directory");
  if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode)) return fail("is not a regular file or a pipe");
  if (S_ISREG(st.st_mode)) text->reserve(static_cast<size_t>(st.st_size));
  return ReadToEnd(fd.get(), path, text, error);
}

std::string ReadFirstLine(const std::string& path) {
  std::string text, ignored;
  if (!ReadWholeFile(path, &text, &ignored)) return "";
  return text.substr(0, text.find('\n'));
}

std::string RealPath(const std::string& path) {
  char* r = realpath(path.c_str(), nullptr);
  if (r == nullptr) return "";
  std::string out(r);
  free(r);
  return out;
}

bool IsPathInside(const std::string& path, const std::string& dir) {
  if (dir.empty()) return false;
  if (path == dir || dir == "/") return true;
  std::string_view base(dir);
  if (base.back() == '/') base.remove_suffix(1);
  return path.size() > base.size() && path.compare(0, base.size(), base) == 0 &&
         path[base.size()] == '/';
}

}  // namespace safesh::util
