// The watched blocked-name scan (sandbox/scan_watch.h) against FullScan: after each kind of
// change, over seeded random changes, and where the watcher must start again (a mount, a lost
// event, a root moved) or give up (no more watches). Real files in a temporary folder.
#include "sandbox/scan_watch.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <stdio.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <random>

#include "sandbox/blocked_names.h"
#include "sandbox/scan_helpers.h"

namespace safesh::sandbox {
namespace {

namespace fs = std::filesystem;
using scan_test::Never;
using scan_test::Patterns;
using scan_test::Write;

// The differences between two results, or "" when they are the same.
std::string Diff(const ScanResult& got, const ScanResult& want) {
  std::string out;
  if (got.files != want.files) out += "files differ; ";
  if (got.dirs != want.dirs) out += "dirs differ; ";
  if (got.entries != want.entries)
    out += "entries " + std::to_string(got.entries) + " != " + std::to_string(want.entries) + "; ";
  if (got.truncated != want.truncated) out += "truncated differs; ";
  if (got.cancelled) out += "cancelled; ";
  return out;
}

// A watcher and its cache for one set of roots and limits.
struct Watched {
  std::vector<std::string> roots;
  ScanLimits limits;
  BlockedScan cache;
  ScanWatch watch;

  ScanResult Scan() { return WatchedScan(&watch, &cache, roots, Patterns(), limits, Never()); }
  // The watched scan and the full one, compared: "" when they agree.
  std::string Check() {
    ScanResult got = Scan();
    return Diff(got, FullScan(roots, Patterns(), limits, Never()));
  }
};

class ScanWatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char t[] = "/tmp/safesh-watch-XXXXXX";
    ASSERT_NE(mkdtemp(t), nullptr);
    dir_ = t;
    ws_ = dir_ + "/ws";
    fs::create_directories(ws_);
  }
  void TearDown() override {
    std::error_code ec;
    for (fs::recursive_directory_iterator it(dir_, ec), end; it != end; it.increment(ec)) {
      std::error_code ignored;
      if (!ec && it->symlink_status(ignored).type() == fs::file_type::directory)
        fs::permissions(it->path(), fs::perms::owner_all, ignored);
    }
    fs::remove_all(dir_, ec);
  }

  std::string dir_, ws_;
};

TEST_F(ScanWatchTest, NothingChangedLooksAtNothing) {
  fs::create_directories(ws_ + "/a/b");
  Write(ws_ + "/a/b/.env");
  Watched w{{ws_}, ScanLimits(), {}, {}};
  EXPECT_EQ(w.Check(), "");
  EXPECT_EQ(w.watch.last, ScanWatch::kReset) << w.watch.why;
  EXPECT_EQ(w.watch.why, "the first scan");
  uint64_t walks = w.cache.walks;
  EXPECT_EQ(w.Check(), "");
  EXPECT_EQ(w.watch.last, ScanWatch::kUnchanged);
  EXPECT_EQ(w.cache.walks, walks);  // not walked
  // A file's contents and attributes change nothing the scan sees.
  Write(ws_ + "/a/b/.env");
  chmod((ws_ + "/a/b/.env").c_str(), 0600);
  EXPECT_EQ(w.Check(), "");
  EXPECT_EQ(w.watch.last, ScanWatch::kUnchanged);
  // A change is seen by the very next scan.
  Write(ws_ + "/a/id_rsa");
  EXPECT_EQ(w.Check(), "");
  EXPECT_EQ(w.watch.last, ScanWatch::kWalked);
  EXPECT_EQ(w.Scan().files.size(), 2u);
}

