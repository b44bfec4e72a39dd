// Blocked names end to end: keys and `.env` files in the workspace, at any depth, cannot be read
// through `safesh run` in bubblewrap (and can without it, so the attempt is real); the scan's
// cache file; a scan that is cancelled, times out or stops at its entry limit.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "exec/cancel.h"
#include "exec/env.h"
#include "pipeline/run_shell_command.h"
#include "sandbox/bwrap.h"
#include "support/requires.h"
#include "support/subprocess.h"

namespace safesh::sandbox {
namespace {

namespace fs = std::filesystem;
using testing::RunOptions;
using testing::RunOutput;
using testing::RunProgram;

class BlockedNamesEscape : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why = ProbeBwrap(FindBwrap(), false);
    if (!why.empty()) {
      SAFESH_SKIP_MISSING(why);
    }
    char t[] = "/tmp/safesh-blocked-XXXXXX";
    ASSERT_NE(mkdtemp(t), nullptr);
    dir_ = t;
    ws_ = dir_ + "/ws";
    home_ = dir_ + "/home";
    fs::create_directories(ws_);
    fs::create_directories(home_);
    std::ofstream(dir_ + "/rules.toml") << "[commands]\n";
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
    if (!shm_.empty()) fs::remove_all(shm_);
  }

  void Secret(const std::string& rel, const std::string& tag) {
    fs::create_directories(fs::path(ws_ + "/" + rel).parent_path());
    std::ofstream(ws_ + "/" + rel) << tag << "-" << getpid() << "\n";
  }

