#include "pipeline/run_shell_command.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <map>
#include <mutex>

#include "exec/env.h"
#include "exec/launch_plan.h"
#include "exec/limits.h"
#include "exec/redact.h"
#include "exec/runner.h"
#include "exec/spool.h"
#include "pipeline/validate.h"
#include "sandbox/advice.h"
#include "sandbox/bwrap.h"
#include "sandbox/doctor.h"
#include "sandbox/landlock.h"
#include "sandbox/spec.h"
#include "util/json_writer.h"

namespace safesh::pipeline {
namespace {

using Outcome = RunResult::Outcome;

RunResult Refuse(Outcome outcome, std::string error) {
  RunResult r;
  r.outcome = outcome;
  r.error = std::move(error);
  return r;
}

std::string ExpandPath(const std::string& p, const RunContext& c) {
  if (p == "~") return c.home;
  if (p.starts_with("~/") && !c.home.empty()) return c.home + p.substr(1);
  if (!p.empty() && p[0] != '/') return c.workspace + "/" + p;
  return p;
}

const char* SignalName(int sig) {
  const char* d = sigabbrev_np(sig);
  return d != nullptr ? d : "?";
}

// Whether bubblewrap works here, asked once per process and bwrap path (the answer does not
// change while safesh runs, and asking costs a sandbox start).
std::string CachedProbe(const std::string& bwrap, const std::string& cache_file) {
  static std::mutex mu;
  static std::map<std::string, std::string> answers;
  std::lock_guard<std::mutex> lock(mu);
  auto it = answers.find(bwrap);
  if (it == answers.end())
    it = answers.emplace(bwrap, sandbox::ProbeBwrapCached(bwrap, cache_file)).first;
  return it->second;
}

// Where the probe's answer is remembered between runs: beside the spool, in safesh's private
// state folder (which sandboxed commands cannot see). Empty when there is no spool base.
std::string ProbeCacheFile(const RunContext& c) {
  if (c.spool_base.empty()) return "";
  return c.spool_base.substr(0, c.spool_base.rfind('/')) + "/bwrap-probe";
}

// Which sandbox the command runs in (SH-20): bubblewrap when it works; otherwise Landlock and
// seccomp when the kernel has Landlock; otherwise "required" refuses and "auto" runs without
// one, saying why. SAFESH_SANDBOX_LAUNCHER=landlock picks Landlock even where bubblewrap works;
// =bwrap allows bubblewrap only.
bool ChooseSandbox(const RunContext& c, RunResult* r, std::string* bwrap, bool* landlock) {
  std::string mode = c.sandbox_override.empty() ? c.settings.sandbox.shell : c.sandbox_override;
  if (mode != "auto" && mode != "required" && mode != "off") {
    r->error = "SAFESH_SANDBOX_SHELL must be auto, required or off (it is \"" + mode + "\")";
    r->outcome = Outcome::kInvalid;
    return false;
  }
  if (!c.limits_override.empty() && c.limits_override != "auto" && c.limits_override != "rlimit") {
    r->error = "SAFESH_LIMITS must be auto or rlimit (it is \"" + c.limits_override + "\")";
    r->outcome = Outcome::kInvalid;
    return false;
  }
  if (!c.launcher.empty() && c.launcher != "bwrap" && c.launcher != "landlock") {
    r->error = "SAFESH_SANDBOX_LAUNCHER must be bwrap or landlock (it is \"" + c.launcher + "\")";
    r->outcome = Outcome::kInvalid;
    return false;
  }
  r->sandbox_mode = "off";
  *landlock = false;
  bwrap->clear();
  if (mode == "off") {
    r->sandbox_reason = "[sandbox] shell = \"off\"";
    return true;
  }
  std::string network =
      std::string("network ") + (c.settings.sandbox.allow_network ? "allowed" : "off");
  std::string why;
  if (c.launcher != "landlock") {
    *bwrap = c.bwrap.empty() ? sandbox::FindBwrap() : c.bwrap;
    why = *bwrap == "" ? sandbox::ProbeBwrap("", false) : CachedProbe(*bwrap, ProbeCacheFile(c));
    if (why.empty()) {
      r->sandbox_mode = "bwrap";
      r->sandbox_reason = "bubblewrap and seccomp; " + network;
      return true;
    }
    bwrap->clear();
  } else {
    why = "SAFESH_SANDBOX_LAUNCHER=landlock";
  }
  std::string landlock_why = "SAFESH_SANDBOX_LAUNCHER=bwrap";
  if (c.launcher != "bwrap" && sandbox::LandlockAbi(&landlock_why) > 0) {
    *landlock = true;
    r->sandbox_mode = "landlock";
    r->sandbox_reason = "Landlock and seccomp, because " + why + "; " + network +
                        " (weaker than bubblewrap: blocked paths stay readable, .git/hooks "
                        "and shell start-up files inside writable roots stay writable, host "
                        "processes stay visible; see safesh doctor)";
    return true;
  }
  why += "; " + landlock_why;
  if (mode == "required") {
    r->sandbox_reason = why;
    r->error = "sandbox required but unavailable: " + why +
               " (run `safesh doctor`, or set [sandbox] shell = \"auto\" to run without it)";
    r->outcome = Outcome::kSandboxUnavailable;
    return false;
  }
  r->sandbox_reason = "auto: running without a sandbox, because " + why;
  return true;
}

// What a limit reached was, and the setting that raises it.
std::string LimitMessage(const exec::CommandLimits& l) {
  if (l.hit == exec::LimitHit::kMemory)
    return "memory limit of " + exec::FormatBytes(l.want.memory_bytes) +
           " reached ([sandbox] memory_limit)";
  return "limit of " + std::to_string(l.want.max_processes) +
         " processes reached ([sandbox] max_processes)";
}

}  // namespace

RunResult RunShellCommand(const RunRequest& request, const RunContext& c) {
  // 1. Validate.
  if (request.command.find_first_not_of(" \t\r\n") == std::string::npos)
    return Refuse(Outcome::kInvalid, "the command is empty: give a bash command to run");
  if (request.command.size() > kMaxCommandBytes)
    return Refuse(Outcome::kInvalid,
                  "the command is " + std::to_string(request.command.size()) +
                      " bytes; the most bash can be given is " + std::to_string(kMaxCommandBytes) +
                      ": write the script to a file in the workspace and run it");
  if (request.command.find('\0') != std::string::npos)
    return Refuse(Outcome::kInvalid, "the command holds a NUL byte, which bash cannot be given");
  std::string error;
  std::optional<std::chrono::milliseconds> timeout =
      ResolveTimeout(request.timeout_seconds, c.settings.tools.shell_timeout_seconds, &error);
  if (!timeout) return Refuse(Outcome::kInvalid, error);
  struct stat st;
  if (c.workspace.empty() || c.workspace[0] != '/' || stat(c.workspace.c_str(), &st) != 0 ||
      !S_ISDIR(st.st_mode)) {
    return Refuse(Outcome::kInvalid, "the workspace " + c.workspace +
                                         " is not an existing directory (an absolute path)");
  }
  std::vector<std::string> roots = {c.workspace};
  for (const std::string& p : c.settings.sandbox.writable_paths)
    roots.push_back(ExpandPath(p, c));
  std::optional<ResolvedCwd> cwd = ResolveCwd(roots, request.cwd, &error);
  if (!cwd) return Refuse(Outcome::kInvalid, error);

  // 2. Judge.
  policy::JudgeOptions judge_options;
  judge_options.home = c.home;
  policy::Verdict verdict = policy::Judge(c.policy, request.command, judge_options);
  RunResult result;
  result.verdict = verdict;
  if (verdict.decision == policy::Decision::kDeny) {
    result.outcome = Outcome::kDenied;
    result.error = "blocked by command policy: " + verdict.reason;
    return result;
  }

  // The sandbox is chosen before anyone is asked: no approval for what cannot run.
  std::string bwrap_path;
  bool landlock = false;
  if (!ChooseSandbox(c, &result, &bwrap_path, &landlock)) return result;

  // 3. Approve.
  if (verdict.decision == policy::Decision::kAsk) {
    approval::ApprovalRequest ask{request.command, cwd->path, false, verdict.reason};
    approval::Answer answer = c.prompter ? c.prompter(ask) : approval::Answer::kNoOneToAsk;
    if (answer == approval::Answer::kNoOneToAsk) {
      answer = c.settings.approvals.headless == "allow" ? approval::Answer::kApprove
                                                        : approval::Answer::kDeny;
      if (answer == approval::Answer::kDeny) {
        result.outcome = Outcome::kNotApproved;
        result.error = "blocked by command policy: " + verdict.reason +
                       "; it needs approval and no one could be asked (approve it with "
                       "--approve yes, or add a pattern for it to [commands] auto_approve)";
        return result;
      }
    }
    if (answer == approval::Answer::kDeny) {
      result.outcome = Outcome::kNotApproved;
      result.error = "blocked by command policy: not approved (" + verdict.reason + ")";
      return result;
    }
  }

  // 4. Environment and spool.
  exec::EnvRules rules;
  if (c.settings.sandbox.scrub_env) rules.scrub = *c.settings.sandbox.scrub_env;
  rules.allow = c.settings.sandbox.env_allow;
  exec::ChildEnv env = exec::BuildChildEnv(c.environment, rules);
  exec::SetVar(&env.vars, "PWD", cwd->path);
  std::string bash = exec::FindBash();
  if (bash.empty()) {
    result.outcome = Outcome::kFailedToStart;
    result.error = "bash is not installed (looked for /bin/bash and /usr/bin/bash)";
    return result;
  }
  exec::Spool spool;
  if (!exec::CreateSpool(c.spool_base, &spool, &error)) {
    result.outcome = Outcome::kFailedToStart;
    result.error = error;
    return result;
  }

  // 5. Execute.
  exec::Redactor redactor(env.secrets);
  exec::ExecOptions options;
  options.timeout = *timeout;
  options.cancel = c.cancel;
  options.spool_fd = spool.fd.get();
  options.redactor = &redactor;
  options.caller_is_subreaper = c.caller_is_subreaper;
  options.spool_cap = c.spool_cap;
  options.keep_unspooled = static_cast<uint64_t>(c.settings.tools.output_limit_bytes);
  exec::LaunchPlan plan = exec::BashPlan(bash, request.command, std::move(env.vars), cwd->fd.get());
  util::UniqueFd seccomp;  // open until the command has started
  util::UniqueFd ruleset;  // the same, for the Landlock launcher
  sandbox::SandboxSpec spec;
  if (!bwrap_path.empty() || landlock) {
    spec = sandbox::BuildSpec(c.settings.sandbox, roots, c.home);
    bool ok = !bwrap_path.empty()
                  ? sandbox::SandboxPlan(bwrap_path, spec, cwd->path, &plan, &seccomp, &error)
                  : sandbox::LandlockPlan(spec, &plan, &ruleset, &error);
    if (!ok) {
      result.outcome = Outcome::kFailedToStart;
      result.error = error;
      return result;
    }
  }
  // Resource limits, with or without the sandbox (exec/limits.h).
  exec::ResourceLimits want{static_cast<uint64_t>(c.settings.sandbox.max_processes),
                            c.settings.sandbox.memory_limit.value_or(exec::DefaultMemoryLimit())};
  exec::CommandLimits limits;
  exec::PrepareLimits(want, c.limits_override == "rlimit" ? "rlimit" : "", &limits);
  exec::ApplyLimits(limits, &plan);
  options.should_stop = [&limits](pid_t guard) { return exec::LimitReached(&limits, guard); };
  options.check_every = limits.check_every;
  exec::ExecResult ran = exec::Execute(plan, options);
  std::string cleanup_error = exec::FinishLimits(&limits);
  result.limits.via = limits.via;
  result.limits.max_processes = want.max_processes;
  result.limits.memory_bytes = want.memory_bytes;
  result.limits.hit = limits.hit == exec::LimitHit::kProcesses ? "processes"
                      : limits.hit == exec::LimitHit::kMemory  ? "memory"
                                                               : "";
  result.limits.stopped = ran.stopped;
  result.limits.fell_back = limits.fell_back;
  result.limits.reason = limits.reason;

  // 6. The result.
  // bubblewrap refusing to build the sandbox looks like this (the command never ran): whatever
  // remembered that it works is forgotten, so the next run probes again.
  if (!bwrap_path.empty() && ran.exited && ran.exit_code == 1 && ran.spooled_bytes >= 7) {
    char start[7];
    if (pread(spool.fd.get(), start, 7, 0) == 7 && std::string_view(start, 7) == "bwrap: ")
      sandbox::ForgetProbe(ProbeCacheFile(c));
  }
  // A timeout or cancel that came before the command started is still a timeout or cancel.
  result.outcome =
      ran.started || ran.timed_out || ran.cancelled ? Outcome::kRan : Outcome::kFailedToStart;
  result.duration_ms = ran.duration_ms;
  result.process_id = ran.started ? ran.pid : 0;
  result.timed_out = ran.timed_out;
  result.cancelled = ran.cancelled && !ran.timed_out;
  result.output_bytes = ran.output_bytes;
  if (ran.timed_out) {
    char secs[32];
    snprintf(secs, sizeof secs, "%g", static_cast<double>(timeout->count()) / 1000.0);
    result.error = std::string("command timed out after ") + secs + " s";
  } else if (result.cancelled) {
    result.error = "command cancelled";
  } else if (ran.stopped) {
    result.error = "stopped: " + LimitMessage(limits);
  } else if (ran.exited) {
    result.exit_code = ran.exit_code;
  } else if (ran.signal != 0) {
    result.signal = ran.signal;
    result.exit_code = 128 + ran.signal;
    result.error = "command was killed by signal " + std::to_string(ran.signal) + " (SIG" +
                   SignalName(ran.signal) + ")";
  }
  // A limit reached that did not stop the command (it ended first): a refused fork, or a
  // process the kernel killed.
  if (!ran.stopped && limits.hit != exec::LimitHit::kNone) {
    result.error +=
        (result.error.empty() ? "" : "; ") + LimitMessage(limits) +
        (limits.hit == exec::LimitHit::kMemory ? ": the kernel killed a process of the command"
                                               : ": the system refused to start a process");
  }
  if (!ran.error.empty()) result.error += (result.error.empty() ? "" : "; ") + ran.error;
  if (!cleanup_error.empty()) result.error += (result.error.empty() ? "" : "; ") + cleanup_error;

  // The view: whole when it fits; otherwise head and tail, and the spool is kept for the rest.
  uint64_t limit = static_cast<uint64_t>(c.settings.tools.output_limit_bytes);
  exec::OutputView view;
  bool kept = ran.output_bytes > limit && exec::KeepSpool(&spool, &error);
  if (ran.output_bytes > limit && !kept) result.error += (result.error.empty() ? "" : "; ") + error;
  if (!exec::ReadView(spool.fd.get(), ran.output_bytes, ran.spooled_bytes, ran.unspooled, limit,
                      kept ? spool.path : std::string("(the spool could not be kept)"), &view,
                      &error)) {
    result.error += (result.error.empty() ? "" : "; ") + error;
  }
  result.output = std::move(view.text);
  if (result.sandbox_mode != "off" && (result.exit_code != 0 || result.signal != 0) &&
      !result.timed_out && !result.cancelled && !ran.stopped) {
    result.advice = sandbox::PermissionAdvice(result.output, spec, result.sandbox_mode);
  }
  result.truncated = view.truncated;
  if (kept) {
    result.spool_path = spool.path;
  } else {
    exec::RemoveSpool(&spool);
  }
  return result;
}

std::string RunResultJson(const RunResult& r) {
  std::string out;
  util::JsonWriter w(&out);
  w.BeginObject();
  w.Key("output");
  w.String(r.output);
  w.Key("exit_code");
  w.Int(r.exit_code);
  w.Key("duration_ms");
  w.Int(r.duration_ms);
  w.Key("is_background");
  w.Bool(r.is_background);
  w.Key("process_id");
  if (r.process_id > 0) {
    w.Int(r.process_id);
  } else {
    w.Null();
  }
  w.Key("truncated");
  w.Bool(r.truncated);
  w.Key("output_bytes");
  w.Int(static_cast<int64_t>(r.output_bytes));
  w.Key("spool_path");
  if (r.spool_path.empty()) {
    w.Null();
  } else {
    w.String(r.spool_path);
  }
  w.Key("timed_out");
  w.Bool(r.timed_out);
  w.Key("cancelled");
  w.Bool(r.cancelled);
  w.Key("signal");
  if (r.signal > 0) {
    w.Int(r.signal);
  } else {
    w.Null();
  }
  w.Key("error");
  if (r.error.empty()) {
    w.Null();
  } else {
    w.String(r.error);
  }
  w.Key("verdict");
  if (r.verdict) {
    w.Raw(policy::VerdictJson(*r.verdict));
  } else {
    w.Null();
  }
  w.Key("advice");
  if (r.advice.empty()) {
    w.Null();
  } else {
    w.String(r.advice);
  }
  w.Key("sandbox");
  w.BeginObject();
  w.Key("mode");
  if (r.sandbox_mode.empty()) {
    w.Null();
  } else {
    w.String(r.sandbox_mode);
  }
  w.Key("reason");
  w.String(r.sandbox_reason);
  w.EndObject();
  w.Key("limits");
  w.BeginObject();
  bool ran = !r.limits.via.empty();
  w.Key("via");
  if (ran) {
    w.String(r.limits.via);
  } else {
    w.Null();
  }
  w.Key("max_processes");
  if (ran && r.limits.max_processes > 0) {
    w.Int(static_cast<int64_t>(r.limits.max_processes));
  } else {
    w.Null();
  }
  w.Key("memory_bytes");
  if (ran && r.limits.memory_bytes > 0) {
    w.Int(static_cast<int64_t>(r.limits.memory_bytes));
  } else {
    w.Null();
  }
  w.Key("hit");
  if (r.limits.hit.empty()) {
    w.Null();
  } else {
    w.String(r.limits.hit);
  }
  w.Key("stopped");
  w.Bool(r.limits.stopped);
  w.Key("reason");
  w.String(r.limits.reason);
  w.EndObject();
  w.EndObject();
  return out;
}

}  // namespace safesh::pipeline