// Each kind of change, one after another, under several limits (each with its own watcher):
// after each the watched scan equals the full one, without starting the watches again.
TEST_F(ScanWatchTest, EachKindOfChange) {
  std::string out = dir_ + "/outside";
  fs::create_directories(out + "/tree/deep/er");
  Write(out + "/tree/deep/er/server.key");
  Write(out + "/tree/.env");
  Write(out + "/.env");
  fs::create_directories(ws_ + "/src/lib/util");
  fs::create_directories(ws_ + "/docs");
  fs::create_directories(ws_ + "/x/y/z");
  fs::create_directories(ws_ + "/p/q");
  Write(ws_ + "/src/main.c");
  Write(ws_ + "/x/y/z/.env");
  Write(ws_ + "/p/q/id_rsa");
  std::vector<Watched> all;
  for (auto [entries, depth] :
       std::vector<std::pair<size_t, int>>{{50000, 12}, {12, 12}, {50000, 3}, {25, 4}}) {
    ScanLimits limits;
    limits.max_entries = entries;
    limits.max_depth = depth;
    all.push_back({{ws_}, limits, {}, {}});
  }
  auto each = [&](const std::string& what) {
    for (size_t i = 0; i < all.size(); ++i) {
      EXPECT_EQ(all[i].Check(), "") << what << " (limits " << i << ")";
      if (what != "first") {
        EXPECT_NE(all[i].watch.last, ScanWatch::kReset) << what << ": " << all[i].watch.why;
      }
    }
  };
  each("first");
  auto mv = [](const std::string& from, const std::string& to) {
    ASSERT_EQ(rename(from.c_str(), to.c_str()), 0) << from << " -> " << to;
  };
  std::vector<std::pair<std::string, std::function<void()>>> changes = {
      {"new file", [&] { Write(ws_ + "/src/lib/.env"); }},
      {"file removed", [&] { fs::remove(ws_ + "/src/lib/.env"); }},
      {"file renamed to a blocked name", [&] { mv(ws_ + "/src/main.c", ws_ + "/src/main.pem"); }},
      {"file renamed back", [&] { mv(ws_ + "/src/main.pem", ws_ + "/src/main.c"); }},
      {"new directory with a key",
       [&] {
         fs::create_directories(ws_ + "/src/new/deeper");
         Write(ws_ + "/src/new/deeper/id_ed25519");
       }},
      {"directory removed", [&] { fs::remove_all(ws_ + "/src/new"); }},
      {"directory renamed", [&] { mv(ws_ + "/x", ws_ + "/renamed"); }},
      {"directory moved deeper", [&] { mv(ws_ + "/renamed", ws_ + "/docs/moved"); }},
      {"directory moved out", [&] { mv(ws_ + "/docs/moved", out + "/was-in"); }},
      {"directory moved in", [&] { mv(out + "/tree", ws_ + "/src/lib/util/tree"); }},
      {"directory renamed to a blocked name", [&] { mv(ws_ + "/p", ws_ + "/secret-dir"); }},
      {"and back", [&] { mv(ws_ + "/secret-dir", ws_ + "/p"); }},
      {"directory made unreadable", [&] { chmod((ws_ + "/p").c_str(), 0); }},
      {"readable again", [&] { chmod((ws_ + "/p").c_str(), 0755); }},
      {"directory replaced by a link",
       [&] {
         fs::remove_all(ws_ + "/p/q");
         fs::create_directory_symlink(out, ws_ + "/p/q");
       }},
      {"link replaced by a directory",
       [&] {
         fs::remove(ws_ + "/p/q");
         fs::create_directories(ws_ + "/p/q");
         Write(ws_ + "/p/q/.netrc");
       }},
      {"directory replaced by a file",
       [&] {
         fs::remove_all(ws_ + "/p/q");
         Write(ws_ + "/p/q");
       }},
      {"two directories exchanged",
       [&] {
         // Same names, other directories: what is cached below each belongs to the other.
         fs::create_directories(ws_ + "/e1/sub");
         fs::create_directories(ws_ + "/e2/sub");
         Write(ws_ + "/e2/sub/.env");
       }},
      {"(exchanged)",
       [&] {
         ASSERT_EQ(renameat2(AT_FDCWD, (ws_ + "/e1").c_str(), AT_FDCWD, (ws_ + "/e2").c_str(),
                             RENAME_EXCHANGE),
                   0);
       }},
      {"directory replaced by another under its name",
       [&] {
         fs::create_directories(out + "/other/sub");
         Write(out + "/other/sub/x.p12");
         mv(ws_ + "/e1", out + "/e1-old");
         mv(out + "/other", ws_ + "/e1");
       }},
      {"deep new tree past the depth limit",
       [&] {
         std::string p = ws_ + "/docs";
         for (int i = 0; i < 14; ++i) {
           p += "/d";
           fs::create_directory(p);
           Write(p + "/.env");
         }
       }},
      {"many files past the entry limit",
       [&] {
         for (int i = 0; i < 30; ++i)
           Write(ws_ + "/docs/f" + std::to_string(i) + (i % 7 == 0 ? ".key" : ""));
       }},
      {"a file before the cut", [&] { Write(ws_ + "/.env"); }},
      {"a directory's times set back",
       [&] {
         struct timespec ts[2] = {{0, UTIME_OMIT}, {946684800, 0}};
         ASSERT_EQ(utimensat(AT_FDCWD, (ws_ + "/docs").c_str(), ts, 0), 0);
       }},
      {"a hard link under a blocked name",
       [&] { ASSERT_EQ(link((ws_ + "/src/main.c").c_str(), (ws_ + "/src/cert.pem").c_str()), 0); }},
      {"a whole subtree removed", [&] { fs::remove_all(ws_ + "/docs"); }},
  };
  for (auto& [what, change] : changes) {
    change();
    if (HasFatalFailure()) return;
    each(what);
    if (HasFailure()) return;
  }
}

