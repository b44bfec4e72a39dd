// BlockedScan: the files and directories with blocked names (blocked_names.h) in the sandbox's
// roots, found by walking the roots before every sandboxed command, and the cache that makes
// the walk cheap when little has changed since the last one.
//
// The walk is breadth first over all roots together, so that when the entry limit stops it
// every shallower level has been seen; a directory's entries are taken in the order the
// directory lists them. It counts at most `max_entries` entries and goes `max_depth` levels
// down (as `find -maxdepth`: a root's entries are at depth 1; directories at the last level are
// counted and matched but not read). Each entry named .git that no pattern hides is reported as
// a repository (ScanResult::repos), at any depth. It never enters: symbolic links (never followed),
// directories named .git, node_modules, vendor, target or __pycache__ (large, generated, and
// costly to walk on every command), a directory whose name matched (it is hidden whole), and a
// directory that is itself another root (walked as that root). A directory it may not read
// (EACCES) is reported as matched: what it holds cannot be checked, and a command of the same
// user could make it readable.
//
// The cache: each directory walked is checked with one lstat (device, inode, size, and mtime and
// ctime to the nanosecond: ctime, which no system call can set back, catches a command that
// resets a directory's mtime with `touch -d`); only directories that changed are read and
// matched again. A directory read within 2 s of its last change is read again next time:
// file systems with coarse timestamps would not show a second change within the same tick.
// The incremental walk visits the same directories in the same order within the same limits
// as a full walk, so it finds exactly the same paths (tests/sandbox/blocked_scan_test.cc).
//
// A process that runs many commands can skip most lstats too: a change watcher
// (scan_watch.h) tells the walk which directories cannot have changed (ScanWatchHooks).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace safesh::sandbox {

struct ScanLimits {
  size_t max_entries = 50000;
  int max_depth = 12;
  bool operator==(const ScanLimits&) const = default;
};

struct ScanResult {
  std::vector<std::string> files;  // matched entries that are not directories (links included)
  std::vector<std::string> dirs;   // matched directories, and directories that cannot be read
  size_t entries = 0;              // entries counted, at most max_entries
  bool truncated = false;          // stopped at max_entries: some entries were not looked at
  bool cancelled = false;          // `cancel` said stop: files and dirs are incomplete
  // A folder listed as a folder was gone, a link or no longer a folder when the walk came to
  // it: the tree changed while it was scanned (a command running beside may be swapping a
  // folder for a link so that what it holds goes unseen). What is below it was not looked at:
  // the caller scans again or refuses. `changed_path` names the first (absolute).
  bool changed = false;
  std::string changed_path;
  // Entries named .git (a folder, a file of a submodule or worktree saying where its folder
  // is, or a link) below the roots: repositories whose hooks the sandbox protects
  // (ProtectRepositories in spec.h). Never entered.
  std::vector<std::string> repos;
};

// Asked every 256 entries; returning true stops the scan.
using ScanCancel = std::function<bool()>;

// What a directory's one lstat is compared on.
struct ScanDirKey {
  uint64_t dev = 0;
  uint64_t ino = 0;
  int64_t size = 0;
  int64_t mtime_ns = 0;
  int64_t ctime_ns = 0;
  bool operator==(const ScanDirKey&) const = default;
};

// An entry of a directory that the walk needs again: a matched name, a subdirectory to enter,
// or a repository (.git). Other entries are only counted.
struct ScanItem {
  uint32_t index = 0;        // its place among the directory's entries
  uint32_t name_offset = 0;  // its name in ScanDir::names
  uint32_t name_size = 0;
  enum Kind : uint8_t { kFile, kDir, kLink } kind = kFile;
  bool matched = false;
  bool descend = false;
  bool repo = false;  // named .git and not matched: listed in ScanResult::repos
};

// One directory as the walk last saw it.
struct ScanDir {
  enum State : uint8_t {
    kUnread,      // queued, not walked yet
    kRead,        // entries and items are the whole directory
    kPartial,     // read up to the entry limit only: read again next time
    kGone,        // not a directory any more (or vanished): nothing to count
    kUnreadable,  // opening it was refused: hidden whole
    kTaken,       // (during a walk: moved to the new walk order)
  };
  uint32_t root = 0;   // index into BlockedScan::roots
  uint32_t depth = 0;  // levels below the root
  std::string path;    // relative to the root; empty for the root itself
  ScanDirKey key;
  State state = kUnread;
  bool racy = false;  // read within 2 s of its last change: read again next time
  // With a watcher (scan_watch.h), for the walks to come; a walk without one clears them.
  bool check_children = false;  // its subdirectories are checked: one may be another directory
  bool check_below = false;     // it and everything below it are checked
  uint32_t entries = 0;         // how many entries it lists (kPartial: one past the limit)
  // With a watcher: the inotify watch set on it before it was last checked, and no event came
  // since; -1: none (then it is checked on the next walk). Never saved.
  int32_t wd = -1;
  std::vector<ScanItem> items;
  std::string names;
};

