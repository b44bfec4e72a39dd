// The blocked-name scan: what a walk finds and where it stops, an incremental walk against a full
// one (and both against a plain walk written here) over seeded random changes to a tree, the
// cancel callback, and the cache file.
#include "sandbox/blocked_scan.h"

#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <random>

#include "sandbox/blocked_names.h"
#include "sandbox/scan_helpers.h"

namespace safesh::sandbox {
namespace {

namespace fs = std::filesystem;
using scan_test::Never;
using scan_test::Patterns;
using scan_test::Write;

// A plain walk, written from the rules in blocked_scan.h and nothing else: the oracle for
// FullScan.
ScanResult ReferenceWalk(const std::vector<std::string>& roots, const ScanLimits& limits) {
  NameMatcher matcher(Patterns());
  ScanResult r;
  struct Dir {
    size_t root;
    std::string path;
    int depth;
  };
  std::deque<Dir> queue;
  std::vector<std::string> seen;
  for (size_t i = 0; i < roots.size(); ++i) {
    struct stat st;
    if (std::find(seen.begin(), seen.end(), roots[i]) != seen.end()) continue;
    seen.push_back(roots[i]);
    if (limits.max_depth > 0 && lstat(roots[i].c_str(), &st) == 0 && S_ISDIR(st.st_mode))
      queue.push_back({i, roots[i], 0});
  }
  auto is_root = [&](const std::string& p) {
    return std::find(roots.begin(), roots.end(), p) != roots.end();
  };
  while (!queue.empty()) {
    Dir d = queue.front();
    queue.pop_front();
    DIR* dir = opendir(d.path.c_str());
    if (dir == nullptr) {
      if (errno == EACCES) r.dirs.push_back(d.path);
      continue;
    }
    while (dirent* e = readdir(dir)) {
      std::string name = e->d_name;
      if (name == "." || name == "..") continue;
      if (r.entries == limits.max_entries) {
        r.truncated = true;
        closedir(dir);
        return r;
      }
      ++r.entries;
      std::string path = d.path + "/" + name;
      struct stat st;
      bool is_dir = lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
      bool matched = matcher.Matches(name);
      if (matched) (is_dir ? r.dirs : r.files).push_back(path);
      if (!matched && name == ".git") r.repos.push_back(path);
      bool skipped = name == ".git" || name == "node_modules" || name == "vendor" ||
                     name == "target" || name == "__pycache__";
      if (is_dir && !matched && !skipped && d.depth + 1 < limits.max_depth && !is_root(path))
        queue.push_back({d.root, path, d.depth + 1});
    }
    closedir(dir);
  }
  return r;
}

void ExpectSame(const ScanResult& got, const ScanResult& want, const std::string& what) {
  EXPECT_EQ(got.files, want.files) << what;
  EXPECT_EQ(got.dirs, want.dirs) << what;
  EXPECT_EQ(got.repos, want.repos) << what;
  EXPECT_EQ(got.entries, want.entries) << what;
  EXPECT_EQ(got.truncated, want.truncated) << what;
  EXPECT_FALSE(got.cancelled) << what;
}

class BlockedScanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char t[] = "/tmp/safesh-scan-XXXXXX";
    ASSERT_NE(mkdtemp(t), nullptr);
    dir_ = t;
    ws_ = dir_ + "/ws";
    fs::create_directories(ws_);
  }
  void TearDown() override {
    std::error_code ec;
    if (!shm_.empty()) fs::remove_all(shm_, ec);
    fs::permissions(dir_, fs::perms::owner_all, ec);
    fs::remove_all(dir_, ec);
  }

  // Gives `dir` an mtime no other change has had, so that a walk with a racy window of 0 sees
  // the change whatever the file system's timestamp resolution.
  void Touch(const std::string& dir) {
    struct timespec ts[2] = {{0, UTIME_OMIT}, {clock_++, 0}};
    ASSERT_EQ(utimensat(AT_FDCWD, dir.c_str(), ts, AT_SYMLINK_NOFOLLOW), 0) << dir;
  }

  std::string dir_, ws_;
  std::string shm_;           // a folder in /dev/shm, when a test made one
  time_t clock_ = 946684800;  // 2000-01-01
};

