// Finding the host's UNIX sockets to mask: depth, links, allowed sockets, the entry limit.
#include "sandbox/host_sockets.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>

namespace safesh::sandbox {
namespace {

namespace fs = std::filesystem;

class HostSocketsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char t[] = "/tmp/safesh-sockets-XXXXXX";
    dir_ = mkdtemp(t);
  }
  void TearDown() override {
    for (int fd : fds_)
      close(fd);
    fs::remove_all(dir_);
  }
  // What the cached searches remember, as one host's SandboxCaches would; cleared where a test
  // stands for the next `safesh run` (a new process: only the file is left).
  HostSocketMemory memory_;
  // A bound socket at dir_/rel (folders made as needed).
  std::string Socket(const std::string& rel) {
    std::string path = dir_ + "/" + rel;
    fs::create_directories(fs::path(path).parent_path());
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    snprintf(a.sun_path, sizeof a.sun_path, "%s", path.c_str());
    EXPECT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0) << path;
    fds_.push_back(fd);
    return path;
  }
  std::string dir_;
  std::vector<int> fds_;
};

TEST_F(HostSocketsTest, FindsSocketsDownToTheDepthAndNothingElse) {
  std::string top = Socket("top.sock");
  std::string one = Socket("tmux-0/default");
  std::string two = Socket("a/b/deep.sock");
  Socket("a/b/c/too-deep.sock");
  std::ofstream(dir_ + "/a/file.sock") << "a regular file";
  fs::create_directory_symlink("/run", dir_ + "/link-to-run");  // never followed
  SocketScan s = FindHostSockets({{dir_, 3}}, {});
  EXPECT_FALSE(s.truncated);
  EXPECT_EQ(s.sockets, (std::vector<std::string>{two, one, top}));  // sorted
}

TEST_F(HostSocketsTest, AllowedSocketsAndFoldersAreLeftReachable) {
  std::string a = Socket("keep/db.sock");
  std::string b = Socket("keep/other.sock");
  std::string c = Socket("mask.sock");
  std::string d = Socket("keepme.sock");
  // A folder allows what is inside it; "keep" does not allow "keepme.sock".
  SocketScan s = FindHostSockets({{dir_, 3}}, {dir_ + "/keep"});
  EXPECT_EQ(s.sockets, (std::vector<std::string>{d, c}));
  s = FindHostSockets({{dir_, 3}}, {a, "/does/not/exist"});
  EXPECT_EQ(s.sockets, (std::vector<std::string>{b, d, c}));
}

TEST_F(HostSocketsTest, APlaceIsWalkedOnceAndTheLimitIsReported) {
  for (int i = 0; i < 10; ++i)
    std::ofstream(dir_ + "/f" + std::to_string(i)) << "";
  std::string s1 = Socket("s.sock");
  // Named twice (TMPDIR is often /tmp itself): one entry, not two.
  SocketScan s = FindHostSockets({{dir_, 1}, {dir_ + "/.", 1}}, {});
  EXPECT_EQ(s.sockets, std::vector<std::string>{s1});
  s = FindHostSockets({{dir_, 1}}, {}, 5);
  EXPECT_TRUE(s.truncated);
}

