#include "sandbox/caches.h"

#include "sandbox/bwrap.h"
#include "sandbox/scan_watch.h"

namespace safesh::sandbox {
namespace {

// A cache file not written for this long belongs to a workspace no longer used.
constexpr int64_t kBlockedScanMaxAgeSeconds = 30 * 24 * 60 * 60;

// A host that serves many workspaces keeps the scans of this many sets of roots (their watches
// go with them).
constexpr size_t kMaxScans = 8;

}  // namespace

struct SandboxCaches::Scan {
  std::mutex mu;  // held for a whole scan of these roots
  BlockedScan cache;
  ScanWatch watch;
  bool loaded = false;   // the file was tried
  bool watched = false;  // `watch` is in use
  bool saved = false;    // (when watched) the file was written once
};

std::string SandboxCaches::ProbeBwrap(const std::string& bwrap, const std::string& cache_file) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = probes_.find(bwrap);
    if (it != probes_.end()) return it->second;
  }
  // A probe starts a sandbox: made once, outside the table's lock.
  std::lock_guard<std::mutex> probing(probe_mu_);
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = probes_.find(bwrap);
    if (it != probes_.end()) return it->second;
  }
  std::string why = ProbeBwrapCached(bwrap, cache_file);
  std::lock_guard<std::mutex> lock(mu_);
  return probes_.emplace(bwrap, why).first->second;
}

ScanResult SandboxCaches::ScanBlockedNames(const std::vector<std::string>& roots,
                                           const std::vector<std::string>& patterns,
                                           const std::string& state_dir, bool watched,
                                           const ScanCancel& cancel) {
  ScanLimits limits;
  std::string name = BlockedScanFileName(roots, patterns, limits);
  std::shared_ptr<Scan> scan;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = scans_.find(name);
    if (it == scans_.end()) {
      // Room for a new one: the table is emptied (a scan being walked meanwhile stays with its
      // walker and goes when it is done).
      if (scans_.size() >= kMaxScans) scans_.clear();
      it = scans_.emplace(name, std::make_shared<Scan>()).first;
    }
    scan = it->second;
  }
  std::lock_guard<std::mutex> lock(scan->mu);
  std::string file = state_dir.empty() ? "" : state_dir + "/" + name;
  std::string ignored;
  if (!scan->loaded) {
    scan->loaded = true;
    // A workspace seen for the first time (or a damaged file) is when old files are cleared.
    if (!file.empty() && !LoadBlockedScan(file, &scan->cache, &ignored))
      RemoveOldBlockedScans(state_dir, kBlockedScanMaxAgeSeconds);
  }
  scan->watched = scan->watched || watched;
  ScanResult found = scan->watched
                         ? WatchedScan(&scan->watch, &scan->cache, roots, patterns, limits, cancel)
                         : sandbox::Scan(&scan->cache, roots, patterns, limits, cancel);
  // Not saving is not an error: the next run reads the directories again.
  bool save = scan->cache.dirty && !file.empty() && !(scan->watched && scan->saved);
  if (save && SaveBlockedScan(scan->cache, file, &ignored)) {
    scan->cache.dirty = false;
    scan->saved = true;
  }
  return found;
}

}  // namespace safesh::sandbox