// As another user (nobody, in a child process, as root cannot be refused): a directory made
// unreadable is hidden whole, and one that may be listed but not searched hides what is below.
TEST_F(ScanWatchTest, PermissionsAsAnotherUser) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to become another user";
  fs::create_directories(ws_ + "/a/b/c");
  Write(ws_ + "/a/b/c/.env");
  Write(ws_ + "/a/b/.env");
  for (const std::string& p : {dir_, ws_, ws_ + "/a", ws_ + "/a/b", ws_ + "/a/b/c"}) {
    ASSERT_EQ(chown(p.c_str(), 65534, 65534), 0);
    ASSERT_EQ(chmod(p.c_str(), 0755), 0);
  }
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    if (setresgid(65534, 65534, 65534) != 0 || setresuid(65534, 65534, 65534) != 0) _exit(2);
    Watched w{{ws_}, ScanLimits(), {}, {}};
    int step = 10;
    auto check = [&] {
      if (w.Check() != "") _exit(step);
      ++step;
    };
    check();
    chmod((ws_ + "/a/b").c_str(), 0);  // unreadable: hidden whole
    check();
    if (w.Scan().dirs != std::vector<std::string>{ws_ + "/a/b"}) _exit(3);
    check();  // (unwatched now: checked every time)
    chmod((ws_ + "/a/b").c_str(), 0755);
    check();
    chmod((ws_ + "/a").c_str(), 0644);  // listed, not searched: b cannot be checked
    check();
    chmod((ws_ + "/a").c_str(), 0755);
    check();
    _exit(0);
  }
  int status;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0) << "failed at step " << WEXITSTATUS(status);
}

