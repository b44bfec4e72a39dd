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

void SetStatus(int status, ExecResult* r) {
  if (WIFEXITED(status)) {
    r->exited = true;
    r->exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    r->signal = WTERMSIG(status);
  }
}

// Why the command did not start, by the step that failed.
std::string SpawnError(const std::string& program, const GuardReport& rep) {
  std::string why = strerror(rep.error);
  switch (rep.step) {
    case GuardReport::kStepCgroup:
      return "cannot put the command in its cgroup (for its resource limits): " + why;
    case GuardReport::kStepRlimit:
      return "cannot set the command's resource limits (setrlimit): " + why;
    case GuardReport::kStepUser:
      return "cannot give root's command its unprivileged user and idmapped mounts "
             "(sandbox/root_map.h): " +
             why;
    case GuardReport::kStepConfine:
      return "cannot confine the command (capabilities, Landlock, seccomp): " + why;
    case GuardReport::kStepProcess:
      return "cannot prepare the command's process (session, descriptors): " + why;
    default:
      return "cannot start " + program + ": " + why;
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

  std::function<void(std::string_view)> observer;  // ExecOptions::on_output

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
    if (observer && n > 0) observer(std::string_view(p, n));
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
    if (can_splice && spooling && redactor == nullptr && !observer) {
      int r = Splice(fd);
      if (r == 0) return false;
      if (r != -2) return true;
      can_splice = false;
    }
    for (int rounds = 0; rounds < 16; ++rounds) {
      ssize_t n = read(fd, buf.get() + carry, kReadBytes);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && errno == EAGAIN) {
        Release();
        return true;
      }
      if (n <= 0) return false;
      if (redactor != nullptr) {
        Mask(carry + static_cast<size_t>(n), false);
      } else {
        Store(buf.get(), static_cast<size_t>(n));
      }
    }
    return true;
  }

  // The pipe is empty for now: the held-back bytes that cannot begin a secret are stored, so
  // that output which then pauses (a server's "listening" line) is not held up until more
  // comes.
  void Release() {
    if (redactor == nullptr || carry == 0) return;
    size_t ready = redactor->Releasable(buf.get(), carry);
    if (ready == 0) return;
    redactor->Scan(buf.get(), ready, true, [this](const char* p, size_t len) { Store(p, len); });
    memmove(buf.get(), buf.get() + ready, carry - ready);
    carry -= ready;
  }

  void Finish() {
    if (redactor != nullptr) Mask(carry, true);
    Trim();
  }
};

Execution::Execution() = default;

Execution::~Execution() {
  // An Execution dropped while its command runs must not leave it running: closing the control
  // pipe has the guard kill the tree; the guard is then collected.
  if (g_ != nullptr && g_->guard_pid > 0) {
    g_->control.Reset();
    ReapGuard(*g_);
  }
}

bool Execution::Start(const LaunchPlan& plan, const ExecOptions& options) {
  options_ = options;
  program_ = plan.program;
  start_ = Clock::now();
  g_ = std::make_unique<GuardedCommand>();
  if (!StartGuarded(plan, g_.get(), &result_.error)) {
    start_failed_ = true;
    g_.reset();
    return false;
  }
  pump_ = std::make_unique<OutputPump>(options_.spool_fd, options_.redactor);
  if (options_.spool_cap > 0) pump_->cap = options_.spool_cap;
  pump_->keep = options_.keep_unspooled;
  pump_->observer = options_.on_output;
  deadline_ = start_ + options_.timeout;
  next_nudge_ = start_ + std::chrono::milliseconds(kGuardNudgeMs);
  next_check_ = start_ + options_.check_every;
  return true;
}

void Execution::SendKill() {
  if (!kill_sent_) g_->control.Reset();  // end-of-file: the guard kills the whole tree
  WakeGuard(*g_);
  kill_sent_ = true;
  // The guard reports within milliseconds; one stuck for this long is treated as lost.
  kill_deadline_ = Clock::now() + std::chrono::seconds(5);
}

