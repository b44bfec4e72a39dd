// Finding the host's UNIX sockets to mask: depth, links, allowed sockets, the entry limit.
#include "sandbox/host_sockets.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

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
  ForgetHostSocketsInMemory();
  EXPECT_EQ(FindHostSocketsCached(places, {}, cache).sockets, std::vector<std::string>{a});
  // Folders read within 2 s of a change are read again (coarse file-system times): wait them
  // out, so that the next search is the one that may reuse.
  sleep(3);
  EXPECT_EQ(FindHostSocketsCached(places, {}, cache).sockets, std::vector<std::string>{a});
  struct stat saved;
  ASSERT_EQ(stat(cache.c_str(), &saved), 0);
  ForgetHostSocketsInMemory();  // from the file, as the next `safesh run` would
  EXPECT_EQ(FindHostSocketsCached(places, {}, cache).sockets, std::vector<std::string>{a});
  struct stat reused;
  ASSERT_EQ(stat(cache.c_str(), &reused), 0);
  EXPECT_EQ(reused.st_mtim.tv_nsec, saved.st_mtim.tv_nsec) << "searched again although unchanged";
  // A new socket changes its folder: found at once, from memory or from the file.
  std::string b = Socket("tmux-0/second");
  EXPECT_EQ(FindHostSocketsCached(places, {}, cache).sockets, (std::vector<std::string>{a, b}));
  // A place that was missing and appears is searched.
  std::string c = Socket("later/x.sock");
  ForgetHostSocketsInMemory();
  EXPECT_EQ(FindHostSocketsCached(places, {}, cache).sockets, (std::vector<std::string>{c, a, b}));
  // A cache file others could have written is not read (and the answer is still right).
  sleep(3);
  FindHostSocketsCached(places, {}, cache);
  std::ofstream(cache, std::ios::trunc)
      << "safesh-sockets 1 20000 2:" << dir_ << "/tmux-0 2:" << dir_ << "/later\nend\n";
  chmod(cache.c_str(), 0644);
  ForgetHostSocketsInMemory();
  EXPECT_EQ(FindHostSocketsCached(places, {}, cache).sockets, (std::vector<std::string>{c, a, b}));
  // A private file whose folder stamps are not the folders' (here: made up, and listing no
  // socket) is not reused: the folders are searched again.
  std::ofstream(cache, std::ios::trunc)
      << "safesh-sockets 1 20000 2:" << dir_ << "/tmux-0 2:" << dir_ << "/later\nD 1 2 3 4 " << dir_
      << "/tmux-0\nend\n";
  chmod(cache.c_str(), 0600);
  ForgetHostSocketsInMemory();
  EXPECT_EQ(FindHostSocketsCached(places, {}, cache).sockets, (std::vector<std::string>{c, a, b}));
}

}  // namespace
}  // namespace safesh::sandbox