TEST_F(BlockedScanTest, FindsNamesEverywhereButWhereItMustNotLook) {
  fs::create_directories(ws_ + "/a/b/c");
  fs::create_directories(ws_ + "/node_modules/pkg");
  fs::create_directories(ws_ + "/.git");
  fs::create_directories(ws_ + "/secret-dir/inner");
  fs::create_directories(dir_ + "/outside");
  Write(ws_ + "/.env");
  Write(ws_ + "/.env.example");
  Write(ws_ + "/a/b/c/server.key");
  Write(ws_ + "/a/README.md");
  Write(ws_ + "/node_modules/pkg/.env");  // not entered
  Write(ws_ + "/.git/id_rsa");            // not entered
  Write(ws_ + "/secret-dir/inner/.env");  // hidden with its directory, not listed
  Write(dir_ + "/outside/.env");
  fs::create_directory_symlink(dir_ + "/outside", ws_ + "/link-to-outside");  // not followed
  fs::create_symlink(ws_ + "/a/README.md", ws_ + "/a/link.pem");              // a matched link
  ScanResult r = FullScan({ws_}, Patterns(), ScanLimits(), Never());
  ExpectSame(r, ReferenceWalk({ws_}, ScanLimits()), "reference");
  std::sort(r.files.begin(), r.files.end());
  EXPECT_EQ(r.files, (std::vector<std::string>{ws_ + "/.env", ws_ + "/a/b/c/server.key",
                                               ws_ + "/a/link.pem"}));
  EXPECT_EQ(r.dirs, std::vector<std::string>{ws_ + "/secret-dir"});
  // ws: .env .env.example a node_modules .git secret-dir link-to-outside (7); a: b README.md
  // link.pem (3); a/b: c (1); a/b/c: server.key (1).
  EXPECT_EQ(r.entries, 12u);
  EXPECT_FALSE(r.truncated);
}

// Every .git below the roots is a repository whose hooks the sandbox protects: a folder, a
// submodule's file, a link; at any depth, never entered; not one a pattern hides.
TEST_F(BlockedScanTest, ReportsEveryRepositoryBelowTheRoots) {
  fs::create_directories(ws_ + "/.git/hooks");
  fs::create_directories(ws_ + "/libs/a/.git/objects");
  Write(ws_ + "/libs/a/.git/objects/.env", "not looked at");
  fs::create_directories(ws_ + "/mod");
  Write(ws_ + "/mod/.git", "gitdir: ../.git/modules/mod\n");
  fs::create_directories(ws_ + "/x/y/z");
  fs::create_directory_symlink(ws_ + "/libs/a/.git", ws_ + "/x/y/z/.git");
  fs::create_directories(ws_ + "/node_modules/dep/.git");  // never walked
  ScanResult r = FullScan({ws_}, Patterns(), ScanLimits(), Never());
  std::vector<std::string> repos = r.repos;
  std::sort(repos.begin(), repos.end());
  EXPECT_EQ(repos, (std::vector<std::string>{ws_ + "/.git", ws_ + "/libs/a/.git", ws_ + "/mod/.git",
                                             ws_ + "/x/y/z/.git"}));
  EXPECT_TRUE(r.files.empty());
  ExpectSame(r, ReferenceWalk({ws_}, ScanLimits()), "reference");
}

TEST_F(BlockedScanTest, DepthCountsAsFindMaxdepth) {
  std::string p = ws_;
  for (int i = 1; i <= 5; ++i) {
    Write(p + "/id_rsa");  // at depth i
    p += "/d";
    fs::create_directory(p);
  }
  for (int depth = 0; depth <= 6; ++depth) {
    ScanLimits limits;
    limits.max_depth = depth;
    ScanResult r = FullScan({ws_}, Patterns(), limits, Never());
    EXPECT_EQ(r.files.size(), static_cast<size_t>(std::min(depth, 5))) << depth;
    ExpectSame(r, ReferenceWalk({ws_}, limits), "depth " + std::to_string(depth));
  }
}

TEST_F(BlockedScanTest, StopsAtTheEntryLimitShallowestFirst) {
  fs::create_directories(ws_ + "/deep/er");
  for (int i = 0; i < 20; ++i)
    Write(ws_ + "/deep/er/f" + std::to_string(i));
  Write(ws_ + "/deep/er/.env");
  Write(ws_ + "/.env");
  // ws: deep .env (2); deep: er (1); er: 21 files. 24 entries in all.
  for (size_t cap : {0u, 1u, 2u, 3u, 10u, 23u, 24u, 25u}) {
    ScanLimits limits;
    limits.max_entries = cap;
    ScanResult r = FullScan({ws_}, Patterns(), limits, Never());
    EXPECT_EQ(r.truncated, cap < 24) << cap;
    EXPECT_EQ(r.entries, std::min<size_t>(cap, 24)) << cap;
    // Breadth first: the shallow key is found whenever the root's entries fit.
    if (cap >= 2) {
      EXPECT_NE(std::find(r.files.begin(), r.files.end(), ws_ + "/.env"), r.files.end()) << cap;
    }
    ExpectSame(r, ReferenceWalk({ws_}, limits), "cap " + std::to_string(cap));
  }
}

