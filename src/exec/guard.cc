#include "exec/guard.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/mount.h>
#include <linux/seccomp.h>
#include <linux/securebits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <vector>

#include "exec/reap.h"

namespace safesh::exec {
namespace {

// The pipe's capacity: a large one lets a fast writer run ahead while safesh writes the spool.
constexpr int kPipeBytes = 1 << 20;

void WriteReport(int fd, const GuardReport& r) {
  ssize_t n;
  do {
    n = write(fd, &r, sizeof r);
  } while (n < 0 && errno == EINTR);
  // If safesh is gone the write fails (SIGPIPE is ignored here); there is no one to tell.
}

int PidfdOpen(pid_t pid) {
  return static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
}

// Everything the guard needs after fork, prepared before it so the guard allocates nothing.
struct GuardSetup {
  const char* program;
  char* const* argv;
  char* const* envp;
  int cwd_fd;
  const int* pass_fds;
  int n_pass;
  const int* join_fds;
  int n_join;
  const LaunchPlan::Rlimit* rlimits;
  int n_rlimits;
  int devnull;
  int out_w;
  int control_r;
  int report_w;
  pid_t parent;  // safesh
  bool self_confine;
  bool pid_namespace;
  const sock_filter* filter;
  unsigned short filter_len;
  // LaunchPlan::RootMap, as indexes into pass_fds; userns -1 when not mapped.
  int userns;
  const char* stage;
  const int* trees;
  const char* tree_dirs;
  int n_trees;
};

constexpr int kMaxPass = 64;
constexpr int kMaxJoin = 8;

// Where ArrangeFds put the descriptors the guard keeps. Layout from 3: the passed descriptors,
// /dev/null, the output pipe, the control pipe, the report pipe, the cgroups to join.
struct Layout {
  int devnull, out_w, control_r, report_w;
  int first_join;
  int end;  // the first descriptor above the layout
};

// Places the descriptors the guard keeps at fixed numbers, closing everything else of safesh's
// (other runs' control pipes included: holding one would hide safesh's death from that guard).
bool ArrangeFds(const GuardSetup& s, Layout* out) {
  int n = s.n_pass;
  if (n > kMaxPass || s.n_join > kMaxJoin) return false;
  int count = n + 4 + s.n_join;
  int sources[kMaxPass + 4 + kMaxJoin];
  for (int i = 0; i < n; ++i)
    sources[i] = s.pass_fds[i];
  sources[n] = s.devnull;
  sources[n + 1] = s.out_w;
  sources[n + 2] = s.control_r;
  sources[n + 3] = s.report_w;
  for (int i = 0; i < s.n_join; ++i)
    sources[n + 4 + i] = s.join_fds[i];
  // Copy every source above the final layout first, so no dup2 below overwrites a source.
  int temps[kMaxPass + 4 + kMaxJoin];
  int above = 3 + count;
  for (int i = 0; i < count; ++i) {
    temps[i] = fcntl(sources[i], F_DUPFD, above);
    if (temps[i] < 0) return false;
  }
  for (int i = 0; i < count; ++i) {
    if (dup2(temps[i], 3 + i) < 0) return false;
  }
  // Close 0-2 and everything above the layout (the temporaries and all of safesh's).
  if (syscall(SYS_close_range, 0u, 2u, 0u) != 0) return false;
  if (syscall(SYS_close_range, static_cast<unsigned>(above), ~0u, 0u) != 0) return false;
  out->devnull = 3 + n;
  out->out_w = 4 + n;
  out->control_r = 5 + n;
  out->report_w = 6 + n;
  out->first_join = 7 + n;
  out->end = above;
  return true;
}

// The name of idmapped tree `i` in the stage: its decimal number, without allocating.
void TreeName(int i, char (&out)[12]) {
  char digits[12];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + i % 10);
    i /= 10;
  } while (i > 0 && n < 11);
  for (int k = 0; k < n; ++k)
    out[k] = digits[n - 1 - k];
  out[n] = '\0';
}

