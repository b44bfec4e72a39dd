// The blocked-name scan on a 50,000-entry workspace: the first scan, an incremental scan when
// nothing changed and when one directory changed, the one-shot CLI's path (load the cache file,
// scan), and `find` with the same names and pruned folders as the baseline, in the same run.
//
// BM_StatEveryDirectory is the floor of the incremental scan: the one lstat per directory that
// it must make, without the walk. BM_Watched* are the same scans with inotify watches
// (sandbox/scan_watch.h), as a long-lived safesh makes them.
//
// The workspace is generated in a temporary folder (seeded, so every run gets the same tree):
// about 2,800 folders up to 10 deep, each put in a folder picked at random and filled to 10-20
// entries, plus node_modules and .git folders (8,000 entries) that the scan skips. It is left 2 s
// to age before the incremental benchmarks, so that no folder is racy (read again because it just
// changed).
//
// `scan_bench --make-workspace DIR` makes the same workspace in DIR, keeps it and exits.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <random>
#include <string_view>
#include <thread>

#include "sandbox/blocked_names.h"
#include "sandbox/blocked_scan.h"
#include "sandbox/scan_watch.h"

extern char** environ;

namespace {

using safesh::sandbox::BlockedScan;
using safesh::sandbox::ScanLimits;
using safesh::sandbox::ScanResult;

std::string g_root;    // the workspace
std::string g_cache;   // a saved cache of it
size_t g_entries = 0;  // entries created
size_t g_scanned = 0;  // entries the scan counts
size_t g_dirs = 0;     // directories the scan walks

const std::vector<std::string>& Patterns() {
  return safesh::sandbox::DefaultBlockedNames();
}
const safesh::sandbox::ScanCancel& Never() {
  static const safesh::sandbox::ScanCancel never = [] { return false; };
  return never;
}

// False when the name was taken already.
bool MakeFile(const std::string& p) {
  int fd = open(p.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0) return false;
  close(fd);
  return true;
}

// `n` entries in a flat-ish tree under `dir`: what node_modules and .git look like to the scan
// (it skips them; they are there so that skipping them is part of the cost).
void MakeBulk(const std::string& dir, size_t n, std::mt19937* rng) {
  mkdir(dir.c_str(), 0755);
  size_t made = 0;
  for (int d = 0; made < n; ++d) {
    std::string sub = dir + "/pkg" + std::to_string(d);
    mkdir(sub.c_str(), 0755);
    ++made;
    size_t files = 10 + (*rng)() % 30;
    for (size_t f = 0; f < files && made < n; ++f)
      made += MakeFile(sub + "/file" + std::to_string(f) + ".js") ? 1 : 0;
  }
  g_entries += made + 1;
}

void MakeWorkspace(const std::string& root, size_t total) {
  std::mt19937 rng(42);
  mkdir(root.c_str(), 0755);
  MakeBulk(root + "/node_modules", 6000, &rng);
  MakeBulk(root + "/.git", 2000, &rng);
  static const char* kFiles[] = {"main.c",   "util.h",    "README.md", "index.ts", "test.py",
                                 "Makefile", "data.json", "notes.txt", "app.go",   "lib.rs"};
  static const char* kRare[] = {".env", "server.key", "cert.pem", ".env.example", "id_rsa"};
  // The folders first: each new one goes into a folder picked at random (at most 10 deep),
  // which gives a tree about as deep as a real one; then each folder is filled with files up
  // to 10-20 entries.
  struct Dir {
    std::string path;
    int depth;
    int subdirs;
  };
  size_t want_dirs = (total - g_entries) / 15;
  std::vector<Dir> dirs = {{root, 0, 0}};
  while (dirs.size() < want_dirs) {
    Dir& parent = dirs[rng() % dirs.size()];
    if (parent.depth >= 10) continue;
    std::string path = parent.path + "/dir" + std::to_string(parent.subdirs++);
    int depth = parent.depth + 1;
    mkdir(path.c_str(), 0755);
    dirs.push_back({path, depth, 0});
    ++g_entries;
  }
  for (const Dir& d : dirs) {
    int n = 10 + static_cast<int>(rng() % 11);
    for (int i = 0; i < n - d.subdirs && g_entries < total; ++i) {
      std::string name =
          rng() % 200 == 0 ? kRare[rng() % 5] : kFiles[rng() % 10] + std::to_string(i);
      if (MakeFile(d.path + "/" + name)) ++g_entries;
    }
  }
}

// The floor of an incremental scan: one fstatat per directory (the check it must make), and
// nothing else.
void BM_StatEveryDirectory(benchmark::State& state) {
  BlockedScan cache;
  safesh::sandbox::Scan(&cache, {g_root}, Patterns(), ScanLimits(), Never());
  int root = open(g_root.c_str(), O_PATH | O_DIRECTORY);
  for (auto _ : state) {
    struct stat st;
    for (const safesh::sandbox::ScanDir& d : cache.dirs)
      benchmark::DoNotOptimize(
          fstatat(root, d.path.empty() ? "." : d.path.c_str(), &st, AT_SYMLINK_NOFOLLOW));
  }
  close(root);
}

void BM_FirstScan(benchmark::State& state) {
  for (auto _ : state) {
    BlockedScan cache;
    ScanResult r = safesh::sandbox::Scan(&cache, {g_root}, Patterns(), ScanLimits(), Never());
    benchmark::DoNotOptimize(r);
  }
  state.counters["entries"] = static_cast<double>(g_scanned);
}

void BM_IncrementalNothingChanged(benchmark::State& state) {
  BlockedScan cache;
  safesh::sandbox::Scan(&cache, {g_root}, Patterns(), ScanLimits(), Never());
  for (auto _ : state) {
    ScanResult r = safesh::sandbox::Scan(&cache, {g_root}, Patterns(), ScanLimits(), Never());
    benchmark::DoNotOptimize(r);
  }
  state.counters["dirs"] = static_cast<double>(g_dirs);
}

// One directory gains or loses a file before each scan (not timed); it is read again.
void BM_IncrementalOneDirTouched(benchmark::State& state) {
  BlockedScan cache;
  safesh::sandbox::Scan(&cache, {g_root}, Patterns(), ScanLimits(), Never());
  std::string file = g_root + "/dir0/touched.txt";
  bool there = false;
  for (auto _ : state) {
    state.PauseTiming();
    if (there) {
      unlink(file.c_str());
    } else {
      MakeFile(file);
    }
    there = !there;
    state.ResumeTiming();
    ScanResult r = safesh::sandbox::Scan(&cache, {g_root}, Patterns(), ScanLimits(), Never());
    benchmark::DoNotOptimize(r);
  }
  if (there) unlink(file.c_str());
}

// With a watcher: nothing changed, so the queue is empty and the last answer stands.
void BM_WatchedNothingChanged(benchmark::State& state) {
  BlockedScan cache;
  safesh::sandbox::ScanWatch watch;
  safesh::sandbox::WatchedScan(&watch, &cache, {g_root}, Patterns(), ScanLimits(), Never());
  for (auto _ : state) {
    ScanResult r =
        safesh::sandbox::WatchedScan(&watch, &cache, {g_root}, Patterns(), ScanLimits(), Never());
    benchmark::DoNotOptimize(r);
  }
  if (watch.last != safesh::sandbox::ScanWatch::kUnchanged) state.SkipWithError(watch.why.c_str());
}

// With a watcher: one directory gains or loses a file before each scan (not timed): its event is
// read, that directory read again and its subdirectories checked, the rest trusted.
void BM_WatchedOneFileAddedOrRemoved(benchmark::State& state) {
  BlockedScan cache;
  safesh::sandbox::ScanWatch watch;
  safesh::sandbox::WatchedScan(&watch, &cache, {g_root}, Patterns(), ScanLimits(), Never());
  std::string file = g_root + "/dir0/touched.txt";
  bool there = false;
  for (auto _ : state) {
    state.PauseTiming();
    if (there) {
      unlink(file.c_str());
    } else {
      MakeFile(file);
    }
    there = !there;
    state.ResumeTiming();
    ScanResult r =
        safesh::sandbox::WatchedScan(&watch, &cache, {g_root}, Patterns(), ScanLimits(), Never());
    benchmark::DoNotOptimize(r);
  }
  if (watch.last != safesh::sandbox::ScanWatch::kWalked) state.SkipWithError(watch.why.c_str());
  if (there) unlink(file.c_str());
}

// What a long-lived safesh pays once per workspace: the first scan with a watcher, which sets a
// watch on every directory (from a warm cache, as after a loaded cache file).
void BM_WatchedStart(benchmark::State& state) {
  BlockedScan warm;
  safesh::sandbox::Scan(&warm, {g_root}, Patterns(), ScanLimits(), Never());
  for (auto _ : state) {
    state.PauseTiming();
    BlockedScan cache = warm;
    safesh::sandbox::ScanWatch watch;
    state.ResumeTiming();
    ScanResult r =
        safesh::sandbox::WatchedScan(&watch, &cache, {g_root}, Patterns(), ScanLimits(), Never());
    benchmark::DoNotOptimize(r);
    state.PauseTiming();
    {
      safesh::sandbox::ScanWatch gone = std::move(watch);  // its watches are freed untimed
    }
    state.ResumeTiming();
  }
}

// What `safesh run` does per command: load the cache file, scan (nothing changed).
void BM_CliLoadAndScan(benchmark::State& state) {
  for (auto _ : state) {
    BlockedScan cache;
    std::string why;
    if (!safesh::sandbox::LoadBlockedScan(g_cache, &cache, &why)) state.SkipWithError(why.c_str());
    ScanResult r = safesh::sandbox::Scan(&cache, {g_root}, Patterns(), ScanLimits(), Never());
    benchmark::DoNotOptimize(r);
  }
}

// The baseline: find, pruning the same folders and matching the same names (case-insensitive,
// as the scan does), its output thrown away. Whole process, as safesh's own scan is not.
void BM_FindBaseline(benchmark::State& state) {
  std::vector<std::string> args = {"/usr/bin/find", g_root, "-maxdepth", "12", "("};
  for (const char* skip : {".git", "node_modules", "vendor", "target", "__pycache__"}) {
    if (args.back() != "(") args.push_back("-o");
    args.insert(args.end(), {"-name", skip});
  }
  args.insert(args.end(), {")", "-prune", "-o", "("});
  bool first = true;
  for (const std::string& p : Patterns()) {
    if (p.starts_with("!")) continue;
    if (!first) args.push_back("-o");
    first = false;
    args.insert(args.end(), {"-iname", p});
  }
  args.insert(args.end(), {")", "-print"});
  std::vector<char*> argv;
  for (std::string& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto _ : state) {
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    if (posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ) != 0) {
      state.SkipWithError("cannot run find");
      break;
    }
    posix_spawn_file_actions_destroy(&fa);
    int status;
    waitpid(pid, &status, 0);
  }
}