TEST_F(BlockedScanTest, RootsAreWalkedOnceEach) {
  fs::create_directories(ws_ + "/sub/deeper");
  fs::create_directories(dir_ + "/other");
  Write(ws_ + "/sub/deeper/.env");
  Write(dir_ + "/other/x.pem");
  std::vector<std::string> roots = {ws_, ws_ + "/sub", ws_, dir_ + "/other", dir_ + "/missing"};
  ScanResult r = FullScan(roots, Patterns(), ScanLimits(), Never());
  std::sort(r.files.begin(), r.files.end());
  EXPECT_EQ(r.files, (std::vector<std::string>{dir_ + "/other/x.pem", ws_ + "/sub/deeper/.env"}));
  // ws: sub; sub: deeper; deeper: .env; other: x.pem.
  EXPECT_EQ(r.entries, 4u);
  // A root nested in another is walked from itself: its depth limit starts there.
  ScanLimits shallow;
  shallow.max_depth = 2;
  ScanResult s = FullScan(roots, Patterns(), shallow, Never());
  EXPECT_NE(std::find(s.files.begin(), s.files.end(), ws_ + "/sub/deeper/.env"), s.files.end());
  ExpectSame(s, ReferenceWalk(roots, shallow), "nested roots");
}

TEST_F(BlockedScanTest, AnUnreadableDirectoryIsHiddenWhole) {
  // Only someone without the right to read a directory is refused: as root, the test looks
  // through another user's eyes (nobody), in a child process.
  fs::create_directories(ws_ + "/locked");
  Write(ws_ + "/locked/.env");
  chmod(dir_.c_str(), 0755);
  chmod(ws_.c_str(), 0755);
  chmod((ws_ + "/locked").c_str(), 0700);
  if (geteuid() != 0) chmod((ws_ + "/locked").c_str(), 0);
  int pipefd[2];
  ASSERT_EQ(pipe(pipefd), 0);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    close(pipefd[0]);
    if (geteuid() == 0 &&
        (setresgid(65534, 65534, 65534) != 0 || setresuid(65534, 65534, 65534) != 0))
      _exit(2);
    ScanResult r = FullScan({ws_}, Patterns(), ScanLimits(), [] { return false; });
    std::string out;
    for (const std::string& d : r.dirs)
      out += d + "\n";
    (void)!write(pipefd[1], out.data(), out.size());
    _exit(0);
  }
  close(pipefd[1]);
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = read(pipefd[0], buf, sizeof buf)) > 0)
    out.append(buf, static_cast<size_t>(n));
  close(pipefd[0]);
  int status;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_EQ(out, ws_ + "/locked\n");
  chmod((ws_ + "/locked").c_str(), 0700);
}

TEST_F(BlockedScanTest, TheCancelCallbackIsAskedEvery256Entries) {
  // 40 directories of 50 files: 2,040 entries, each directory well under 256.
  for (int d = 0; d < 40; ++d) {
    std::string dir = ws_ + "/d" + std::to_string(d);
    fs::create_directory(dir);
    for (int f = 0; f < 50; ++f)
      Write(dir + "/f" + std::to_string(f));
  }
  int calls = 0;
  ScanResult r = FullScan({ws_}, Patterns(), ScanLimits(), [&] {
    ++calls;
    return false;
  });
  EXPECT_EQ(r.entries, 2040u);
  EXPECT_EQ(calls, 2040 / 256);
  EXPECT_FALSE(r.cancelled);
  // Stopped at the first question.
  calls = 0;
  ScanResult stopped = FullScan({ws_}, Patterns(), ScanLimits(), [&] {
    ++calls;
    return true;
  });
  EXPECT_TRUE(stopped.cancelled);
  EXPECT_EQ(calls, 1);
  EXPECT_LT(stopped.entries, 256u + 50u);
}

TEST_F(BlockedScanTest, ACancelledScanKeepsWhatWasRead) {
  for (int d = 0; d < 40; ++d) {
    std::string dir = ws_ + "/d" + std::to_string(d);
    fs::create_directory(dir);
    for (int f = 0; f < 50; ++f)
      Write(dir + "/f" + std::to_string(f));
    Write(dir + "/.env");
  }
  BlockedScan cache;
  cache.racy_window_ns = 0;
  // Each attempt is cancelled one question later than the one before; the directories read by
  // the earlier attempts are not read again, and the last attempt finds everything.
  ScanResult r;
  int attempts = 0;
  for (int allowed = 0; attempts < 100; ++allowed) {
    ++attempts;
    int calls = 0;
    r = Scan(&cache, {ws_}, Patterns(), ScanLimits(), [&] { return calls++ >= allowed; });
    if (!r.cancelled) break;
    EXPECT_FALSE(cache.dirs.empty());
  }
  EXPECT_GT(attempts, 1);
  ExpectSame(r, FullScan({ws_}, Patterns(), ScanLimits(), Never()), "after cancels");
  // A complete cache survives a cancelled walk whole: the next walk reads nothing.
  cache.dirty = false;
  size_t dirs = cache.dirs.size();
  EXPECT_TRUE(Scan(&cache, {ws_}, Patterns(), ScanLimits(), [] { return true; }).cancelled);
  EXPECT_EQ(cache.dirs.size(), dirs);
  cache.dirty = false;
  ExpectSame(Scan(&cache, {ws_}, Patterns(), ScanLimits(), Never()),
             FullScan({ws_}, Patterns(), ScanLimits(), Never()), "after a cancel");
  EXPECT_FALSE(cache.dirty);
}

