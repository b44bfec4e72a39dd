#include "pipeline/validate.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmath>

namespace safesh::pipeline {

std::optional<std::chrono::milliseconds> ResolveTimeout(std::optional<double> requested,
                                                        int64_t default_seconds,
                                                        std::string* error) {
  double s = requested ? *requested : static_cast<double>(default_seconds);
  if (!std::isfinite(s) || s <= 0) {
    *error = "the timeout must be a positive number of seconds (at most 1800)";
    return std::nullopt;
  }
  s = std::min(s, kMaxTimeoutSeconds);
  // At least one millisecond, so that a tiny timeout is not read as "none".
  return std::chrono::milliseconds(std::max<int64_t>(1, static_cast<int64_t>(s * 1000.0)));
}

namespace {

std::string StripTrailingSlashes(std::string p) {
  while (p.size() > 1 && p.back() == '/')
    p.pop_back();
  return p;
}

// The part of `path` below `root`, "." for the root itself; nullopt when not below it.
std::optional<std::string> Below(const std::string& path, const std::string& root) {
  if (path == root) return std::string(".");
  if (root == "/") return path.substr(1).empty() ? std::string(".") : path.substr(1);
  if (path.size() > root.size() && path.compare(0, root.size(), root) == 0 &&
      path[root.size()] == '/') {
    return path.substr(root.size() + 1);
  }
  return std::nullopt;
}

std::string FdPath(int fd) {
  char link[64], buf[4096];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, buf, sizeof buf);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

std::string RootList(const std::vector<std::string>& roots) {
  std::string out;
  for (const std::string& r : roots)
    out += (out.empty() ? "" : ", ") + r;
  return out;
}

// Opens `rel` below `root_fd` without leaving it: openat2(RESOLVE_BENEATH) walks the path from
// the root and refuses any step out. It also refuses absolute symbolic links, even ones that
// point back inside; for those (and on kernels before 5.6, without openat2) the directory is
// opened through its real path, and the path of what was opened is checked to be inside.
int OpenBeneath(int root_fd, const std::string& root_real, const std::string& rel, int* err) {
  open_how how{};
  how.flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
  long fd = syscall(SYS_openat2, root_fd, rel.c_str(), &how, sizeof how);
  if (fd >= 0 || (errno != ENOSYS && errno != EXDEV)) {
    *err = fd >= 0 ? 0 : errno;
    return static_cast<int>(fd);
  }
  int first_error = errno;
  std::string full = root_real + (root_real == "/" ? "" : "/") + rel;
  char* real = realpath(full.c_str(), nullptr);
  if (real == nullptr) {
    *err = errno;
    return -1;
  }
  std::string r(real);
  free(real);
  int out = Below(r, root_real) ? open(r.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC) : -1;
  // What was opened is what is checked: a link swapped in between is caught here.
  if (out >= 0 && !Below(FdPath(out), root_real)) {
    close(out);
    out = -1;
  }
  if (out < 0) *err = first_error == ENOSYS ? EXDEV : first_error;
  return out;
}

}  // namespace

std::optional<ResolvedCwd> ResolveCwd(const std::vector<std::string>& roots, const std::string& cwd,
                                      std::string* error) {
  if (roots.empty() || roots[0].empty() || roots[0][0] != '/') {
    *error = "no workspace root is set: give an absolute --workspace";
    return std::nullopt;
  }
  if (cwd.find('\0') != std::string::npos) {
    *error = "the cwd holds a NUL byte";
    return std::nullopt;
  }
  std::string wanted = cwd.empty()     ? roots[0]
                       : cwd[0] == '/' ? cwd
                                       : StripTrailingSlashes(roots[0]) + "/" + cwd;
  wanted = StripTrailingSlashes(wanted);
  for (const std::string& root_given : roots) {
    std::string root = StripTrailingSlashes(root_given);
    util::UniqueFd root_fd(open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!root_fd.valid()) continue;
    std::string root_real = FdPath(root_fd.get());
    // The cwd may be written through the root as given or through its real path.
    std::optional<std::string> rel = Below(wanted, root);
    if (!rel && !root_real.empty()) rel = Below(wanted, root_real);
    if (!rel) continue;
    int err = 0;
    int fd = OpenBeneath(root_fd.get(), root_real, *rel, &err);
    if (fd < 0) {
      switch (err) {
        case ENOENT:
          *error = "the cwd " + wanted + " does not exist";
          break;
        case ENOTDIR:
          *error = "the cwd " + wanted + " is not a directory";
          break;
        case EXDEV:
        case ELOOP:
          *error = "the cwd " + wanted + " leads out of the workspace root " + root +
                   " (through a symbolic link or ..): give a directory inside it";
          break;
        default:
          *error = "cannot open the cwd " + wanted + ": " + strerror(err);
      }
      return std::nullopt;
    }
    ResolvedCwd out;
    out.fd.Reset(fd);
    out.path = FdPath(fd);
    return out;
  }
  *error = "the cwd " + wanted + " is outside the workspace roots (" + RootList(roots) +
           "): give a directory inside them";
  return std::nullopt;
}

}  // namespace safesh::pipeline
