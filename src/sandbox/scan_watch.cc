#include "sandbox/scan_watch.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <poll.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>

namespace safesh::sandbox {
namespace {

// On a directory the walk reads: every change to its list of entries (a create, a removal, a
// rename either way: what a new or vanished name, a directory replaced by a link, or a tree moved
// in or out looks like), its attributes (a chmod can make it, or what is below it, unreadable),
// and its own end (removed, moved; IN_UNMOUNT and IN_IGNORED come unasked). Links are not
// followed, only directories are watched, and entries already unlinked report nothing.
constexpr uint32_t kDirMask = IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_ATTRIB |
                              IN_DELETE_SELF | IN_MOVE_SELF | IN_DONT_FOLLOW | IN_ONLYDIR |
                              IN_EXCL_UNLINK;
// On a directory above a root: only what would make the root's path name another directory or
// none (it moved, was removed, or may no longer be searched). Added to whatever the directory is
// watched for already: it may be walked too (a root inside another root).
constexpr uint32_t kAboveMask =
    IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF | IN_DONT_FOLLOW | IN_ONLYDIR | IN_MASK_ADD;
constexpr uint32_t kEntryEvents = IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO;

// File systems on which every change is made by this kernel and so reported: local disks and
// memory. overlayfs reports what is changed through it (its layers may not be changed behind its
// back). Others (NFS, SMB, FUSE, 9p, ...) can change from elsewhere without an event: their
// directories are checked on every walk.
bool ReportsEveryChange(int64_t type) {
  switch (static_cast<uint32_t>(type)) {
    case EXT4_SUPER_MAGIC:  // also ext2 and ext3
    case XFS_SUPER_MAGIC:
    case BTRFS_SUPER_MAGIC:
    case F2FS_SUPER_MAGIC:
    case TMPFS_MAGIC:
    case RAMFS_MAGIC:
    case OVERLAYFS_SUPER_MAGIC:
    case 0xca451a4e:  // bcachefs
    case 0x2fc12fc1:  // ZFS
      return true;
    default:
      return false;
  }
}

std::string Errno(const std::string& what, int err) {
  return what + ": " + strerror(err);
}

int AddWatch(ScanWatch* w, const std::string& path, uint32_t mask) {
  if (w->test_watch_budget == 0) {
    errno = ENOSPC;
    return -1;
  }
  if (w->test_watch_budget > 0) w->test_watch_budget--;
  return inotify_add_watch(w->inotify.get(), path.c_str(), mask);
}

bool IsAboveRoots(const ScanWatch& w, int wd) {
  return std::find(w.above_roots.begin(), w.above_roots.end(), wd) != w.above_roots.end();
}

// Everything is dropped; the watches start again on a new descriptor (so no event of the old
// ones can be mistaken for one of the new), the directories above the roots first. The mount
// table is opened again before any directory is checked: a mount after that is reported by the
// next poll. False, with why, when watching cannot start.
bool Start(ScanWatch* w, const std::vector<std::string>& roots, std::string* why) {
  w->dirs_by_wd.clear();
  w->above_roots.clear();
  w->devices.clear();
  w->have_result = false;
  w->check_all = true;
  w->add_error = 0;
  w->inotify.Reset(inotify_init1(IN_NONBLOCK | IN_CLOEXEC));
  if (!w->inotify.valid()) {
    *why = Errno("inotify_init1", errno);
    return false;
  }
  w->mounts.Reset(open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC));
  if (!w->mounts.valid()) {
    *why = Errno("/proc/self/mountinfo", errno);
    return false;
  }
  for (const std::string& root : roots) {
    if (root.empty() || root[0] != '/') continue;  // not walked either
    std::string p = root;
    while (p != "/") {
      size_t slash = p.rfind('/');
      p = slash == 0 ? "/" : p.substr(0, slash);
      int wd = AddWatch(w, p, kAboveMask);
      if (wd < 0) {
        *why = Errno("cannot watch " + p, errno);
        return false;
      }
      if (!IsAboveRoots(*w, wd)) w->above_roots.push_back(wd);
    }
  }
  return true;
}

// Watching ends for good: the scans to come are walks without a watcher (which forget the
// watch descriptors left in the cache).
void GiveUp(ScanWatch* w, std::string why) {
  w->gave_up = true;
  w->why = std::move(why);
  w->last = ScanWatch::kUnwatched;
  w->inotify.Reset();
  w->mounts.Reset();
  w->dirs_by_wd.clear();
  w->above_roots.clear();
  w->have_result = false;
}

// What one event means for the cache. Empty, or why everything must be checked again.
std::string Apply(ScanWatch* w, BlockedScan* cache, const struct inotify_event& e, bool* changed) {
  if (e.mask & IN_Q_OVERFLOW) return "events were lost (the queue overflowed)";
  if (e.mask & IN_UNMOUNT) return "a watched file system was unmounted";
  bool self = e.len == 0 || e.name[0] == '\0';  // about the watched directory, not an entry
  if (self && IsAboveRoots(*w, e.wd)) return "a directory above a root changed";
  auto [begin, end] = w->dirs_by_wd.equal_range(e.wd);
  for (auto it = begin; it != end; ++it) {
    if (it->second >= cache->dirs.size()) return "an event for a directory the cache lacks";
    ScanDir& d = cache->dirs[it->second];
    if (self) {
      if (d.path.empty() && (e.mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED)))
        return "a root was moved or removed";
      // Its permissions, or itself moved or removed: what is below it may have changed too.
      d.wd = -1;
      d.check_below = true;
      *changed = true;
    } else if (e.mask & kEntryEvents) {
      d.wd = -1;
      d.check_children = true;
      *changed = true;
    }
    // An entry's attributes (IN_ATTRIB with a name): a file's change nothing the walk sees, and
    // a subdirectory it enters reports its own, or has no watch and is checked on every walk.
  }
  // No directory of ours: the last events of a watch removed after the last walk.
  return "";
}

