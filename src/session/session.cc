#include "session/session.h"

#include <optional>

#include <errno.h>
#include <poll.h>
#include <re2/re2.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>

#include "exec/runner.h"
#include "pipeline/mask_secrets.h"
#include "pipeline/prepared_run.h"
#include "sandbox/caches.h"

namespace safesh::session {
namespace {

using Clock = std::chrono::steady_clock;
using Outcome = pipeline::RunResult::Outcome;

// How long a start may take before the id is returned anyway (the guard reports at once; this
// only bounds a guard that was stopped).
constexpr std::chrono::seconds kStartWait{10};

// Drives one execution on the calling thread until it has started (or ended), or `until`.
void StepUntil(exec::Execution* e, Clock::time_point until, bool until_started) {
  std::vector<pollfd> fds;
  while (!e->done() && !(until_started && e->started()) && Clock::now() < until) {
    fds.clear();
    Clock::time_point wake = until;
    e->Watch(&fds, &wake, true);
    if (poll(fds.data(), static_cast<nfds_t>(fds.size()), exec::PollTimeout(wake)) <= 0) {
      for (pollfd& p : fds)
        p.revents = 0;
    }
    e->Step(fds.data());
  }
}

// A byte that does not start a character (a UTF-8 continuation byte).
bool Continuation(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

}  // namespace

struct Session::Process {
  uint64_t number = 0;
  std::string id;
  std::string command;  // masked
  std::unique_ptr<pipeline::PreparedRun> run;
  std::unique_ptr<exec::Execution> exec;  // while it runs
  Clock::time_point started;
  int pid = 0;
  bool running = true;
  bool notify = false;
  bool killed_by_caller = false;  // Kill or Shutdown: no exit notice
  std::unique_ptr<RE2> pattern;
  LineMatcher matcher{nullptr};
  std::vector<Notice> new_notices;  // moved to the session's queue under its lock
  // Once ended.
  pipeline::RunResult result;
  uint64_t output_bytes = 0, spooled_bytes = 0;
  std::string unspooled;
};

Session::Session(pipeline::RunContext context) : context_(std::move(context)) {
  // Several commands run at once: the runner must not kill every child of this process when one
  // guard is lost (exec::ExecOptions::caller_is_subreaper).
  context_.caller_is_subreaper = false;
  // A session runs many commands: the blocked-name scan keeps its inotify watches between them.
  context_.long_lived = true;
  // What it remembers to build each sandbox quickly is its own, shared by its calls.
  if (context_.caches == nullptr) context_.caches = std::make_shared<sandbox::SandboxCaches>();
  wake_.Reset(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
}

Session::~Session() {
  Shutdown();
}

void Session::Wake() {
  uint64_t one = 1;
  if (wake_.valid()) (void)!write(wake_.get(), &one, sizeof one);
}

pipeline::RunResult Session::Run(const pipeline::RunRequest& request) {
  return Run(request, {});
}

pipeline::RunResult Session::Run(const pipeline::RunRequest& request, const Call& call) {
  // A copy only when the call brings something of its own; nothing keeps a pointer to it past
  // this call (a background command's execution does not use the cancel token).
  std::optional<pipeline::RunContext> own;
  if (call.cancel != nullptr || call.prompter != nullptr) {
    own = context_;
    if (call.cancel != nullptr) own->cancel = call.cancel;
    if (call.prompter != nullptr) own->prompter = *call.prompter;
  }
  const pipeline::RunContext& context = own ? *own : context_;
  if (request.background) return StartBackground(request, context);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (shut_down_)
      return pipeline::RefuseRun(request, context_, Outcome::kInvalid,
                                 "the session has shut down: it runs no more commands");
  }
  return pipeline::RunShellCommand(request, context);
}

pipeline::RunResult Session::StartBackground(const pipeline::RunRequest& request,
                                             const pipeline::RunContext& call_context) {
  const config::BackgroundSettings& limits = context_.settings.background;
  auto p = std::make_shared<Process>();
  if (!request.notify_pattern.empty()) {
    RE2::Options options;
    options.set_log_errors(false);
    p->pattern = std::make_unique<RE2>(request.notify_pattern, options);
    if (!p->pattern->ok())
      return pipeline::RefuseRun(
          request, context_, Outcome::kInvalid,
          "notify_pattern is not a valid RE2 regular expression: " + p->pattern->error());
    p->matcher = LineMatcher(p->pattern.get());
  }
  if (!wake_.valid())
    return pipeline::RefuseRun(request, context_, Outcome::kFailedToStart,
                               "the session cannot run background commands: no eventfd");
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (shut_down_)
      return pipeline::RefuseRun(request, context_, Outcome::kInvalid,
                                 "the session has shut down: it starts no more background "
                                 "processes");
    if (running_ + starting_ >= limits.max_running)
      return pipeline::RefuseRun(request, context_, Outcome::kInvalid,
                                 "too many background processes running (" +
                                     std::to_string(running_ + starting_) +
                                     ", the most [background] max_running allows): kill one with "
                                     "manage_background_process, or wait for one to end");
    ++starting_;
  }
  // Whatever happens below, the admitted slot is given back (or becomes a running process).
  struct Admitted {
    Session* s;
    bool released = false;
    void Release() {
      if (!released) --s->starting_;
      released = true;
    }
    ~Admitted() {
      if (released) return;
      std::lock_guard<std::mutex> lock(s->mu_);
      Release();
    }
  } admitted{this};

