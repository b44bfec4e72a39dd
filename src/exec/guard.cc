#include "exec/guard.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <linux/securebits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/prctl.h>
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
  int devnull;
  int out_w;
  int control_r;
  int report_w;
  pid_t parent;  // safesh
  bool self_confine;
  bool pid_namespace;
  const sock_filter* filter;
  unsigned short filter_len;
  posix_spawnattr_t* attr;
  posix_spawn_file_actions_t* actions;
};

// Places the descriptors the guard keeps at fixed numbers, closing everything else of safesh's
// (other runs' control pipes included: holding one would hide safesh's death from that guard).
// Layout: 3.. pass_fds, then devnull, out_w, control_r, report_w.
bool ArrangeFds(const GuardSetup& s, int* devnull, int* out_w, int* control_r, int* report_w) {
  int n = s.n_pass;
  int count = n + 4;
  int sources[64 + 4];
  if (n > 64) return false;
  for (int i = 0; i < n; ++i)
    sources[i] = s.pass_fds[i];
  sources[n] = s.devnull;
  sources[n + 1] = s.out_w;
  sources[n + 2] = s.control_r;
  sources[n + 3] = s.report_w;
  // Copy every source above the final layout first, so no dup2 below overwrites a source.
  int temps[64 + 4];
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
  *devnull = 3 + n;
  *out_w = 4 + n;
  *control_r = 5 + n;
  *report_w = 6 + n;
  return true;
}

// The Landlock launcher's spawn: fork, and in the child set up what posix_spawn would (a new
// session, default signals, stdin /dev/null, stdout and stderr the pipe), then confine itself
// (no new privileges, the Landlock ruleset at descriptor 3, the seccomp filter), close every
// other descriptor, and execute. Only system calls after the fork. Returns 0 or an errno; a
// failure in the child before exec comes back through a close-on-exec pipe.
int SpawnConfined(const GuardSetup& s, int devnull, int out_w, pid_t* pid_out) {
  int errpipe[2];
  if (pipe2(errpipe, O_CLOEXEC) != 0) return errno;
  pid_t pid = fork();
  if (pid < 0) {
    int e = errno;
    close(errpipe[0]);
    close(errpipe[1]);
    return e;
  }
  if (pid == 0) {
    close(errpipe[0]);
    auto fail = [&](int e) {
      (void)!write(errpipe[1], &e, sizeof e);
      _exit(127);
    };
    if (setsid() < 0) fail(errno);
    for (int sig = 1; sig < 65; ++sig)
      signal(sig, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    if (dup2(devnull, 0) < 0 || dup2(out_w, 1) < 0 || dup2(out_w, 2) < 0) fail(errno);
    // No capabilities, even for root: an empty bounding set, no ambient ones, and securebits
    // that stop execve from granting root its capabilities back (without this, root could read
    // /dev/mem, load modules or change the clock). Ordinary users have none to drop, and may
    // not set securebits; only root's refusals matter.
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
    // Keep only 0-2 and the error pipe (close-on-exec) from here on.
    int keep = errpipe[1];
    if (keep > 3) syscall(SYS_close_range, 3u, static_cast<unsigned>(keep - 1), 0u);
    syscall(SYS_close_range, static_cast<unsigned>(keep + 1), ~0u, 0u);
    if (s.filter_len > 0) {
      sock_fprog prog{s.filter_len, const_cast<sock_filter*>(s.filter)};
      if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0) fail(errno);
    }
    execve(s.program, s.argv, s.envp);
    fail(errno);
  }
  close(errpipe[1]);
  int child_errno = 0;
  ssize_t n;
  do {
    n = read(errpipe[0], &child_errno, sizeof child_errno);
  } while (n < 0 && errno == EINTR);
  close(errpipe[0]);
  if (n == static_cast<ssize_t>(sizeof child_errno)) {
    int status;
    waitpid(pid, &status, 0);
    return child_errno;
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

  int devnull, out_w, control_r, report_w;
  if (fchdir(s.cwd_fd) != 0 || !ArrangeFds(s, &devnull, &out_w, &control_r, &report_w)) {
    report.kind = GuardReport::kSpawnFailed;
    report.error = errno;
    WriteReport(s.report_w, report);
    _exit(1);
  }
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
  int err = s.self_confine ? SpawnConfined(s, devnull, out_w, &pid)
                           : posix_spawn(&pid, s.program, s.actions, s.attr, s.argv, s.envp);
  if (err != 0) {
    report.kind = GuardReport::kSpawnFailed;
    report.error = err;
    WriteReport(report_w, report);
    _exit(1);
  }
  report.kind = GuardReport::kStarted;
  report.pid = pid;
  WriteReport(report_w, report);
  // From here on only the command's processes hold the output pipe: its end-of-file means they
  // are all gone.
  close(out_w);
  close(devnull);
  for (int i = 0; i < s.n_pass; ++i)
    close(3 + i);

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
  if (plan.pass_fds.size() > 64) {
    *error = "too many descriptors to pass to the command";
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

  // The command: a new session (no controlling terminal, so no TIOCSTI into the user's
  // terminal and no /dev/tty), default signal dispositions and an empty mask, stdin /dev/null,
  // stdout and stderr the output pipe, and nothing else but the passed descriptors.
  int n_pass = static_cast<int>(plan.pass_fds.size());
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t all, none;
  sigfillset(&all);
  sigemptyset(&none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  // The guard's layout (see ArrangeFds): devnull at 3+n, the output pipe at 4+n.
  posix_spawn_file_actions_adddup2(&actions, 3 + n_pass, 0);
  posix_spawn_file_actions_adddup2(&actions, 4 + n_pass, 1);
  posix_spawn_file_actions_adddup2(&actions, 4 + n_pass, 2);
  posix_spawn_file_actions_addclosefrom_np(&actions, 3 + n_pass);

  GuardSetup setup{plan.program.c_str(),
                   argv.data(),
                   envp.data(),
                   plan.cwd_fd,
                   plan.pass_fds.data(),
                   n_pass,
                   devnull.get(),
                   out_w.get(),
                   control_r.get(),
                   reports_w.get(),
                   getpid(),
                   plan.self_confine,
                   plan.pid_namespace,
                   reinterpret_cast<const sock_filter*>(plan.seccomp_bpf.data()),
                   static_cast<unsigned short>(plan.seccomp_bpf.size() / sizeof(sock_filter)),
                   &attr,
                   &actions};

  pid_t pid = fork();
  if (pid < 0) {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    return Fail(error, "cannot fork the guard process");
  }
  if (pid == 0) RunGuard(setup);

  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  out->guard_pid = pid;
  out->guard_pidfd.Reset(PidfdOpen(pid));
  out->control = std::move(control_w);
  out->reports = std::move(reports_r);
  if (fcntl(out_r.get(), F_SETFL, O_NONBLOCK) != 0) return Fail(error, "cannot set up the pipe");
  out->output = std::move(out_r);
  return true;
}

}  // namespace safesh::exec
