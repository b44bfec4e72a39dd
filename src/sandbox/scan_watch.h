// ScanWatch: inotify watches on the directories of a blocked-name scan (blocked_scan.h), kept by
// a process that runs many commands (the MCP server, a library session) next to its
// BlockedScan, so that before each command it learns what changed instead of checking every
// directory with an lstat.
//
// Each directory the walk reads or checks gets a watch first (entries created, removed or
// renamed; its attributes, which include its permissions; itself removed, moved or unmounted),
// and so does every directory above each root (itself moved, removed or its permissions
// changed: the root's path would name another directory, or none). /proc/self/mountinfo is
// polled too: a mount over a watched directory changes what its path shows without an event.
//
// Before each scan the event queue is read without waiting. The kernel queues an event within
// the system call that makes the change, before that call returns, so a change made before the
// scan started is always in the queue it reads; one made while it walks is either seen by the
// walk or read before the next scan. Then:
//   - no event and no mount change: the last result stands; not one directory is looked at;
//   - events: the directories they name are checked and read again, and their subdirectories
//     checked (one may be another directory under the same name); everything else is trusted;
//   - a lost event (queue overflow), a mount change, a root or a directory above one moved,
//     removed or changed: the watches are dropped and set again while every directory is checked
//     with its lstat, as the walk without a watcher does;
//   - no more watches to be had (ENOSPC: fs.inotify.max_user_watches; ENOMEM), or a watcher
//     that cannot start: it gives up for good, and every scan is the walk without a watcher.
// A directory that cannot be watched (unreadable), or that lies on a file system that does not
// report every change (NFS, FUSE ...: changed from elsewhere without an event), is checked on
// every walk. Whatever happens, the result is what FullScan would return (tests/sandbox/
// scan_watch_test.cc): a watcher can only save work, never change an answer.
//
// A one-shot `safesh run` does not use it: setting thousands of watches costs more than one walk,
// and they end with the process.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sandbox/blocked_scan.h"
#include "util/unique_fd.h"

namespace safesh::sandbox {

struct ScanWatch {
  // How the last WatchedScan went.
  enum Outcome : uint8_t {
    kUnchanged,  // no event: the last result, nothing looked at
    kWalked,     // events: the walk with the watcher's help
    kReset,      // the watches were set again, every directory checked (see `why`)
    kUnwatched,  // the watcher gave up (see `why`): the walk without it
  };
  Outcome last = kUnwatched;
  std::string why;  // why the last kReset, or why it gave up

  util::UniqueFd inotify;  // invalid before the first scan and once it gave up
  util::UniqueFd mounts;   // /proc/self/mountinfo, polled for mount changes
  bool gave_up = false;
  bool check_all = true;      // the next walk trusts no directory (the watches are new)
  std::string pending_reset;  // when set, why the next scan starts the watches again
  int add_error = 0;          // set while a walk adds watches: the errno that ends watching

  // What the watches are for; a scan for anything else, or a walk of the cache by someone else
  // (BlockedScan::walks), starts them again.
  std::vector<std::string> roots;
  std::vector<std::string> patterns;
  ScanLimits limits;
  uint64_t walks = 0;

  std::unordered_multimap<int, uint32_t> dirs_by_wd;  // watch -> index in BlockedScan::dirs
  std::vector<int> above_roots;                       // the watches on directories above the roots
  std::vector<std::pair<uint64_t, bool>> devices;     // device -> whether it reports changes
  size_t unwatched = 0;  // directories without a watch: checked on every walk, so there is one

  ScanResult result;  // the last complete scan's
  bool have_result = false;

  // Tests only: inotify_add_watch calls left before they fail with ENOSPC (-1: no limit).
  int64_t test_watch_budget = -1;
};

// The blocked-name scan with `watch`'s help: the same answer as Scan(cache, ...) and FullScan.
// `cache` must be scanned only through `watch` (a walk of it made elsewhere is noticed, and costs
// a reset). `watch` and `cache` belong together: keep them side by side, one pair per set of
// roots, patterns and limits.
ScanResult WatchedScan(ScanWatch* watch, BlockedScan* cache, const std::vector<std::string>& roots,
                       const std::vector<std::string>& patterns, const ScanLimits& limits,
                       const ScanCancel& cancel);

}  // namespace safesh::sandbox
