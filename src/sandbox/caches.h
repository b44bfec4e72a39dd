// SandboxCaches: what the host that runs commands (a library Session, `safesh mcp`, one
// `safesh run`) remembers between them to build each sandbox quickly: whether bubblewrap works,
// the blocked-name scans of each set of roots (blocked_scan.h, with their change watchers,
// scan_watch.h), and the host-socket listings (host_sockets.h). The host owns it; two hosts in
// one process keep their own, and nothing of it is global.
//
// Each scan cache has its own lock, held while that cache is walked: two commands of the same
// roots take turns (the second then finds nothing changed), while commands of other roots walk
// at the same time. The table of caches is locked only to look one up.
//
// What is remembered only saves work: each answer is the one a fresh search would give
// (tests/sandbox/blocked_scan_test.cc, scan_watch_test.cc, host_sockets_test.cc).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "sandbox/blocked_scan.h"
#include "sandbox/host_sockets.h"

namespace safesh::sandbox {

class SandboxCaches {
 public:
  SandboxCaches() = default;
  SandboxCaches(const SandboxCaches&) = delete;
  SandboxCaches& operator=(const SandboxCaches&) = delete;

  // Whether bubblewrap at `bwrap` builds a sandbox here (bwrap.h, ProbeBwrapCached): empty, or
  // what went wrong. Asked once per path: the answer does not change while the host runs.
  std::string ProbeBwrap(const std::string& bwrap, const std::string& cache_file);

  // The blocked-name scan of `roots` for `patterns` (blocked_scan.h), reusing what the last scan
  // of the same roots and patterns read. `state_dir` (empty: none) keeps the cache between runs
  // of the one-shot CLI. `watched`: this host runs many commands, so a change watcher is kept
  // beside the cache (scan_watch.h); its cache is written to the file once, after its first scan,
  // for the one-shot runs to come (rewriting the whole file for each change would cost more than
  // the watched scan).
  ScanResult ScanBlockedNames(const std::vector<std::string>& roots,
                              const std::vector<std::string>& patterns,
                              const std::string& state_dir, bool watched, const ScanCancel& cancel);

  // For the host-socket search (BuildSpec's socket_memory).
  HostSocketMemory* host_sockets() { return &host_sockets_; }

 private:
  struct Scan;  // one set of roots and patterns: its cache, its watcher, its lock

  std::mutex mu_;  // the tables below; never held across a walk or a probe
  std::map<std::string, std::string> probes_;           // by bubblewrap's path
  std::map<std::string, std::shared_ptr<Scan>> scans_;  // by cache file name
  std::mutex probe_mu_;                                 // one probe at a time
  HostSocketMemory host_sockets_;
};

}  // namespace safesh::sandbox