// Root's sandbox (LaunchPlan::RootMap), in the command's process, with system calls only:
//   - a mount namespace of its own, every mount private, so nothing mounted here reaches the
//     host's (a shared / would carry the attached trees back to it);
//   - a fresh tmpfs on the stage, with a mount point per idmapped tree, each tree attached on
//     its own (bubblewrap resolves a bound descriptor to its path and walks it);
//   - the user namespace joined, and uid and gid 0 in it taken (no supplementary groups): the
//     host sees kRootMapFirstId; the descriptor closed.
// False with errno set at the first step that failed.
bool EnterRootMap(const GuardSetup& s) {
  if (unshare(CLONE_NEWNS) != 0) return false;
  if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return false;
  int stage = open(s.stage, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (stage < 0) return false;
  int fs = static_cast<int>(syscall(SYS_fsopen, "tmpfs", FSOPEN_CLOEXEC));
  if (fs < 0) return false;
  if (syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, "mode", "0755", 0) != 0 ||
      syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, "size", "65536", 0) != 0 ||
      syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, nullptr, nullptr, 0) != 0)
    return false;
  int tmp = static_cast<int>(syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC, 0));
  if (tmp < 0) return false;
  char name[12];
  for (int i = 0; i < s.n_trees; ++i) {
    TreeName(i, name);
    if (s.tree_dirs[i] != 0) {
      if (mkdirat(tmp, name, 0755) != 0) return false;
    } else {
      int f = openat(tmp, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
      if (f < 0) return false;
      close(f);
    }
  }
  if (syscall(SYS_move_mount, tmp, "", stage, "",
              MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) != 0)
    return false;
  for (int i = 0; i < s.n_trees; ++i) {
    TreeName(i, name);
    if (syscall(SYS_move_mount, 3 + s.trees[i], "", tmp, name, MOVE_MOUNT_F_EMPTY_PATH) != 0)
      return false;
  }
  close(tmp);
  close(fs);
  close(stage);
  if (setns(3 + s.userns, CLONE_NEWUSER) != 0) return false;
  // Raw system calls: this process has one thread, and glibc's wrappers would signal others.
  if (syscall(SYS_setgroups, 0, nullptr) != 0 || syscall(SYS_setresgid, 0, 0, 0) != 0 ||
      syscall(SYS_setresuid, 0, 0, 0) != 0)
    return false;
  close(3 + s.userns);
  return true;
}