// The cache: reused only while every folder it read is unchanged; a file that is not this user's
// private file, or that does not match the folders, changes nothing.
TEST_F(HostSocketsTest, TheCacheIsReusedOnlyWhileNothingChanged) {
  std::string a = Socket("tmux-0/default");
  std::string cache = dir_ + "/cache";  // (the test's folder; safesh uses its state folder)
  std::vector<SocketPlace> places = {{dir_ + "/tmux-0", 2}, {dir_ + "/later", 2}};
  memory_.by_places.clear();
  EXPECT_EQ(FindHostSocketsCached(&memory_, places, {}, cache).sockets,
            std::vector<std::string>{a});
  // Folders read within 2 s of a change are read again (coarse file-system times): wait them
  // out, so that the next search is the one that may reuse.
  sleep(3);
  EXPECT_EQ(FindHostSocketsCached(&memory_, places, {}, cache).sockets,
            std::vector<std::string>{a});
  struct stat saved;
  ASSERT_EQ(stat(cache.c_str(), &saved), 0);
  memory_.by_places.clear();  // from the file, as the next `safesh run` would
  EXPECT_EQ(FindHostSocketsCached(&memory_, places, {}, cache).sockets,
            std::vector<std::string>{a});
  struct stat reused;
  ASSERT_EQ(stat(cache.c_str(), &reused), 0);
  EXPECT_EQ(reused.st_mtim.tv_nsec, saved.st_mtim.tv_nsec) << "searched again although unchanged";
  EXPECT_EQ(FindHostSocketsCached(&memory_, places, {}, cache).folders_listed, 0u);
  // A new socket changes its folder: found at once, from memory or from the file.
  std::string b = Socket("tmux-0/second");
  EXPECT_EQ(FindHostSocketsCached(&memory_, places, {}, cache).sockets,
            (std::vector<std::string>{a, b}));
  // A place that was missing and appears is searched.
  std::string c = Socket("later/x.sock");
  memory_.by_places.clear();
  EXPECT_EQ(FindHostSocketsCached(&memory_, places, {}, cache).sockets,
            (std::vector<std::string>{c, a, b}));
  // A cache file others could have written is not read (and the answer is still right).
  sleep(3);
  FindHostSocketsCached(&memory_, places, {}, cache);
  std::ofstream(cache, std::ios::trunc)
      << "safesh-sockets 2 20000 2:" << dir_ << "/tmux-0 2:" << dir_ << "/later\nend\n";
  chmod(cache.c_str(), 0644);
  memory_.by_places.clear();
  EXPECT_EQ(FindHostSocketsCached(&memory_, places, {}, cache).sockets,
            (std::vector<std::string>{c, a, b}));
  // A private file whose folder stamps are not the folders' (here: made up, and listing no
  // socket) is not reused: the folders are searched again.
  std::ofstream(cache, std::ios::trunc)
      << "safesh-sockets 2 20000 2:" << dir_ << "/tmux-0 2:" << dir_ << "/later\nD 1 2 3 4 2 0 0 "
      << dir_ << "/tmux-0\nend\n";
  chmod(cache.c_str(), 0600);
  memory_.by_places.clear();
  EXPECT_EQ(FindHostSocketsCached(&memory_, places, {}, cache).sockets,
            (std::vector<std::string>{c, a, b}));
}

// A busy /tmp: one folder changed is one folder listed, and a socket deep in an unchanged
// folder's subfolder is still found when it appears.
TEST_F(HostSocketsTest, OnlyTheFoldersThatChangedAreListedAgain) {
  for (int i = 0; i < 40; ++i)
    fs::create_directories(dir_ + "/tmp/build-" + std::to_string(i) + "/obj");
  std::string a = Socket("tmp/tmux-0/default");
  std::string cache = dir_ + "/cache";
  std::vector<SocketPlace> places = {{dir_ + "/tmp", 3}};
  memory_.by_places.clear();
  SocketScan first = FindHostSocketsCached(&memory_, places, {}, cache);
  EXPECT_EQ(first.sockets, std::vector<std::string>{a});
  EXPECT_EQ(first.folders_listed, 1u + 40 * 2 + 1);
  // Listed again once past the 2 s in which a change could hide behind a coarse time, then
  // reused.
  sleep(3);
  EXPECT_EQ(FindHostSocketsCached(&memory_, places, {}, cache).folders_listed, 82u);
  EXPECT_EQ(FindHostSocketsCached(&memory_, places, {}, cache).folders_listed, 0u);
  // A compiler's temporary file in /tmp: /tmp alone is listed again.
  std::ofstream(dir_ + "/tmp/cc1234.o") << "x";
  SocketScan busy = FindHostSocketsCached(&memory_, places, {}, cache);
  EXPECT_EQ(busy.sockets, std::vector<std::string>{a});
  EXPECT_EQ(busy.folders_listed, 1u);
  // A socket two levels down, in a folder unchanged until now: that folder is listed again.
  std::string b = Socket("tmp/build-7/obj/agent.sock");
  memory_.by_places.clear();  // through the file, as the next `safesh run`
  SocketScan deep = FindHostSocketsCached(&memory_, places, {}, cache);
  EXPECT_EQ(deep.sockets, (std::vector<std::string>{b, a}));
  EXPECT_EQ(deep.folders_listed, 2u);  // /tmp (still within its 2 s) and build-7/obj
  // A folder replaced by another (same name, new inode) is listed, not taken for the old one.
  fs::remove_all(dir_ + "/tmp/build-7");
  fs::create_directories(dir_ + "/tmp/build-7/obj");
  std::string c = Socket("tmp/build-7/obj/other.sock");
  EXPECT_EQ(FindHostSocketsCached(&memory_, places, {}, cache).sockets,
            (std::vector<std::string>{c, a}));
}