TEST_F(BlockedScanTest, NothingChangedMeansNothingIsRead) {
  fs::create_directories(ws_ + "/a/b");
  Write(ws_ + "/a/b/.env");
  // (A directory made a moment ago is racy for 2 s: the window is closed here, as if they were
  // older.)
  BlockedScan cache;
  cache.racy_window_ns = 0;
  ScanResult first = Scan(&cache, {ws_}, Patterns(), ScanLimits(), Never());
  EXPECT_TRUE(cache.dirty);
  for (const ScanDir& d : cache.dirs) {
    EXPECT_EQ(d.state, ScanDir::kRead) << d.path;
  }
  cache.dirty = false;
  ExpectSame(Scan(&cache, {ws_}, Patterns(), ScanLimits(), Never()), first, "again");
  EXPECT_FALSE(cache.dirty);
  // Other patterns or limits: the cache is for something else, and starts again.
  ScanLimits other;
  other.max_depth = 2;
  ScanResult shallow = Scan(&cache, {ws_}, Patterns(), other, Never());
  EXPECT_TRUE(cache.dirty);
  EXPECT_TRUE(shallow.files.empty());
}

TEST_F(BlockedScanTest, ARacyDirectoryIsReadAgainEvenWhenItsStatIsTheSame) {
  fs::create_directories(ws_ + "/a");
  BlockedScan cache;
  cache.racy_window_ns = 0;
  Scan(&cache, {ws_}, Patterns(), ScanLimits(), Never());
  // A change within the same timestamp tick as the read: the lstat shows nothing. (Simulated
  // by putting the new stat into the cache, as if the change had left it unchanged.)
  Write(ws_ + "/a/.env");
  struct stat st;
  ASSERT_EQ(lstat((ws_ + "/a").c_str(), &st), 0);
  ScanDir* a = nullptr;
  for (ScanDir& d : cache.dirs) {
    if (d.path == "a") a = &d;
  }
  ASSERT_NE(a, nullptr);
  a->key.mtime_ns = int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec;
  a->key.ctime_ns = int64_t{st.st_ctim.tv_sec} * 1'000'000'000 + st.st_ctim.tv_nsec;
  a->key.size = st.st_size;
  BlockedScan stale = cache;  // not racy: the change is missed (so the test can fail)
  EXPECT_TRUE(Scan(&stale, {ws_}, Patterns(), ScanLimits(), Never()).files.empty());
  a->racy = true;  // what a read within the window records
  EXPECT_EQ(Scan(&cache, {ws_}, Patterns(), ScanLimits(), Never()).files,
            std::vector<std::string>{ws_ + "/a/.env"});
  // The default window marks a directory changed just now as racy.
  BlockedScan fresh;
  Scan(&fresh, {ws_}, Patterns(), ScanLimits(), Never());
  for (const ScanDir& d : fresh.dirs) {
    EXPECT_TRUE(d.racy) << d.path;
  }
}

// The random tree: seeded changes of every kind, then an incremental walk per limits (each with
// its own cache, one of them saved to and loaded from a file every round) against a full walk
// and the reference walk.
class RandomTree {
 public:
  RandomTree(std::string root, uint32_t seed, time_t* clock)
      : root_(std::move(root)), rng_(seed), clock_(clock) {}

  void Change() {
    std::vector<std::string> dirs, files;
    List(&dirs, &files);
    int op = Pick(files.size() > 400 ? 4 : 13);
    std::string dir = dirs[Pick(dirs.size())];
    switch (op) {
      case 0:  // remove a file (or link)
        if (!files.empty()) Remove(files[Pick(files.size())]);
        break;
      case 1:  // remove a directory tree
        if (dirs.size() > 3) {
          std::string d = dirs[Pick(dirs.size())];
          if (!Protected(d)) Remove(d);
        }
        break;
      case 2:  // rename a file, maybe into another directory
        if (!files.empty()) Rename(files[Pick(files.size())], dir + "/" + Name());
        break;
      case 3:  // move a directory somewhere else (not into itself)
        if (dirs.size() > 3) {
          std::string d = dirs[Pick(dirs.size())];
          if (!Protected(d) && !(dir + "/").starts_with(d + "/")) Rename(d, dir + "/" + Name());
        }
        break;
      case 4:
      case 5:
      case 6:  // a new file
        MakeFile(dir + "/" + Name());
        break;
      case 7:
      case 8:  // a new directory
        MakeDir(dir + "/" + Name());
        break;
      case 9: {  // a directory replaced by a file of the same name
        std::string d = dirs[Pick(dirs.size())];
        if (!Protected(d)) {
          Remove(d);
          MakeFile(d);
        }
        break;
      }
      case 10: {  // a link: to a directory, to a file, or to nothing
        std::string target = Pick(3) == 0   ? dirs[Pick(dirs.size())]
                             : Pick(2) == 0 ? (files.empty() ? dir : files[Pick(files.size())])
                                            : dir + "/nothing-here";
        std::string link = dir + "/" + Name();
        if (symlink(target.c_str(), link.c_str()) == 0) Changed(dir);
        break;
      }
      case 11: {  // a deep chain, past the depth limit
        std::string p = dir;
        int n = 3 + Pick(12);
        for (int i = 0; i < n; ++i) {
          p += "/c" + std::to_string(Pick(3));
          MakeDir(p);
        }
        MakeFile(p + "/id_rsa");
        break;
      }
      case 12: {  // many files at once (reaches the smaller entry limits)
        int n = 20 + Pick(60);
        for (int i = 0; i < n; ++i)
          MakeFile(dir + "/" + Name());
        break;
      }
    }
  }