// Starts the command: fork, and in the child, with system calls only (no allocation):
//   - a new session (no controlling terminal: no /dev/tty, no TIOCSTI into the user's terminal),
//     default signal dispositions and an empty mask, stdin /dev/null, stdout and stderr the
//     output pipe;
//   - the plan's cgroups joined and its rlimits set, before anything of the command runs, so
//     that every process it becomes or starts is counted;
//   - for the Landlock launcher, the confinement: no capabilities, no new privileges, the
//     Landlock ruleset at descriptor 3, the seccomp filter;
//   - every descriptor closed but 0-2 (and the passed ones, when not confining), then execve.
// Returns 0, or the errno of the failed step (in *step); a failure in the child comes back
// through a close-on-exec pipe, so the guard knows the command did not start.
int SpawnCommand(const GuardSetup& s, const Layout& l, pid_t* pid_out, int32_t* step) {
  *step = GuardReport::kStepGuard;
  int errpipe[2];
  if (pipe2(errpipe, O_CLOEXEC) != 0) return errno;
  // Above the layout: 0-2 are free in the guard, and a pipe there would be replaced by the
  // command's stdin, stdout and stderr (and its failures written into the output).
  int err_r = fcntl(errpipe[0], F_DUPFD_CLOEXEC, l.end);
  int err_w = err_r < 0 ? -1 : fcntl(errpipe[1], F_DUPFD_CLOEXEC, l.end);
  int saved = errno;
  close(errpipe[0]);
  close(errpipe[1]);
  if (err_w < 0) {
    if (err_r >= 0) close(err_r);
    return saved;
  }
  pid_t pid = fork();
  if (pid < 0) {
    saved = errno;
    close(err_r);
    close(err_w);
    return saved;
  }
  if (pid == 0) {
    close(err_r);
    int32_t at = GuardReport::kStepProcess;
    auto fail = [&](int e) {
      int32_t msg[2] = {at, e};
      (void)!write(err_w, msg, sizeof msg);
      _exit(127);
    };
    if (setsid() < 0) fail(errno);
    for (int sig = 1; sig < 65; ++sig)
      signal(sig, SIG_DFL);  // fails for SIGKILL, SIGSTOP and glibc's own: nothing to reset
    sigset_t none;
    sigemptyset(&none);
    if (sigprocmask(SIG_SETMASK, &none, nullptr) != 0) fail(errno);
    if (dup2(l.devnull, 0) < 0 || dup2(l.out_w, 1) < 0 || dup2(l.out_w, 2) < 0) fail(errno);

    at = GuardReport::kStepCgroup;
    for (int i = 0; i < s.n_join; ++i) {
      // "0" is the writer itself; the whole process moves, and its children are born inside.
      ssize_t w;
      do {
        w = write(l.first_join + i, "0", 1);
      } while (w < 0 && errno == EINTR);
      if (w != 1) fail(w < 0 ? errno : EIO);
    }
    at = GuardReport::kStepRlimit;
    for (int i = 0; i < s.n_rlimits; ++i) {
      rlimit r = {s.rlimits[i].value, s.rlimits[i].value};
      if (setrlimit(static_cast<__rlimit_resource>(s.rlimits[i].resource), &r) != 0) fail(errno);
    }

    at = GuardReport::kStepUser;
    if (s.userns >= 0 && !EnterRootMap(s)) fail(errno);

    at = GuardReport::kStepConfine;
    if (s.self_confine) {
      // No capabilities, even for root: an empty bounding set, no ambient ones, and securebits
      // that stop execve from granting root its capabilities back (without this, root could
      // read /dev/mem, load modules or change the clock). Ordinary users have none to drop,
      // and may not set securebits; only root's refusals matter.
      for (int cap = 0; cap < 64; ++cap)
        prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
      prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
      if (geteuid() == 0 && prctl(PR_SET_SECUREBITS,
                                  SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
                                      SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED,
                                  0, 0, 0) != 0) {
        fail(errno);
      }
      if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) fail(errno);
      if (syscall(SYS_landlock_restrict_self, 3, 0) != 0) fail(errno);
    }
    // Keep 0-2, the passed descriptors unless they were the confinement's own, and the error
    // pipe (close-on-exec) until execve.
    at = GuardReport::kStepProcess;
    unsigned first = static_cast<unsigned>(s.self_confine ? 3 : 3 + s.n_pass);
    if (syscall(SYS_close_range, first, static_cast<unsigned>(err_w - 1), 0u) != 0) fail(errno);
    if (syscall(SYS_close_range, static_cast<unsigned>(err_w + 1), ~0u, 0u) != 0) fail(errno);
    at = GuardReport::kStepConfine;
    if (s.self_confine && s.filter_len > 0) {
      sock_fprog prog{s.filter_len, const_cast<sock_filter*>(s.filter)};
      if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0) fail(errno);
    }
    at = GuardReport::kStepExec;
    execve(s.program, s.argv, s.envp);
    fail(errno);
  }
  close(err_w);
  int32_t msg[2] = {0, 0};
  ssize_t n;
  do {
    n = read(err_r, msg, sizeof msg);
  } while (n < 0 && errno == EINTR);
  close(err_r);
  if (n == static_cast<ssize_t>(sizeof msg)) {
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    *step = msg[0];
    return msg[1];
  }
  *pid_out = pid;
  return 0;
}

