#include "exec/runner.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <memory>
#include <system_error>
#include <thread>

#include "exec/guard.h"
#include "exec/reap.h"

namespace safesh::exec {
namespace {

using Clock = std::chrono::steady_clock;

// Read size: large reads keep the number of system calls low when a command prints gigabytes.
constexpr size_t kReadBytes = 1 << 20;

int MillisUntil(Clock::time_point t) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(t - Clock::now()).count();
  if (left <= 0) return 0;
  return left > 1000 * 60 * 60 ? 1000 * 60 * 60 : static_cast<int>(left);
}

// Writes all of p[0, n); returns how many bytes were written (n unless an error stopped it).
size_t WriteAll(int fd, const char* p, size_t n) {
  size_t done = 0;
  while (done < n) {
    ssize_t w = write(fd, p + done, n - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) break;
    done += static_cast<size_t>(w);
  }
  return done;
}

// Moves output from the pipe to the spool, masking secrets on the way.
struct OutputPump {
  int spool_fd = -1;
  Redactor* redactor = nullptr;
  // Reads land after `carry` bytes held back from the previous read (a secret may start in
  // them), so masking needs no copy: the buffer has room for them as well.
  std::unique_ptr<char[]> buf;
  size_t carry = 0;
  uint64_t written = 0;
  bool spool_failed = false;
  std::string spool_error;
  bool can_splice = true;

  OutputPump(int fd, Redactor* r)
      : spool_fd(fd),
        redactor(r != nullptr && r->active() ? r : nullptr),
        buf(new char[kReadBytes + (redactor != nullptr ? redactor->holdback() : 0)]) {}

  // Past the cap (or after a write error) bytes are no longer spooled: the last `keep` of them
  // stay in memory, for the view's tail.
  uint64_t cap = kSpoolMaxRunBytes;
  uint64_t keep = 0;
  uint64_t total = 0;
  bool spooling = true;
  std::string unspooled;

  void Store(const char* p, size_t n) {
    total += n;
    if (spooling) {
      size_t room = static_cast<size_t>(std::min<uint64_t>(n, cap - written));
      size_t w = WriteAll(spool_fd, p, room);
      written += w;
      if (w < room) {
        spooling = false;
        spool_failed = true;
        spool_error = std::string("cannot write the output spool: ") + strerror(errno) +
                      "; the output after byte " + std::to_string(written) +
                      " is not in it (the view's end is the real end)";
      } else if (written == cap) {
        spooling = false;
        spool_failed = true;
        spool_error = "the output is larger than the " + std::to_string(cap >> 20) +
                      " MiB a command may keep in its spool; the rest was read and dropped " +
                      "(the view's end is the real end)";
      }
      p += w;
      n -= w;
    }
    if (n == 0) return;
    unspooled.append(p, n);
    if (unspooled.size() > 2 * keep + kReadBytes) unspooled.erase(0, unspooled.size() - keep);
  }

  void Trim() {
    if (unspooled.size() > keep) unspooled.erase(0, unspooled.size() - keep);
  }

  // Moves what is available straight from the pipe into the spool file inside the kernel, with
  // no copy through safesh. Returns 1 while data came, 0 at end-of-file, -1 when the pipe is
  // empty for now, -2 when splice cannot be used (then read and write are).
  int Splice(int fd) {
    for (int rounds = 0; rounds < 64; ++rounds) {
      size_t room = static_cast<size_t>(std::min<uint64_t>(kReadBytes, cap - written));
      if (room == 0) return -2;  // at the cap: read and drop from here on
      ssize_t n = splice(fd, nullptr, spool_fd, nullptr, room, SPLICE_F_NONBLOCK);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && errno == EAGAIN) return -1;
      // Any other failure (a full disk, ...): read and write from here on, which says why.
      if (n < 0) return -2;
      if (n == 0) return 0;
      written += static_cast<uint64_t>(n);
      total += static_cast<uint64_t>(n);
    }
    return 1;
  }

  void Mask(size_t n, bool at_end) {
    size_t keep =
        redactor->Scan(buf.get(), n, at_end, [this](const char* p, size_t len) { Store(p, len); });
    memmove(buf.get(), buf.get() + n - keep, keep);
    carry = keep;
  }

  // Reads what is available. Returns false at end-of-file (or a read error).
  bool Drain(int fd) {
    if (can_splice && spooling && redactor == nullptr) {
      int r = Splice(fd);
      if (r == 0) return false;
      if (r != -2) return true;
      can_splice = false;
    }
    for (int rounds = 0; rounds < 16; ++rounds) {
      ssize_t n = read(fd, buf.get() + carry, kReadBytes);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && errno == EAGAIN) return true;
      if (n <= 0) return false;
      if (redactor != nullptr) {
        Mask(carry + static_cast<size_t>(n), false);
      } else {
        Store(buf.get(), static_cast<size_t>(n));
      }
    }
    return true;
  }

  void Finish() {
    if (redactor != nullptr) Mask(carry, true);
    Trim();
  }
};

