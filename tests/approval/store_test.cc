// Remembered approvals: exact matches only, kept privately, written whole, shared safely by
// several safesh processes.
#include "approval/store.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "support/temp_dir.h"

namespace safesh::approval {
namespace {

using safesh::testing::TempDir;

Remembered Approval(const std::string& workspace, const std::string& command) {
  Remembered r;
  r.kind = kRunCommand;
  r.workspace = workspace;
  r.key = command;
  r.target = command;
  return r;
}

std::vector<Remembered> Load(const std::string& file) {
  std::vector<Remembered> list;
  std::string error;
  EXPECT_TRUE(LoadApprovals(file, &list, &error)) << error;
  return list;
}

mode_t Mode(const std::string& path) {
  struct stat st;
  EXPECT_EQ(stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

TEST(ApprovalStore, RemembersExactlyThisCommandInThisWorkspace) {
  TempDir t;
  std::string file = t.path + "/state/safesh/approvals.json";
  EXPECT_TRUE(Load(file).empty());  // no file yet
  Remembered a = Approval("/home/me/proj", "npm run build");
  std::string error;
  ASSERT_TRUE(RememberApproval(file, &a, &error)) << error;
  EXPECT_EQ(a.id.size(), 12u);
  EXPECT_FALSE(a.created.empty());
  EXPECT_EQ(Mode(t.path + "/state/safesh"), 0700u);
  EXPECT_EQ(Mode(file), 0600u);

  std::vector<Remembered> list = Load(file);
  ASSERT_EQ(list.size(), 1u);
  std::optional<Remembered> found =
      FindApproval(list, kRunCommand, "/home/me/proj", "npm run build");
  ASSERT_TRUE(found);
  EXPECT_EQ(found->id, a.id);
  EXPECT_EQ(found->target, "npm run build");
  // One byte different, anywhere, or another workspace or kind: not this approval.
  for (const char* other : {"npm run build ", " npm run build", "npm run buildx", "npm run buil",
                            "npm run Build", "npm  run build", "npm run build\n",
                            "npm run build;rm -rf ~", "npm run bu\u200bild", "npm run build\r"}) {
    EXPECT_FALSE(FindApproval(list, kRunCommand, "/home/me/proj", other)) << other;
  }
  for (const char* ws : {"/home/me/proj/", "/home/me", "/home/me/proj/sub", "/home/me/proj2", ""})
    EXPECT_FALSE(FindApproval(list, kRunCommand, ws, "npm run build")) << ws;
  EXPECT_FALSE(FindApproval(list, "edit_file", "/home/me/proj", "npm run build"));
}

TEST(ApprovalStore, TheSameApprovalTwiceIsOne) {
  TempDir t;
  std::string file = t.path + "/approvals.json";
  Remembered a = Approval("/w", "make"), b = Approval("/w", "make");
  std::string error;
  ASSERT_TRUE(RememberApproval(file, &a, &error)) << error;
  ASSERT_TRUE(RememberApproval(file, &b, &error)) << error;
  EXPECT_EQ(a.id, b.id);
  EXPECT_EQ(Load(file).size(), 1u);
}

TEST(ApprovalStore, RevokeByIdOrAll) {
  TempDir t;
  std::string file = t.path + "/approvals.json";
  std::vector<Remembered> made;
  std::string error;
  for (const char* cmd : {"make", "make test", "make install"}) {
    Remembered r = Approval("/w", cmd);
    ASSERT_TRUE(RememberApproval(file, &r, &error)) << error;
    made.push_back(r);
  }
  std::vector<Remembered> removed;
  ASSERT_TRUE(RevokeApprovals(file, {made[1].id, "nosuchid0000"}, false, &removed, &error));
  ASSERT_EQ(removed.size(), 1u);
  EXPECT_EQ(removed[0].key, "make test");
  std::vector<Remembered> left = Load(file);
  EXPECT_EQ(left.size(), 2u);
  EXPECT_FALSE(FindApproval(left, kRunCommand, "/w", "make test"));
  EXPECT_TRUE(FindApproval(left, kRunCommand, "/w", "make"));
  ASSERT_TRUE(RevokeApprovals(file, {}, true, &removed, &error)) << error;
  EXPECT_EQ(removed.size(), 2u);
  EXPECT_TRUE(Load(file).empty());
}

TEST(ApprovalStore, AFileOthersCouldChangeOrThatIsBrokenIsNotUsed) {
  TempDir t;
  std::string file = t.path + "/approvals.json";
  Remembered r = Approval("/w", "make");
  std::string error;
  ASSERT_TRUE(RememberApproval(file, &r, &error)) << error;
  std::vector<Remembered> list;

  ASSERT_EQ(chmod(file.c_str(), 0666), 0);
  EXPECT_FALSE(LoadApprovals(file, &list, &error));
  EXPECT_NE(error.find("mode 666"), std::string::npos) << error;
  ASSERT_EQ(chmod(file.c_str(), 0600), 0);

  ASSERT_EQ(chmod(t.path.c_str(), 0755), 0);  // the folder too
  EXPECT_FALSE(LoadApprovals(file, &list, &error));
  EXPECT_NE(error.find("chmod 700"), std::string::npos) << error;
  ASSERT_EQ(chmod(t.path.c_str(), 0700), 0);

  std::string real = t.path + "/real.json";
  std::filesystem::rename(file, real);
  ASSERT_EQ(symlink(real.c_str(), file.c_str()), 0);
  EXPECT_FALSE(LoadApprovals(file, &list, &error));
  EXPECT_NE(error.find("symbolic link"), std::string::npos) << error;
  ASSERT_EQ(unlink(file.c_str()), 0);

  for (const char* broken :
       {"", "{", "[]", "{\"version\":2,\"approvals\":[]}", "{\"version\":1}",
        "{\"version\":1,\"approvals\":[1]}",
        "{\"version\":1,\"approvals\":[{\"id\":\"x\",\"kind\":\"run_command\"}]}"}) {
    {
      std::ofstream f(file, std::ios::trunc);
      f << broken;
    }
    ASSERT_EQ(chmod(file.c_str(), 0600), 0);
    EXPECT_FALSE(LoadApprovals(file, &list, &error)) << broken;
    EXPECT_NE(error.find("revoke --all"), std::string::npos) << error;
    // Not overwritten by a new approval (that would lose what the file held)...
    Remembered again = Approval("/w", "make");
    EXPECT_FALSE(RememberApproval(file, &again, &error)) << broken;
    std::vector<Remembered> removed;
    EXPECT_FALSE(RevokeApprovals(file, {"x"}, false, &removed, &error)) << broken;
  }
  // ...but revoking all starts again from nothing.
  std::vector<Remembered> removed;
  ASSERT_TRUE(RevokeApprovals(file, {}, true, &removed, &error)) << error;
  EXPECT_TRUE(Load(file).empty());
}

TEST(ApprovalStore, WritesLeaveNoTemporaryFilesAndValidJson) {
  TempDir t;
  std::string file = t.path + "/approvals.json";
  std::string error;
  for (int i = 0; i < 5; ++i) {
    Remembered r = Approval("/w", "echo " + std::to_string(i) + " \"quoted\" \x01 \xff");
    ASSERT_TRUE(RememberApproval(file, &r, &error)) << error;
  }
  std::set<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(t.path))
    names.insert(e.path().filename());
  EXPECT_EQ(names, (std::set<std::string>{"approvals.json", "approvals.lock"}));
  std::ifstream f(file);
  nlohmann::json j = nlohmann::json::parse(f);
  EXPECT_EQ(j["version"], 1);
  EXPECT_EQ(j["approvals"].size(), 5u);
}

TEST(ApprovalStore, ConcurrentProcessesDoNotLoseEachOthersApprovals) {
  TempDir t;
  std::string file = t.path + "/state/approvals.json";
  constexpr int kProcesses = 6, kEach = 15;
  std::vector<pid_t> children;
  for (int p = 0; p < kProcesses; ++p) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      std::string error;
      for (int i = 0; i < kEach; ++i) {
        Remembered r = Approval("/w", "cmd " + std::to_string(p) + " " + std::to_string(i));
        if (!RememberApproval(file, &r, &error)) _exit(1);
        // And revoke-and-re-add traffic from the same writers.
        if (i % 5 == 4) {
          std::vector<Remembered> removed;
          if (!RevokeApprovals(file, {r.id}, false, &removed, &error) || removed.size() != 1)
            _exit(2);
          if (!RememberApproval(file, &r, &error)) _exit(3);
        }
      }
      _exit(0);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  }
  std::vector<Remembered> list = Load(file);
  EXPECT_EQ(list.size(), static_cast<size_t>(kProcesses * kEach));
  for (int p = 0; p < kProcesses; ++p) {
    for (int i = 0; i < kEach; ++i) {
      EXPECT_TRUE(FindApproval(list, kRunCommand, "/w",
                               "cmd " + std::to_string(p) + " " + std::to_string(i)))
          << p << " " << i;
    }
  }
}

TEST(ApprovalStore, TheFileIsInTheStateFolder) {
  const char* old_state = getenv("XDG_STATE_HOME");
  std::string saved = old_state != nullptr ? old_state : "";
  setenv("XDG_STATE_HOME", "/some/state", 1);
  EXPECT_EQ(DefaultApprovalsFile(), "/some/state/safesh/approvals.json");
  setenv("XDG_STATE_HOME", "relative/is/ignored", 1);
  const char* home = getenv("HOME");
  if (home != nullptr && home[0] == '/') {
    EXPECT_EQ(DefaultApprovalsFile(), std::string(home) + "/.local/state/safesh/approvals.json");
  }
  if (old_state != nullptr) {
    setenv("XDG_STATE_HOME", saved.c_str(), 1);
  } else {
    unsetenv("XDG_STATE_HOME");
  }
}

}  // namespace
}  // namespace safesh::approval