BENCHMARK(BM_FirstScan)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_FindBaseline)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_StatEveryDirectory)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_IncrementalNothingChanged)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_IncrementalOneDirTouched)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_WatchedNothingChanged)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_WatchedOneFileAddedOrRemoved)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_WatchedStart)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_CliLoadAndScan)->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  // `scan_bench --make-workspace DIR`: only make the workspace, in DIR (which must not exist),
  // and keep it, for tools measured on the same tree (bench/scan_compare.sh).
  if (argc == 3 && std::string_view(argv[1]) == "--make-workspace") {
    if (std::filesystem::exists(argv[2])) {
      fprintf(stderr, "scan_bench: %s exists already\n", argv[2]);
      return 64;
    }
    MakeWorkspace(argv[2], 50000);
    fprintf(stderr, "workspace: %zu entries in %s\n", g_entries, argv[2]);
    return 0;
  }
  char t[] = "/tmp/safesh-scan-bench-XXXXXX";
  if (mkdtemp(t) == nullptr) return 1;
  std::string base = t;
  g_root = base + "/ws";
  MakeWorkspace(g_root, 50000);
  // Old enough that no directory is racy.
  std::this_thread::sleep_for(std::chrono::milliseconds(2100));
  BlockedScan cache;
  ScanResult r = safesh::sandbox::Scan(&cache, {g_root}, Patterns(), ScanLimits(), Never());
  g_scanned = r.entries;
  g_dirs = cache.dirs.size();
  g_cache = base + "/cache";
  std::string error;
  if (!safesh::sandbox::SaveBlockedScan(cache, g_cache, &error)) return 1;
  struct stat st;
  if (stat(g_cache.c_str(), &st) != 0) return 1;
  fprintf(stderr,
          "workspace: %zu entries, %zu scanned in %zu directories, %zu matches%s; cache file "
          "%lld bytes\n",
          g_entries, g_scanned, g_dirs, r.files.size() + r.dirs.size(),
          r.truncated ? " (truncated)" : "", static_cast<long long>(st.st_size));
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::filesystem::remove_all(base);
  return 0;
}