void SetStatus(int status, ExecResult* r) {
  if (WIFEXITED(status)) {
    r->exited = true;
    r->exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    r->signal = WTERMSIG(status);
  }
}

// Why the command did not start, by the step that failed.
std::string SpawnError(const LaunchPlan& plan, const GuardReport& rep) {
  std::string why = strerror(rep.error);
  switch (rep.step) {
    case GuardReport::kStepCgroup:
      return "cannot put the command in its cgroup (for its resource limits): " + why;
    case GuardReport::kStepRlimit:
      return "cannot set the command's resource limits (setrlimit): " + why;
    case GuardReport::kStepConfine:
      return "cannot confine the command (capabilities, Landlock, seccomp): " + why;
    case GuardReport::kStepProcess:
      return "cannot prepare the command's process (session, descriptors): " + why;
    default:
      return "cannot start " + plan.program + ": " + why;
  }
}

// How often a guard that has not reported the command's end is sent SIGCONT.
constexpr int kGuardNudgeMs = 500;

void WakeGuard(const GuardedCommand& g) {
  if (g.guard_pidfd.valid())
    syscall(SYS_pidfd_send_signal, g.guard_pidfd.get(), SIGCONT, nullptr, 0);
}

// Waits for the guard: it exits right after its last report, killed if it lingers.
void WaitForGuard(pid_t pid, int pidfd) {
  if (pidfd >= 0) {
    pollfd p = {pidfd, POLLIN, 0};
    if (poll(&p, 1, 5000) == 0) syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, nullptr, 0);
    close(pidfd);
  }
  int status;
  while (waitpid(pid, &status, __WALL) < 0 && errno == EINTR) {
  }
}

// Collects the guard. Tearing down its copy of safesh's memory takes a while after its last
// report, so unless it is already gone a thread waits for it and the result is not held up.
void ReapGuard(GuardedCommand& g) {
  siginfo_t info{};
  if (waitid(P_PID, static_cast<id_t>(g.guard_pid), &info, WEXITED | WNOHANG) == 0 &&
      info.si_pid == g.guard_pid) {
    return;
  }
  pid_t pid = g.guard_pid;
  int pidfd = g.guard_pidfd.Release();
  try {
    std::thread(WaitForGuard, pid, pidfd).detach();
  } catch (const std::system_error&) {
    WaitForGuard(pid, pidfd);
  }
}

}  // namespace