[[noreturn]] void RunGuard(const GuardSetup& s) {
  GuardReport report;
  // Stay out of the way of signals meant for safesh or sent by the command: only SIGKILL ends
  // the guard. SIGCHLD keeps its default so that waitpid sees exit statuses.
  for (int sig = 1; sig < 32; ++sig) {
    if (sig == SIGKILL || sig == SIGSTOP || sig == SIGCHLD || sig == SIGSEGV || sig == SIGBUS ||
        sig == SIGFPE || sig == SIGILL || sig == SIGABRT || sig == SIGSYS || sig == SIGTRAP) {
      continue;
    }
    signal(sig, SIG_IGN);
  }
  signal(SIGCHLD, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  // A name that says what it is in ps and top (the command line stays the one of safesh).
  prctl(PR_SET_NAME, "safesh-guard", 0, 0, 0);
  // Not dumpable: a process of the same user can no longer open /proc/<guard>/fd (the control
  // and report pipes) or read /proc/<guard>/environ (safesh's environment, secrets included).
  prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  // And the guard's copy of safesh's environment block, which /proc/<guard>/environ shows even
  // to root, is wiped: the command's environment was prepared separately (s.envp).
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    for (char* c = *e; *c != '\0'; ++c)
      *c = 'x';
  }
  // Its own process group: a Ctrl-C at safesh's terminal is for safesh, which decides.
  setpgid(0, 0);

  Layout l;
  report.step = GuardReport::kStepGuard;
  if (fchdir(s.cwd_fd) != 0 || !ArrangeFds(s, &l)) {
    report.kind = GuardReport::kSpawnFailed;
    report.error = errno;
    WriteReport(s.report_w, report);
    _exit(1);
  }
  int report_w = l.report_w, control_r = l.control_r;
  // Orphans of the command come here instead of to init, where they can be found and killed.
  if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) {
    report.kind = GuardReport::kSpawnFailed;
    report.error = errno;
    WriteReport(report_w, report);
    _exit(1);
  }
  // safesh's death is also watched through a pidfd, which the command cannot hold open the way
  // it could (as root) reopen the control pipe. If safesh is already gone, or gave up (timeout,
  // cancel) before the command started, start nothing.
  int parent = PidfdOpen(s.parent);
  pollfd early[2] = {{control_r, POLLIN, 0}, {parent, POLLIN, 0}};
  if (getppid() != s.parent || poll(early, parent >= 0 ? 2 : 1, 0) > 0) {
    report.kind = GuardReport::kNotStarted;
    WriteReport(report_w, report);
    _exit(0);
  }

  pid_t pid = -1;
  int32_t step = 0;
  int err = SpawnCommand(s, l, &pid, &step);
  if (err != 0) {
    report.kind = GuardReport::kSpawnFailed;
    report.error = err;
    report.step = step;
    WriteReport(report_w, report);
    _exit(1);
  }
  report = GuardReport{};
  report.kind = GuardReport::kStarted;
  report.pid = pid;
  WriteReport(report_w, report);
  // From here on only the command's processes hold the output pipe: its end-of-file means they
  // are all gone. The passed descriptors and the cgroups' files are the command's business.
  close(l.out_w);
  close(l.devnull);
  for (int i = 0; i < s.n_pass; ++i)
    close(3 + i);
  for (int i = 0; i < s.n_join; ++i)
    close(l.first_join + i);

  int status = 0;
  bool exited = false, killed = false;
  int pidfd = PidfdOpen(pid);
  while (!exited && !killed) {
    pollfd fds[3] = {{control_r, POLLIN, 0}, {parent, POLLIN, 0}, {pidfd, POLLIN, 0}};
    // Without pidfds (kernels before 5.3), look at the command every 20 ms.
    int ready = poll(fds, 3, pidfd >= 0 && parent >= 0 ? -1 : 20);
    if (ready < 0 && errno != EINTR) break;
    if (fds[0].revents != 0) {
      char byte;
      ssize_t n = read(control_r, &byte, 1);
      if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) killed = true;
    }
    if (fds[1].revents != 0 || (parent < 0 && getppid() != s.parent)) killed = true;
    if (!killed) {
      pid_t r = waitpid(pid, &status, WNOHANG);
      if (r == pid) exited = true;
    }
  }
  report = GuardReport{};
  report.kind = GuardReport::kExited;
  report.pid = pid;
  report.killed = killed ? 1 : 0;
  if (exited && s.pid_namespace) {
    // Everything left is in the namespace: one SIGKILL to each descendant (its first process
    // among them) dooms it all, so the end is reported now and the reaping done after.
    KillDescendantsOnce(pid);
    report.wait_status = status;
    WriteReport(report_w, report);
    close(report_w);
    KillAllChildren(pid, -1, nullptr);
    _exit(0);
  }
  int leftover_status = status;
  bool all_listed = KillAllChildren(pid, exited ? -1 : pid, &leftover_status);
  report.wait_status = exited ? status : leftover_status;
  report.error = all_listed ? 0 : ESRCH;
  WriteReport(report_w, report);
  _exit(0);
}

