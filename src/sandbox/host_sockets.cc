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

// A folder's one stat, which a listing is reused on: a socket made, removed or renamed in the
// folder changes its mtime and ctime; the folder replaced or mounted over changes its device
// or inode.
struct Stamp {
  uint64_t dev = 0, ino = 0;
  int64_t mtime_ns = 0, ctime_ns = 0;
  bool operator==(const Stamp&) const = default;
};

Stamp StampOf(const struct stat& st) {
  return {static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino),
          st.st_mtim.tv_sec * 1'000'000'000LL + st.st_mtim.tv_nsec,
          st.st_ctim.tv_sec * 1'000'000'000LL + st.st_ctim.tv_nsec};
}

// One folder as the search listed it.
struct Dir {
  std::string path;
  int levels = 0;  // how deep it is read: 1, its entries only; 2, its subfolders' too; ...
  Stamp stamp;     // from the open folder, before it was listed
  // Changed within 2 s of being listed: file systems keep coarse times (a tick of the clock,
  // or 2 s on FAT), so a later change could leave the same stamp. Listed again next time.
  bool racy = false;
  size_t entries = 0;                // counted against the entry limit
  std::vector<std::string> sockets;  // full paths
  std::vector<std::string> subdirs;  // full paths, each a Dir one level less deep
};

// What one search saw, keyed by path and levels (a folder can be reached from two places:
// $TMPDIR inside /tmp).
struct Seen {
  std::map<std::pair<std::string, int>, Dir> dirs;
  bool truncated = false;
};

}  // namespace

struct SocketListings {
  Seen seen;
};

namespace {

constexpr int64_t kRacyNs = 2'000'000'000;

struct DirCloser {
  void operator()(DIR* d) const { closedir(d); }
};

struct Search {
  const Seen* before;  // the last search's folders, or null
  size_t budget;
  int64_t now_ns;
  Seen out;
  size_t listed = 0;  // folders read this time (the rest were reused)