void Execution::Kill() {
  if (g_ == nullptr || done() || kill_sent_) return;
  result_.cancelled = true;
  SendKill();
}

void Execution::Abandon(const std::string& error) {
  if (g_ == nullptr) return;
  result_.error = error;
  SendKill();
  abandoned_ = true;
}

bool Execution::done() const {
  if (g_ == nullptr || abandoned_) return true;
  return !(output_open_ || reports_open_) || (have_exit_ && !output_open_);
}

uint64_t Execution::output_bytes() const {
  return pump_ != nullptr ? pump_->total : 0;
}

uint64_t Execution::spooled_bytes() const {
  return pump_ != nullptr ? pump_->written : 0;
}

const std::string& Execution::unspooled() const {
  static const std::string kNone;
  return pump_ != nullptr ? pump_->unspooled : kNone;
}

void Execution::Watch(std::vector<pollfd>* fds, Clock::time_point* wake, bool with_output) {
  out_i_ = rep_i_ = can_i_ = -1;
  if (g_ == nullptr || done()) return;
  auto lower = [wake](Clock::time_point t) { *wake = std::min(*wake, t); };
  if (!kill_sent_) lower(deadline_);
  if (kill_sent_ && !have_exit_ && !guard_lost_) lower(kill_deadline_);
  if (grace_end_ != Clock::time_point{}) lower(grace_end_);
  // The command may have stopped its guard (SIGSTOP, as the same user): wake it regularly, so
  // that it reports the command's end and cleans up instead of waiting for the timeout.
  if (!have_exit_ && !guard_lost_) lower(next_nudge_);
  if (options_.should_stop && !have_exit_ && !kill_sent_) lower(next_check_);
  size_t base = fds->size();
  if (output_open_ && with_output) {
    out_i_ = static_cast<int>(fds->size() - base);
    fds->push_back({g_->output.get(), POLLIN, 0});
  }
  if (reports_open_) {
    rep_i_ = static_cast<int>(fds->size() - base);
    fds->push_back({g_->reports.get(), POLLIN, 0});
  }
  if (options_.cancel != nullptr && options_.cancel->fd() >= 0 && !kill_sent_) {
    can_i_ = static_cast<int>(fds->size() - base);
    fds->push_back({options_.cancel->fd(), POLLIN, 0});
  }
}