  p->run = pipeline::PrepareRun(request, call_context);
  if (!p->run->ready) return std::move(p->run->result);
  pipeline::PreparedRun& run = *p->run;
  p->command = request.command;
  pipeline::MaskSecrets(&p->command, run.trail.secrets());
  p->notify = request.notify;
  if (p->pattern != nullptr) {
    // Runs in Execution::Step, on whichever thread steps it; the notices wait in the process
    // until the session's lock is held.
    Process* raw = p.get();
    run.options.on_output = [raw](std::string_view data) {
      raw->matcher.Feed(data, [raw](std::string_view line) {
        raw->new_notices.push_back(
            {Notice::Kind::kPattern, raw->id, PatternNoticeText(raw->command, line)});
      });
    };
  }
  p->exec = std::make_unique<exec::Execution>();
  p->started = Clock::now();
  if (!p->exec->Start(run.plan, run.options))
    return pipeline::FinishRun(&run, p->exec->Finish(), context_);
  // The guard has its own copies of what the command inherits.
  run.fds = sandbox::SandboxFds();
  run.cwd.reset();
  StepUntil(p->exec.get(), Clock::now() + kStartWait, /*until_started=*/true);
  if (!p->exec->started() && p->exec->done())
    return pipeline::FinishRun(&run, p->exec->Finish(), context_);
  p->pid = p->exec->pid();

