#include "exec/spool.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <vector>

namespace safesh::exec {
namespace {

std::string Errno(const std::string& what, const std::string& path) {
  return what + " " + path + ": " + strerror(errno);
}

// Makes `path` a directory only this user can enter, or checks that it already is one.
bool EnsurePrivateDir(const std::string& path, std::string* error) {
  if (mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) {
    *error = Errno("cannot create the spool directory", path);
    return false;
  }
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) {
    *error = Errno("cannot inspect the spool directory", path);
    return false;
  }
  if (!S_ISDIR(st.st_mode)) {
    *error = "the spool directory " + path +
             " is not a directory (a symbolic link or file is refused: remove it)";
    return false;
  }
  if (st.st_uid != geteuid()) {
    *error = "the spool directory " + path + " belongs to another user: remove it or set " +
             "XDG_STATE_HOME";
    return false;
  }
  if ((st.st_mode & 077) != 0) {
    char mode[8];
    snprintf(mode, sizeof mode, "%03o", st.st_mode & 0777);
    *error = "the spool directory " + path + " can be entered by other users (mode " + mode +
             "): run chmod 700 on it";
    return false;
  }
  return true;
}

bool EnsureParents(const std::string& path, std::string* error) {
  // The parents above the private part ($HOME/.local/state) are made like mkdir -p would.
  for (size_t i = 1; i < path.size(); ++i) {
    if (path[i] != '/') continue;
    std::string prefix = path.substr(0, i);
    if (mkdir(prefix.c_str(), 0700) != 0 && errno != EEXIST) {
      *error = Errno("cannot create", prefix);
      return false;
    }
  }
  return true;
}

bool IsRunDirName(const char* name) {
  return strncmp(name, "run-", 4) == 0 && strlen(name) == 10;
}

}  // namespace

std::string DefaultSpoolBase() {
  const char* state = getenv("XDG_STATE_HOME");
  if (state != nullptr && state[0] == '/') return std::string(state) + "/safesh/spool";
  const char* home = getenv("HOME");
  if (home != nullptr && home[0] == '/') return std::string(home) + "/.local/state/safesh/spool";
  return "";
}