bool Fail(std::string* error, const std::string& what) {
  *error = what + ": " + strerror(errno);
  return false;
}

}  // namespace

bool StartGuarded(const LaunchPlan& plan, GuardedCommand* out, std::string* error) {
  if (plan.pass_fds.size() > kMaxPass) {
    *error = "too many descriptors to pass to the command";
    return false;
  }
  if (plan.join_cgroups.size() > kMaxJoin) {
    *error = "too many cgroups for the command to join";
    return false;
  }
  int output[2], control[2], reports[2];
  if (pipe2(output, O_CLOEXEC) != 0) return Fail(error, "cannot create the output pipe");
  util::UniqueFd out_r(output[0]), out_w(output[1]);
  if (pipe2(control, O_CLOEXEC) != 0) return Fail(error, "cannot create the control pipe");
  util::UniqueFd control_r(control[0]), control_w(control[1]);
  if (pipe2(reports, O_CLOEXEC) != 0) return Fail(error, "cannot create the report pipe");
  util::UniqueFd reports_r(reports[0]), reports_w(reports[1]);
  util::UniqueFd devnull(open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (!devnull.valid()) return Fail(error, "cannot open /dev/null");
  // A bigger pipe is an optimisation only: the default size works, so a refusal is ignored.
  fcntl(out_w.get(), F_SETPIPE_SZ, kPipeBytes);

  // argv and envp as C arrays, built before fork.
  std::vector<char*> argv, envp;
  for (const std::string& a : plan.argv)
    argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const std::string& e : plan.env)
    envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);

  GuardSetup setup{plan.program.c_str(),
                   argv.data(),
                   envp.data(),
                   plan.cwd_fd,
                   plan.pass_fds.data(),
                   static_cast<int>(plan.pass_fds.size()),
                   plan.join_cgroups.data(),
                   static_cast<int>(plan.join_cgroups.size()),
                   plan.rlimits.data(),
                   static_cast<int>(plan.rlimits.size()),
                   devnull.get(),
                   out_w.get(),
                   control_r.get(),
                   reports_w.get(),
                   getpid(),
                   plan.self_confine,
                   plan.pid_namespace,
                   reinterpret_cast<const sock_filter*>(plan.seccomp_bpf.data()),
                   static_cast<unsigned short>(plan.seccomp_bpf.size() / sizeof(sock_filter)),
                   plan.root_map.userns,
                   plan.root_map.stage.c_str(),
                   plan.root_map.trees.data(),
                   plan.root_map.tree_dirs.data(),
                   static_cast<int>(plan.root_map.trees.size())};

  pid_t pid = fork();
  if (pid < 0) return Fail(error, "cannot fork the guard process");
  if (pid == 0) RunGuard(setup);

  out->guard_pid = pid;
  out->guard_pidfd.Reset(PidfdOpen(pid));
  out->control = std::move(control_w);
  out->reports = std::move(reports_r);
  if (fcntl(out_r.get(), F_SETFL, O_NONBLOCK) != 0) return Fail(error, "cannot set up the pipe");
  out->output = std::move(out_r);
  return true;
}

}  // namespace safesh::exec