  std::unique_lock<std::mutex> lock(mu_);
  admitted.Release();
  if (shut_down_) {
    // Shut down while it was starting: it ends here.
    lock.unlock();
    p->killed_by_caller = true;
    run.cancel_reason = "killed: the session shut down as it started";
    p->exec->Kill();
    StepUntil(p->exec.get(), Clock::time_point::max(), /*until_started=*/false);
    return pipeline::FinishRun(&run, p->exec->Finish(), context_);
  }
  p->number = ++next_id_;
  p->id = "bg-" + std::to_string(p->number);
  for (Notice& n : p->new_notices) {
    n.process_id = p->id;
    notices_.Add(std::move(n));
  }
  p->new_notices.clear();
  processes_[p->number] = p;
  ++running_;
  if (!loop_.joinable()) loop_ = std::thread([this] { Loop(); });
  pipeline::RunResult started = run.result;
  lock.unlock();
  Wake();
  started.outcome = Outcome::kRan;
  started.background_id = p->id;
  started.process_id = p->pid;
  pipeline::MaskSecrets(&started, run.trail.secrets());
  return started;
}

void Session::Loop() {
  std::vector<pollfd> fds;
  std::vector<std::pair<Process*, size_t>> watched;
  std::unique_lock<std::mutex> lock(mu_);
  while (!(shut_down_ && running_ == 0)) {
    fds.clear();
    watched.clear();
    fds.push_back({wake_.get(), POLLIN, 0});
    Clock::time_point now = Clock::now();
    bool with_output = now >= next_output_;
    Clock::time_point wake = with_output ? Clock::time_point::max() : next_output_;
    for (auto& [number, p] : processes_) {
      if (!p->running) continue;
      watched.emplace_back(p.get(), fds.size());
      p->exec->Watch(&fds, &wake, with_output);
    }
    lock.unlock();
    int ready = poll(fds.data(), static_cast<nfds_t>(fds.size()), exec::PollTimeout(wake));
    if (ready <= 0) {
      for (pollfd& f : fds)
        f.revents = 0;
    }
    if (fds[0].revents != 0) {
      uint64_t count;
      (void)!read(wake_.get(), &count, sizeof count);
    }
    lock.lock();
    bool read_output = false;
    for (auto& [p, at] : watched) {
      // Only the loop ends a process, so every one watched still runs here.
      if (p->exec->Step(fds.data() + at)) read_output = true;
      for (Notice& n : p->new_notices) {
        n.process_id = p->id;
        notices_.Add(std::move(n));
      }
      p->new_notices.clear();
      // Output larger than what is retained: the spool gets its name now, so that the whole
      // output can be found while the process still runs.
      pipeline::PreparedRun& run = *p->run;
      if (run.spool.path.empty() && !run.spool_name_failed &&
          p->exec->output_bytes() > run.view_limit) {
        std::string ignored;
        if (!exec::KeepSpool(&run.spool, &ignored)) run.spool_name_failed = true;
      }
      if (p->exec->done()) Finalize(p);
    }
    if (read_output) next_output_ = Clock::now() + kOutputEvery;
  }
}

void Session::Finalize(Process* p) {
  exec::ExecResult ran = p->exec->Finish();
  p->exec.reset();
  pipeline::PreparedRun& run = *p->run;
  p->result = pipeline::FinishRun(&run, ran, context_);
  p->output_bytes = ran.output_bytes;
  p->spooled_bytes = ran.spooled_bytes;
  p->unspooled = std::move(ran.unspooled);
  run.plan = exec::LaunchPlan{};  // its copy of the environment is no longer needed
  p->running = false;
  --running_;
  p->matcher.End([p](std::string_view line) {
    p->new_notices.push_back({Notice::Kind::kPattern, p->id, PatternNoticeText(p->command, line)});
  });
  for (Notice& n : p->new_notices)
    notices_.Add(std::move(n));
  p->new_notices.clear();
  if (p->notify && !p->killed_by_caller) {
    std::string why;
    if (p->result.exit_code < 0) why = p->result.error;
    uint64_t from = p->output_bytes > 4 * kExitTailChars ? p->output_bytes - 4 * kExitTailChars : 0;
    notices_.Add({Notice::Kind::kExit, p->id,
                  ExitNoticeText(p->command, p->result.exit_code, why, p->result.duration_ms,
                                 ReadOutput(*p, from))});
  }
  // Forget the oldest finished processes beyond what is retained (their spools close; a named
  // one stays on disk, like a foreground command's).
  size_t finished = 0;
  for (auto it = processes_.rbegin(); it != processes_.rend(); ++it) {
    if (!it->second->running) ++finished;
  }
  for (auto it = processes_.begin();
       it != processes_.end() &&
       finished > static_cast<size_t>(context_.settings.background.retain_finished);) {
    if (it->second->running) {
      ++it;
      continue;
    }
    it = processes_.erase(it);
    --finished;
  }
  ended_.notify_all();
}

ProcessInfo Session::Info(const Process& p) const {
  ProcessInfo info;
  info.id = p.id;
  info.command = p.command;
  info.running = p.running;
  info.pid = p.pid;
  if (p.running) {
    info.runtime_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - p.started).count();
    info.output_bytes = p.exec->output_bytes();
  } else {
    info.runtime_ms = p.result.duration_ms;
    info.output_bytes = p.output_bytes;
    info.exit_code = p.result.exit_code;
    info.error = p.result.error;
  }
  return info;
}

