#include "exec/spool.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "util/utf8.h"

namespace safesh::exec {
namespace {

struct TempDir {
  std::string path;
  TempDir() {
    char t[] = "/tmp/safesh-spool-test-XXXXXX";
    path = mkdtemp(t);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
};

bool ValidUtf8(const std::string& s) {
  for (size_t i = 0; i < s.size();) {
    size_t n = util::Utf8SequenceLength(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

TEST(Spool, PrivateDirectoriesAndFile) {
  TempDir t;
  Spool s;
  std::string error;
  ASSERT_TRUE(CreateSpool(t.path + "/state/safesh/spool", &s, &error)) << error;
  // Unnamed until kept: nothing in the base yet.
  EXPECT_TRUE(s.path.empty());
  EXPECT_TRUE(std::filesystem::is_empty(t.path + "/state/safesh/spool"));
  ASSERT_EQ(write(s.fd.get(), "abc", 3), 3);
  ASSERT_TRUE(KeepSpool(&s, &error)) << error;
  struct stat st;
  ASSERT_EQ(stat((t.path + "/state/safesh/spool").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  ASSERT_EQ(stat(s.dir.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  ASSERT_EQ(stat(s.path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(st.st_size, 3);
  std::string dir = s.dir;
  RemoveSpool(&s);
  EXPECT_NE(access(dir.c_str(), F_OK), 0);
}

TEST(Spool, RefusesASharedOrLinkedBase) {
  TempDir t;
  std::string base = t.path + "/safesh/spool";
  std::filesystem::create_directories(base);
  chmod((t.path + "/safesh").c_str(), 0700);
  chmod(base.c_str(), 0755);
  Spool s;
  std::string error;
  EXPECT_FALSE(CreateSpool(base, &s, &error));
  EXPECT_NE(error.find("mode 755"), std::string::npos) << error;
  // A symbolic link in place of the spool directory is refused, not followed.
  std::filesystem::remove_all(base);
  std::filesystem::create_directory(t.path + "/elsewhere");
  symlink((t.path + "/elsewhere").c_str(), base.c_str());
  EXPECT_FALSE(CreateSpool(base, &s, &error));
  EXPECT_NE(error.find("not a directory"), std::string::npos) << error;
}

TEST(Spool, OldRunsAreCleanedByAgeAndTotalSize) {
  TempDir t;
  std::string base = t.path + "/safesh/spool";
  Spool a, b, c;
  std::string error;
  ASSERT_TRUE(CreateSpool(base, &a, &error)) << error;
  ASSERT_EQ(write(a.fd.get(), "aaaa", 4), 4);
  ASSERT_TRUE(KeepSpool(&a, &error)) << error;
  ASSERT_TRUE(CreateSpool(base, &b, &error)) << error;
  ASSERT_EQ(write(b.fd.get(), "bbbbbbbb", 8), 8);
  ASSERT_TRUE(KeepSpool(&b, &error)) << error;
  ASSERT_TRUE(CreateSpool(base, &c, &error)) << error;
  ASSERT_TRUE(KeepSpool(&c, &error)) << error;
  // Make `a` two days old and `b` older than `c`.
  struct timespec times[2] = {{time(nullptr) - 2 * 86400, 0}, {time(nullptr) - 2 * 86400, 0}};
  utimensat(AT_FDCWD, a.dir.c_str(), times, 0);
  times[0].tv_sec = times[1].tv_sec = time(nullptr) - 60;
  utimensat(AT_FDCWD, b.dir.c_str(), times, 0);
  EXPECT_EQ(CleanOldSpools(base, kSpoolMaxAgeSeconds, 1 << 20), 1);  // a: too old
  EXPECT_NE(access(a.dir.c_str(), F_OK), 0);
  EXPECT_EQ(access(b.dir.c_str(), F_OK), 0);
  EXPECT_EQ(CleanOldSpools(base, kSpoolMaxAgeSeconds, 4), 1);  // b: the oldest over the cap
  EXPECT_NE(access(b.dir.c_str(), F_OK), 0);
  EXPECT_EQ(access(c.dir.c_str(), F_OK), 0);
}

// Writes `text` to a fresh spool and returns the view of it.
OutputView View(const std::string& text, uint64_t limit, const std::string& base) {
  Spool s;
  std::string error;
  EXPECT_TRUE(CreateSpool(base, &s, &error)) << error;
  EXPECT_EQ(write(s.fd.get(), text.data(), text.size()), static_cast<ssize_t>(text.size()));
  OutputView v;
  EXPECT_TRUE(ReadView(s.fd.get(), text.size(), text.size(), "", limit, "/the/spool", &v, &error))
      << error;
  RemoveSpool(&s);
  return v;
}

TEST(OutputView, WholeOutputWhenItFits) {
  TempDir t;
  OutputView v = View("hello\nworld\n", 1024, t.path + "/s/spool");
  EXPECT_EQ(v.text, "hello\nworld\n");
  EXPECT_FALSE(v.truncated);
}

TEST(OutputView, HeadNoticeTailWithinTheLimit) {
  TempDir t;
  std::string text;
  for (int i = 0; i < 5000; ++i)
    text += "line " + std::to_string(i) + "\n";
  OutputView v = View(text, 2048, t.path + "/s/spool");
  EXPECT_TRUE(v.truncated);
  EXPECT_LE(v.text.size(), 2048u);
  EXPECT_TRUE(v.text.starts_with("line 0\nline 1\n"));
  EXPECT_TRUE(v.text.ends_with("line 4999\n"));
  size_t at = v.text.find("[safesh: ");
  ASSERT_NE(at, std::string::npos);
  // The notice's count is exactly what was left out.
  size_t end = v.text.find(" bytes of output left out", at);
  std::string count = v.text.substr(at + 9, end - at - 9);
  std::erase(count, ',');
  size_t notice_end = v.text.find("]\n", at) + 2;
  size_t shown = at - 1 + (v.text.size() - notice_end);  // head (without its '\n') + tail
  EXPECT_EQ(std::stoull(count), text.size() - shown);
}

TEST(OutputView, TailFromMemoryWhenTheSpoolStoppedShort) {
  TempDir t;
  Spool s;
  std::string error;
  ASSERT_TRUE(CreateSpool(t.path + "/s/spool", &s, &error)) << error;
  std::string all;
  for (int i = 0; i < 3000; ++i)
    all += "line " + std::to_string(i) + "\n";
  // The spool kept the first 10,000 bytes; memory has the last 1,000.
  ASSERT_EQ(write(s.fd.get(), all.data(), 10000), 10000);
  std::string unkept = all.substr(all.size() - 1000);
  OutputView v;
  ASSERT_TRUE(ReadView(s.fd.get(), all.size(), 10000, unkept, 1024, "/p", &v, &error)) << error;
  EXPECT_LE(v.text.size(), 1024u);
  EXPECT_TRUE(v.text.starts_with("line 0\n"));
  EXPECT_TRUE(v.text.ends_with("line 2999\n"));
  EXPECT_NE(v.text.find("the first 10,000 of "), std::string::npos) << v.text;
  // Small: what the spool has, then what memory has.
  ASSERT_TRUE(ReadView(s.fd.get(), 10 + 5, 10, "12345", 1024, "/p", &v, &error));
  EXPECT_EQ(v.text, all.substr(0, 10) + "12345");
}

TEST(OutputView, NeverSplitsAUtf8Sequence) {
  TempDir t;
  // Every cut position against 2-, 3- and 4-byte sequences.
  for (std::string ch : {"é", "€", "😀"}) {
    for (uint64_t limit = 1024; limit < 1024 + 8; ++limit) {
      std::string text = "x";
      while (text.size() < 20000)
        text += ch;
      OutputView v = View(text, limit, t.path + "/s/spool");
      ASSERT_TRUE(v.truncated);
      EXPECT_LE(v.text.size(), limit);
      EXPECT_TRUE(ValidUtf8(v.text)) << ch << " limit " << limit;
    }
  }
}

}  // namespace
}  // namespace safesh::exec