// Random changes to a tree of folders (sockets made and removed, folders made, removed,
// renamed, replaced by links), each time checked against a search with no cache, from memory
// and through the file. The tree ages past the 2 s window before each of three phases, so
// that unchanged listings are really reused (and a stale one would show).
TEST_F(HostSocketsTest, TheCachedAnswerIsAlwaysTheFullSearchs) {
  std::mt19937 rng(20261130);
  std::string root = dir_ + "/t";
  std::vector<std::string> dirs = {root};
  fs::create_directories(root);
  auto pick = [&](const std::vector<std::string>& v) { return v[rng() % v.size()]; };
  auto existing_dirs = [&] {
    std::vector<std::string> out;
    // Real folders only, reached through no link (changes go where the search would look).
    for (const std::string& d : dirs) {
      std::error_code ec;
      if (fs::is_directory(fs::symlink_status(d, ec)) && fs::canonical(d, ec).string() == d)
        out.push_back(d);
    }
    return out;
  };
  // Folders are made down to the depth searched, and only those without subfolders are
  // removed, renamed or replaced, so that the tree keeps its size.
  auto depth = [&](const std::string& d) {
    return std::count(d.begin() + root.size(), d.end(), '/');
  };
  auto leaf = [&](const std::string& d) {
    for (const auto& e : fs::directory_iterator(d))
      if (fs::is_directory(e.symlink_status())) return false;
    return d != root;
  };
  auto shallow = [&] {
    std::vector<std::string> out;
    for (const std::string& d : existing_dirs())
      if (depth(d) < 3) out.push_back(d);
    return out;
  };
  // A tree of 150 folders, aged before the changes start.
  for (int i = 0; i < 150; ++i) {
    std::string sub = pick(shallow()) + "/p" + std::to_string(i);
    fs::create_directories(sub);
    dirs.push_back(sub);
  }
  std::string cache = dir_ + "/cache";
  std::vector<SocketPlace> places = {{root, 4}};
  memory_.by_places.clear();
  FindHostSocketsCached(&memory_, places, {}, cache);
  int n = 0, reused_rounds = 0;
  for (int phase = 0; phase < 3; ++phase) {
    sleep(3);
    FindHostSocketsCached(&memory_, places, {}, cache);  // lists what was within its 2 s, now aged
    for (int round = 0; round < 100; ++round, ++n) {
      std::vector<std::string> live = existing_dirs();
      std::string d = pick(live);
      switch (rng() % 7) {
        case 0:
        case 1:
          Socket(d.substr(dir_.size() + 1) + "/s" + std::to_string(n));
          break;
        case 2:
          if (depth(d) < 3) {
            std::string sub = d + "/d" + std::to_string(n);
            fs::create_directories(sub);
            dirs.push_back(sub);
          }
          break;
        case 3:
          for (const auto& e : fs::directory_iterator(d)) {
            if (fs::is_socket(e.symlink_status())) {
              fs::remove(e.path());
              break;
            }
          }
          break;
        case 4:
          if (leaf(d)) fs::remove_all(d);
          break;
        case 5:
          if (leaf(d)) {
            std::string to = d + "-moved" + std::to_string(n);
            fs::rename(d, to);
            dirs.push_back(to);
          }
          break;
        case 6:
          if (leaf(d)) {
            fs::remove_all(d);
            fs::create_directory_symlink(pick(live), d);
          }
          break;
      }
      SocketScan want = FindHostSockets(places, {});
      if (round % 3 == 0) memory_.by_places.clear();
      SocketScan got = FindHostSocketsCached(&memory_, places, {}, cache);
      ASSERT_EQ(got.sockets, want.sockets) << "round " << n;
      if (got.folders_listed < want.folders_listed) ++reused_rounds;
      fprintf(stderr, "round %d listed %zu of %zu\n", n, got.folders_listed, want.folders_listed);
    }
  }
  // The comparison meant something: most rounds reused listings.
  EXPECT_GT(reused_rounds, 250);
}

}  // namespace
}  // namespace safesh::sandbox
