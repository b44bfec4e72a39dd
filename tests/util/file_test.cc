#include "util/file.h"

#include <fcntl.h>
#include <unistd.h>

#include <string>

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace safesh::util