  std::vector<std::string> Roots() const {
    return {root_ + "/a", root_ + "/a/nested", root_ + "/b"};
  }

 private:
  size_t Pick(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }

  std::string Name() {
    static const char* names[] = {".env",        ".env.local", ".env.example", "id_rsa",
                                  "server.key",  "Cert.PEM",   "secret-dir",   "README.md",
                                  "main.c",      "src",        "lib",          "node_modules",
                                  ".git",        "target",     "vendor",       "docs",
                                  "__pycache__", "x.p12",      "notes.txt",    "build",
                                  "a",           "b",          ".npmrc",       "data"};
    std::string n = names[Pick(std::size(names))];
    // Often a unique name, so that directories fill up; sometimes a clash (the change fails).
    if (Pick(2) == 0 && n != ".env") n += std::to_string(counter_++);
    return n;
  }

  bool Protected(const std::string& d) const {
    for (const std::string& r : Roots()) {
      if (d == r || (r + "/").starts_with(d + "/")) return true;
    }
    return false;
  }

  void List(std::vector<std::string>* dirs, std::vector<std::string>* files) {
    dirs->push_back(root_ + "/a");
    dirs->push_back(root_ + "/b");
    for (const std::string& top : {root_ + "/a", root_ + "/b"}) {
      std::error_code ec;
      for (fs::recursive_directory_iterator it(top, ec), end; it != end; it.increment(ec)) {
        if (ec) break;
        if (it->is_symlink() || !it->is_directory()) {
          files->push_back(it->path());
        } else {
          dirs->push_back(it->path());
        }
      }
    }
  }

  void Changed(const std::string& dir) {
    struct timespec ts[2] = {{0, UTIME_OMIT}, {(*clock_)++, 0}};
    utimensat(AT_FDCWD, dir.c_str(), ts, AT_SYMLINK_NOFOLLOW);
  }
  std::string Parent(const std::string& p) { return p.substr(0, p.rfind('/')); }

