#include "util/file.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

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

bool WriteAll(int fd, std::string_view data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

std::string RealPath(const std::string& path) {
  // glibc's realpath(3) reads every component as a link (six calls for a path six deep), and
  // the sandbox's spec resolves dozens of paths per command. Opening the path and asking the
  // kernel where the descriptor points costs three calls at any depth. /proc may be missing (a
  // chroot) or answer with something that is not a plain absolute path (a file deleted in
  // between): then realpath(3) decides.
  {
    UniqueFd fd(::open(path.c_str(), O_PATH | O_CLOEXEC));
    if (!fd.valid()) return "";
    char link[32];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd.get());
    char buf[PATH_MAX];
    ssize_t n = ::readlink(link, buf, sizeof buf);
    if (n > 0 && n < static_cast<ssize_t>(sizeof buf) && buf[0] == '/') {
      std::string_view got(buf, static_cast<size_t>(n));
      if (!got.ends_with(" (deleted)")) return std::string(got);
    }
  }
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

int OpenNoLinks(const std::string& path) {
  if (path.empty() || path[0] != '/') {
    errno = EINVAL;
    return -1;
  }
  int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
  size_t start = 1;
  while (fd >= 0 && start < path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    std::string name = path.substr(start, end - start);
    start = end + 1;
    if (name.empty()) continue;
    if (name == "." || name == "..") {
      close(fd);
      errno = EINVAL;
      return -1;
    }
    // O_NOFOLLOW with O_PATH opens a link itself rather than failing: check what was opened.
    int next = openat(fd, name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC);
    int saved = errno;
    close(fd);
    fd = next;
    struct stat st;
    if (fd < 0) {
      errno = saved;
    } else if (fstat(fd, &st) != 0 || S_ISLNK(st.st_mode)) {
      close(fd);
      fd = -1;
      errno = ELOOP;
    }
  }
  return fd;
}

bool RemoveTreeNoLinks(int parent_fd, const std::string& name, int max_depth) {
  if (unlinkat(parent_fd, name.c_str(), 0) == 0 || errno == ENOENT) return true;
  if (errno != EISDIR && errno != EPERM) return false;  // EPERM: what unlink(2) says of a folder
  // A folder (or one now): opened as a path first, not following a link, so that its mode can be
  // set on exactly it (through /proc/self/fd: fchmod refuses an O_PATH descriptor).
  UniqueFd at(openat(parent_fd, name.c_str(), O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC));
  if (!at.valid()) return false;
  if (max_depth <= 0) return false;
  std::string self = "/proc/self/fd/" + std::to_string(at.get());
  chmod(self.c_str(), 0700);  // not fatal: a folder already open to us needs none
  int fd = openat(at.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return false;
  DIR* d = fdopendir(fd);
  if (d == nullptr) {
    close(fd);
    return false;
  }
  std::vector<std::string> names;
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") names.push_back(std::move(n));
  }
  bool ok = true;
  for (const std::string& n : names)
    ok = RemoveTreeNoLinks(dirfd(d), n, max_depth - 1) && ok;
  closedir(d);
  return unlinkat(parent_fd, name.c_str(), AT_REMOVEDIR) == 0 && ok;
}

}  // namespace safesh::util