  // `safesh run` as a user would run it, in `mode` (off or required), bubblewrap only.
  RunOutput Safesh(const std::string& mode, const std::string& command,
                   std::vector<std::string> extra = {}) {
    RunOptions o;
    o.env = {"PATH=/usr/bin:/bin", "LC_ALL=C.UTF-8", "HOME=" + home_,
             "SAFESH_SANDBOX_SHELL=" + mode, "SAFESH_SANDBOX_LAUNCHER=bwrap"};
    o.timeout_seconds = 120;
    std::vector<std::string> argv = {SAFESH_BINARY, "run", "--config",  dir_ + "/rules.toml",
                                     "--workspace", ws_,   "--approve", "yes"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    argv.push_back("--");
    argv.push_back(command);
    return RunProgram(argv, o);
  }

  // Reads every file in `files`; each must show `tag` without the sandbox and not within it.
  void ExpectHidden(const std::vector<std::string>& files, const std::string& tag) {
    std::string command;
    for (const std::string& f : files)
      command += "cat '" + f + "' 2>/dev/null; ";
    command += "echo END";
    RunOutput off = Safesh("off", command);
    ASSERT_EQ(off.exit_code, 0) << off.err;
    size_t seen = 0;
    for (size_t at = off.out.find(tag); at != std::string::npos; at = off.out.find(tag, at + 1))
      ++seen;
    ASSERT_EQ(seen, files.size()) << "not every file can be read without the sandbox:\n" << off.out;
    RunOutput in = Safesh("required", command);
    ASSERT_EQ(in.exit_code, 0) << in.err;
    EXPECT_NE(in.out.find("END"), std::string::npos) << in.out << in.err;
    EXPECT_EQ(in.out.find(tag), std::string::npos) << "read through the sandbox:\n" << in.out;
  }

  std::string CacheFile() {
    std::string state = home_ + "/.local/state/safesh";
    for (const auto& e : fs::directory_iterator(state)) {
      if (e.path().filename().string().starts_with("blocked-scan-")) return e.path();
    }
    return "";
  }

  std::string dir_, ws_, home_;
  std::string shm_;  // a workspace in /dev/shm, when a test made one
};

TEST_F(BlockedNamesEscape, KeysAndEnvFilesCannotBeReadAtAnyDepth) {
  Secret(".env", "SECRET");
  Secret("server.key", "SECRET");
  Secret("a/b/c/d/e/f/g/h/.env.local", "SECRET");
  Secret("deploy/ID_RSA", "SECRET");
  Secret("real-secret.txt", "SECRET");
  fs::create_symlink("real-secret.txt", ws_ + "/link.pem");
  Secret(".env.example", "TEMPLATE");
  ExpectHidden({".env", "server.key", "a/b/c/d/e/f/g/h/.env.local", "deploy/ID_RSA", "link.pem"},
               "SECRET");
  // The template is meant to be read.
  RunOutput in = Safesh("required", "cat .env.example");
  EXPECT_EQ(in.out, "TEMPLATE-" + std::to_string(getpid()) + "\n") << in.err;

  // The scan's cache: private, in the state folder, which the sandbox hides.
  std::string file = CacheFile();
  ASSERT_FALSE(file.empty());
  struct stat st;
  ASSERT_EQ(stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  RunOutput peek = Safesh("required", "cat '" + file + "' 2>/dev/null | wc -c");
  EXPECT_EQ(peek.out, "0\n") << peek.out << peek.err;

  // A key added after the cache was written, in a new folder and in an old one.
  Secret("a/b/new/id_ed25519", "LATER");
  Secret("a/b/c/d/e/f/g/h/.env.production", "LATER");
  ExpectHidden({"a/b/new/id_ed25519", "a/b/c/d/e/f/g/h/.env.production"}, "LATER");

  // A damaged cache file is not used: everything is read again.
  {
    std::ofstream damaged(file, std::ios::trunc);
    damaged << "garbage";
  }
  chmod(file.c_str(), 0600);
  ExpectHidden({".env", "a/b/c/d/e/f/g/h/.env.local", "server.key"}, "SECRET");
}

TEST_F(BlockedNamesEscape, SettingsAddNamesAndPathGlobs) {
  std::ofstream(dir_ + "/rules.toml")
      << "[commands]\n[sandbox]\nblocked_paths = [\"*.tfvars\", \"conf/*.json\"]\n";
  Secret("infra/prod.tfvars", "SECRET");
  Secret("conf/prod.json", "SECRET");
  Secret("conf/readme.txt", "PLAIN");
  ExpectHidden({"infra/prod.tfvars", "conf/prod.json"}, "SECRET");
  RunOutput in = Safesh("required", "cat conf/readme.txt");
  EXPECT_EQ(in.out, "PLAIN-" + std::to_string(getpid()) + "\n") << in.err;
}

TEST_F(BlockedNamesEscape, TheEntryLimitIsNotSilent) {
  // The workspace in a memory file system when there is one: 50,000 files are made there in a
  // fraction of the time.
  struct statfs sfs;
  char t[] = "/dev/shm/safesh-blocked-XXXXXX";
  if (statfs("/dev/shm", &sfs) == 0 && sfs.f_type == TMPFS_MAGIC && mkdtemp(t) != nullptr) {
    shm_ = t;
    ws_ = shm_;
  }
  Secret(".env", "SECRET");
  // 50,001 entries below the root: the root's own entries are counted first.
  fs::create_directories(ws_ + "/big");
  for (int i = 0; i <= 50000; ++i) {
    int fd = open((ws_ + "/big/f" + std::to_string(i)).c_str(), O_WRONLY | O_CREAT, 0600);
    ASSERT_GE(fd, 0);
    close(fd);
  }
  RunOutput in = Safesh("required", "cat .env 2>/dev/null; echo END");
  EXPECT_EQ(in.out, "END\n");
  EXPECT_NE(in.err.find("safesh: note: blocked-name scan stopped at 50,000 entries; deeper files "
                        "are not masked"),
            std::string::npos)
      << in.err;
  RunOutput json = Safesh("required", "true", {"--json"});
  EXPECT_NE(json.out.find("blocked-name scan stopped at 50,000 entries"), std::string::npos)
      << json.out;
  // Under the limit, nothing is said.
  fs::remove_all(ws_ + "/big");
  EXPECT_EQ(Safesh("required", "true").err, "");
}

class ScanStops : public BlockedNamesEscape {
 protected:
  pipeline::RunResult Run(const std::string& command, double timeout,
                          const exec::CancelToken* cancel, bool long_lived = false) {
    pipeline::RunContext c;
    c.workspace = ws_;
    c.home = home_;
    c.spool_base = dir_ + "/state/safesh/spool";
    c.environment = exec::CurrentEnvironment();
    c.prompter = [](const approval::ApprovalRequest&) { return approval::Answer::kApprove; };
    c.launcher = "bwrap";
    c.settings.sandbox.shell = "required";
    c.cancel = cancel;
    c.long_lived = long_lived;
    pipeline::RunRequest r;
    r.command = command;
    r.timeout_seconds = timeout;
    return pipeline::RunShellCommand(r, c);
  }
};

// A long-lived process (RunContext::long_lived: the scan keeps watches between commands): a key
// a command makes is hidden from the next, and so is one made or moved between commands.
TEST_F(ScanStops, ALongLivedProcessHidesTheKeysItsCommandsMake) {
  auto run = [&](const std::string& command) {
    pipeline::RunResult result = Run(command, 120, nullptr, /*long_lived=*/true);
    EXPECT_EQ(result.exit_code, 0) << command << ": " << result.error;
    return result.output;
  };
  fs::create_directories(ws_ + "/src/lib");
  EXPECT_EQ(run("true"), "");
  // Made by the command: visible to it (SH-24), hidden from the next.
  EXPECT_EQ(run("mkdir -p a/b && echo key > a/b/.env && cat a/b/.env"), "key\n");
  EXPECT_EQ(run("cat a/b/.env 2>/dev/null; echo END"), "END\n");
  // Changed outside the sandbox between commands (a masked file moves with its mount within one).
  fs::rename(ws_ + "/a/b", ws_ + "/src/lib/moved");
  EXPECT_EQ(run("cat src/lib/moved/.env 2>/dev/null; echo END"), "END\n");
  fs::rename(ws_ + "/src/lib/moved/.env", ws_ + "/src/lib/moved/plain");
  std::ofstream(ws_ + "/src/id_rsa") << "k2\n";
  EXPECT_EQ(run("cat src/id_rsa src/lib/moved/plain 2>/dev/null; echo END"), "key\nEND\n");
}

TEST_F(ScanStops, ACancelledScanRunsNothing) {
  for (int d = 0; d < 20; ++d) {
    fs::create_directories(ws_ + "/d" + std::to_string(d));
    for (int f = 0; f < 30; ++f)
      std::ofstream(ws_ + "/d" + std::to_string(d) + "/f" + std::to_string(f)) << "x";
  }
  exec::CancelToken cancel;
  cancel.Cancel();  // before the scan's first question, at 256 entries
  pipeline::RunResult r = Run("touch ran", 20, &cancel);
  EXPECT_TRUE(r.cancelled);
  EXPECT_EQ(r.error, "command cancelled while scanning for blocked files");
  EXPECT_EQ(r.process_id, 0);
  EXPECT_EQ(r.exit_code, -1);
  EXPECT_FALSE(fs::exists(ws_ + "/ran"));
  // The same command runs when nothing stops it.
  pipeline::RunResult ok = Run("touch ran", 20, nullptr);
  EXPECT_EQ(ok.exit_code, 0) << ok.error;
  EXPECT_TRUE(fs::exists(ws_ + "/ran"));
}

TEST_F(ScanStops, AScanLongerThanTheTimeoutRunsNothing) {
  // The tree grows until scanning it takes longer than the 1 ms timeout (at once on most
  // machines): the question is what happens then, not how fast a machine is.
  pipeline::RunResult r;
  int dirs = 0;
  for (int want = 40; want <= 2560; want *= 2) {
    for (; dirs < want; ++dirs) {
      std::string d = ws_ + "/d" + std::to_string(dirs);
      fs::create_directory(d);
      for (int f = 0; f < 50; ++f)
        std::ofstream(d + "/f" + std::to_string(f)) << "x";
    }
    r = Run("touch ran", 0.001, nullptr);
    if (r.error.find("while scanning") != std::string::npos) break;
    fs::remove(ws_ + "/ran");
  }
  GTEST_LOG_(INFO) << "the scan timed out with " << dirs << " directories of 50 files";
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.error, "command timed out after 0.001 s while scanning for blocked files");
  EXPECT_EQ(r.process_id, 0);
  EXPECT_EQ(r.exit_code, -1);
  EXPECT_FALSE(fs::exists(ws_ + "/ran"));
}

}  // namespace
}  // namespace safesh::sandbox