bool Execution::Step(const pollfd* fds) {
  if (g_ == nullptr || done()) return false;
  bool read_output = false;
  if (out_i_ >= 0 && fds[out_i_].revents != 0) {
    read_output = true;
    if (!pump_->Drain(g_->output.get())) output_open_ = false;
  }
  if (rep_i_ >= 0 && fds[rep_i_].revents != 0) {
    GuardReport rep;
    ssize_t got = read(g_->reports.get(), &rep, sizeof rep);
    if (got == static_cast<ssize_t>(sizeof rep)) {
      if (rep.kind == GuardReport::kStarted && !result_.started && !have_exit_) {
        result_.started = true;
        result_.pid = rep.pid;
      } else if (rep.kind == GuardReport::kNotStarted) {
        // safesh gave up (timeout, cancel) before the guard started the command.
        have_exit_ = true;
      } else if (rep.kind == GuardReport::kSpawnFailed) {
        result_.error = SpawnError(program_, rep);
        have_exit_ = true;
      } else if (rep.kind == GuardReport::kExited) {
        have_exit_ = true;
        SetStatus(rep.wait_status, &result_);
        if (rep.error != 0)
          result_.error = "some processes the command started could not be found to be killed";
      }
    } else if (got == 0 || (got < 0 && errno != EINTR && errno != EAGAIN)) {
      reports_open_ = false;
      if (!have_exit_) guard_lost_ = true;
    }
  }
  if (can_i_ >= 0 && fds[can_i_].revents != 0 && !kill_sent_) {
    result_.cancelled = true;
    SendKill();
  }
  out_i_ = rep_i_ = can_i_ = -1;
  Clock::time_point now = Clock::now();
  if (!have_exit_ && !guard_lost_ && now >= next_nudge_) {
    // At most every kGuardNudgeMs, not on every read of a busy output pipe.
    WakeGuard(*g_);
    next_nudge_ = now + std::chrono::milliseconds(kGuardNudgeMs);
  }
  if (options_.should_stop && !kill_sent_ && !have_exit_ && now >= next_check_) {
    if (options_.should_stop(g_->guard_pid)) {
      result_.stopped = true;
      SendKill();
    }
    next_check_ = Clock::now() + options_.check_every;
  }
  if (!kill_sent_ && !have_exit_ && now >= deadline_) {
    result_.timed_out = true;
    SendKill();
  }
  if (kill_sent_ && !have_exit_ && !guard_lost_ && now >= kill_deadline_) {
    if (g_->guard_pidfd.valid())
      syscall(SYS_pidfd_send_signal, g_->guard_pidfd.get(), SIGKILL, 0, 0);
    guard_lost_ = true;
  }
  if (grace_end_ != Clock::time_point{} && now >= grace_end_ && output_open_) {
    // Something outside the tree still holds the pipe: stop waiting for it.
    output_open_ = false;
    result_.error += (result_.error.empty() ? "" : "; ") +
                     std::string("a process still held the output open ") +
                     std::to_string(kPipeGrace.count() / 1000) +
                     " s after the command ended; later output was not captured";
  }
  // Once the command is over, the pipe gets a limited time to reach end-of-file.
  if ((have_exit_ || guard_lost_) && grace_end_ == Clock::time_point{})
    grace_end_ = Clock::now() + kPipeGrace;
  return read_output;
}

ExecResult Execution::Finish() {
  if (g_ == nullptr) return std::move(result_);  // the guard never started
  pump_->Finish();
  if (guard_lost_ && !have_exit_) {
    // The guard was killed (by the command, as the same user). Kill the command's group; as a
    // subreaper, the caller has inherited the rest of the tree.
    if (result_.pid > 0) kill(-result_.pid, SIGKILL);
    int status = 0;
    if (options_.caller_is_subreaper) KillAllChildren(result_.pid, result_.pid, &status);
    if (result_.error.empty())
      result_.error = "the guard process was killed; the command's processes were killed too";
  }
  g_->control.Reset();
  ReapGuard(*g_);
  g_->guard_pid = -1;

  if (pump_->spool_failed) {
    result_.error += (result_.error.empty() ? "" : "; ") + pump_->spool_error;
  }
  result_.output_bytes = pump_->total;
  result_.spooled_bytes = pump_->written;
  result_.unspooled = std::move(pump_->unspooled);
  result_.duration_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start_).count();
  return std::move(result_);
}

int PollTimeout(std::chrono::steady_clock::time_point until) {
  if (until == Clock::time_point::max()) return -1;
  auto left = std::chrono::ceil<std::chrono::milliseconds>(until - Clock::now()).count();
  if (left <= 0) return 0;
  return left > 1000 * 60 * 60 ? 1000 * 60 * 60 : static_cast<int>(left);
}

ExecResult Execute(const LaunchPlan& plan, const ExecOptions& options) {
  Execution e;
  if (!e.Start(plan, options)) return e.Finish();
  std::vector<pollfd> fds;
  while (!e.done()) {
    fds.clear();
    Execution::Clock::time_point wake = Execution::Clock::time_point::max();
    e.Watch(&fds, &wake, true);
    int ready = poll(fds.data(), static_cast<nfds_t>(fds.size()), PollTimeout(wake));
    if (ready < 0 && errno != EINTR) {
      e.Abandon(std::string("poll failed: ") + strerror(errno));
      break;
    }
    if (ready <= 0) {
      for (pollfd& p : fds)
        p.revents = 0;
    }
    e.Step(fds.data());
  }
  return e.Finish();
}

}  // namespace safesh::exec
