#include "util/state_dir.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>

namespace safesh::util {

std::string StateDir() {
  const char* state = getenv("XDG_STATE_HOME");
  if (state != nullptr && state[0] == '/') return std::string(state) + "/safesh";
  const char* home = getenv("HOME");
  if (home != nullptr && home[0] == '/') return std::string(home) + "/.local/state/safesh";
  return "";
}

bool MakePrivateDir(const std::string& path, std::string* error) {
  if (path.empty() || path[0] != '/') {
    *error = "no place for safesh's state: set HOME or XDG_STATE_HOME to an absolute path";
    return false;
  }
  for (size_t i = 1; i <= path.size(); ++i) {
    if (i < path.size() && path[i] != '/') continue;
    std::string prefix = path.substr(0, i);
    if (mkdir(prefix.c_str(), 0700) != 0 && errno != EEXIST) {
      *error = "cannot create " + prefix + ": " + strerror(errno);
      return false;
    }
  }
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) {
    *error = "cannot inspect " + path + ": " + strerror(errno);
    return false;
  }
  if (!S_ISDIR(st.st_mode)) {
    *error = path + " is not a directory (a symbolic link or a file is refused: remove it)";
    return false;
  }
  if (st.st_uid != geteuid()) {
    *error = path + " belongs to another user: remove it or set XDG_STATE_HOME";
    return false;
  }
  if ((st.st_mode & 077) != 0) {
    char mode[8];
    snprintf(mode, sizeof mode, "%03o", st.st_mode & 0777);
    *error = path + " can be entered by other users (mode " + mode + "): run chmod 700 on it";
    return false;
  }
  return true;
}

bool CheckPrivateFile(int fd, const std::string& what, std::string* error) {
  struct stat st;
  if (fstat(fd, &st) != 0) {
    *error = "cannot inspect " + what + ": " + strerror(errno);
    return false;
  }
  if (!S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
    *error = what + " is not a regular file of this user: remove it";
    return false;
  }
  if ((st.st_mode & 077) != 0) {
    char mode[8];
    snprintf(mode, sizeof mode, "%03o", st.st_mode & 0777);
    *error = what + " is open to other users (mode " + mode + "): run chmod 600 on it";
    return false;
  }
  return true;
}

}  // namespace safesh::util