ExecResult Execute(const LaunchPlan& plan, const ExecOptions& options) {
  ExecResult result;
  Clock::time_point start = Clock::now();
  GuardedCommand g;
  if (!StartGuarded(plan, &g, &result.error)) return result;

  OutputPump pump(options.spool_fd, options.redactor);
  if (options.spool_cap > 0) pump.cap = options.spool_cap;
  pump.keep = options.keep_unspooled;
  Clock::time_point deadline = start + options.timeout;
  Clock::time_point grace_end{};
  bool output_open = true, reports_open = true, have_exit = false, kill_sent = false;
  bool guard_lost = false;
  Clock::time_point kill_deadline{};
  Clock::time_point next_nudge = start + std::chrono::milliseconds(kGuardNudgeMs);
  Clock::time_point next_check = start + options.check_every;

  auto send_kill = [&] {
    if (!kill_sent) g.control.Reset();  // end-of-file: the guard kills the whole tree
    WakeGuard(g);
    kill_sent = true;
    // The guard reports within milliseconds; one stuck for this long is treated as lost.
    kill_deadline = Clock::now() + std::chrono::seconds(5);
  };

  while (output_open || reports_open) {
    // Once the command is over, the pipe gets a limited time to reach end-of-file.
    if ((have_exit || guard_lost) && grace_end == Clock::time_point{})
      grace_end = Clock::now() + kPipeGrace;
    int wait_ms = -1;
    if (!kill_sent) wait_ms = MillisUntil(deadline);
    if (kill_sent && !have_exit && !guard_lost) wait_ms = MillisUntil(kill_deadline);
    if (grace_end != Clock::time_point{}) {
      int g_ms = MillisUntil(grace_end);
      wait_ms = wait_ms < 0 ? g_ms : std::min(wait_ms, g_ms);
    }
    // The command may have stopped its guard (SIGSTOP, as the same user): wake it regularly, so
    // that it reports the command's end and cleans up instead of waiting for the timeout.
    if (!have_exit && !guard_lost) {
      wait_ms = wait_ms < 0 ? kGuardNudgeMs : std::min(wait_ms, kGuardNudgeMs);
      // At most every kGuardNudgeMs, not on every read of a busy output pipe.
      if (Clock::now() >= next_nudge) {
        WakeGuard(g);
        next_nudge = Clock::now() + std::chrono::milliseconds(kGuardNudgeMs);
      }
    }
    if (options.should_stop && !have_exit && !kill_sent) {
      int c_ms = MillisUntil(next_check);
      wait_ms = wait_ms < 0 ? c_ms : std::min(wait_ms, c_ms);
    }
    pollfd fds[3];
    int n = 0;
    int out_i = -1, rep_i = -1, can_i = -1;
    if (output_open) {
      out_i = n;
      fds[n++] = {g.output.get(), POLLIN, 0};
    }
    if (reports_open) {
      rep_i = n;
      fds[n++] = {g.reports.get(), POLLIN, 0};
    }
    if (options.cancel != nullptr && options.cancel->fd() >= 0 && !kill_sent) {
      can_i = n;
      fds[n++] = {options.cancel->fd(), POLLIN, 0};
    }
    int ready = poll(fds, static_cast<nfds_t>(n), wait_ms);
    if (ready < 0 && errno != EINTR) {
      result.error = std::string("poll failed: ") + strerror(errno);
      send_kill();
      break;
    }
    if (out_i >= 0 && fds[out_i].revents != 0) {
      if (!pump.Drain(g.output.get())) output_open = false;
    }
    if (rep_i >= 0 && fds[rep_i].revents != 0) {
      GuardReport rep;
      ssize_t got = read(g.reports.get(), &rep, sizeof rep);
      if (got == static_cast<ssize_t>(sizeof rep)) {
        if (rep.kind == GuardReport::kStarted && !result.started && !have_exit) {
          result.started = true;
          result.pid = rep.pid;
        } else if (rep.kind == GuardReport::kNotStarted) {
          // safesh gave up (timeout, cancel) before the guard started the command.
          have_exit = true;
        } else if (rep.kind == GuardReport::kSpawnFailed) {
          result.error = SpawnError(plan, rep);
          have_exit = true;
        } else if (rep.kind == GuardReport::kExited) {
          have_exit = true;
          SetStatus(rep.wait_status, &result);
          if (rep.error != 0)
            result.error = "some processes the command started could not be found to be killed";
        }
      } else if (got == 0 || (got < 0 && errno != EINTR && errno != EAGAIN)) {
        reports_open = false;
        if (!have_exit) guard_lost = true;
      }
    }
    if (can_i >= 0 && fds[can_i].revents != 0 && !kill_sent) {
      result.cancelled = true;
      send_kill();
    }
    if (options.should_stop && !kill_sent && !have_exit && Clock::now() >= next_check) {
      if (options.should_stop(g.guard_pid)) {
        result.stopped = true;
        send_kill();
      }
      next_check = Clock::now() + options.check_every;
    }
    if (!kill_sent && !have_exit && Clock::now() >= deadline) {
      result.timed_out = true;
      send_kill();
    }
    if (kill_sent && !have_exit && !guard_lost && Clock::now() >= kill_deadline) {
      if (g.guard_pidfd.valid()) syscall(SYS_pidfd_send_signal, g.guard_pidfd.get(), SIGKILL, 0, 0);
      guard_lost = true;
    }
    if (grace_end != Clock::time_point{} && Clock::now() >= grace_end && output_open) {
      // Something outside the tree still holds the pipe: stop waiting for it.
      output_open = false;
      result.error += (result.error.empty() ? "" : "; ") +
                      std::string("a process still held the output open ") +
                      std::to_string(kPipeGrace.count() / 1000) +
                      " s after the command ended; later output was not captured";
    }
    if (have_exit && !output_open) break;
  }
  pump.Finish();

  if (guard_lost && !have_exit) {
    // The guard was killed (by the command, as the same user). Kill the command's group; as a
    // subreaper, the caller has inherited the rest of the tree.
    if (result.pid > 0) kill(-result.pid, SIGKILL);
    int status = 0;
    if (options.caller_is_subreaper) KillAllChildren(result.pid, result.pid, &status);
    if (result.error.empty())
      result.error = "the guard process was killed; the command's processes were killed too";
  }
  g.control.Reset();
  ReapGuard(g);

  if (pump.spool_failed) {
    result.error += (result.error.empty() ? "" : "; ") + pump.spool_error;
  }
  result.output_bytes = pump.total;
  result.spooled_bytes = pump.written;
  result.unspooled = std::move(pump.unspooled);
  result.duration_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
  return result;
}

}  // namespace safesh::exec
