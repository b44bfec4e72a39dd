// Finding the host's UNIX sockets to mask: depth, links, allowed sockets, the entry limit.
#include "sandbox/host_sockets.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
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

}  // namespace
}  // namespace safesh::sandbox