// A mount over a watched directory makes no inotify event: the mount table's does it.
TEST_F(ScanWatchTest, AMountOverADirectoryIsSeen) {
  fs::create_directories(ws_ + "/a/b");
  fs::create_directories(dir_ + "/other/deep");
  Write(dir_ + "/other/deep/.env");
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    // A mount namespace of its own, where nothing propagates back.
    if (unshare(CLONE_NEWNS) != 0 ||
        mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
      _exit(77);
    Watched w{{ws_}, ScanLimits(), {}, {}};
    if (w.Check() != "" || w.Check() != "" || w.watch.last != ScanWatch::kUnchanged) _exit(2);
    if (mount((dir_ + "/other").c_str(), (ws_ + "/a/b").c_str(), nullptr, MS_BIND, nullptr) != 0)
      _exit(3);
    if (w.Check() != "") _exit(4);
    if (w.watch.last != ScanWatch::kReset || w.watch.why != "the mount table changed") _exit(5);
    if (w.Scan().files != std::vector<std::string>{ws_ + "/a/b/deep/.env"}) _exit(6);
    if (umount2((ws_ + "/a/b").c_str(), MNT_DETACH) != 0) _exit(7);
    if (w.Check() != "" || !w.Scan().files.empty()) _exit(8);
    _exit(0);
  }
  int status;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  if (WEXITSTATUS(status) == 77)
    GTEST_SKIP() << "no mount namespace here (unshare or mount refused)";
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

// More events than the queue holds: the last ones are lost, and the overflow says so.
TEST_F(ScanWatchTest, AQueueOverflowChecksEverything) {
  long queued = 0;
  if (FILE* f = fopen("/proc/sys/fs/inotify/max_queued_events", "r")) {
    if (fscanf(f, "%ld", &queued) != 1) queued = 0;
    fclose(f);
  }
  if (queued <= 0 || queued > 200000)
    GTEST_SKIP() << "fs.inotify.max_queued_events is " << queued << ": too many to fill";
  fs::create_directories(ws_ + "/many");
  fs::create_directories(ws_ + "/last");
  Watched w{{ws_}, ScanLimits(), {}, {}};
  w.limits.max_entries = static_cast<size_t>(queued) + 1000;
  ASSERT_EQ(w.Check(), "");
  for (long i = 0; i <= queued; ++i) {
    int fd = open((ws_ + "/many/f" + std::to_string(i)).c_str(), O_WRONLY | O_CREAT, 0600);
    ASSERT_GE(fd, 0);
    close(fd);
  }
  Write(ws_ + "/last/.env");  // its event is lost
  EXPECT_EQ(w.Check(), "");
  EXPECT_EQ(w.watch.last, ScanWatch::kReset);
  EXPECT_EQ(w.watch.why, "events were lost (the queue overflowed)");
  EXPECT_EQ(w.Scan().files, std::vector<std::string>{ws_ + "/last/.env"});
  EXPECT_EQ(w.watch.last, ScanWatch::kUnchanged);
}

// No more watches (ENOSPC, simulated: the limit is the user's, for every program): the watcher
// gives up, and every scan after is the walk without it.
TEST_F(ScanWatchTest, OutOfWatchesGivesUp) {
  fs::create_directories(ws_ + "/a/b");
  Write(ws_ + "/a/.env");
  // Enough for the directories above the root and the three walked, not for one more.
  int above = 0;
  for (const char& c : ws_)
    above += c == '/' ? 1 : 0;
  Watched w{{ws_}, ScanLimits(), {}, {}};
  w.watch.test_watch_budget = above + 3;
  ASSERT_EQ(w.Check(), "");
  EXPECT_EQ(w.watch.last, ScanWatch::kReset);
  ASSERT_EQ(w.Check(), "");
  EXPECT_EQ(w.watch.last, ScanWatch::kUnchanged);
  fs::create_directories(ws_ + "/a/b/c");
  Write(ws_ + "/a/b/c/id_rsa");
  EXPECT_EQ(w.Check(), "");
  EXPECT_EQ(w.watch.last, ScanWatch::kUnwatched);
  EXPECT_EQ(w.watch.why, "cannot watch more directories: No space left on device");
  EXPECT_FALSE(w.watch.inotify.valid());
  Write(ws_ + "/a/b/.env");
  EXPECT_EQ(w.Check(), "");
  EXPECT_EQ(w.watch.last, ScanWatch::kUnwatched);
  EXPECT_EQ(w.Scan().files.size(), 3u);

  // Out of watches from the start (the directories above the root).
  Watched none{{ws_}, ScanLimits(), {}, {}};
  none.watch.test_watch_budget = 1;
  EXPECT_EQ(none.Check(), "");
  EXPECT_EQ(none.watch.last, ScanWatch::kUnwatched);
  EXPECT_TRUE(none.watch.why.starts_with("cannot watch /")) << none.watch.why;
}

// A root, or a directory above it, moved away and replaced: the root's path names another
// directory, with no event in the tree.
TEST_F(ScanWatchTest, ARootOrADirectoryAboveItReplaced) {
  std::string root = dir_ + "/p/ws";
  fs::create_directories(root + "/a");
  Watched w{{root}, ScanLimits(), {}, {}};
  ASSERT_EQ(w.Check(), "");
  fs::rename(dir_ + "/p", dir_ + "/p-old");
  fs::create_directories(root + "/b");
  Write(root + "/b/.env");
  EXPECT_EQ(w.Check(), "");
  EXPECT_EQ(w.watch.last, ScanWatch::kReset);
  EXPECT_EQ(w.watch.why, "a directory above a root changed");
  EXPECT_EQ(w.Scan().files, std::vector<std::string>{root + "/b/.env"});

  fs::rename(root, dir_ + "/ws-old");
  fs::create_directories(root + "/c");
  Write(root + "/c/id_rsa");
  EXPECT_EQ(w.Check(), "");
  EXPECT_EQ(w.watch.last, ScanWatch::kReset);
  EXPECT_EQ(w.watch.why, "a root was moved or removed");
  EXPECT_EQ(w.Scan().files, std::vector<std::string>{root + "/c/id_rsa"});

  // A directory above made unsearchable (root is not refused: the change is all it sees).
  chmod((dir_ + "/p").c_str(), 0700);
  EXPECT_EQ(w.Check(), "");
  EXPECT_EQ(w.watch.last, ScanWatch::kReset);
}

TEST_F(ScanWatchTest, AWalkWithoutTheWatcherIsNoticed) {
  fs::create_directories(ws_ + "/a");
  Watched w{{ws_}, ScanLimits(), {}, {}};
  ASSERT_EQ(w.Check(), "");
  Scan(&w.cache, w.roots, Patterns(), w.limits, Never());
  EXPECT_EQ(w.Check(), "");
  EXPECT_EQ(w.watch.last, ScanWatch::kReset);
  EXPECT_EQ(w.watch.why, "the cache was walked without the watcher");
  // Other limits for the same watcher and cache: started again too.
  w.limits.max_depth = 1;
  EXPECT_EQ(w.Check(), "");
  EXPECT_EQ(w.watch.why, "other roots, patterns or limits");
}

TEST_F(ScanWatchTest, ACancelledScanIsFinishedByTheNext) {
  for (int i = 0; i < 20; ++i) {
    fs::create_directories(ws_ + "/d" + std::to_string(i));
    for (int f = 0; f < 30; ++f)
      Write(ws_ + "/d" + std::to_string(i) + "/f" + std::to_string(f) + (f == 29 ? ".key" : ""));
  }
  Watched w{{ws_}, ScanLimits(), {}, {}};
  int asked = 0;
  ScanResult r =
      WatchedScan(&w.watch, &w.cache, w.roots, Patterns(), w.limits, [&] { return ++asked == 2; });
  EXPECT_TRUE(r.cancelled);
  Write(ws_ + "/d19/.env");
  EXPECT_EQ(w.Check(), "");
  EXPECT_EQ(w.Check(), "");
  EXPECT_EQ(w.watch.last, ScanWatch::kUnchanged);
}

// Seeded random changes of every kind, with no help for the watcher (no directory's times are
// set: every change is what a command would do), under four sets of limits, over three roots
// of which one lies inside another.
class RandomChanges {
 public:
  RandomChanges(std::string base, uint32_t seed) : base_(std::move(base)), rng_(seed) {
    fs::create_directories(base_ + "/a/nested");
    fs::create_directories(base_ + "/b");
    fs::create_directories(base_ + "/away");
  }

  std::vector<std::string> Roots() const {
    return {base_ + "/a", base_ + "/a/nested", base_ + "/b"};
  }

  void Change() {
    std::vector<std::string> dirs, files, away;
    List(base_ + "/a", &dirs, &files);
    List(base_ + "/b", &dirs, &files);
    std::vector<std::string> ignored;
    List(base_ + "/away", &away, &ignored);
    std::string dir = dirs[Pick(dirs.size())];
    std::string d = dirs[Pick(dirs.size())];  // another, to change
    bool movable = !Protected(d);
    std::error_code ec;
    switch (Pick(files.size() > 400 ? 6 : 17)) {
      case 0:
        if (!files.empty()) fs::remove(files[Pick(files.size())], ec);
        break;
      case 1:
        if (movable) fs::remove_all(d, ec);
        break;
      case 2:
        if (!files.empty()) Rename(files[Pick(files.size())], dir + "/" + Name());
        break;
      case 3:  // a directory moved within the roots (not into itself)
        if (movable && !(dir + "/").starts_with(d + "/")) Rename(d, dir + "/" + Name());
        break;
      case 4:  // out of the roots
        if (movable) Rename(d, base_ + "/away/" + Name());
        break;
      case 5:  // into them, with what it holds
        if (away.size() > 1) Rename(away[1 + Pick(away.size() - 1)], dir + "/" + Name());
        break;
      case 6:
      case 7:
      case 8:
        MakeFile(dir + "/" + Name());
        break;
      case 9:
      case 10:
        fs::create_directory(dir + "/" + Name(), ec);
        break;
      case 11:  // two directories exchanged
        if (movable && !Protected(dir) && !(dir + "/").starts_with(d + "/") &&
            !(d + "/").starts_with(dir + "/"))
          renameat2(AT_FDCWD, d.c_str(), AT_FDCWD, dir.c_str(), RENAME_EXCHANGE);
        break;
      case 12:  // a directory replaced by a link or a file
        if (movable) {
          fs::remove_all(d, ec);
          if (Pick(2) == 0) {
            symlink(dirs[Pick(dirs.size())].c_str(), d.c_str());
          } else {
            MakeFile(d);
          }
        }
        break;
      case 13: {  // a deep chain, past the depth limit
        std::string p = dir;
        for (int i = 0, n = 3 + static_cast<int>(Pick(12)); i < n; ++i) {
          p += "/c" + std::to_string(Pick(3));
          fs::create_directory(p, ec);
        }
        MakeFile(p + "/id_rsa");
        break;
      }
      case 14:  // many files at once (past the smaller entry limits)
        for (int i = 0, n = 20 + static_cast<int>(Pick(60)); i < n; ++i)
          MakeFile(dir + "/" + Name());
        break;
      case 15:  // permissions (root is not refused, but each is still a change to see); not of a
                // root, above another root (tested apart: it starts the watches again)
        if (movable) chmod(d.c_str(), Pick(2) == 0 ? 0 : 0755);
        break;
      case 16:  // a hard link
        if (!files.empty()) link(files[Pick(files.size())].c_str(), (dir + "/" + Name()).c_str());
        break;
    }
  }

 private:
  size_t Pick(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }

  std::string Name() {
    static const char* names[] = {
        ".env",     ".env.local",   ".env.example", "id_rsa", "server.key",
        "Cert.PEM", "secret-dir",   "README.md",    "main.c", "src",
        "lib",      "node_modules", ".git",         "target", "docs",
        "x.p12",    "notes.txt",    "build",        "a",      ".npmrc"};
    std::string n = names[Pick(std::size(names))];
    if (Pick(2) == 0 && n != ".env") n += std::to_string(counter_++);
    return n;
  }

  bool Protected(const std::string& d) const {
    for (const std::string& r : Roots()) {
      if ((r + "/").starts_with(d + "/")) return true;
    }
    return false;
  }

  static void List(const std::string& top, std::vector<std::string>* dirs,
                   std::vector<std::string>* files) {
    dirs->push_back(top);
    std::error_code ec;
    fs::recursive_directory_iterator it(top, fs::directory_options::skip_permission_denied, ec);
    for (fs::recursive_directory_iterator end; it != end; it.increment(ec)) {
      if (ec) break;
      if (it->is_symlink() || !it->is_directory()) {
        files->push_back(it->path());
      } else {
        dirs->push_back(it->path());
      }
    }
  }

  static void MakeFile(const std::string& p) {
    int fd = open(p.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
    if (fd >= 0) close(fd);
  }
  static void Rename(const std::string& from, const std::string& to) {
    renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE);
  }

  std::string base_;
  std::mt19937 rng_;
  int counter_ = 0;
};

TEST_F(ScanWatchTest, WatchedIsFullOverRandomChanges) {
  int rounds = 300;
  if (const char* n = getenv("SAFESH_SCAN_ROUNDS")) rounds = atoi(n);
  for (uint32_t seed : {1u, 2u}) {
    RandomChanges tree(dir_ + "/tree" + std::to_string(seed), seed);
    std::vector<Watched> all;
    for (auto [entries, depth] :
         std::vector<std::pair<size_t, int>>{{50000, 12}, {150, 12}, {50000, 3}, {400, 6}}) {
      ScanLimits limits;
      limits.max_entries = entries;
      limits.max_depth = depth;
      all.push_back({tree.Roots(), limits, {}, {}});
    }
    int outcomes[4] = {};
    for (int round = 0; round < rounds; ++round) {
      // Sometimes no change at all: the last answer must stand.
      for (int i = 0, n = round % 5 == 4 ? 0 : 1 + round % 3; i < n; ++i)
        tree.Change();
      for (size_t l = 0; l < all.size(); ++l) {
        ASSERT_EQ(all[l].Check(), "") << "seed " << seed << " round " << round << " limits " << l;
        if (round > 0) outcomes[all[l].watch.last]++;
      }
    }
    // Both ways of answering were used, and the watches were never started again.
    EXPECT_GT(outcomes[ScanWatch::kUnchanged], rounds / 10);
    EXPECT_GT(outcomes[ScanWatch::kWalked], rounds);
    EXPECT_EQ(outcomes[ScanWatch::kReset], 0);
    EXPECT_EQ(outcomes[ScanWatch::kUnwatched], 0);
  }
}

}  // namespace
}  // namespace safesh::sandbox