int CleanOldSpools(const std::string& base, int64_t max_age_seconds, int64_t max_total_bytes) {
  util::UniqueFd dir(open(base.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!dir.valid()) return 0;
  DIR* d = fdopendir(dup(dir.get()));
  if (d == nullptr) return 0;
  struct Run {
    std::string name;
    time_t mtime;
    int64_t bytes;
  };
  std::vector<Run> runs;
  while (dirent* e = readdir(d)) {
    if (!IsRunDirName(e->d_name)) continue;
    struct stat st, out;
    if (fstatat(dir.get(), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid()) continue;
    std::string output = std::string(e->d_name) + "/output";
    int64_t bytes = fstatat(dir.get(), output.c_str(), &out, AT_SYMLINK_NOFOLLOW) == 0
                        ? static_cast<int64_t>(out.st_size)
                        : 0;
    runs.push_back({e->d_name, st.st_mtime, bytes});
  }
  closedir(d);
  // Oldest first.
  std::sort(runs.begin(), runs.end(), [](const Run& a, const Run& b) { return a.mtime < b.mtime; });
  int64_t total = 0;
  for (const Run& r : runs)
    total += r.bytes;
  time_t now = time(nullptr);
  int removed = 0;
  for (const Run& r : runs) {
    if (now - r.mtime <= max_age_seconds && total <= max_total_bytes) continue;
    // Only the file safesh puts there is removed; a directory holding anything else stays.
    util::UniqueFd run(
        openat(dir.get(), r.name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!run.valid()) continue;
    unlinkat(run.get(), "output", 0);
    total -= r.bytes;
    if (unlinkat(dir.get(), r.name.c_str(), AT_REMOVEDIR) == 0) ++removed;
  }
  return removed;
}

namespace {

// Makes a fresh run directory under `base` and links or creates the output file in it.
bool NameSpool(Spool* spool, std::string* error) {
  CleanOldSpools(spool->base, kSpoolMaxAgeSeconds, kSpoolMaxTotalBytes);
  std::string templ = spool->base + "/run-XXXXXX";
  if (mkdtemp(templ.data()) == nullptr) {
    *error = Errno("cannot create a run directory in", spool->base);
    return false;
  }
  std::string path = templ + "/output";
  if (spool->fd.valid()) {
    // Link the unnamed file in. /proc/self/fd works without the capability AT_EMPTY_PATH needs.
    std::string self = "/proc/self/fd/" + std::to_string(spool->fd.get());
    if (linkat(AT_FDCWD, self.c_str(), AT_FDCWD, path.c_str(), AT_SYMLINK_FOLLOW) != 0) {
      *error = Errno("cannot keep the output spool as", path);
      rmdir(templ.c_str());
      return false;
    }
  } else {
    spool->fd.Reset(open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (!spool->fd.valid()) {
      *error = Errno("cannot create the output file", path);
      rmdir(templ.c_str());
      return false;
    }
  }
  spool->dir = templ;
  spool->path = path;
  return true;
}

}  // namespace

bool CreateSpool(const std::string& base, Spool* spool, std::string* error) {
  if (base.empty() || base[0] != '/') {
    *error = "no place for the output spool: set HOME or XDG_STATE_HOME to an absolute path";
    return false;
  }
  // base = <state>/safesh/spool: <state> is made like mkdir -p; safesh/ and spool/ are private.
  std::string safesh_dir = base.substr(0, base.rfind('/'));
  if (!EnsureParents(safesh_dir, error) || !EnsurePrivateDir(safesh_dir, error) ||
      !EnsurePrivateDir(base, error)) {
    return false;
  }
  spool->base = base;
  spool->fd.Reset(open(base.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600));
  if (spool->fd.valid()) return true;
  if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) {
    *error = Errno("cannot create the output spool in", base);
    return false;
  }
  return NameSpool(spool, error);
}

bool KeepSpool(Spool* spool, std::string* error) {
  if (!spool->path.empty()) return true;
  return NameSpool(spool, error);
}

void RemoveSpool(Spool* spool) {
  spool->fd.Reset();
  if (!spool->path.empty()) unlink(spool->path.c_str());
  if (!spool->dir.empty()) rmdir(spool->dir.c_str());
  spool->path.clear();
  spool->dir.clear();
}

namespace {

bool ReadAt(int fd, uint64_t offset, size_t n, std::string* out, std::string* error) {
  size_t start = out->size();
  out->resize(start + n);
  size_t done = 0;
  while (done < n) {
    ssize_t r = pread(fd, out->data() + start + done, n - done, static_cast<off_t>(offset + done));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      *error = std::string("cannot read the output spool: ") + strerror(errno);
      return false;
    }
    if (r == 0) break;
    done += static_cast<size_t>(r);
  }
  out->resize(start + done);
  return true;
}

bool IsContinuation(unsigned char c) {
  return (c & 0xC0) == 0x80;
}

std::string WithCommas(uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

}  // namespace

bool ReadView(int fd, uint64_t size, uint64_t kept, const std::string& unkept, uint64_t limit,
              const std::string& path, OutputView* view, std::string* error) {
  view->text.clear();
  view->truncated = false;
  if (size <= limit) {
    if (!ReadAt(fd, 0, static_cast<size_t>(kept), &view->text, error)) return false;
    view->text += unkept;
    return true;
  }

  view->truncated = true;
  // The notice is sized with the largest count it can show, so head + notice + tail <= limit.
  auto notice = [&](uint64_t left_out) {
    std::string where = kept == size ? "all " + WithCommas(size) + " bytes are in " + path
                                     : "the first " + WithCommas(kept) + " of " + WithCommas(size) +
                                           " bytes are in " + path;
    return "\n[safesh: " + WithCommas(left_out) + " bytes of output left out here; " + where +
           "]\n";
  };
  uint64_t reserve = notice(size).size();
  uint64_t budget = limit > reserve ? limit - reserve : 0;
  uint64_t head_len = budget / 2, tail_len = budget - head_len;

  // A UTF-8 sequence is at most 4 bytes: look one sequence past each cut to place it well.
  std::string head, tail;
  if (!ReadAt(fd, 0, static_cast<size_t>(std::min(head_len + 1, kept)), &head, error)) return false;
  // Cut the head before a sequence that would not fit whole.
  size_t h = std::min<size_t>(head_len, head.size());
  for (int back = 0;
       back < 3 && h > 0 && h < head.size() && IsContinuation(static_cast<unsigned char>(head[h]));
       ++back) {
    --h;
  }
  if (h < head.size() && IsContinuation(static_cast<unsigned char>(head[h]))) h = head_len;
  head.resize(std::min<size_t>(h, head.size()));

  // The tail: the end of the spool, then what was kept in memory after it.
  uint64_t from_memory = std::min<uint64_t>(tail_len, unkept.size());
  uint64_t from_file = std::min<uint64_t>(tail_len - from_memory, kept);
  if (!ReadAt(fd, kept - from_file, static_cast<size_t>(from_file), &tail, error)) return false;
  tail.append(unkept, unkept.size() - static_cast<size_t>(from_memory), std::string::npos);
  // Start the tail at the beginning of a sequence.
  size_t t = 0;
  while (t < 3 && t < tail.size() && IsContinuation(static_cast<unsigned char>(tail[t])))
    ++t;
  if (t < tail.size() && IsContinuation(static_cast<unsigned char>(tail[t]))) t = 0;
  tail.erase(0, t);

  view->text = head;
  view->text += notice(size - head.size() - tail.size());
  view->text += tail;
  return true;
}

}  // namespace safesh::exec