  // The folder at `path`, read `levels` deep. A place itself is opened through its real path;
  // below it nothing is followed: a link to a folder is not a folder here.
  void Visit(const std::string& path, int levels, bool place) {
    if (out.truncated || levels <= 0) return;
    std::pair<std::string, int> key{path, levels};
    if (out.dirs.count(key) != 0) return;  // reached twice in this search
    struct stat st;
    if (lstat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return;
    if (before != nullptr) {
      auto it = before->dirs.find(key);
      if (it != before->dirs.end() && !it->second.racy && it->second.stamp == StampOf(st)) {
        if (it->second.entries > budget) {
          out.truncated = true;
          return;
        }
        budget -= it->second.entries;
        const Dir& dir = out.dirs.emplace(key, it->second).first->second;
        for (const std::string& sub : dir.subdirs)
          Visit(sub, levels - 1, false);
        return;
      }
    }
    Dir& dir = out.dirs.emplace(key, Dir{}).first->second;
    dir.path = path;
    dir.levels = levels;
    ++listed;
    List(&dir, place);
    // `dir` stays valid: std::map does not move its elements.
    for (const std::string& sub : dir.subdirs)
      Visit(sub, levels - 1, false);
  }

  // Changed within 2 s of now: see Dir::racy.
  bool Racy(const Stamp& s) const { return now_ns - std::max(s.mtime_ns, s.ctime_ns) < kRacyNs; }

  void List(Dir* dir, bool place) {
    int flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK | (place ? 0 : O_NOFOLLOW);
    int fd = open(dir->path.c_str(), flags);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
      // Not readable by this user (or gone): what cannot be listed cannot be masked (a socket
      // in a folder that others may enter but not list stays reachable to one who knows its
      // name). Its stamp, from the path, says when to try again; no stamp, every time.
      if (fd >= 0) close(fd);
      if (lstat(dir->path.c_str(), &st) == 0) {
        dir->stamp = StampOf(st);
        dir->racy = Racy(dir->stamp);
      } else {
        dir->racy = true;
      }
      return;
    }
    dir->stamp = StampOf(st);
    dir->racy = Racy(dir->stamp);
    std::unique_ptr<DIR, DirCloser> d(fdopendir(fd));
    if (!d) {
      close(fd);
      dir->racy = true;
      return;
    }
    while (dirent* e = readdir(d.get())) {
      std::string_view name(e->d_name);
      if (name == "." || name == "..") continue;
      if (budget == 0) {
        out.truncated = true;
        return;
      }
      --budget;
      ++dir->entries;
      unsigned char type = e->d_type;
      if (type == DT_UNKNOWN) {
        // Some file systems do not fill d_type: ask, without following a link.
        if (fstatat(dirfd(d.get()), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
        type = S_ISSOCK(st.st_mode) ? DT_SOCK : S_ISDIR(st.st_mode) ? DT_DIR : DT_REG;
      }
      std::string child = dir->path + (dir->path == "/" ? "" : "/") + std::string(name);
      if (type == DT_SOCK) {
        dir->sockets.push_back(std::move(child));
      } else if (type == DT_DIR && dir->levels > 1) {
        dir->subdirs.push_back(std::move(child));
      }
    }
  }
};

int64_t NowNs() {
  timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  return t.tv_sec * 1'000'000'000LL + t.tv_nsec;
}

// Searches `places`, listing again only the folders that changed since `before` (null: all).
Search Run(const std::vector<SocketPlace>& places, size_t max_entries, const Seen* before) {
  Search search{before, max_entries, NowNs(), {}};
  std::vector<std::string> walked;
  for (const SocketPlace& place : places) {
    // A place is walked once, by its real path (TMPDIR is often /tmp; /var/run is /run). One
    // that is missing is looked for again next time.
    std::string real = util::RealPath(place.path);
    if (real.empty() || std::find(walked.begin(), walked.end(), real) != walked.end()) continue;
    walked.push_back(real);
    search.Visit(real, place.max_depth, true);
    if (search.out.truncated) break;
  }
  return search;
}

SocketScan Apply(const Seen& seen, const std::vector<std::string>& allowed, size_t listed) {
  std::vector<std::string> real_allowed;
  for (const std::string& a : allowed) {
    std::string r = util::RealPath(a);
    if (!r.empty()) real_allowed.push_back(r);
  }
  std::vector<std::string> sockets;
  for (const auto& [key, dir] : seen.dirs)
    sockets.insert(sockets.end(), dir.sockets.begin(), dir.sockets.end());
  std::sort(sockets.begin(), sockets.end());
  sockets.erase(std::unique(sockets.begin(), sockets.end()), sockets.end());
  SocketScan scan;
  scan.truncated = seen.truncated;
  scan.folders_listed = listed;
  for (std::string& s : sockets) {
    bool ok = std::any_of(real_allowed.begin(), real_allowed.end(),
                          [&](const std::string& a) { return util::IsPathInside(s, a); });
    if (!ok) scan.sockets.push_back(std::move(s));
  }
  return scan;
}

std::string KeyOf(const std::vector<SocketPlace>& places, size_t max_entries) {
  std::string key = "safesh-sockets 2 " + std::to_string(max_entries);
  for (const SocketPlace& p : places)
    key += " " + std::to_string(p.max_depth) + ":" + p.path;
  return key;
}

// The file: the key line; per folder "D dev ino mtime ctime levels racy entries path", then
// its sockets ("S path") and subfolders ("C path"); "end". Paths with a newline are not saved
// (the next run lists everything again).
bool Save(const std::string& file, const std::string& key, const Seen& seen) {
  std::string text = key + "\n";
  for (const auto& [k, dir] : seen.dirs) {
    if (dir.path.find('\n') != std::string::npos) return false;
    text += "D " + std::to_string(dir.stamp.dev) + " " + std::to_string(dir.stamp.ino) + " " +
            std::to_string(dir.stamp.mtime_ns) + " " + std::to_string(dir.stamp.ctime_ns) + " " +
            std::to_string(dir.levels) + " " + (dir.racy ? "1" : "0") + " " +
            std::to_string(dir.entries) + " " + dir.path + "\n";
    for (const std::string& p : dir.sockets) {
      if (p.find('\n') != std::string::npos) return false;
      text += "S " + p + "\n";
    }
    for (const std::string& p : dir.subdirs) {
      if (p.find('\n') != std::string::npos) return false;
      text += "C " + p + "\n";
    }
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
  Dir* dir = nullptr;
  size_t pos = key.size() + 1;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    std::string line = text.substr(pos, end - pos);
    pos = end + 1;
    if (line == "end") break;
    if (line.starts_with("D ")) {
      unsigned long long dev, ino, entries;
      long long mt, ct;
      int levels, racy, used = 0;
      if (sscanf(line.c_str() + 2, "%llu %llu %lld %lld %d %d %llu %n", &dev, &ino, &mt, &ct,
                 &levels, &racy, &entries, &used) != 7 ||
          used <= 0 || line.size() <= static_cast<size_t>(2 + used) || line[2 + used] != '/' ||
          levels <= 0 || (racy != 0 && racy != 1)) {
        return false;
      }
      Dir d;
      d.path = line.substr(2 + static_cast<size_t>(used));
      d.levels = levels;
      d.stamp = {dev, ino, mt, ct};
      d.racy = racy == 1;
      d.entries = entries;
      auto [it, added] = out.dirs.emplace(std::make_pair(d.path, levels), std::move(d));
      if (!added) return false;
      dir = &it->second;
    } else if (dir != nullptr && line.starts_with("S /")) {
      dir->sockets.push_back(line.substr(2));
    } else if (dir != nullptr && line.starts_with("C /")) {
      dir->subdirs.push_back(line.substr(2));
    } else {
      return false;
    }
  }
  *seen = std::move(out);
  return true;
}

}  // namespace

std::vector<SocketPlace> HostSocketPlaces(const std::string& home) {
  // Not /tmp, /var/tmp or /dev/shm: the sandbox has its own (private_tmp.h), so the host's
  // sockets there are out of sight already. $TMPDIR only where it lies elsewhere.
  std::vector<SocketPlace> places = {{"/run", 64}};
  if (const char* t = std::getenv("TMPDIR"); t != nullptr && t[0] == '/') {
    std::string r = util::RealPath(t);
    if (!r.empty() && !util::IsPathInside(r, "/tmp") && !util::IsPathInside(r, "/var/tmp") &&
        !util::IsPathInside(r, "/dev/shm"))
      places.push_back({r, 2});
  }
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
  Search search = Run(places, max_entries, nullptr);
  return Apply(search.out, allowed, search.listed);
}

SocketScan FindHostSocketsCached(HostSocketMemory* memory, const std::vector<SocketPlace>& places,
                                 const std::vector<std::string>& allowed,
                                 const std::string& cache_file, size_t max_entries) {
  HostSocketMemory none;
  if (memory == nullptr) memory = &none;
  std::lock_guard<std::mutex> lock(memory->mu);
  std::string key = KeyOf(places, max_entries);
  auto& by_places = memory->by_places;
  if (by_places.size() >= 8 && by_places.find(key) == by_places.end()) by_places.clear();
  auto [it, added] = by_places.try_emplace(key);
  if (added) it->second = std::make_shared<SocketListings>();
  Seen& seen = it->second->seen;
  bool have = !added || (!cache_file.empty() && Load(cache_file, key, &seen));
  Search search = Run(places, max_entries, have ? &seen : nullptr);
  // The file is written when a folder was listed or one went away. Not saving is not an
  // error: the next run lists those folders again. A search that stopped at its limit is
  // never reused.
  bool changed = search.listed > 0 || search.out.dirs.size() != seen.dirs.size();
  if (search.out.truncated) {
    by_places.erase(it);
    return Apply(search.out, allowed, search.listed);
  }
  if (changed && !cache_file.empty()) Save(cache_file, key, search.out);
  seen = std::move(search.out);
  return Apply(seen, allowed, search.listed);
}

}  // namespace safesh::sandbox
