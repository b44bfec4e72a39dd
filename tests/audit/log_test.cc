// The audit log's file: where it goes, who may read it, and that records stay whole when many
// writers append at once or one is killed in the middle of a write.
#include "audit/log.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>
#include <vector>

#include "audit/read.h"
#include "support/temp_dir.h"
#include "util/utc_time.h"

namespace safesh::audit {
namespace {

using safesh::testing::TempDir;

std::string ReadAll(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    out.push_back(line);
  return out;
}

// Every line of every day file in `dir` (a test that runs across midnight UTC writes two).
std::vector<std::string> AllLines(const std::string& dir) {
  std::vector<std::string> out;
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const std::string& f : files) {
    for (std::string& line : Lines(ReadAll(f)))
      out.push_back(std::move(line));
  }
  return out;
}

off_t DirBytes(const std::string& dir) {
  off_t total = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    total += static_cast<off_t>(e.file_size());
  return total;
}

mode_t Mode(const std::string& path) {
  struct stat st;
  EXPECT_EQ(lstat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

// The file a record appended now goes to.
std::string TodayFile(const std::string& dir) {
  return dir + "/" + util::UtcDay(util::NowUnixMs()) + ".jsonl";
}

TEST(AuditLog, PrivateFolderAndFileOfTheDay) {
  TempDir t;
  std::string dir = t.path + "/state/safesh/audit";
  Log log(dir);
  Redaction redaction;
  Record r("request", "abc123", &redaction);
  r.Str("command", "echo hi");
  r.Int("n", 7);
  r.Bool("b", true);
  r.StrOrNull("none", "");
  r.Strs("list", {"a", "b"});
  std::string error;
  ASSERT_TRUE(log.Append(r, &error)) << error;
  EXPECT_EQ(Mode(t.path + "/state/safesh"), 0700u);
  EXPECT_EQ(Mode(dir), 0700u);
  std::string file = dir + "/" + util::UtcDay(r.unix_ms()) + ".jsonl";
  EXPECT_EQ(Mode(file), 0600u);
  std::string text = ReadAll(file);
  ASSERT_TRUE(text.ends_with("}\n")) << text;
  EXPECT_TRUE(text.starts_with("{\"ts\":\"")) << text;
  nlohmann::json j = nlohmann::json::parse(text);
  EXPECT_EQ(j["event"], "request");
  EXPECT_EQ(j["id"], "abc123");
  EXPECT_EQ(j["safesh_pid"], getpid());
  EXPECT_EQ(j["command"], "echo hi");
  EXPECT_EQ(j["n"], 7);
  EXPECT_EQ(j["b"], true);
  EXPECT_TRUE(j["none"].is_null());
  EXPECT_EQ(j["list"], nlohmann::json({"a", "b"}));
  int64_t ms = 0;
  ASSERT_TRUE(util::ParseUtc(j["ts"].get<std::string>(), &ms));
  EXPECT_EQ(ms, r.unix_ms());
}

TEST(AuditLog, EveryStringIsRedactedAndLinesStayLines) {
  TempDir t;
  Log log(t.path + "/audit");
  Redaction redaction({{"DEPLOY_TOKEN", "tok-1234567890"}}, {"*TOKEN*"});
  Record r("request", "id\nwith a line break", &redaction);
  r.Str("command", "echo tok-1234567890\nDEPLOY_TOKEN=other ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ012345");
  r.Strs("argv", {"x", "tok-1234567890"});
  std::string error;
  ASSERT_TRUE(log.Append(r, &error)) << error;
  std::string text = ReadAll(TodayFile(t.path + "/audit"));
  EXPECT_EQ(Lines(text).size(), 1u) << text;
  EXPECT_EQ(text.find("tok-1234567890"), std::string::npos) << text;
  EXPECT_EQ(text.find("ABCDEFGHIJKLMNOPQRSTUVWXYZ012345"), std::string::npos) << text;
  EXPECT_EQ(text.find("other"), std::string::npos) << text;
  nlohmann::json j = nlohmann::json::parse(text);
  EXPECT_EQ(j["command"], "echo [redacted DEPLOY_TOKEN]\nDEPLOY_TOKEN=[redacted] ghp_[redacted]");
}

TEST(AuditLog, RefusesFoldersAndFilesOthersCouldRead) {
  TempDir t;
  std::string dir = t.path + "/audit";
  Redaction redaction;
  std::string error;
  {
    ASSERT_EQ(mkdir(dir.c_str(), 0755), 0);
    ASSERT_EQ(chmod(dir.c_str(), 0755), 0);
    Log log(dir);
    EXPECT_FALSE(log.Append(Record("x", "1", &redaction), &error));
    EXPECT_NE(error.find("mode 755"), std::string::npos) << error;
    ASSERT_EQ(chmod(dir.c_str(), 0700), 0);
  }
  {
    std::string file = TodayFile(dir);
    std::ofstream(file) << "";
    ASSERT_EQ(chmod(file.c_str(), 0644), 0);
    Log log(dir);
    EXPECT_FALSE(log.Append(Record("x", "1", &redaction), &error));
    EXPECT_NE(error.find("chmod 600"), std::string::npos) << error;
    ASSERT_EQ(unlink(file.c_str()), 0);
    // A link in the file's place is not followed.
    ASSERT_EQ(symlink((t.path + "/elsewhere").c_str(), file.c_str()), 0);
    EXPECT_FALSE(log.Append(Record("x", "1", &redaction), &error));
    EXPECT_FALSE(std::filesystem::exists(t.path + "/elsewhere"));
  }
  {
    Log nowhere("");
    EXPECT_FALSE(nowhere.Append(Record("x", "1", &redaction), &error));
    EXPECT_NE(error.find("HOME"), std::string::npos) << error;
  }
}

TEST(AuditLog, ATornLastLineDoesNotSwallowTheNextRecord) {
  TempDir t;
  std::string dir = t.path + "/audit";
  Log log(dir);
  Redaction redaction;
  std::string error;
  ASSERT_TRUE(log.Append(Record("first", "1", &redaction), &error)) << error;
  // What a writer killed in the middle of its write leaves: part of a line, no newline.
  {
    std::ofstream f(TodayFile(dir), std::ios::app | std::ios::binary);
    f << "{\"ts\":\"2026-01-01T00:00:00.000Z\",\"event\":\"torn\",\"comm";
  }
  ASSERT_TRUE(log.Append(Record("after", "2", &redaction), &error)) << error;
  ReadResult read;
  ASSERT_TRUE(ReadRecords(dir, 0, &read, &error)) << error;
  ASSERT_EQ(read.records.size(), 2u);
  EXPECT_EQ(nlohmann::json::parse(read.records[0])["event"], "first");
  EXPECT_EQ(nlohmann::json::parse(read.records[1])["event"], "after");
  EXPECT_EQ(read.damaged, 1u);
}

TEST(AuditLog, AShortWriteIsAnErrorAndTheNextRecordStartsAfresh) {
  TempDir t;
  std::string dir = t.path + "/audit";
  {
    Log log(dir);
    Redaction redaction;
    std::string error;
    ASSERT_TRUE(log.Append(Record("first", "1", &redaction), &error)) << error;
  }
  // In a child: a file size limit just past the end stands in for a full disk.
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    signal(SIGXFSZ, SIG_IGN);
    Log log(dir);
    Redaction redaction;
    std::string error;
    struct stat st;
    rlimit old{};
    if (stat(TodayFile(dir).c_str(), &st) != 0 || getrlimit(RLIMIT_FSIZE, &old) != 0) _exit(10);
    rlimit tight = old;
    tight.rlim_cur = static_cast<rlim_t>(st.st_size) + 100;
    if (setrlimit(RLIMIT_FSIZE, &tight) != 0) _exit(11);
    Record big("cut", "2", &redaction);
    big.Str("payload", std::string(1000, 'x'));
    if (log.Append(big, &error)) _exit(12);                              // must fail...
    if (error.find("took only 100 of") == std::string::npos) _exit(13);  // ...and say so
    if (setrlimit(RLIMIT_FSIZE, &old) != 0) _exit(14);
    if (!log.Append(Record("after", "3", &redaction), &error)) _exit(15);
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0);
  ReadResult read;
  std::string error;
  ASSERT_TRUE(ReadRecords(dir, 0, &read, &error)) << error;
  ASSERT_EQ(read.records.size(), 2u);
  EXPECT_EQ(nlohmann::json::parse(read.records[0])["event"], "first");
  EXPECT_EQ(nlohmann::json::parse(read.records[1])["event"], "after");
  EXPECT_EQ(read.damaged, 1u);
  // On a line of its own, not joined to the cut one.
  std::vector<std::string> lines = AllLines(dir);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(nlohmann::json::parse(lines[2])["event"], "after");
}

// A record of `size` bytes whose payload is `fill` repeated: a torn or interleaved record
// shows as a payload of the wrong length or with another writer's character in it.
Record Big(const Redaction& redaction, const std::string& writer, int seq, char fill, size_t size) {
  Record r("load", writer, &redaction);
  r.Int("seq", seq);
  r.Str("payload", std::string(size, fill));
  return r;
}

void CheckWhole(const std::string& line, size_t size,
                std::map<std::string, std::vector<int>>* seen) {
  nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
  ASSERT_TRUE(j.is_object()) << line.substr(0, 200);
  std::string payload = j["payload"];
  ASSERT_EQ(payload.size(), size);
  ASSERT_EQ(payload.find_first_not_of(payload[0]), std::string::npos);
  std::string writer = j["id"];
  ASSERT_EQ(writer[0], payload[0]);
  (*seen)[writer].push_back(j["seq"]);
}

TEST(AuditLog, ConcurrentWritersNeverInterleave) {
  TempDir t;
  std::string dir = t.path + "/audit";
  constexpr int kProcesses = 6, kThreads = 4, kRecords = 150;
  constexpr size_t kSize = 48 * 1024;  // many pages per write: the widest window to interleave
  const std::string fills = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
  std::vector<pid_t> children;
  for (int p = 0; p < kProcesses; ++p) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      Log log(dir);  // each process its own descriptor
      Redaction redaction;
      std::string error, writer(1, fills[p]);
      for (int i = 0; i < kRecords; ++i) {
        if (!log.Append(Big(redaction, writer, i, fills[p], kSize), &error)) _exit(1);
      }
      _exit(0);
    }
    children.push_back(pid);
  }
  {
    // And threads of this process sharing one Log.
    Log log(dir);
    Redaction redaction;
    std::vector<std::thread> threads;
    std::atomic<int> failures{0};
    for (int k = 0; k < kThreads; ++k) {
      threads.emplace_back([&, k] {
        std::string error, writer(1, fills[kProcesses + k]);
        for (int i = 0; i < kRecords; ++i) {
          if (!log.Append(Big(redaction, writer, i, fills[kProcesses + k], kSize), &error))
            ++failures;
        }
      });
    }
    for (std::thread& th : threads)
      th.join();
    EXPECT_EQ(failures, 0);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  // Empty lines are allowed (and skipped by readers): a writer that opens the file while
  // another's record is still being copied in sees no newline at the end and starts its first
  // record on a new line.
  std::vector<std::string> lines;
  for (std::string& line : AllLines(dir)) {
    if (!line.empty()) lines.push_back(std::move(line));
  }
  ASSERT_EQ(lines.size(), static_cast<size_t>((kProcesses + kThreads) * kRecords));
  std::map<std::string, std::vector<int>> seen;
  for (const std::string& line : lines)
    CheckWhole(line, kSize, &seen);
  ASSERT_EQ(seen.size(), static_cast<size_t>(kProcesses + kThreads));
  for (auto& [writer, seqs] : seen) {
    // Each writer's records whole and in its own order.
    ASSERT_EQ(seqs.size(), static_cast<size_t>(kRecords)) << writer;
    for (int i = 0; i < kRecords; ++i)
      EXPECT_EQ(seqs[i], i) << writer;
  }
}

TEST(AuditLog, AWriterKilledMidWriteLeavesAReadableLog) {
  TempDir t;
  std::string dir = t.path + "/audit";
  // Records of half a megabyte, built before the writing starts, so that the writer spends its
  // time inside write(2), where SIGKILL cuts a record short.
  constexpr size_t kSize = 512 * 1024;
  constexpr int kPrebuilt = 48;
  {
    Log log(dir);
    Redaction redaction;
    std::string error;
    ASSERT_TRUE(log.Append(Record("before", "0", &redaction), &error)) << error;
  }
  // Several rounds: a kill anywhere (between writes, or within one) must leave a log whose
  // whole records all read back and in which the next writer's records are found.
  for (int round = 0; round < 5; ++round) {
    std::string writer(1, static_cast<char>('a' + round));
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      Log log(dir);
      Redaction redaction;
      std::string error;
      std::vector<Record> records;
      for (int i = 0; i < kPrebuilt; ++i)
        records.push_back(Big(redaction, writer, i, writer[0], kSize));
      for (int i = 0;; ++i) {
        bool ok = i < kPrebuilt ? log.Append(records[i], &error)
                                : log.Append(Big(redaction, writer, i, writer[0], kSize), &error);
        if (!ok) _exit(1);
      }
    }
    // Let it write a few records (however long that takes), then kill it.
    off_t start = DirBytes(dir);
    int status = 0;
    while (DirBytes(dir) < start + 3 * static_cast<off_t>(kSize)) {
      ASSERT_EQ(waitpid(pid, &status, WNOHANG), 0) << "the writer stopped on its own";
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ASSERT_EQ(kill(pid, SIGKILL), 0);
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status;
    // Another writer carries on after it.
    Log log(dir);
    Redaction redaction;
    std::string error;
    ASSERT_TRUE(log.Append(Record("after", std::to_string(round), &redaction), &error)) << error;
  }
  ReadResult read;
  std::string error;
  ASSERT_TRUE(ReadRecords(dir, 0, &read, &error)) << error;
  // At most the record each killed writer was writing is lost (one torn line per round).
  EXPECT_LE(read.damaged, 5u);
  // How many rounds the kill landed inside a write (informational: where it lands is chance).
  ::testing::Test::RecordProperty("torn_lines", static_cast<int>(read.damaged));
  std::map<std::string, std::vector<int>> seen;
  std::vector<std::string> afters;
  for (const std::string& line : read.records) {
    nlohmann::json j = nlohmann::json::parse(line);
    if (j["event"] == "load") {
      CheckWhole(line, kSize, &seen);
    } else if (j["event"] == "after") {
      afters.push_back(j["id"]);
    }
  }
  EXPECT_EQ(afters, (std::vector<std::string>{"0", "1", "2", "3", "4"}));
  ASSERT_EQ(seen.size(), 5u);
  for (auto& [writer, seqs] : seen) {
    // Whole records from the first on, none missing before the one being written.
    ASSERT_GE(seqs.size(), 2u) << writer;
    for (size_t i = 0; i < seqs.size(); ++i)
      EXPECT_EQ(seqs[i], static_cast<int>(i)) << writer;
  }
  // Every line of the file is a whole record or a counted torn one.
  size_t lines = 0;
  for (const std::string& line : AllLines(dir))
    lines += line.empty() ? 0 : 1;
  EXPECT_EQ(lines, read.records.size() + read.damaged);
}

}  // namespace
}  // namespace safesh::audit