// The output from byte `from` to the end: from the spool, then from the bytes kept in memory
// past the spool's cap.
std::string Session::ReadOutput(const Process& p, uint64_t from) const {
  uint64_t total = p.running ? p.exec->output_bytes() : p.output_bytes;
  uint64_t spooled = p.running ? p.exec->spooled_bytes() : p.spooled_bytes;
  const std::string& unspooled = p.running ? p.exec->unspooled() : p.unspooled;
  std::string text;
  if (from >= total) return text;
  int fd = p.run->spool.fd.get();
  if (from < spooled && fd >= 0) {
    text.resize(static_cast<size_t>(spooled - from));
    size_t got = 0;
    while (got < text.size()) {
      ssize_t n = pread(fd, text.data() + got, text.size() - got, static_cast<off_t>(from + got));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got += static_cast<size_t>(n);
    }
    text.resize(got);
  }
  // The bytes past the spool that are still in memory are the last unspooled.size() of them.
  uint64_t mem_start = total - unspooled.size();
  uint64_t start = std::max(from, mem_start);
  if (start < total && start >= spooled)
    text.append(unspooled, static_cast<size_t>(start - mem_start));
  return text;
}

std::vector<ProcessInfo> Session::List() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<ProcessInfo> out;
  for (const auto& [number, p] : processes_)
    out.push_back(Info(*p));
  return out;
}

ProcessOutput Session::Output(const std::string& id, uint64_t offset) {
  std::lock_guard<std::mutex> lock(mu_);
  ProcessOutput out;
  std::shared_ptr<Process> p;
  for (const auto& [number, q] : processes_) {
    if (q->id == id) p = q;
  }
  if (p == nullptr) {
    out.error = "no background process " + id + " (it may have been forgotten: the session keeps " +
                std::to_string(context_.settings.background.retain_finished) +
                " finished ones; see list)";
    return out;
  }
  out.status = Info(*p);
  uint64_t total = out.status.output_bytes;
  uint64_t retained = static_cast<uint64_t>(p->run->view_limit);
  uint64_t oldest = total > retained ? total - retained : 0;
  uint64_t from = std::min(offset, total);
  if (from < oldest) {
    out.skipped = oldest - from;
    from = oldest;
  }
  out.text = ReadOutput(*p, from);
  // Start on a whole character when the start was cut here, not asked for.
  if (out.skipped > 0) {
    size_t cut = 0;
    while (cut < 3 && cut < out.text.size() && Continuation(out.text[cut]))
      ++cut;
    out.text.erase(0, cut);
    out.skipped += cut;
    from += cut;
  }
  // While it runs, a character it has half printed waits for the next call.
  if (p->running) {
    size_t n = out.text.size();
    for (size_t back = 1; back <= 3 && back <= n; ++back) {
      unsigned char c = static_cast<unsigned char>(out.text[n - back]);
      if ((c & 0xC0) == 0x80) continue;
      size_t want = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
      if (want > back) out.text.resize(n - back);
      break;
    }
  }
  out.offset = from;
  out.next_offset = from + out.text.size();
  out.spool_path = p->run->spool.path;
  return out;
}

KillOutcome Session::Kill(const std::string& id) {
  std::unique_lock<std::mutex> lock(mu_);
  KillOutcome out;
  std::shared_ptr<Process> p;
  for (const auto& [number, q] : processes_) {
    if (q->id == id) p = q;
  }
  if (p == nullptr) {
    out.error = "no background process " + id + " (see list)";
    return out;
  }
  if (!p->running) {
    out.status = Info(*p);
    out.error = id + " has already ended";
    return out;
  }
  p->killed_by_caller = true;
  p->run->cancel_reason = "killed by a request (manage_background_process kill)";
  p->exec->Kill();
  Wake();
  // Held by the shared_ptr even if the session forgets it meanwhile.
  if (!ended_.wait_for(lock, kKillWait, [&] { return !p->running; })) {
    out.status = Info(*p);
    out.error = id + " did not exit within " + std::to_string(kKillWait.count() / 1000) +
                " s of being killed";
    return out;
  }
  out.status = Info(*p);
  return out;
}

std::vector<Notice> Session::TakeNotices() {
  std::lock_guard<std::mutex> lock(mu_);
  return notices_.Take();
}

void Session::Shutdown() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    shut_down_ = true;
    for (auto& [number, p] : processes_) {
      if (!p->running) continue;
      p->killed_by_caller = true;
      p->run->cancel_reason = "killed: the session shut down";
      p->exec->Kill();
    }
  }
  Wake();
  // The loop ends once every process has; a guard that does not report is killed after 5 s
  // (exec::Execution), so this wait is bounded.
  std::lock_guard<std::mutex> join(join_mu_);
  if (loop_.joinable()) loop_.join();
}

}  // namespace safesh::session
