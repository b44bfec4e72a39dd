// `safesh run` as a program: exit codes, JSON, and what happens when safesh itself is killed.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "exec/procs.h"
#include "support/requires.h"
#include "support/subprocess.h"

namespace safesh::testing {
namespace {

class RunCli : public ::testing::Test {
 protected:
  void SetUp() override {
    char t[] = "/tmp/safesh-run-cli-XXXXXX";
    dir_ = mkdtemp(t);
    std::filesystem::create_directories(dir_ + "/ws");
    std::ofstream(dir_ + "/rules.toml") << "[commands]\n"
                                           "deny = [\"rm\"]\n"
                                           "auto_approve = [\"echo *\", \"sleep *\", \"seq *\", "
                                           "\"true\", \"exit *\"]\n";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::vector<std::string> Env() const {
    return {"PATH=/usr/bin:/bin", "LC_ALL=C.UTF-8", "HOME=" + dir_};
  }
  std::vector<std::string> Args(std::vector<std::string> args) const {
    std::vector<std::string> all = {SAFESH_BINARY,        "run",         "--config",
                                    dir_ + "/rules.toml", "--workspace", dir_ + "/ws"};
    all.insert(all.end(), args.begin(), args.end());
    return all;
  }
  RunOutput Safesh(std::vector<std::string> args) {
    RunOptions options;
    options.env = Env();
    options.timeout_seconds = 60;
    return RunProgram(Args(std::move(args)), options);
  }

  std::string dir_;
};

TEST_F(RunCli, ExitCodesFollowTheContract) {
  EXPECT_EQ(Safesh({"--", "exit 3"}).exit_code, 3);
  RunOutput denied = Safesh({"--", "rm -rf " + dir_ + "/ws"});
  EXPECT_EQ(denied.exit_code, 77);
  EXPECT_NE(denied.err.find("blocked by command policy: "), std::string::npos) << denied.err;
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/ws"));
  // Needs approval; no terminal, so the headless answer (deny) applies.
  EXPECT_EQ(Safesh({"--", "touch x"}).exit_code, 77);
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/ws/x"));
  EXPECT_EQ(Safesh({"--approve", "no", "--", "touch x"}).exit_code, 77);
  EXPECT_EQ(Safesh({"--approve", "yes", "--", "touch x"}).exit_code, 0);
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/ws/x"));
  RunOutput timed = Safesh({"--timeout", "0.3", "--", "sleep 30"});
  EXPECT_EQ(timed.exit_code, 124);
  EXPECT_NE(timed.err.find("command timed out after 0.3 s"), std::string::npos) << timed.err;
  EXPECT_EQ(Safesh({"--", ""}).exit_code, 64);
  EXPECT_EQ(Safesh({"--cwd", "/", "--", "true"}).exit_code, 64);
  EXPECT_EQ(Safesh({"--timeout", "-1", "--", "true"}).exit_code, 64);
  EXPECT_EQ(Safesh({"--approve", "maybe", "--", "true"}).exit_code, 64);
  RunOptions o;
  o.env = Env();
  o.env.push_back("SAFESH_SANDBOX_SHELL=required");
  o.env.push_back("SAFESH_BWRAP=" + dir_ + "/no-such-bwrap");
  o.env.push_back("SAFESH_SANDBOX_LAUNCHER=bwrap");  // no Landlock fallback either
  RunOutput unavailable = RunProgram(Args({"--", "true"}), o);
  EXPECT_EQ(unavailable.exit_code, 69);
  EXPECT_NE(unavailable.err.find("sandbox required but unavailable"), std::string::npos)
      << unavailable.err;
  // The variable is a settings layer: a bad value is bad settings.
  o.env = Env();
  o.env.push_back("SAFESH_SANDBOX_SHELL=bogus");
  RunOutput bogus = RunProgram(Args({"--", "true"}), o);
  EXPECT_EQ(bogus.exit_code, 78);
  EXPECT_NE(bogus.err.find("SAFESH_SANDBOX_SHELL must be auto, required, landlock or off"),
            std::string::npos)
      << bogus.err;
}

TEST_F(RunCli, BackgroundIsRefusedAndPointsToTheServer) {
  std::string marker = UniqueSleep();
  RunOutput r = Safesh({"--background", "--approve", "yes", "--", marker});
  EXPECT_EQ(r.exit_code, 64);
  EXPECT_NE(r.err.find("--background is not available in a one-shot run"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("safesh mcp"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
  EXPECT_TRUE(ProcessesWith(marker).empty());
}

TEST_F(RunCli, ADryRunShowsTheSandboxAndRunsNothing) {
  RunOutput dry = Safesh({"--dry-run", "--", "touch made"});  // would need approval: not asked
  EXPECT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/ws/made"));
  EXPECT_NE(dry.err.find("dry run, nothing ran"), std::string::npos) << dry.err;
  if (dry.out.find("bwrap ") != std::string::npos) {
    EXPECT_NE(dry.out.find(" --unshare-net "), std::string::npos) << dry.out;
    // The workspace is bound from a descriptor (bwrap.h: OpenBindSources), not by its path.
    EXPECT_TRUE(std::regex_search(dry.out, std::regex(" --bind-fd [0-9]+ " + dir_ + "/ws ")))
        << dry.out;
    EXPECT_EQ(dry.out.find(" --bind " + dir_ + "/ws "), std::string::npos) << dry.out;
    EXPECT_NE(dry.out.find("/bin/bash -c -- 'touch made'\n"), std::string::npos) << dry.out;
  }
  RunOutput json = Safesh({"--dry-run", "--json", "--", "touch made"});
  nlohmann::json j = nlohmann::json::parse(json.out);
  ASSERT_TRUE(j["plan"].is_array()) << json.out;
  EXPECT_EQ(j["plan"].back(), "touch made");
  // A denied command is denied in a dry run too.
  EXPECT_EQ(Safesh({"--dry-run", "--", "rm -rf " + dir_ + "/ws"}).exit_code, 77);
}

// A read-only bind outside the writable roots adds nothing (all is read-only there) and over
// the sandbox's own /proc or /dev would show the host's: such entries are left out, even when
// reached through a link. (A project file may add read_only_paths without being trusted.)
TEST_F(RunCli, ReadOnlyPathsOnlyCountInsideTheWritableRoots) {
  std::filesystem::create_directories(dir_ + "/ws/docs");
  ASSERT_EQ(symlink("/proc", (dir_ + "/ws/proc-link").c_str()), 0);
  std::ofstream(dir_ + "/ro.toml")
      << "[sandbox]\nread_only_paths = [\"/proc\", \"/dev\", \"proc-link\", \"docs\"]\n";
  RunOptions o;
  o.env = Env();
  RunOutput dry = RunProgram({SAFESH_BINARY, "run", "--config", dir_ + "/ro.toml", "--workspace",
                              dir_ + "/ws", "--dry-run", "--", "true"},
                             o);
  ASSERT_EQ(dry.exit_code, 0) << dry.err;
  if (dry.out.find("bwrap ") == std::string::npos) {
    SAFESH_SKIP_MISSING("no bubblewrap here");
  }
  std::string docs = dir_ + "/ws/docs";
  EXPECT_TRUE(std::regex_search(dry.out, std::regex(" --ro-bind-fd [0-9]+ " + docs + " ")))
      << dry.out;
  EXPECT_EQ(dry.out.find(" --ro-bind /proc /proc "), std::string::npos) << dry.out;
  // Nor is the host's /proc scanned for names to hide (it never settles, and is not the
  // sandbox's): no mask lands in it.
  EXPECT_EQ(dry.out.find(" /proc/1/"), std::string::npos) << dry.out;
  EXPECT_EQ(dry.out.find(" --ro-bind /dev /dev "), std::string::npos) << dry.out;
}

// Where XDG variables move safesh's settings and state (the trust list), they are hidden from
// commands as the default places are.
TEST_F(RunCli, SafeshsOwnFilesAreHiddenWhereverXdgPutsThem) {
  std::filesystem::create_directories(dir_ + "/ws/xdg-config/safesh");
  std::filesystem::create_directories(dir_ + "/ws/xdg-state/safesh");
  std::filesystem::permissions(dir_ + "/ws/xdg-state/safesh", std::filesystem::perms::owner_all);
  RunOptions o;
  o.env = Env();
  o.env.push_back("XDG_CONFIG_HOME=" + dir_ + "/ws/xdg-config");
  o.env.push_back("XDG_STATE_HOME=" + dir_ + "/ws/xdg-state");
  RunOutput dry = RunProgram(Args({"--dry-run", "--", "true"}), o);
  ASSERT_EQ(dry.exit_code, 0) << dry.err;
  if (dry.out.find("bwrap ") == std::string::npos) {
    SAFESH_SKIP_MISSING("no bubblewrap here");
  }
  for (const char* d : {"/ws/xdg-config/safesh", "/ws/xdg-state/safesh"}) {
    std::string path = dir_ + d;
    EXPECT_NE(dry.out.find(" --tmpfs " + path + " --remount-ro " + path + " "), std::string::npos)
        << dry.out;
  }
}

TEST_F(RunCli, DoctorSaysWhetherTheSandboxWorks) {
  RunOptions o;
  o.env = Env();
  RunOutput ready = RunProgram({SAFESH_BINARY, "doctor", "--json"}, o);
  nlohmann::json j = nlohmann::json::parse(ready.out);
  // The machines the tests run on have bubblewrap (scripts/bootstrap installs it).
  EXPECT_EQ(j["state"], "ready") << ready.out;
  EXPECT_EQ(ready.exit_code, 0);
  EXPECT_TRUE(j["layers"].is_array());
  o.env.push_back("SAFESH_BWRAP=" + dir_ + "/no-such-bwrap");
  RunOutput missing = RunProgram({SAFESH_BINARY, "doctor"}, o);
  // Landlock is the launcher left (0) where the kernel has it; otherwise nothing works (69).
  bool landlock = missing.out.find("ok  Landlock") != std::string::npos;
  EXPECT_EQ(missing.exit_code, landlock ? 0 : 69) << missing.out;
  if (landlock) {
    EXPECT_NE(missing.out.find("strength: Landlock"), std::string::npos) << missing.out;
  }
  EXPECT_NE(missing.out.find("sandbox: no_bwrap"), std::string::npos) << missing.out;
  EXPECT_NE(missing.out.find("fix: install bubblewrap"), std::string::npos) << missing.out;
}

TEST_F(RunCli, BadSettingsExit78) {
  std::ofstream(dir_ + "/bad.toml") << "[tools]\nshell_timeout_seconds = 99999\n";
  RunOptions o;
  o.env = Env();
  RunOutput r = RunProgram({SAFESH_BINARY, "run", "--config", dir_ + "/bad.toml", "--", "true"}, o);
  EXPECT_EQ(r.exit_code, 78);
  EXPECT_NE(r.err.find("bad.toml:2:1"), std::string::npos) << r.err;
}

TEST_F(RunCli, JsonResult) {
  RunOutput r = Safesh({"--json", "--", "echo hi; exit 2"});
  EXPECT_EQ(r.exit_code, 2);
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["output"], "hi\n");
  EXPECT_EQ(j["exit_code"], 2);
  EXPECT_EQ(j["timed_out"], false);
  EXPECT_EQ(j["is_background"], false);
  EXPECT_TRUE(j["process_id"].is_number());
  EXPECT_TRUE(j["spool_path"].is_null());
  EXPECT_EQ(j["verdict"]["verdict"], "allow");
  // bubblewrap works on the machines the tests run on (scripts/bootstrap installs it).
  EXPECT_EQ(j["sandbox"]["mode"], "bwrap") << j["sandbox"];
  r = Safesh({"--json", "--timeout", "0.2", "--", "sleep 5"});
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["exit_code"], -1);
  EXPECT_EQ(j["timed_out"], true);
}

// Starts safesh with its output to /dev/null; returns its pid.
pid_t Start(const std::vector<std::string>& args, const std::vector<std::string>& env) {
  return StartProgram(args, env);
}

TEST_F(RunCli, KillingSafeshKillsEverythingItStarted) {
  // The guard, orphaned by the kill, is re-parented here rather than to init, and reaped.
  prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
  std::string marker = UniqueSleep();
  std::string command = marker + " & setsid " + marker + " & nohup " + marker +
                        " >/dev/null 2>&1 & (" + marker + " &); " + marker;
  pid_t pid = Start(Args({"--approve", "yes", "--", command}), Env());
  ASSERT_TRUE(WaitForCount(marker, 5)) << "the command's processes did not all start";
  // The attempt is real: the processes are alive while safesh is.
  ASSERT_GE(ProcessesWith(marker).size(), 5u);
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  int status;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WaitUntilGone(marker).empty());
  while (waitpid(-1, &status, WNOHANG) > 0) {
  }
}

// The attacks below come from a command of the same user, without the sandbox.
std::vector<std::string> Unsandboxed(std::vector<std::string> env) {
  env.push_back("SAFESH_SANDBOX_SHELL=off");
  return env;
}

TEST_F(RunCli, ScrubbedSecretsAreNotInTheGuardsOrSafeshsEnviron) {
  std::string secret = "ghp_SECRET" + std::to_string(getpid()) + "abcdef";
  std::string read_parent = "tr '\\0' '\\n' </proc/$PPID/environ | grep GH_TOKEN | rev";
  // The attempt is real: a shell's child reads its parent's environment this way.
  RunOptions plain;
  plain.env = {"PATH=/usr/bin:/bin", "GH_TOKEN=" + secret};
  RunOutput p = RunProgram({"/bin/bash", "-c", "bash -c \"$0\"; true", read_parent}, plain);
  ASSERT_NE(p.out.find(std::string(secret.rbegin(), secret.rend())), std::string::npos) << p.out;
  RunOptions o;
  o.env = Unsandboxed(Env());
  o.env.push_back("GH_TOKEN=" + secret);
  RunOutput r = RunProgram(
      Args({"--approve", "yes", "--",
            read_parent + "; tr '\\0' '\\n' </proc/$(cut -d' ' -f4 /proc/$PPID/stat)/environ | "
                          "grep GH_TOKEN | rev"}),
      o);
  EXPECT_EQ(r.out.find(std::string(secret.rbegin(), secret.rend())), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(secret), std::string::npos) << r.out;
}

TEST_F(RunCli, HoldingTheControlPipeDoesNotKeepTheCommandAlive) {
  prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
  std::string marker = UniqueSleep();
  // The guard's control pipe is its descriptor 5: reopened through /proc, it would never close.
  pid_t pid = Start(Args({"--approve", "yes", "--", "exec 9>/proc/$PPID/fd/5; exec " + marker}),
                    Unsandboxed(Env()));
  ASSERT_TRUE(WaitForCount(marker, 1));
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  int status;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WaitUntilGone(marker).empty());
  while (waitpid(-1, &status, WNOHANG) > 0) {
  }
}

TEST_F(RunCli, AStoppedGuardIsWokenAndCleansUp) {
  std::string marker = UniqueSleep();
  RunOptions o;
  o.env = Unsandboxed(Env());
  o.timeout_seconds = 60;
  RunOutput r = RunProgram(
      Args({"--approve", "yes", "--timeout", "30", "--",
            "kill -STOP $PPID; setsid " + marker + " >/dev/null 2>&1 & echo done; exit 0"}),
      o);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "done\n");
  EXPECT_TRUE(WaitUntilGone(marker).empty());
}

TEST_F(RunCli, ThousandsOfDetachedProcessesAreAllKilled) {
  std::string marker = UniqueSleep();
  RunOptions o;
  o.env = Unsandboxed(Env());
  o.timeout_seconds = 60;
  RunOutput r = RunProgram(
      Args({"--approve", "yes", "--",
            "(for i in $(seq 2000); do setsid " + marker + " & done) & sleep 0.3; exit 0"}),
      o);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(WaitUntilGone(marker).empty());
}

TEST_F(RunCli, SigtermCancels) {
  std::string marker = UniqueSleep();
  pid_t pid = Start(Args({"--approve", "yes", "--", marker}), Env());
  ASSERT_TRUE(WaitForCount(marker, 1));
  kill(pid, SIGTERM);
  int status;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130);
  EXPECT_TRUE(WaitUntilGone(marker).empty());
}

TEST_F(RunCli, AResourceLimitReachedExits125AndSaysWhich) {
  std::ofstream(dir_ + "/rules.toml", std::ios::app) << "[sandbox]\nmax_processes = 16\n";
  std::string marker = UniqueSleep();
  RunOutput r = Safesh({"--approve", "yes", "--", "for i in $(seq 40); do " + marker + " & done"});
  EXPECT_EQ(r.exit_code, 125) << r.err;
  EXPECT_NE(r.err.find("safesh: stopped: limit of 16 processes reached ([sandbox] max_processes)"),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(WaitUntilGone(marker).empty());
}

TEST_F(RunCli, MemoryStaysFlatWhateverTheCommandPrints) {
#ifdef SAFESH_SANITIZED
  GTEST_SKIP() << "under ASan the shadow memory, not safesh, sets the peak RSS";
#endif
  // About 55 MB of output through safesh; its peak RSS is measured by the kernel.
  pid_t pid = Start(Args({"--", "seq 1 7000000"}), Env());
  int status;
  rusage usage{};
  ASSERT_EQ(wait4(pid, &status, 0, &usage), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_LT(usage.ru_maxrss, 32 * 1024) << "peak RSS in KiB";
}

}  // namespace
}  // namespace safesh::testing
