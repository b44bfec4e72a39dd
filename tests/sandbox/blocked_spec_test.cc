// From settings to the spec: which roots are scanned, which patterns, path globs, and how the
// scan's matches (links among them) become masks.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "sandbox/blocked_names.h"
#include "sandbox/spec.h"
#include "support/temp_dir.h"

namespace safesh::sandbox {
namespace {

namespace fs = std::filesystem;

bool Has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

class BlockedSpec : public ::testing::Test {
 protected:
  void SetUp() override {
    char t[] = "/tmp/safesh-blocked-spec-XXXXXX";
    ASSERT_NE(mkdtemp(t), nullptr);
    char* real = realpath(t, nullptr);
    dir_ = real;
    free(real);
    // Open to every uid, as a user's files mostly are (as root, a folder closed to others
    // changes the spec: RootsSandboxEmptiesTheFoldersOthersMayNotEnter).
    chmod(dir_.c_str(), 0755);
    ws_ = dir_ + "/ws";
    home_ = dir_ + "/home";
    fs::create_directories(ws_);
    fs::create_directories(home_ + "/.cache");
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string dir_, ws_, home_;
};

TEST_F(BlockedSpec, TheRootsAreTheWorkspaceAndTheConfiguredPathsNotTheTempFolders) {
  fs::create_directories(ws_ + "/ro");
  fs::create_directories(home_ + "/go");
  std::ofstream(ws_ + "/ro-file") << "x";
  config::SandboxSettings s;
  s.writable_paths = {"~/go", "/tmp"};  // written: /tmp is scanned as asked
  s.read_only_paths = {"ro", "ro-file", "missing"};
  // The caller's roots: the workspace and the writable paths, expanded (run_shell_command.cc).
  std::vector<std::string> roots = {ws_, home_ + "/go", "/tmp", ws_ + "/../ws"};
  std::vector<std::string> got = BlockedScanRoots(s, roots, home_);
  EXPECT_EQ(got, (std::vector<std::string>{ws_, home_ + "/go", "/tmp", ws_ + "/ro"}));
  // Without them, none of the folders every sandbox may write to is scanned.
  std::vector<std::string> plain = BlockedScanRoots(config::SandboxSettings(), {ws_}, home_);
  EXPECT_EQ(plain, std::vector<std::string>{ws_});
  // The host's /proc, /dev and /sys are never walked: the sandbox has its own.
  config::SandboxSettings pseudo;
  pseudo.read_only_paths = {"/proc", "/proc/self", "/dev", "/sys/kernel"};
  EXPECT_EQ(BlockedScanRoots(pseudo, {ws_}, home_), std::vector<std::string>{ws_});
  // A root is scanned wherever it lies: a workspace in /dev/shm is bound into the sandbox.
  if (fs::is_directory("/dev/shm")) {
    ::safesh::testing::TempDir shm("/dev/shm");
    EXPECT_EQ(BlockedScanRoots(pseudo, {shm.path}, home_), std::vector<std::string>{shm.path});
  }
  SandboxSpec spec = BuildSpec(config::SandboxSettings(), {ws_}, home_);
  // The host's /tmp is no writable root: the sandbox has its own (private_tmp.h).
  EXPECT_FALSE(Has(spec.writable, "/tmp"));
  EXPECT_FALSE(Has(spec.writable, "/var/tmp"));
  EXPECT_TRUE(Has(spec.writable, home_ + "/.cache"));
}

// In a writable home, a default blocked path that does not exist is masked at its first missing
// component, as a file where the name is one (a history, a token file) and a folder otherwise:
// bubblewrap leaves that mount point behind, and a folder where a shell keeps its history would
// break it.
TEST_F(BlockedSpec, MissingSecretFilesAreMaskedAsFiles) {
  config::SandboxSettings s;
  s.writable_paths = {"~"};
  SandboxSpec spec = BuildSpec(s, {ws_}, home_);
  for (const char* f :
       {".bash_history", ".zsh_history", ".python_history", ".pgpass", ".vault-token", ".s3cfg",
        ".boto", ".terraformrc", ".databrickscfg", ".netrc", ".claude.json", ".my.cnf"}) {
    EXPECT_TRUE(Has(spec.missing_files, home_ + "/" + f)) << f;
    EXPECT_FALSE(Has(spec.missing_dirs, home_ + "/" + f)) << f;
  }
  for (const char* d : {".ssh", ".aws", ".kube", ".snowflake", ".oci"})
    EXPECT_TRUE(Has(spec.missing_dirs, home_ + "/" + d)) << d;
}

TEST_F(BlockedSpec, NamePatternsAreTheDefaultsThenTheSettingsNames) {
  config::SandboxSettings s;
  s.blocked_paths = {"*.tfvars", "~/secrets", "/srv/*.pem", "conf/prod.json", "token.txt"};
  std::vector<std::string> want = DefaultBlockedNames();
  want.push_back("*.tfvars");
  want.push_back("token.txt");
  EXPECT_EQ(BlockedNamePatterns(s), want);
}

TEST_F(BlockedSpec, PathGlobsAreExpandedAndNamesAreLeftToTheScan) {
  fs::create_directories(ws_ + "/conf");
  fs::create_directories(home_ + "/.config/tool");
  for (const char* f : {"/conf/prod.json", "/conf/dev.json", "/conf/readme.txt",
                        "/conf/.hidden.json", "/token.txt"})
    std::ofstream(ws_ + f) << "x";
  std::ofstream(home_ + "/.config/tool/token") << "x";
  config::SandboxSettings s;
  s.blocked_paths = {"conf/*.json", "~/.config/*/token", "conf/.*", "token.txt"};
  SandboxSpec spec = BuildSpec(s, {ws_}, home_);
  EXPECT_TRUE(Has(spec.blocked_files, ws_ + "/conf/prod.json"));
  EXPECT_TRUE(Has(spec.blocked_files, ws_ + "/conf/dev.json"));
  EXPECT_TRUE(Has(spec.blocked_files, ws_ + "/conf/.hidden.json"));  // through `.*` only
  EXPECT_TRUE(Has(spec.blocked_files, home_ + "/.config/tool/token"));
  EXPECT_FALSE(Has(spec.blocked_files, ws_ + "/conf/readme.txt"));
  // `.*` matches `.` and `..` for glob(3): neither the folder nor its parent is hidden.
  EXPECT_FALSE(Has(spec.blocked_dirs, ws_ + "/conf"));
  EXPECT_FALSE(Has(spec.blocked_dirs, ws_));
  // A name is not a workspace path any more: the scan finds it, wherever it is.
  EXPECT_FALSE(Has(spec.blocked_files, ws_ + "/token.txt"));
}

TEST_F(BlockedSpec, MatchesBecomeMasksAtTheirRealPath) {
  fs::create_directories(ws_ + "/keys.pem");  // a matched directory
  fs::create_directories(dir_ + "/elsewhere");
  std::ofstream(ws_ + "/.env") << "x";
  std::ofstream(dir_ + "/elsewhere/real") << "x";
  fs::create_symlink(dir_ + "/elsewhere/real", ws_ + "/link.key");
  fs::create_symlink(dir_ + "/nothing", ws_ + "/dangling.key");
  fs::create_symlink("/", ws_ + "/root.pem");
  fs::create_symlink(dir_, ws_ + "/parent.pem");
  ScanResult found = FullScan({ws_}, DefaultBlockedNames(), ScanLimits(), [] { return false; });
  EXPECT_EQ(found.files.size(), 5u);
  SandboxSpec spec;
  EXPECT_EQ(AddBlockedMatches(found, {ws_}, &spec), "");
  std::sort(spec.blocked_files.begin(), spec.blocked_files.end());
  EXPECT_EQ(spec.blocked_files,
            (std::vector<std::string>{dir_ + "/elsewhere/real", ws_ + "/.env"}));
  // A link to a folder that holds the workspace would hide the workspace itself: left alone.
  EXPECT_EQ(spec.blocked_dirs, std::vector<std::string>{ws_ + "/keys.pem"});
}

// What the scan reports as repositories has its hooks hidden only for what git would use: a
// folder with a HEAD, reached from a .git folder, link or "gitdir:" file, inside a writable
// root. Anything else adds nothing (no empty mount point is left in the workspace), and nothing
// is bound from the host: a link planted as hooks cannot bring the host's /proc in.
TEST_F(BlockedSpec, RepositoriesBelowTheRootsHaveTheirHooksHiddenWhenGitWouldUseThem) {
  auto repo = [](const std::string& git) {
    fs::create_directories(git);
    std::ofstream(git + "/HEAD") << "ref: refs/heads/main\n";
  };
  repo(ws_ + "/clone/.git");
  std::ofstream(ws_ + "/clone/.git/config") << "[core]\n";
  repo(ws_ + "/.git/modules/m");
  fs::create_directories(ws_ + "/m");
  std::ofstream(ws_ + "/m/.git") << "gitdir: ../.git/modules/m\n";
  repo(ws_ + "/withhooks/.git");
  fs::create_directories(ws_ + "/withhooks/.git/hooks");
  repo(ws_ + "/trap/.git");
  fs::create_directory_symlink("/proc", ws_ + "/trap/.git/hooks");
  fs::create_symlink("/proc/self/status", ws_ + "/trap/.git/config");
  fs::create_directories(ws_ + "/garbage");
  std::ofstream(ws_ + "/garbage/.git") << "not a gitdir line\n";
  fs::create_directories(ws_ + "/names-the-root");
  std::ofstream(ws_ + "/names-the-root/.git") << "gitdir: ..\n";  // no HEAD there
  repo(home_ + "/outside/.git");
  fs::create_directories(ws_ + "/out");
  std::ofstream(ws_ + "/out/.git") << "gitdir: " << home_ << "/outside/.git\n";

  SandboxSpec spec = BuildSpec(config::SandboxSettings(), {ws_}, home_);
  // As on a machine whose temporary folders do not hold the test: only the workspace writable.
  spec.writable = {ws_};
  SandboxSpec before = spec;
  ProtectRepositories(
      {ws_ + "/clone/.git", ws_ + "/m/.git", ws_ + "/withhooks/.git", ws_ + "/trap/.git",
       ws_ + "/garbage/.git", ws_ + "/names-the-root/.git", ws_ + "/out/.git"},
      &spec);
  EXPECT_TRUE(Has(spec.missing_dirs, ws_ + "/clone/.git/hooks"));
  EXPECT_TRUE(Has(spec.missing_dirs, ws_ + "/.git/modules/m/hooks"));
  EXPECT_TRUE(Has(spec.blocked_dirs, ws_ + "/withhooks/.git/hooks"));
  EXPECT_TRUE(Has(spec.blocked_dirs, ws_ + "/trap/.git/hooks"));  // the link, masked in place
  EXPECT_EQ(spec.read_only, before.read_only) << "nothing is bound from the host";
  EXPECT_EQ(spec.missing_files, before.missing_files);
  for (const std::vector<std::string>* v : {&spec.missing_dirs, &spec.blocked_dirs}) {
    for (const std::string& p : *v) {
      EXPECT_FALSE(p.starts_with(ws_ + "/garbage")) << p;
      EXPECT_FALSE(p.starts_with(home_ + "/outside")) << p;  // read-only already
      EXPECT_NE(p, ws_ + "/hooks") << "a .git file naming the root made it a repository";
    }
  }
}

// As root (root_map.h), the command's root is another uid: a folder closed to others on the way
// to a bind becomes an empty tmpfs holding the binds, and a mask behind a closed folder outside
// the roots is left out (nothing can reach what it guards). Not root: nothing of this.
TEST_F(BlockedSpec, RootsSandboxEmptiesTheFoldersOthersMayNotEnter) {
  fs::create_directories(home_ + "/.ssh");
  fs::create_directories(dir_ + "/closed/ws");
  ASSERT_EQ(chmod(home_.c_str(), 0700), 0);
  ASSERT_EQ(chmod((dir_ + "/closed").c_str(), 0700), 0);
  SandboxSpec spec = BuildSpec(config::SandboxSettings(), {dir_ + "/closed/ws"}, home_);
  config::SandboxSettings keep;
  keep.root_keeps_owner_rights = true;
  SandboxSpec kept = BuildSpec(keep, {dir_ + "/closed/ws"}, home_);
  EXPECT_FALSE(kept.map_root);
  EXPECT_TRUE(kept.closed_dirs.empty());
  EXPECT_TRUE(Has(kept.blocked_dirs, home_ + "/.ssh"));
  if (geteuid() != 0) {
    EXPECT_FALSE(spec.map_root);
    EXPECT_TRUE(spec.closed_dirs.empty());
    return;
  }
  EXPECT_TRUE(spec.map_root);
  // ~/.cache is a writable root inside the closed home; the workspace lies in another.
  EXPECT_TRUE(Has(spec.closed_dirs, dir_ + "/closed"));
  EXPECT_TRUE(Has(spec.closed_dirs, home_));
  EXPECT_EQ(spec.closed_dirs.size(), 2u);
  EXPECT_FALSE(Has(spec.blocked_dirs, home_ + "/.ssh"));
}

}  // namespace
}  // namespace safesh::sandbox