  void MakeFile(const std::string& p) {
    int fd = open(p.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
    if (fd < 0) return;
    close(fd);
    Changed(Parent(p));
  }
  void MakeDir(const std::string& p) {
    if (mkdir(p.c_str(), 0700) == 0) Changed(Parent(p));
  }
  void Remove(const std::string& p) {
    std::error_code ec;
    fs::remove_all(p, ec);
    Changed(Parent(p));
  }
  void Rename(const std::string& from, const std::string& to) {
    if (renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) != 0) return;
    Changed(Parent(from));
    Changed(Parent(to));
    struct stat st;
    if (lstat(to.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) Changed(to);  // its ".." changed
  }

  std::string root_;
  std::mt19937 rng_;
  time_t* clock_;
  int counter_ = 0;
};

TEST_F(BlockedScanTest, IncrementalIsFullOverRandomChanges) {
  std::vector<ScanLimits> limits(4);
  limits[1].max_entries = 150;
  limits[2].max_depth = 3;
  limits[3].max_entries = 400;
  limits[3].max_depth = 6;
  int rounds = 250;
  if (const char* n = getenv("SAFESH_SCAN_ROUNDS")) rounds = atoi(n);
  for (uint32_t seed : {1u, 2u, 3u}) {
    std::string root = dir_ + "/tree" + std::to_string(seed);
    fs::create_directories(root + "/a/nested");
    fs::create_directories(root + "/b");
    RandomTree tree(root, seed, &clock_);
    std::vector<std::string> roots = tree.Roots();
    std::vector<BlockedScan> caches(limits.size());
    for (BlockedScan& c : caches)
      c.racy_window_ns = 0;
    std::string file = dir_ + "/cache" + std::to_string(seed);
    size_t truncated = 0, cached_dirs = 0, read_again = 0;
    for (int round = 0; round < rounds; ++round) {
      int changes = 1 + static_cast<int>(round % 4);
      for (int i = 0; i < changes; ++i)
        tree.Change();
      for (size_t l = 0; l < limits.size(); ++l) {
        std::string what = "seed " + std::to_string(seed) + " round " + std::to_string(round) +
                           " limits " + std::to_string(l);
        ScanResult full = FullScan(roots, Patterns(), limits[l], Never());
        ExpectSame(full, ReferenceWalk(roots, limits[l]), what + " (full vs reference)");
        BlockedScan* cache = &caches[l];
        BlockedScan loaded;
        if (l == 0 && round > 0) {
          // The first limits' cache goes through the file every round.
          std::string why;
          ASSERT_TRUE(LoadBlockedScan(file, &loaded, &why)) << why;
          loaded.racy_window_ns = 0;
          cache = &loaded;
        }
        size_t before = cache->dirs.size();
        cache->dirty = false;
        ScanResult inc = Scan(cache, roots, Patterns(), limits[l], Never());
        ExpectSame(inc, full, what + " (incremental vs full)");
        if (::testing::Test::HasFailure()) return;
        cached_dirs += before;
        read_again += cache->dirty ? 1 : 0;
        truncated += full.truncated ? 1 : 0;
        if (l == 0) {
          std::string error;
          ASSERT_TRUE(SaveBlockedScan(*cache, file, &error)) << error;
        }
      }
    }
    // The test exercised what it claims to: walks from a cache, and the entry limits.
    EXPECT_GT(cached_dirs, static_cast<size_t>(rounds));
    EXPECT_GT(truncated, static_cast<size_t>(rounds / 4));
    EXPECT_GT(read_again, 0u);
  }
}

TEST_F(BlockedScanTest, IncrementalIsFullAtTheRealEntryLimit) {
  // 10 folders of 50 folders of 100 files: 50,510 entries, so the default limit (50,000) cuts
  // the walk in the last level; changes before the cut move it. In a memory file system when
  // there is one: the walk is the same, and making 50,000 files there takes a fraction of the
  // time.
  struct statfs sfs;
  char t[] = "/dev/shm/safesh-scan-XXXXXX";
  if (statfs("/dev/shm", &sfs) == 0 && sfs.f_type == TMPFS_MAGIC && mkdtemp(t) != nullptr) {
    shm_ = t;
    ws_ = shm_;
  }
  for (int a = 0; a < 10; ++a) {
    std::string top = ws_ + "/a" + std::to_string(a);
    fs::create_directory(top);
    for (int b = 0; b < 50; ++b) {
      std::string mid = top + "/b" + std::to_string(b);
      fs::create_directory(mid);
      for (int f = 0; f < 100; ++f) {
        // One name in ten matches, so what is found shows exactly where the walk stopped.
        std::string name = "f" + std::to_string(f) + (f % 10 == 0 ? ".key" : "");
        int fd = open((mid + "/" + name).c_str(), O_WRONLY | O_CREAT, 0600);
        ASSERT_GE(fd, 0);
        close(fd);
      }
    }
  }
  for (int a = 0; a < 10; ++a)
    Touch(ws_ + "/a" + std::to_string(a));
  Touch(ws_);
  BlockedScan cache;
  cache.racy_window_ns = 0;
  auto check = [&](const std::string& what) {
    ScanResult full = FullScan({ws_}, Patterns(), ScanLimits(), Never());
    EXPECT_TRUE(full.truncated) << what;
    EXPECT_EQ(full.entries, 50000u) << what;
    ExpectSame(Scan(&cache, {ws_}, Patterns(), ScanLimits(), Never()), full, what);
  };
  check("first");
  check("nothing changed");
  // Keys at the first level and in the last folders read: found; the cut moves.
  for (int a = 0; a < 10; a += 3) {
    Write(ws_ + "/a" + std::to_string(a) + "/.env");
    Touch(ws_ + "/a" + std::to_string(a));
  }
  check("keys added");
  // A folder before the cut removed, another renamed, one replaced by a file.
  fs::remove_all(ws_ + "/a0/b3");
  fs::rename(ws_ + "/a1/b7", ws_ + "/a1/z7");
  fs::remove_all(ws_ + "/a2/b0");
  Write(ws_ + "/a2/b0");
  for (int a = 0; a < 3; ++a)
    Touch(ws_ + "/a" + std::to_string(a));
  check("folders changed");
  // A file added past the cut changes nothing the walk looks at.
  Write(ws_ + "/a9/b49/id_rsa");
  Touch(ws_ + "/a9/b49");
  check("past the cut");
}

TEST_F(BlockedScanTest, TheCacheFileRoundTrips) {
  fs::create_directories(ws_ + "/a/b");
  Write(ws_ + "/a/b/.env");
  Write(ws_ + "/a/x.pem");
  BlockedScan cache;
  cache.racy_window_ns = 0;
  ScanResult first = Scan(&cache, {ws_}, Patterns(), ScanLimits(), Never());
  std::string file = dir_ + "/state/" + BlockedScanFileName({ws_}, Patterns(), ScanLimits());
  fs::create_directories(dir_ + "/state");
  std::string error;
  ASSERT_TRUE(SaveBlockedScan(cache, file, &error)) << error;
  struct stat st;
  ASSERT_EQ(stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  // Written whole then renamed: nothing else is left in the folder.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_ + "/state"), fs::directory_iterator()), 1);

  BlockedScan loaded;
  std::string why;
  ASSERT_TRUE(LoadBlockedScan(file, &loaded, &why)) << why;
  EXPECT_EQ(loaded.roots, cache.roots);
  EXPECT_EQ(loaded.patterns, cache.patterns);
  EXPECT_EQ(loaded.limits, cache.limits);
  ASSERT_EQ(loaded.dirs.size(), cache.dirs.size());
  for (size_t i = 0; i < loaded.dirs.size(); ++i) {
    EXPECT_EQ(loaded.dirs[i].path, cache.dirs[i].path);
    EXPECT_EQ(loaded.dirs[i].key, cache.dirs[i].key);
    EXPECT_EQ(loaded.dirs[i].names, cache.dirs[i].names);
    EXPECT_EQ(loaded.dirs[i].items.size(), cache.dirs[i].items.size());
  }
  loaded.racy_window_ns = 0;
  ExpectSame(Scan(&loaded, {ws_}, Patterns(), ScanLimits(), Never()), first, "loaded");
  EXPECT_FALSE(loaded.dirty);  // nothing was read again
  // Names differ by key.
  EXPECT_NE(BlockedScanFileName({ws_}, Patterns(), ScanLimits()),
            BlockedScanFileName({ws_ + "/a"}, Patterns(), ScanLimits()));
  ScanLimits other;
  other.max_depth = 3;
  EXPECT_NE(BlockedScanFileName({ws_}, Patterns(), ScanLimits()),
            BlockedScanFileName({ws_}, Patterns(), other));
}

TEST_F(BlockedScanTest, ADamagedOrForeignCacheFileIsNotUsed) {
  fs::create_directories(ws_ + "/a");
  Write(ws_ + "/a/.env");
  BlockedScan cache;
  Scan(&cache, {ws_}, Patterns(), ScanLimits(), Never());
  std::string file = dir_ + "/cache";
  std::string error, why;
  ASSERT_TRUE(SaveBlockedScan(cache, file, &error)) << error;
  std::string good;
  {
    std::ifstream in(file, std::ios::binary);
    good.assign(std::istreambuf_iterator<char>(in), {});
  }
  ASSERT_GT(good.size(), 40u);
  auto write_raw = [&](const std::string& bytes) {
    fs::remove(file);
    int fd = open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(write(fd, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
    close(fd);
  };
  BlockedScan loaded;
  // Every single flipped byte and every truncation is refused.
  for (size_t i = 0; i < good.size(); ++i) {
    std::string bad = good;
    bad[i] = static_cast<char>(bad[i] ^ 0x5a);
    write_raw(bad);
    EXPECT_FALSE(LoadBlockedScan(file, &loaded, &why)) << "byte " << i;
    EXPECT_TRUE(loaded.dirs.empty());
    write_raw(good.substr(0, i));
    EXPECT_FALSE(LoadBlockedScan(file, &loaded, &why)) << "cut at " << i;
  }
  write_raw("");
  EXPECT_FALSE(LoadBlockedScan(file, &loaded, &why));
  EXPECT_FALSE(LoadBlockedScan(dir_ + "/no-such-file", &loaded, &why));
  // Not private, or a link: refused however good the contents.
  write_raw(good);
  ASSERT_TRUE(LoadBlockedScan(file, &loaded, &why)) << why;
  chmod(file.c_str(), 0644);
  EXPECT_FALSE(LoadBlockedScan(file, &loaded, &why));
  EXPECT_NE(why.find("not a private file"), std::string::npos) << why;
  chmod(file.c_str(), 0600);
  fs::create_symlink(file, dir_ + "/link");
  EXPECT_FALSE(LoadBlockedScan(dir_ + "/link", &loaded, &why));
  // A good file for other patterns is loaded, and then emptied by the scan, which reads all.
  ASSERT_TRUE(LoadBlockedScan(file, &loaded, &why)) << why;
  std::vector<std::string> fewer = {"*.pem"};
  Write(ws_ + "/a/k.pem");
  ExpectSame(Scan(&loaded, {ws_}, fewer, ScanLimits(), Never()),
             FullScan({ws_}, fewer, ScanLimits(), Never()), "other patterns");
}

TEST_F(BlockedScanTest, OldCacheFilesAreRemoved) {
  std::string state = dir_ + "/state";
  fs::create_directories(state);
  for (const char* name : {"blocked-scan-old", "blocked-scan-new", "blocked-scan-old.tmp9",
                           "bwrap-probe", "other-old"})
    Write(state + "/" + name);
  fs::create_directory(state + "/blocked-scan-dir");
  for (const char* name :
       {"blocked-scan-old", "blocked-scan-old.tmp9", "other-old", "blocked-scan-dir"}) {
    struct timespec ts[2] = {{0, UTIME_OMIT}, {time(nullptr) - 3600, 0}};
    ASSERT_EQ(utimensat(AT_FDCWD, (state + "/" + name).c_str(), ts, 0), 0);
  }
  EXPECT_EQ(RemoveOldBlockedScans(state, 60), 2);
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(state))
    left.push_back(e.path().filename());
  std::sort(left.begin(), left.end());
  EXPECT_EQ(left, (std::vector<std::string>{"blocked-scan-dir", "blocked-scan-new", "bwrap-probe",
                                            "other-old"}));
  EXPECT_EQ(RemoveOldBlockedScans(dir_ + "/missing", 60), 0);
}

// The file's checksum (FNV-1a over everything before it), as blocked_scan_file.cc computes it:
// here to make damaged files that the checksum does not catch.
uint64_t Fnv1a(std::string_view bytes) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

TEST_F(BlockedScanTest, DamageTheChecksumMissesIsStillCheckedFieldByField) {
  fs::create_directories(ws_ + "/a/b");
  Write(ws_ + "/a/b/.env");
  Write(ws_ + "/a/x.pem");
  BlockedScan cache;
  Scan(&cache, {ws_}, Patterns(), ScanLimits(), Never());
  std::string file = dir_ + "/cache", error, why;
  ASSERT_TRUE(SaveBlockedScan(cache, file, &error)) << error;
  std::string good;
  {
    std::ifstream in(file, std::ios::binary);
    good.assign(std::istreambuf_iterator<char>(in), {});
  }
  size_t body = good.size() - sizeof(uint64_t);
  size_t refused = 0;
  for (size_t i = 0; i < body; ++i) {
    for (unsigned char flip : {0x01, 0x80, 0xff}) {
      std::string bad = good;
      bad[i] = static_cast<char>(bad[i] ^ flip);
      uint64_t sum = Fnv1a(std::string_view(bad).substr(0, body));
      memcpy(bad.data() + body, &sum, sizeof sum);
      fs::remove(file);
      int fd = open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
      ASSERT_GE(fd, 0);
      ASSERT_EQ(write(fd, bad.data(), bad.size()), static_cast<ssize_t>(bad.size()));
      close(fd);
      BlockedScan loaded;
      if (!LoadBlockedScan(file, &loaded, &why)) {
        ++refused;
        continue;
      }
      // Whatever was accepted stays inside the roots and the limits.
      ScanResult r = Scan(&loaded, {ws_}, Patterns(), ScanLimits(), Never());
      for (const std::vector<std::string>* paths : {&r.files, &r.dirs}) {
        for (const std::string& p : *paths) {
          EXPECT_TRUE(p.starts_with(ws_ + "/")) << "byte " << i << ": " << p;
          EXPECT_EQ(p.find("/../"), std::string::npos) << "byte " << i << ": " << p;
        }
      }
      EXPECT_LE(r.entries, ScanLimits().max_entries);
    }
  }
  // Most damage is caught by the checks of counts, offsets, kinds and paths.
  EXPECT_GT(refused, body);
}

TEST_F(BlockedScanTest, AStaleCacheFileCannotHideANewKey) {
  fs::create_directories(ws_ + "/a/b/c");
  Touch(ws_ + "/a/b/c");
  BlockedScan cache;
  Scan(&cache, {ws_}, Patterns(), ScanLimits(), Never());
  std::string file = dir_ + "/cache", error, why;
  ASSERT_TRUE(SaveBlockedScan(cache, file, &error)) << error;
  // After the file was written: a new key, deep down, and a new directory with one.
  Write(ws_ + "/a/b/c/id_ed25519");
  Touch(ws_ + "/a/b/c");
  fs::create_directories(ws_ + "/a/new");
  Write(ws_ + "/a/new/.env.production");
  Touch(ws_ + "/a/new");
  Touch(ws_ + "/a");
  BlockedScan loaded;
  ASSERT_TRUE(LoadBlockedScan(file, &loaded, &why)) << why;
  ScanResult r = Scan(&loaded, {ws_}, Patterns(), ScanLimits(), Never());
  std::sort(r.files.begin(), r.files.end());
  EXPECT_EQ(r.files,
            (std::vector<std::string>{ws_ + "/a/b/c/id_ed25519", ws_ + "/a/new/.env.production"}));
}

}  // namespace
}  // namespace safesh::sandbox
