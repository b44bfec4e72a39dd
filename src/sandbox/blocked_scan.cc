#include "sandbox/blocked_scan.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>

#include <algorithm>
#include <cstring>
#include <string_view>
#include <unordered_map>

#include "sandbox/blocked_names.h"
#include "util/unique_fd.h"

namespace safesh::sandbox {
namespace {

// The cancel callback is asked each time the entry count passes a multiple of this.
constexpr size_t kCancelEvery = 256;

bool IsSkippedName(std::string_view name) {
  return name == ".git" || name == "node_modules" || name == "vendor" || name == "target" ||
         name == "__pycache__";
}

int64_t Ns(const struct timespec& t) {
  return int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec;
}

ScanDirKey KeyOf(const struct stat& st) {
  ScanDirKey k;
  k.dev = st.st_dev;
  k.ino = st.st_ino;
  k.size = st.st_size;
  k.mtime_ns = Ns(st.st_mtim);
  k.ctime_ns = Ns(st.st_ctim);
  return k;
}

// `candidate` == `parent` + "/" + `name` (or `name` when `parent` is empty), without building it.
bool IsChildPath(const std::string& candidate, const std::string& parent, std::string_view name) {
  if (parent.empty()) return candidate == name;
  return candidate.size() == parent.size() + 1 + name.size() &&
         candidate.compare(0, parent.size(), parent) == 0 && candidate[parent.size()] == '/' &&
         std::string_view(candidate).substr(parent.size() + 1) == name;
}

std::string ChildPath(const std::string& parent, std::string_view name) {
  std::string out;
  out.reserve(parent.size() + 1 + name.size());
  out += parent;
  if (!parent.empty()) out += '/';
  out += name;
  return out;
}

// One walk over the roots: the state shared by its steps.
struct Walk {
  const std::vector<std::string>* roots = nullptr;
  const NameMatcher* matcher = nullptr;
  ScanLimits limits;
  const ScanCancel* cancel = nullptr;
  ScanResult* result = nullptr;
  int64_t now_ns = 0;  // when the walk started (realtime)
  // A directory changed less than this before it was read may change again within the same
  // timestamp tick (FAT's is 2 s; ext3's 1 s; others' a clock tick of a few ms).
  int64_t racy_window_ns = 0;
  std::vector<util::UniqueFd> root_fds;          // O_PATH; invalid for a root that cannot be used
  std::vector<std::vector<std::string>> nested;  // per root: other roots inside it (relative)
  char* buffer = nullptr;                        // for getdents64
  size_t buffer_size = 0;
  size_t next_check = kCancelEvery;
  bool stop = false;
  bool dirty = false;
  // The previous walk's directories, taken over in the new order; `cursor` is where the new
  // walk is expected to be in the old one when nothing changed.
  std::vector<ScanDir>* old = nullptr;
  size_t cursor = 0;
  bool indexed = false;
  std::unordered_map<std::string, size_t> index;  // root:path -> position in old (on a miss)
  std::vector<ScanDir>* next = nullptr;
  const ScanWatchHooks* hooks = nullptr;  // a watcher's, or null
};

std::string IndexKey(uint32_t root, const std::string& path) {
  return std::to_string(root) + ":" + path;
}

std::string Absolute(const Walk& w, uint32_t root, const std::string& rel) {
  const std::string& r = (*w.roots)[root];
  if (rel.empty()) return r;
  return r == "/" ? "/" + rel : r + "/" + rel;
}

void Count(Walk* w, size_t n) {
  w->result->entries += n;
  if (w->result->entries < w->next_check) return;
  w->next_check = (w->result->entries / kCancelEvery + 1) * kCancelEvery;
  if (*w->cancel && (*w->cancel)()) {
    w->result->cancelled = true;
    w->stop = true;
  }
}

// A folder below a root that its parent's listing in this walk showed as a folder, and that is
// gone or is no longer one: the tree changed during the scan (ScanResult::changed).
void NoteChanged(Walk* w, const ScanDir& d) {
  if (d.depth == 0 || w->result->changed) return;
  w->result->changed = true;
  w->result->changed_path = Absolute(*w, d.root, d.path);
}

// A directory that could not be opened or listed (`err`): gone when it is no longer there or
// no longer a directory; otherwise hidden whole (fail closed: its names cannot be checked), and
// read again next time unless the refusal is its permissions (EACCES), which only a change to it
// can lift.
void MarkUnreadable(Walk* w, ScanDir* d, int err) {
  if (err == ENOENT || err == ENOTDIR || err == ELOOP) {
    d->state = ScanDir::kGone;
    NoteChanged(w, *d);
    return;
  }
  d->state = ScanDir::kUnreadable;
  if (err != EACCES) d->racy = true;
}

// Reads directory `d` afresh: at most `budget` + 1 entries (one more than may be counted shows
// that the limit was reached), matching each name and noting the subdirectories to enter.
void ReadDir(Walk* w, ScanDir* d, size_t budget) {
  w->dirty = true;
  d->items.clear();
  d->names.clear();
  d->entries = 0;
  d->racy = w->now_ns - std::max(d->key.mtime_ns, d->key.ctime_ns) < w->racy_window_ns;
  util::UniqueFd fd(openat(w->root_fds[d->root].get(), d->path.empty() ? "." : d->path.c_str(),
                           O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) {
    MarkUnreadable(w, d, errno);
    return;
  }
  d->state = ScanDir::kRead;
  const std::vector<std::string>& nested = w->nested[d->root];
  bool last_level = d->depth + 1 >= static_cast<uint32_t>(w->limits.max_depth);
  for (;;) {
    ssize_t n = getdents64(fd.get(), w->buffer, w->buffer_size);
    if (n == 0) return;
    if (n < 0) {
      // Part of the listing is missing (EIO ...): what it holds cannot be checked.
      int err = errno;
      d->items.clear();
      d->names.clear();
      d->entries = 0;
      MarkUnreadable(w, d, err == ENOENT ? EIO : err);  // (removed while read: read again)
      return;
    }
    for (ssize_t off = 0; off < n;) {
      auto* e = reinterpret_cast<struct dirent64*>(w->buffer + off);
      off += e->d_reclen;
      std::string_view name(e->d_name);
      if (name == "." || name == "..") continue;
      if (d->entries == budget) {
        // One past the limit: the walk stops here, and this entry is not looked at.
        d->entries++;
        d->state = ScanDir::kPartial;
        return;
      }
      uint32_t index = d->entries++;
      unsigned char type = e->d_type;
      if (type == DT_UNKNOWN) {
        struct stat st;
        type = fstatat(fd.get(), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ? DT_REG
               : S_ISDIR(st.st_mode)                                       ? DT_DIR
               : S_ISLNK(st.st_mode)                                       ? DT_LNK
                                                                           : DT_REG;
      }
      ScanItem item;
      item.kind = type == DT_DIR   ? ScanItem::kDir
                  : type == DT_LNK ? ScanItem::kLink
                                   : ScanItem::kFile;
      item.matched = w->matcher->Matches(name);
      item.descend =
          item.kind == ScanItem::kDir && !item.matched && !last_level && !IsSkippedName(name);
      if (item.descend && !nested.empty() &&
          std::find(nested.begin(), nested.end(), ChildPath(d->path, name)) != nested.end()) {
        item.descend = false;  // another root: walked as that root
      }
      item.repo = !item.matched && name == ".git";
      if (!item.matched && !item.descend && !item.repo) continue;
      item.index = index;
      item.name_offset = static_cast<uint32_t>(d->names.size());
      item.name_size = static_cast<uint32_t>(name.size());
      d->names.append(name);
      d->items.push_back(item);
    }
  }
}

// Brings directory `d` up to date: its one lstat, and a fresh read when it changed.
void Refresh(Walk* w, ScanDir* d, size_t budget) {
  struct stat st;
  const util::UniqueFd& root_fd = w->root_fds[d->root];
  bool found = root_fd.valid() && fstatat(root_fd.get(), d->path.empty() ? "." : d->path.c_str(),
                                          &st, AT_SYMLINK_NOFOLLOW) == 0;
  if (!found && root_fd.valid() && errno != ENOENT && errno != ENOTDIR && errno != ELOOP) {
    // There, but its stat was refused (a parent that may be listed but not searched): hidden
    // whole, and looked at again next time.
    int err = errno;
    w->dirty = true;
    d->key = ScanDirKey();
    d->entries = 0;
    d->items.clear();
    d->names.clear();
    MarkUnreadable(w, d, err == EACCES ? EIO : err);
    return;
  }
  if (!found || !S_ISDIR(st.st_mode)) {
    NoteChanged(w, *d);
    if (d->state != ScanDir::kGone) w->dirty = true;
    d->state = ScanDir::kGone;
    d->key = ScanDirKey();
    d->entries = 0;
    d->items.clear();
    d->names.clear();
    return;
  }
  ScanDirKey key = KeyOf(st);
  bool reusable =
      key == d->key && !d->racy && (d->state == ScanDir::kRead || d->state == ScanDir::kUnreadable);
  if (reusable) return;
  d->key = key;
  ReadDir(w, d, budget);
}

// Puts the directory `name` of `parent` (or a root, when `parent` is null) at the end of the
// new walk order: the old walk's record when there is one, else a new, unread one.
void Enqueue(Walk* w, uint32_t root, uint32_t depth, const std::string* parent,
             std::string_view name) {
  std::vector<ScanDir>& old = *w->old;
  static const std::string kEmpty;
  const std::string& base = parent != nullptr ? *parent : kEmpty;
  auto same = [&](const ScanDir& o) {
    return o.state != ScanDir::kTaken && o.root == root &&
           (parent == nullptr ? o.path.empty() : IsChildPath(o.path, base, name));
  };
  size_t found = old.size();
  if (w->cursor < old.size() && same(old[w->cursor])) {
    found = w->cursor;
  } else {
    // Something changed: look the path up among the old records not taken yet.
    if (!w->indexed) {
      for (size_t i = w->cursor; i < old.size(); ++i) {
        if (old[i].state != ScanDir::kTaken)
          w->index.emplace(IndexKey(old[i].root, old[i].path), i);
      }
      w->indexed = true;
    }
    auto it = w->index.find(IndexKey(root, parent != nullptr ? ChildPath(base, name) : ""));
    if (it != w->index.end() && same(old[it->second])) found = it->second;
    w->dirty = true;
  }
  if (found < old.size()) {
    w->next->push_back(std::move(old[found]));
    old[found].state = ScanDir::kTaken;
    w->cursor = found + 1;
    return;
  }
  ScanDir d;
  d.root = root;
  d.depth = depth;
  if (parent != nullptr) d.path = ChildPath(base, name);
  w->next->push_back(std::move(d));
}

// Brings directory `d` up to date with a watcher's help (ScanWatchHooks): trusted as it is, or
// watched, then checked.
void WatchAndRefresh(Walk* w, ScanDir* d, size_t budget) {
  const ScanWatchHooks& h = *w->hooks;
  if (h.trust && d->wd >= 0 && d->state == ScanDir::kRead && !d->check_below) return;
  std::string path = Absolute(*w, d->root, d->path);
  // The watch first: a change after it is reported, one before it shows in the lstat below.
  d->wd = h.watch(path);
  ScanDirKey was = d->key;
  Refresh(w, d, budget);
  // Another directory now stands here: what is cached below it was read in the old one.
  if (d->key.dev != was.dev || d->key.ino != was.ino) d->check_below = true;
  if (d->wd >= 0 && d->state == ScanDir::kRead && !h.reports_changes(d->key.dev, path)) d->wd = -1;
}

// The directory at w->next[i]: brought up to date, its entries counted, its matches reported,
// its subdirectories queued (and, with a watcher, told to be checked when it says so).
void Visit(Walk* w, size_t i) {
  size_t budget = w->limits.max_entries - w->result->entries;
  ScanDir* visited = &(*w->next)[i];
  if (w->hooks != nullptr) {
    WatchAndRefresh(w, visited, budget);
  } else {
    visited->wd = -1;
    visited->check_children = visited->check_below = false;
    Refresh(w, visited, budget);
  }
  std::vector<ScanDir>& next = *w->next;
  // Room for every subdirectory first, so that `d` stays where it is while they are added.
  size_t need = next.size() + next[i].items.size();
  if (need > next.capacity()) next.reserve(std::max(need, next.capacity() * 2));
  ScanDir& d = next[i];
  bool check_children = d.check_children || d.check_below;
  d.check_children = false;
  if (d.state == ScanDir::kUnreadable) {
    d.check_below = false;
    w->result->dirs.push_back(Absolute(*w, d.root, d.path));
    return;
  }
  size_t take = std::min<size_t>(d.entries, budget);
  for (const ScanItem& item : d.items) {
    if (item.index >= take) break;
    std::string_view name(d.names.data() + item.name_offset, item.name_size);
    if (item.matched) {
      std::string path = Absolute(*w, d.root, ChildPath(d.path, name));
      (item.kind == ScanItem::kDir ? w->result->dirs : w->result->files).push_back(path);
    }
    if (item.repo) w->result->repos.push_back(Absolute(*w, d.root, ChildPath(d.path, name)));
    if (!item.descend) continue;
    Enqueue(w, d.root, d.depth + 1, &d.path, name);
    if (check_children) {
      ScanDir& child = next.back();
      child.wd = -1;
      child.check_below = child.check_below || d.check_below;
    }
  }
  d.check_below = false;
  if (d.entries > budget) {
    w->result->truncated = true;
    w->stop = true;
  }
  Count(w, take);
}

}  // namespace

ScanResult Scan(BlockedScan* cache, const std::vector<std::string>& roots,
                const std::vector<std::string>& patterns, const ScanLimits& limits,
                const ScanCancel& cancel) {
  return Scan(cache, roots, patterns, limits, cancel, nullptr);
}

ScanResult Scan(BlockedScan* cache, const std::vector<std::string>& roots,
                const std::vector<std::string>& patterns, const ScanLimits& limits,
                const ScanCancel& cancel, const ScanWatchHooks* hooks) {
  ScanResult result;
  cache->walks++;
  if (cache->roots != roots || cache->patterns != patterns || !(cache->limits == limits)) {
    cache->roots = roots;
    cache->patterns = patterns;
    cache->limits = limits;
    cache->dirs.clear();
    cache->dirty = true;
  }
  NameMatcher matcher(patterns);
  Walk w;
  w.roots = &cache->roots;
  w.matcher = &matcher;
  w.limits = limits;
  // Entry counts are kept in 32 bits.
  w.limits.max_entries = std::min<size_t>(limits.max_entries, UINT32_MAX - 1);
  w.cancel = &cancel;
  w.result = &result;
  w.hooks = hooks;
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  w.now_ns = Ns(now);
  w.racy_window_ns = cache->racy_window_ns;
  alignas(struct dirent64) char buffer[32 * 1024];
  w.buffer = buffer;
  w.buffer_size = sizeof buffer;
  w.nested.resize(roots.size());
  std::vector<bool> walked(roots.size(), false);  // false: a duplicate, or not usable
  for (size_t r = 0; r < roots.size(); ++r) {
    const std::string& root = roots[r];
    bool duplicate = std::find(roots.begin(), roots.begin() + r, root) != roots.begin() + r;
    if (duplicate || root.empty() || root[0] != '/') {
      w.root_fds.emplace_back();
      continue;
    }
    w.root_fds.emplace_back(open(root.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    walked[r] = true;
    for (const std::string& other : roots) {
      std::string prefix = root == "/" ? "/" : root + "/";
      if (other.size() > prefix.size() && other.starts_with(prefix))
        w.nested[r].push_back(other.substr(prefix.size()));
    }
  }

  // The new walk order is built in the spare vector of the last walk, to reuse its memory.
  std::vector<ScanDir> next = std::move(cache->spare);
  next.clear();
  next.reserve(cache->dirs.size() + roots.size() + 16);
  w.old = &cache->dirs;
  w.next = &next;
  if (limits.max_depth > 0) {
    for (size_t r = 0; r < roots.size(); ++r) {
      if (walked[r]) Enqueue(&w, static_cast<uint32_t>(r), 0, nullptr, "");
    }
  }
  for (size_t i = 0; i < next.size() && !w.stop; ++i)
    Visit(&w, i);

  // What stays cached: every record in the new order but those never read; after a cancelled
  // walk also the old records it did not reach (still good, and checked again next time).
  size_t queued = next.size();
  std::erase_if(next, [](const ScanDir& d) { return d.state == ScanDir::kUnread; });
  if (next.size() != queued) w.dirty = true;
  for (ScanDir& d : cache->dirs) {
    if (d.state == ScanDir::kTaken) continue;
    w.dirty = true;
    if (result.cancelled) next.push_back(std::move(d));
  }
  cache->dirs.swap(next);
  cache->spare = std::move(next);
  if (w.dirty) cache->dirty = true;
  return result;
}

ScanResult FullScan(const std::vector<std::string>& roots, const std::vector<std::string>& patterns,
                    const ScanLimits& limits, const ScanCancel& cancel) {
  BlockedScan empty;
  return Scan(&empty, roots, patterns, limits, cancel);
}

}  // namespace safesh::sandbox
