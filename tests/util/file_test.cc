#include "util/file.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "support/temp_dir.h"
#include "util/unique_fd.h"

namespace safesh::util {
namespace {

TEST(UniqueFd, ClosesOnScopeExitAndMove) {
  int raw;
  {
    UniqueFd fd(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    ASSERT_TRUE(fd.valid());
    raw = fd.get();
    UniqueFd moved = std::move(fd);
    EXPECT_FALSE(fd.valid());
    EXPECT_EQ(moved.get(), raw);
    EXPECT_NE(::fcntl(raw, F_GETFD), -1);  // still open while `moved` lives
  }
  EXPECT_EQ(::fcntl(raw, F_GETFD), -1);  // closed with it
  EXPECT_EQ(errno, EBADF);
}

TEST(ReadWholeFile, ReadsRegularFilesAndPipes) {
  char path[] = "/tmp/safesh-file-test-XXXXXX";
  UniqueFd fd(::mkstemp(path));
  ASSERT_TRUE(fd.valid());
  std::string data(200000, 'x');
  data[100] = '\0';
  ASSERT_EQ(::write(fd.get(), data.data(), data.size()), static_cast<ssize_t>(data.size()));
  std::string text, error;
  EXPECT_TRUE(ReadWholeFile(path, &text, &error)) << error;
  EXPECT_EQ(text, data);
  ::unlink(path);

  int p[2];
  ASSERT_EQ(::pipe2(p, O_CLOEXEC), 0);
  UniqueFd r(p[0]), w(p[1]);
  ASSERT_EQ(::write(w.get(), "piped", 5), 5);
  w.Reset();
  EXPECT_TRUE(ReadWholeFile("/proc/self/fd/" + std::to_string(r.get()), &text, &error)) << error;
  EXPECT_EQ(text, "piped");
}

TEST(ReadWholeFile, ErrorsNameThePathAndTheReason) {
  std::string text, error;
  EXPECT_FALSE(ReadWholeFile("/nonexistent/x", &text, &error));
  EXPECT_EQ(error, "/nonexistent/x: No such file or directory");
  EXPECT_FALSE(ReadWholeFile("/tmp", &text, &error));
  EXPECT_EQ(error, "/tmp: is a directory");
  EXPECT_FALSE(ReadWholeFile("/dev/zero", &text, &error));
  EXPECT_EQ(error, "/dev/zero: is not a regular file or a pipe");
}

TEST(Paths, InsideMeansTheFolderOrBelowIt) {
  EXPECT_TRUE(IsPathInside("/a/b", "/a"));
  EXPECT_TRUE(IsPathInside("/a", "/a"));
  EXPECT_TRUE(IsPathInside("/a/b", "/a/"));
  EXPECT_TRUE(IsPathInside("/anything", "/"));
  EXPECT_FALSE(IsPathInside("/ab", "/a"));  // a sibling with the same start
  EXPECT_FALSE(IsPathInside("/a", "/a/b"));
  EXPECT_FALSE(IsPathInside("/a", ""));
  EXPECT_EQ(RealPath("/nonexistent/x"), "");
  EXPECT_EQ(RealPath("/tmp/../tmp"), RealPath("/tmp"));
}

// RealPath asks the kernel through /proc/self/fd; every answer must be what realpath(3) gives.
TEST(Paths, RealPathAgreesWithRealpath) {
  char dir_template[] = "/tmp/safesh-realpath-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  std::string d = dir_template;
  ASSERT_EQ(mkdir((d + "/a").c_str(), 0700), 0);
  ASSERT_EQ(mkdir((d + "/a/b").c_str(), 0700), 0);
  { UniqueFd f(open((d + "/a/b/file").c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0600)); }
  ASSERT_EQ(symlink("a/b", (d + "/to_b").c_str()), 0);
  ASSERT_EQ(symlink("to_b/file", (d + "/to_file").c_str()), 0);  // a link through a link
  ASSERT_EQ(symlink("missing", (d + "/dangling").c_str()), 0);
  ASSERT_EQ(symlink("loop", (d + "/loop").c_str()), 0);
  ASSERT_EQ(mkfifo((d + "/fifo").c_str(), 0600), 0);  // must not block
  ASSERT_EQ(symlink((d + "/a/b/file").c_str(), (d + "/absolute").c_str()), 0);
  for (std::string p : {d, d + "/a", d + "/a/b/file", d + "/to_b", d + "/to_b/file", d + "/to_file",
                        d + "/a/./b/../b/file", d + "/to_b/../b", d + "/fifo", d + "/absolute",
                        d + "/a/b/", d + "//a//b", d + "/dangling", d + "/loop", d + "/a/b/file/",
                        d + "/missing/x", std::string("/"), std::string("/proc/self")}) {
    char* want = realpath(p.c_str(), nullptr);
    EXPECT_EQ(RealPath(p), want != nullptr ? std::string(want) : std::string()) << p;
    free(want);
  }
  for (const char* f : {"absolute", "fifo", "loop", "dangling", "to_file", "to_b", "a/b/file"})
    unlink((d + "/" + f).c_str());
  rmdir((d + "/a/b").c_str());
  rmdir((d + "/a").c_str());
  rmdir(d.c_str());
}

// A tree a command left (an unreadable folder, links to a folder and a file outside) goes whole;
// nothing outside is removed or has its mode changed. The attempt is real: the chmod-then-remove
// by path it replaces, run over the same tree, changes the mode of the folder a link points to.
TEST(RemoveTreeNoLinks, RemovesATreeAndNothingItLinksTo) {
  namespace fs = std::filesystem;
  ::safesh::testing::TempDir tmp;
  const std::string& dir = tmp.path;
  auto make = [&](const std::string& tree) {
    fs::create_directories(tree + "/a/closed/deep");
    std::ofstream(tree + "/a/closed/deep/f") << "x";
    fs::create_directory_symlink(dir + "/outside", tree + "/a/to-dir");
    fs::create_symlink(dir + "/outside/keep", tree + "/a/to-file");
    ASSERT_EQ(chmod((tree + "/a/closed").c_str(), 0), 0);
  };
  fs::create_directories(dir + "/outside");
  std::ofstream(dir + "/outside/keep") << "keep";
  ASSERT_EQ(chmod((dir + "/outside").c_str(), 0755), 0);

  // The old way: each folder found given 0700 by its path (is_directory follows links).
  make(dir + "/old");
  std::error_code ignored;
  for (auto it = fs::recursive_directory_iterator(
           dir + "/old", fs::directory_options::skip_permission_denied, ignored);
       it != fs::recursive_directory_iterator(); it.increment(ignored)) {
    if (it->is_directory(ignored)) chmod(it->path().c_str(), 0700);
  }
  struct stat st;
  ASSERT_EQ(stat((dir + "/outside").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0700u) << "the old way did not reach outside: not a real test";
  ASSERT_EQ(chmod((dir + "/outside").c_str(), 0755), 0);

  make(dir + "/tree");
  UniqueFd parent(open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  EXPECT_TRUE(RemoveTreeNoLinks(parent.get(), "tree"));
  EXPECT_FALSE(fs::exists(dir + "/tree"));
  ASSERT_EQ(stat((dir + "/outside").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0755u);
  EXPECT_TRUE(fs::exists(dir + "/outside/keep"));
  // A link itself is removed, not what it names; a missing name is already gone.
  fs::create_directory_symlink(dir + "/outside", dir + "/link");
  EXPECT_TRUE(RemoveTreeNoLinks(parent.get(), "link"));
  EXPECT_TRUE(fs::exists(dir + "/outside/keep"));
  EXPECT_TRUE(RemoveTreeNoLinks(parent.get(), "missing"));
}

}  // namespace
}  // namespace safesh::util