// The cache: what the last walk saw, for one set of roots, patterns and limits.
struct BlockedScan {
  std::vector<std::string> roots;
  std::vector<std::string> patterns;
  ScanLimits limits;
  std::vector<ScanDir> dirs;  // in walk order
  bool dirty = false;         // changed since it was loaded or saved
  // How long after its last change a directory that was read counts as racy. Only tests change
  // it (to 0, changing each directory's mtime themselves), so that their walks use the cache.
  int64_t racy_window_ns = 2'000'000'000;
  std::vector<ScanDir> spare;  // scratch: the last walk's memory, reused by the next one
  uint64_t walks = 0;          // how many walks used it: a watcher notices walks not its own
};

// What a change watcher (scan_watch.h) lends the walk. A directory whose watch was set before it
// was last checked (ScanDir::wd), fully read, and not named by an event since, is trusted as it
// is: no lstat. Every other directory gets a watch first, then its lstat (and a read when that
// changed), so that a change after the check is reported and a change before it is seen. A
// directory that is now another one (device or inode changed) has everything below it checked.
struct ScanWatchHooks {
  // Sets a watch on the directory at this absolute path; its descriptor, or -1 (it is then
  // checked on every walk).
  std::function<int(const std::string& path)> watch;
  // Whether the file system of device `dev` (a directory at `path` on it) reports every change
  // to inotify: not a network or FUSE file system, changed from elsewhere.
  std::function<bool(uint64_t dev, const std::string& path)> reports_changes;
  bool trust = true;  // false: no directory is trusted on this walk (events were lost)
};

// Walks `roots` (absolute real paths of directories; a duplicate or a missing one adds nothing)
// for names matching `patterns` (NameMatcher rules) within `limits`, reusing and updating
// `cache`. A cache made for other roots, patterns or limits is emptied first. When `cancel`
// stops the scan, what was read stays in the cache.
ScanResult Scan(BlockedScan* cache, const std::vector<std::string>& roots,
                const std::vector<std::string>& patterns, const ScanLimits& limits,
                const ScanCancel& cancel);

// The same with a watcher's help (scan_watch.h calls it; null `hooks`: the walk above).
ScanResult Scan(BlockedScan* cache, const std::vector<std::string>& roots,
                const std::vector<std::string>& patterns, const ScanLimits& limits,
                const ScanCancel& cancel, const ScanWatchHooks* hooks);

// The same walk without a cache: every directory is read.
ScanResult FullScan(const std::vector<std::string>& roots, const std::vector<std::string>& patterns,
                    const ScanLimits& limits, const ScanCancel& cancel);

// The cache on disk (blocked_scan_file.cc), so that one-shot `safesh run`s benefit too. It is
// kept in safesh's private state folder, which sandboxed commands cannot see.

// The file name of the cache for these roots, patterns and limits: "blocked-scan-" and a hash.
std::string BlockedScanFileName(const std::vector<std::string>& roots,
                                const std::vector<std::string>& patterns, const ScanLimits& limits);

// Writes `scan` to `path`: a new 0600 file written whole, then renamed over the old one, so a
// reader sees the old cache or the new one. False with a message on error.
bool SaveBlockedScan(const BlockedScan& scan, const std::string& path, std::string* error);

// Reads a cache written by SaveBlockedScan. False, with `*scan` empty and why in `*why`, when
// the file is missing, not a private regular file of this user, damaged (checksum, bounds,
// paths) or of another format. A cache read from a file is never trusted further than one
// kept in memory: Scan still checks every directory with its lstat, and a cache for other
// roots, patterns or limits is emptied by Scan.
bool LoadBlockedScan(const std::string& path, BlockedScan* scan, std::string* why);

// Removes the cache files (and files left half written) in `dir` that were not written for
// `max_age_seconds`: each set of roots and patterns has its own file, and workspaces come and go.
// Only this user's regular files named "blocked-scan-..." are removed. Returns how many.
int RemoveOldBlockedScans(const std::string& dir, int64_t max_age_seconds);

}  // namespace safesh::sandbox
