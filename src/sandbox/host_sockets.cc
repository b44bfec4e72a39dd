#include "sandbox/host_sockets.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>

#include "util/file.h"
#include "util/unique_fd.h"

namespace safesh::sandbox {
namespace {

// A folder as the search saw it: what its one stat is compared on next time.
struct Stamp {
  std::string path;
  bool missing = false;  // a place that was not there (or not a folder)
  uint64_t dev = 0, ino = 0;
  int64_t mtime_ns = 0, ctime_ns = 0;
  bool operator==(const Stamp&) const = default;
};

Stamp StampOf(const std::string& path, const struct stat& st) {
  Stamp s;
  s.path = path;
  s.dev = st.st_dev;
  s.ino = st.st_ino;
  s.mtime_ns = st.st_mtim.tv_sec * 1'000'000'000LL + st.st_mtim.tv_nsec;
  s.ctime_ns = st.st_ctim.tv_sec * 1'000'000'000LL + st.st_ctim.tv_nsec;
  return s;
}

// What one search saw: every socket (before `allowed` is applied) and every folder it read.
struct Seen {
  std::vector<std::string> sockets;
  bool truncated = false;
  std::vector<Stamp> stamps;
  bool racy = false;  // a folder changed within 2 s of being read: not to be reused
};

struct Walk {
  size_t budget;
  Seen* out;
  int64_t now_ns;
};

constexpr int64_t kRacyNs = 2'000'000'000;

void Note(Walk* w, const std::string& path, int fd) {
  struct stat st;
  if (fstat(fd, &st) != 0) {
    w->out->racy = true;  // cannot be checked next time: search again
    return;
  }
  Stamp s = StampOf(path, st);
  if (w->now_ns - std::max(s.mtime_ns, s.ctime_ns) < kRacyNs) w->out->racy = true;
  w->out->stamps.push_back(std::move(s));
}

struct DirCloser {
  void operator()(DIR* d) const { closedir(d); }
};

// Reads the directory open as `fd` (taken over) at `path`, `depth` levels below a place.
void WalkDir(int fd, const std::string& path, int depth, int max_depth, Walk* w) {
  Note(w, path, fd);
  std::unique_ptr<DIR, DirCloser> dir(fdopendir(fd));
  if (!dir) {
    close(fd);
    return;
  }
  while (dirent* e = readdir(dir.get())) {
    std::string_view name(e->d_name);
    if (name == "." || name == "..") continue;
    if (w->budget == 0) {
      w->out->truncated = true;
      return;
    }
    --w->budget;
    unsigned char type = e->d_type;
    if (type == DT_UNKNOWN) {
      // Some file systems do not fill d_type: ask, without following a link.
      struct stat st;
      if (fstatat(dirfd(dir.get()), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
      type = S_ISSOCK(st.st_mode) ? DT_SOCK : S_ISDIR(st.st_mode) ? DT_DIR : DT_REG;
    }
    std::string child = path + (path == "/" ? "" : "/") + std::string(name);
    if (type == DT_SOCK) {
      w->out->sockets.push_back(child);
    } else if (type == DT_DIR && depth + 1 < max_depth) {
      int sub = openat(dirfd(dir.get()), e->d_name,
                       O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
      if (sub >= 0) WalkDir(sub, child, depth + 1, max_depth, w);
      if (w->out->truncated) return;
    }
  }
}

}  // namespace

std::vector<SocketPlace> HostSocketPlaces(const std::string& home) {
  std::vector<SocketPlace> places = {{"/run", 64}, {"/tmp", 2}, {"/var/tmp", 2}, {"/dev/shm", 2}};
  if (const char* t = std::getenv("TMPDIR"); t != nullptr && t[0] == '/') places.push_back({t, 2});
  if (!home.empty()) {
    for (const char* rel : {".docker", ".colima", ".lima", ".orbstack", ".rd", ".1password",
                            ".local/share/containers"}) {
      places.push_back({home + "/" + rel, 4});
    }
  }
  return places;
}

namespace {

int64_t NowNs() {
  timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  return t.tv_sec * 1'000'000'000LL + t.tv_nsec;
}

Seen Search(const std::vector<SocketPlace>& places, size_t max_entries) {
  Seen seen;
  Walk w{max_entries, &seen, NowNs()};
  std::vector<std::string> walked;
  for (const SocketPlace& place : places) {
    // A place is walked once, by its real path (TMPDIR is often /tmp; /var/run is /run).
    std::string real = util::RealPath(place.path);
    if (real.empty()) {
      // Not there: if it appears, the answer changes.
      Stamp missing;
      missing.path = place.path;
      missing.missing = true;
      seen.stamps.push_back(missing);
      continue;
    }
    if (std::find(walked.begin(), walked.end(), real) != walked.end()) continue;
    walked.push_back(real);
    // Missing, or not readable by this user: what cannot be listed cannot be masked (a socket
    // in a folder that others may enter but not list stays reachable to one who knows its name).
    int fd = open(real.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
      struct stat st;
      if (lstat(real.c_str(), &st) == 0) {
        seen.stamps.push_back(StampOf(real, st));
      } else {
        seen.racy = true;
      }
      continue;
    }
    WalkDir(fd, real, 0, place.max_depth, &w);
    if (seen.truncated) break;
  }
  std::sort(seen.sockets.begin(), seen.sockets.end());
  seen.sockets.erase(std::unique(seen.sockets.begin(), seen.sockets.end()), seen.sockets.end());
  return seen;
}

SocketScan Apply(const Seen& seen, const std::vector<std::string>& allowed) {
  std::vector<std::string> real_allowed;
  for (const std::string& a : allowed) {
    std::string r = util::RealPath(a);
    if (!r.empty()) real_allowed.push_back(r);
  }
  SocketScan scan;
  scan.truncated = seen.truncated;
  for (const std::string& s : seen.sockets) {
    bool ok = std::any_of(real_allowed.begin(), real_allowed.end(),
                          [&](const std::string& a) { return util::IsPathInside(s, a); });
    if (!ok) scan.sockets.push_back(s);
  }
  return scan;
}

// Whether every folder the last search saw is as it was.
bool Unchanged(const Seen& seen) {
  if (seen.racy || seen.truncated) return false;
  for (const Stamp& s : seen.stamps) {
    struct stat st;
    bool there = lstat(s.path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
    if (s.missing ? there : !there || !(StampOf(s.path, st) == s)) return false;
  }
  return true;
}

std::string KeyOf(const std::vector<SocketPlace>& places, size_t max_entries) {
  std::string key = "safesh-sockets 1 " + std::to_string(max_entries);
  for (const SocketPlace& p : places)
    key += " " + std::to_string(p.max_depth) + ":" + p.path;
  return key;
}

// The file: the key line, then one line per stamp ("D dev ino mtime ctime path", "M path")
// and per socket ("S path"). Paths with a newline are not saved (the search runs again).
bool Save(const std::string& file, const std::string& key, const Seen& seen) {
  std::string text = key + "\n";
  for (const Stamp& s : seen.stamps) {
    if (s.path.find('\n') != std::string::npos) return false;
    text += s.missing ? "M " + s.path + "\n"
                      : "D " + std::to_string(s.dev) + " " + std::to_string(s.ino) + " " +
                            std::to_string(s.mtime_ns) + " " + std::to_string(s.ctime_ns) + " " +
                            s.path + "\n";
  }
  for (const std::string& p : seen.sockets) {
    if (p.find('\n') != std::string::npos) return false;
    text += "S " + p + "\n";
  }
  text += "end\n";
  std::string tmp = file + ".tmp" + std::to_string(getpid());
  util::UniqueFd fd(open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd.valid()) return false;
  bool ok = write(fd.get(), text.data(), text.size()) == static_cast<ssize_t>(text.size());
  fd.Reset();
  if (!ok || rename(tmp.c_str(), file.c_str()) != 0) {
    unlink(tmp.c_str());
    return false;
  }
  return true;
}

bool Load(const std::string& file, const std::string& key, Seen* seen) {
  util::UniqueFd fd(open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  struct stat st;
  // Only this user's private regular file: anyone else's could hide a socket.
  if (!fd.valid() || fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
      (st.st_mode & 077) != 0 || st.st_size > (16 << 20)) {
    return false;
  }
  std::string text, ignored;
  if (!util::ReadToEnd(fd.get(), file, &text, &ignored)) return false;
  if (!text.starts_with(key + "\n") || !text.ends_with("\nend\n")) return false;
  Seen out;
  size_t pos = key.size() + 1;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    std::string line = text.substr(pos, end - pos);
    pos = end + 1;
    if (line == "end") break;
    if (line.starts_with("S /")) {
      out.sockets.push_back(line.substr(2));
    } else if (line.starts_with("M ")) {
      Stamp s;
      s.missing = true;
      s.path = line.substr(2);
      out.stamps.push_back(s);
    } else if (line.starts_with("D ")) {
      Stamp s;
      unsigned long long dev, ino;
      long long mt, ct;
      int used = 0;
      if (sscanf(line.c_str() + 2, "%llu %llu %lld %lld %n", &dev, &ino, &mt, &ct, &used) != 4 ||
          used <= 0 || line.size() <= static_cast<size_t>(2 + used) || line[2 + used] != '/') {
        return false;
      }
      s.dev = dev;
      s.ino = ino;
      s.mtime_ns = mt;
      s.ctime_ns = ct;
      s.path = line.substr(2 + static_cast<size_t>(used));
      out.stamps.push_back(s);
    } else {
      return false;
    }
  }
  *seen = std::move(out);
  return true;
}

}  // namespace

SocketScan FindHostSockets(const std::vector<SocketPlace>& places,
                           const std::vector<std::string>& allowed, size_t max_entries) {
  return Apply(Search(places, max_entries), allowed);
}

namespace {
std::mutex g_memory_mu;
std::map<std::string, Seen> g_memory;  // by key
}  // namespace

void ForgetHostSocketsInMemory() {
  std::lock_guard<std::mutex> lock(g_memory_mu);
  g_memory.clear();
}

SocketScan FindHostSocketsCached(const std::vector<SocketPlace>& places,
                                 const std::vector<std::string>& allowed,
                                 const std::string& cache_file, size_t max_entries) {
  std::lock_guard<std::mutex> lock(g_memory_mu);
  std::map<std::string, Seen>& memory = g_memory;
  std::string key = KeyOf(places, max_entries);
  if (memory.size() >= 8 && memory.find(key) == memory.end()) memory.clear();
  auto [it, added] = memory.try_emplace(key);
  Seen& seen = it->second;
  bool have = !added || (!cache_file.empty() && Load(cache_file, key, &seen));
  if (have && Unchanged(seen)) return Apply(seen, allowed);
  seen = Search(places, max_entries);
  // Not saving is not an error: the next run searches again.
  if (!cache_file.empty() && !seen.racy && !seen.truncated) Save(cache_file, key, seen);
  return Apply(seen, allowed);
}

}  // namespace safesh::sandbox
