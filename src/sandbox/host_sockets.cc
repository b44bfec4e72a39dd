#include "sandbox/host_sockets.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <memory>

#include "util/unique_fd.h"

namespace safesh::sandbox {
namespace {

std::string Real(const std::string& p) {
  char* r = realpath(p.c_str(), nullptr);
  if (r == nullptr) return "";
  std::string out(r);
  free(r);
  return out;
}

bool Inside(const std::string& path, const std::string& dir) {
  return path == dir || (path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 &&
                         (dir.back() == '/' || path[dir.size()] == '/'));
}

struct Walk {
  const std::vector<std::string>& allowed;
  size_t budget;
  SocketScan* out;
};

struct DirCloser {
  void operator()(DIR* d) const { closedir(d); }
};

// Reads the directory open as `fd` (taken over) at `path`, `depth` levels below a place.
void WalkDir(int fd, const std::string& path, int depth, int max_depth, Walk* w) {
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
      bool allowed = std::any_of(w->allowed.begin(), w->allowed.end(),
                                 [&](const std::string& a) { return Inside(child, a); });
      if (!allowed) w->out->sockets.push_back(child);
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

SocketScan FindHostSockets(const std::vector<SocketPlace>& places,
                           const std::vector<std::string>& allowed, size_t max_entries) {
  SocketScan scan;
  std::vector<std::string> real_allowed;
  for (const std::string& a : allowed) {
    std::string r = Real(a);
    if (!r.empty()) real_allowed.push_back(r);
  }
  Walk w{real_allowed, max_entries, &scan};
  std::vector<std::string> seen;
  for (const SocketPlace& place : places) {
    // A place is walked once, by its real path (TMPDIR is often /tmp; /var/run is /run).
    std::string real = Real(place.path);
    if (real.empty() || std::find(seen.begin(), seen.end(), real) != seen.end()) continue;
    seen.push_back(real);
    int fd = open(real.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK);
    // Missing, or not readable by this user: what cannot be listed cannot be masked (a socket
    // in a folder that others may enter but not list stays reachable to one who knows its name).
    if (fd < 0) continue;
    WalkDir(fd, real, 0, place.max_depth, &w);
    if (scan.truncated) break;
  }
  std::sort(scan.sockets.begin(), scan.sockets.end());
  scan.sockets.erase(std::unique(scan.sockets.begin(), scan.sockets.end()), scan.sockets.end());
  return scan;
}

}  // namespace safesh::sandbox