// Reads the mount table's state and every queued event, without waiting. Empty, or why
// everything must be checked again.
std::string Drain(ScanWatch* w, BlockedScan* cache, bool* changed) {
  struct pollfd fds[2] = {{w->inotify.get(), POLLIN, 0}, {w->mounts.get(), POLLPRI, 0}};
  int ready;
  do {
    ready = poll(fds, 2, 0);
  } while (ready < 0 && errno == EINTR);
  if (ready < 0) return Errno("poll", errno);
  // mountinfo reports POLLPRI (and POLLERR) once per change of the mount table after the
  // previous poll: a mount over a watched directory makes no inotify event.
  if (fds[1].revents != 0) return "the mount table changed";
  if (fds[0].revents & (POLLERR | POLLHUP | POLLNVAL)) return "the inotify descriptor failed";
  if (!(fds[0].revents & POLLIN)) return "";
  alignas(struct inotify_event) char buffer[64 * 1024];
  for (;;) {
    ssize_t n = read(w->inotify.get(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return "";
    if (n <= 0) return n == 0 ? "inotify read nothing" : Errno("inotify read", errno);
    for (ssize_t off = 0; off < n;) {
      auto* e = reinterpret_cast<struct inotify_event*>(buffer + off);
      if (n - off < static_cast<ssize_t>(sizeof *e) ||
          n - off < static_cast<ssize_t>(sizeof *e + e->len))
        return "a truncated inotify event";
      off += static_cast<ssize_t>(sizeof *e + e->len);
      std::string why = Apply(w, cache, *e, changed);
      if (!why.empty()) return why;
    }
  }
}

// After a walk: which watch stands for which directory now. Watches of directories the walk no
// longer reached are removed (their events would only be read and dropped, and the kernel counts
// them against the user's limit).
void Index(ScanWatch* w, const BlockedScan& cache) {
  std::unordered_multimap<int, uint32_t> old;
  old.swap(w->dirs_by_wd);
  w->dirs_by_wd.reserve(cache.dirs.size());
  w->unwatched = 0;
  for (size_t i = 0; i < cache.dirs.size(); ++i) {
    if (cache.dirs[i].wd >= 0) {
      w->dirs_by_wd.emplace(cache.dirs[i].wd, static_cast<uint32_t>(i));
    } else {
      w->unwatched++;
    }
  }
  int last = -1;
  for (const auto& entry : old) {
    int wd = entry.first;  // (a multimap keeps equal keys together)
    if (wd == last || w->dirs_by_wd.contains(wd) || IsAboveRoots(*w, wd)) continue;
    last = wd;
    // EINVAL: removed already, with its directory.
    if (inotify_rm_watch(w->inotify.get(), wd) != 0 && errno != EINVAL)
      w->pending_reset = Errno("inotify_rm_watch", errno);
  }
}

}  // namespace

ScanResult WatchedScan(ScanWatch* w, BlockedScan* cache, const std::vector<std::string>& roots,
                       const std::vector<std::string>& patterns, const ScanLimits& limits,
                       const ScanCancel& cancel) {
  if (w->gave_up) {
    w->last = ScanWatch::kUnwatched;
    return Scan(cache, roots, patterns, limits, cancel);
  }
  std::string reset;
  if (!w->inotify.valid()) {
    reset = "the first scan";
  } else if (w->roots != roots || w->patterns != patterns || !(w->limits == limits)) {
    reset = "other roots, patterns or limits";
  } else if (cache->walks != w->walks) {
    reset = "the cache was walked without the watcher";
  } else if (!w->pending_reset.empty()) {
    reset = std::move(w->pending_reset);
  } else {
    bool changed = false;
    reset = Drain(w, cache, &changed);
    if (reset.empty() && !changed && !w->check_all && w->have_result && w->unwatched == 0) {
      // Nothing the walk would see has changed since the last scan.
      w->last = ScanWatch::kUnchanged;
      return w->result;
    }
  }
  w->pending_reset.clear();
  if (!reset.empty()) {
    std::string why;
    if (!Start(w, roots, &why)) {
      GiveUp(w, why);
      return Scan(cache, roots, patterns, limits, cancel);
    }
    w->roots = roots;
    w->patterns = patterns;
    w->limits = limits;
    w->why = std::move(reset);
  }
  w->last = w->check_all ? ScanWatch::kReset : ScanWatch::kWalked;

  ScanWatchHooks hooks;
  hooks.trust = !w->check_all;
  hooks.watch = [w](const std::string& path) {
    if (w->add_error != 0) return -1;
    int wd = AddWatch(w, path, kDirMask);
    if (wd >= 0) return wd;
    switch (errno) {
      case EACCES:   // it may not be read: it is hidden whole, and checked every walk
      case ENOENT:   // gone,
      case ENOTDIR:  // or a link or a file now: the lstat after this sees it
      case ELOOP:
      case ENAMETOOLONG:  // too deep for a path: checked every walk
        return -1;
      default:  // ENOSPC (fs.inotify.max_user_watches), ENOMEM, anything unexpected
        w->add_error = errno;
        return -1;
    }
  };
  hooks.reports_changes = [w](uint64_t dev, const std::string& path) {
    for (const auto& [known, reports] : w->devices) {
      if (known == dev) return reports;
    }
    struct statfs s;
    bool reports = statfs(path.c_str(), &s) == 0 && ReportsEveryChange(s.f_type);
    w->devices.emplace_back(dev, reports);
    return reports;
  };
  ScanResult r = Scan(cache, roots, patterns, limits, cancel, &hooks);
  w->walks = cache->walks;
  if (w->add_error != 0) {
    // The walk still checked every directory it could not watch: its answer is right.
    GiveUp(w, Errno("cannot watch more directories", w->add_error));
    return r;
  }
  Index(w, *cache);
  // A cancelled walk left directories unchecked, some with a watch of the old descriptor; so
  // did one that found the tree changing under it.
  bool incomplete = r.cancelled || r.changed;
  w->check_all = incomplete;
  w->have_result = !incomplete;
  if (!incomplete) w->result = r;
  return r;
}

}  // namespace safesh::sandbox
