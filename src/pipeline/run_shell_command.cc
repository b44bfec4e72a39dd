#include "pipeline/run_shell_command.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>

#include "exec/env.h"
#include "exec/launch_plan.h"
#include "exec/limits.h"
#include "exec/redact.h"
#include "exec/runner.h"
#include "exec/spool.h"
#include "pipeline/approve.h"
#include "pipeline/audit_trail.h"
#include "pipeline/mask_secrets.h"
#include "pipeline/prepared_run.h"
#include "pipeline/validate.h"
#include "sandbox/advice.h"
#include "sandbox/blocked_scan.h"
#include "sandbox/bwrap.h"
#include "sandbox/caches.h"
#include "sandbox/choose.h"
#include "sandbox/doctor.h"
#include "sandbox/landlock.h"
#include "sandbox/private_tmp.h"
#include "sandbox/spec.h"
#include "util/file.h"
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

// safesh's private state folder, the spool's parent (which sandboxed commands cannot see: it is
// a default blocked path). Empty when there is no spool base.
std::string StateDir(const RunContext& c) {
  if (c.spool_base.empty()) return "";
  return c.spool_base.substr(0, c.spool_base.rfind('/'));
}

// Where the probe's answer is remembered between runs: in the state folder.
std::string ProbeCacheFile(const RunContext& c) {
  std::string state = StateDir(c);
  return state.empty() ? "" : state + "/bwrap-probe";
}

// "12.5": a duration in seconds as the result's messages give it.
std::string Seconds(std::chrono::milliseconds ms) {
  char secs[32];
  snprintf(secs, sizeof secs, "%g", static_cast<double>(ms.count()) / 1000.0);
  return secs;
}

// "50,000"
std::string WithCommas(size_t n) {
  std::string digits = std::to_string(n);
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3)
    digits.insert(static_cast<size_t>(i), ",");
  return digits;
}

// How many times the blocked-name scan is made again when the tree changed under it.
constexpr int kScanRetries = 3;

// Step 5 under bubblewrap: the roots are scanned for blocked names (.env, *.pem ...), which
// become paths in `spec`. The scan's time counts against the command's timeout (`took`). False
// when it was cancelled or timed out: `r` says so, and the command must not start, since what
// it must not see is not known.
bool HideBlockedNames(const RunContext& c, sandbox::SandboxCaches* caches,
                      const std::vector<std::string>& roots, std::chrono::milliseconds timeout,
                      sandbox::SandboxSpec* spec, RunResult* r, std::chrono::milliseconds* took) {
  auto start = std::chrono::steady_clock::now();
  auto deadline = start + timeout;
  bool timed_out = false;
  // Only the roots the sandbox binds: one left out (reached through a planted link) could name
  // any folder, up to the whole disk.
  std::vector<std::string> bound;
  for (const std::string& r : roots) {
    std::string real = util::RealPath(r);
    if (std::find(spec->writable.begin(), spec->writable.end(), real) != spec->writable.end())
      bound.push_back(r);
  }
  std::vector<std::string> scan_roots =
      sandbox::BlockedScanRoots(c.settings.sandbox, bound, c.home);
  auto scan = [&] {
    // A long-lived host keeps watches on the roots between commands (sandbox/caches.h).
    return caches->ScanBlockedNames(scan_roots, sandbox::BlockedNamePatterns(c.settings.sandbox),
                                    StateDir(c), c.long_lived, [&] {
                                      if (c.cancel != nullptr && c.cancel->cancelled()) return true;
                                      timed_out = std::chrono::steady_clock::now() >= deadline;
                                      return timed_out;
                                    });
  };
  // A folder that changed under the scan (ScanResult::changed), or on the way to a match since
  // (AddBlockedMatches), left what it holds unseen or masked elsewhere: the scan is made again
  // (only what changed is read), and a tree that keeps changing is refused, since what the
  // command must not see is not known.
  sandbox::ScanResult found;
  std::string changed;
  for (int attempt = 0;; ++attempt) {
    found = scan();
    if (found.cancelled) break;
    changed =
        found.changed ? found.changed_path : sandbox::AddBlockedMatches(found, scan_roots, spec);
    if (changed.empty() || attempt == kScanRetries) break;
  }
  *took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                                start);
  if (found.cancelled) {
    r->outcome = Outcome::kRan;  // as for a timeout or cancel before the command started
    r->duration_ms = took->count();
    if (timed_out) {
      r->timed_out = true;
      r->error =
          "command timed out after " + Seconds(timeout) + " s while scanning for blocked files";
    } else {
      r->cancelled = true;
      r->error = "command cancelled while scanning for blocked files";
    }
    return false;
  }
  if (!changed.empty()) {
    r->outcome = Outcome::kFailedToStart;
    r->error = "the folder " + changed +
               " kept changing (a folder swapped for a link, or removed) while the workspace was "
               "scanned for files to hide, " +
               std::to_string(kScanRetries + 1) +
               " times; not running: run the command again once nothing else is changing it";
    return false;
  }
  sandbox::ProtectRepositories(found.repos, spec);
  if (found.truncated) {
    r->sandbox_note = "blocked-name scan stopped at " +
                      WithCommas(sandbox::ScanLimits().max_entries) +
                      " entries; deeper files are not masked";
    r->sandbox_reason += "; " + r->sandbox_note;
  }
  return true;
}

// With no sandbox, an allowed verdict becomes a question: what the rules let run unasked was
// judged safe inside the sandbox, and nothing else bounds it now. That holds for a line that runs
// no command too: `x=${y:?$(<file)}` reads and prints a file with none.
void AskWithoutSandbox(policy::Verdict* v) {
  if (v->decision != policy::Decision::kAllow) return;
  v->decision = policy::Decision::kAsk;
  v->reason = std::string(kAskedWithoutSandbox) + " (" + v->reason + ")";
}

// What a limit reached was, and the setting that raises it.
std::string LimitMessage(const exec::CommandLimits& l) {
  if (l.hit == exec::LimitHit::kMemory)
    return "memory limit of " + exec::FormatBytes(l.want.memory_bytes) +
           " reached ([sandbox] memory_limit)";
  return "limit of " + std::to_string(l.want.max_processes) +
         " processes reached ([sandbox] max_processes)";
}

// A record the audit log would not take: nothing runs (pipeline/audit_trail.h).
RunResult AuditRefusal(const AuditTrail& trail, const char* what) {
  return Refuse(Outcome::kFailedToStart,
                std::string("the ") + what + " could not be recorded in the audit log (" +
                    trail.error() +
                    "): nothing ran; safesh does not run commands it cannot record");
}

// A background command's lifetime: [background] max_lifetime_seconds, or the request's timeout
// when it is shorter.
std::optional<std::chrono::milliseconds> Lifetime(const RunRequest& request, const RunContext& c,
                                                  std::string* error) {
  double seconds = static_cast<double>(c.settings.background.max_lifetime_seconds);
  if (request.timeout_seconds) {
    double t = *request.timeout_seconds;
    if (!std::isfinite(t) || t <= 0) {
      *error = "the timeout must be a positive number of seconds";
      return std::nullopt;
    }
    seconds = std::min(seconds, t);
  }
  return std::chrono::milliseconds(std::max<int64_t>(1, static_cast<int64_t>(seconds * 1000)));
}

// Steps 1 to 5. False when the request ends here: run->result is then its result.
bool PrepareSteps(const RunContext& c, PreparedRun* run) {
  const RunRequest& request = run->request;
  AuditTrail* trail = &run->trail;
  auto end = [run](RunResult r) {
    run->result = std::move(r);
    return false;
  };
  // 1. Validate.
  if (request.command.find_first_not_of(" \t\r\n") == std::string::npos)
    return end(Refuse(Outcome::kInvalid, "the command is empty: give a bash command to run"));
  if (request.command.size() > kMaxCommandBytes)
    return end(
        Refuse(Outcome::kInvalid, "the command is " + std::to_string(request.command.size()) +
                                      " bytes; the most bash can be given is " +
                                      std::to_string(kMaxCommandBytes) +
                                      ": write the script to a file in the workspace and run it"));
  if (request.command.find('\0') != std::string::npos)
    return end(
        Refuse(Outcome::kInvalid, "the command holds a NUL byte, which bash cannot be given"));
  std::string error;
  std::optional<std::chrono::milliseconds> timeout =
      request.background
          ? Lifetime(request, c, &error)
          : ResolveTimeout(request.timeout_seconds, c.settings.tools.shell_timeout_seconds, &error);
  if (!timeout) return end(Refuse(Outcome::kInvalid, error));
  run->timeout = *timeout;
  struct stat st;
  if (c.workspace.empty() || c.workspace[0] != '/' || stat(c.workspace.c_str(), &st) != 0 ||
      !S_ISDIR(st.st_mode)) {
    return end(Refuse(Outcome::kInvalid, "the workspace " + c.workspace +
                                             " is not an existing directory (an absolute path)"));
  }
  std::vector<std::string> roots = {c.workspace};
  for (const std::string& p : c.settings.sandbox.writable_paths)
    roots.push_back(ExpandPath(p, c));
  run->cwd = ResolveCwd(roots, request.cwd, &error);
  if (!run->cwd) return end(Refuse(Outcome::kInvalid, error));
  const ResolvedCwd& cwd = *run->cwd;

  // 2. Judge.
  policy::JudgeOptions judge_options;
  judge_options.home = c.home;
  policy::Verdict verdict = policy::Judge(c.policy, request.command, judge_options);
  // The sandbox is chosen before anyone is asked (no approval for what cannot run), and before
  // the verdict is final: auto_approve lets commands run unasked because the sandbox bounds what
  // they can do, so without one they are asked about (AskWithoutSandbox).
  sandbox::SandboxCaches* caches = run->caches.get();
  sandbox::SandboxRequest want_sandbox;
  want_sandbox.shell = c.sandbox_override.empty() ? c.settings.sandbox.shell : c.sandbox_override;
  want_sandbox.launcher = c.launcher;
  want_sandbox.bwrap = c.bwrap;
  want_sandbox.confine = c.confine;
  want_sandbox.allow_network = c.settings.sandbox.allow_network;
  want_sandbox.probe_cache_file = ProbeCacheFile(c);
  sandbox::SandboxChoice choice = sandbox::ChooseSandbox(want_sandbox, caches);
  if (choice.error.empty() && choice.kind == sandbox::SandboxChoice::kOff)
    AskWithoutSandbox(&verdict);
  if (!trail->Verdict(verdict)) return end(AuditRefusal(*trail, "verdict"));
  RunResult& result = run->result;
  result.verdict = verdict;
  result.is_background = request.background;
  if (verdict.decision == policy::Decision::kDeny) {
    result.outcome = Outcome::kDenied;
    result.error = "blocked by command policy: " + verdict.reason;
    return false;
  }

  if (!c.limits_override.empty() && c.limits_override != "auto" && c.limits_override != "rlimit") {
    result.outcome = Outcome::kInvalid;
    result.error = "SAFESH_LIMITS must be auto or rlimit (it is \"" + c.limits_override + "\")";
    return false;
  }
  result.sandbox_mode = choice.mode();
  result.sandbox_reason = choice.reason;
  if (!choice.error.empty()) {
    result.error = choice.error;
    result.outcome = choice.invalid       ? Outcome::kInvalid
                     : choice.unavailable ? Outcome::kSandboxUnavailable
                                          : Outcome::kFailedToStart;
    return false;
  }
  std::string& bwrap_path = run->bwrap_path;
  bwrap_path = choice.bwrap;
  std::string confine = choice.confine;
  bool landlock = choice.kind == sandbox::SandboxChoice::kLandlock;

  // 3. Approve (a dry run runs nothing, so there is nothing to approve).
  if (verdict.decision == policy::Decision::kAsk && !request.dry_run &&
      !Approve(request, cwd.path, verdict, roots, c, trail, &result, &run->notes)) {
    return false;
  }

  // 4. Environment and spool.
  exec::EnvRules rules;
  if (c.settings.sandbox.scrub_env) rules.scrub = *c.settings.sandbox.scrub_env;
  if (c.settings.sandbox.env_allow)
    rules.allow.insert(rules.allow.end(), c.settings.sandbox.env_allow->begin(),
                       c.settings.sandbox.env_allow->end());
  exec::ChildEnv env = exec::BuildChildEnv(c.environment, rules);
  exec::SetVar(&env.vars, "PWD", cwd.path);
  std::string bash = exec::FindBash();
  if (bash.empty()) {
    result.outcome = Outcome::kFailedToStart;
    result.error = "bash is not installed (looked for /bin/bash and /usr/bin/bash)";
    return false;
  }
  if (!exec::CreateSpool(c.spool_base, &run->spool, &error)) {
    result.outcome = Outcome::kFailedToStart;
    result.error = error;
    return false;
  }

  // 5. Execute: the plan and its options.
  run->view_limit =
      static_cast<uint64_t>(request.background ? c.settings.background.output_limit_bytes
                                               : c.settings.tools.output_limit_bytes);
  run->redactor = std::make_unique<exec::Redactor>(env.secrets);
  exec::ExecOptions& options = run->options;
  options.timeout = *timeout;
  // A background command outlives the request that started it: the request's cancel is not its.
  options.cancel = request.background ? nullptr : c.cancel;
  options.spool_fd = run->spool.fd.get();
  options.redactor = run->redactor.get();
  options.caller_is_subreaper = c.caller_is_subreaper && !request.background;
  options.spool_cap = c.spool_cap;
  options.keep_unspooled = run->view_limit;
  exec::LaunchPlan& plan = run->plan;
  plan = exec::BashPlan(bash, request.command, std::move(env.vars), cwd.fd.get());
  sandbox::SandboxSpec& spec = run->spec;
  if (!bwrap_path.empty() || landlock) {
    std::string state = StateDir(c);
    // A long-lived host keeps the host-socket listings in memory only: writing the file
    // after every change to /tmp would cost each of its commands a write and a rename, to
    // spare the next `safesh run` one full search (which then saves its own).
    spec = sandbox::BuildSpec(c.settings.sandbox, roots, c.home, caches->host_sockets(),
                              state.empty() || c.long_lived ? "" : state + "/host-sockets");
    if (!spec.refused.empty()) {
      exec::RemoveSpool(&run->spool);
      result.outcome = Outcome::kFailedToStart;
      result.error = spec.refused;
      return false;
    }
    // The sandbox's own temporary folders (sandbox/private_tmp.h), shared by the workspace's
    // commands; a tmpfs for this command alone where there is no state folder to keep them in.
    if (!state.empty()) {
      sandbox::PrivateTemp temp;
      if (!sandbox::MakePrivateTemp(state, util::RealPath(c.workspace), &temp, &error)) {
        exec::RemoveSpool(&run->spool);
        result.outcome = Outcome::kFailedToStart;
        result.error = error;
        return false;
      }
      spec.private_tmp = temp.tmp;
      spec.private_var_tmp = temp.var_tmp;
    }
    // No larger than the memory limit (0: none).
    uint64_t memory = c.settings.sandbox.memory_limit.value_or(exec::DefaultMemoryLimit());
    if (memory > 0) {
      spec.shm_bytes = std::min<uint64_t>(spec.shm_bytes, memory);
      spec.tmp_bytes = std::min<uint64_t>(spec.tmp_bytes, memory);
    }
    // Temporary files go to the sandbox's /tmp, not to a host folder the caller's TMPDIR names
    // (under bubblewrap; the Landlock launcher has no /tmp of its own: there, its folder).
    exec::SetVar(&plan.env, "TMPDIR",
                 landlock && !spec.private_tmp.empty() ? spec.private_tmp : "/tmp");
    // A launcher that commands could replace is not one to rely on (a workspace that holds
    // safesh's own build): the layer is dropped, and the reason says so.
    if (!confine.empty() && sandbox::InsideAny(confine, spec.writable)) {
      confine.clear();
      result.sandbox_reason = sandbox::NoLandlockLayer(
          "safesh-confine lies in a writable folder, where a command could replace it",
          spec.network);
    }
    // How host UNIX sockets are kept out, in the reason the result carries.
    result.sandbox_reason += spec.unix_sockets
                                 ? (landlock ? "; UNIX sockets allowed ([sandbox] "
                                               "allow_unix_sockets): the host's are reachable"
                                             : "; UNIX sockets allowed ([sandbox] "
                                               "allow_unix_sockets): the host's found are masked")
                                 : "; no UNIX sockets (seccomp): no host socket is reachable";
    if (geteuid() == 0 && !landlock)
      result.sandbox_reason += spec.map_root
                                   ? "; root inside is an unprivileged uid on the host "
                                     "(no owner rights on root's files outside the workspace)"
                                   : "; root inside is root on the host ([sandbox] "
                                     "root_keeps_owner_rights): it reads root's files";
    if (geteuid() == 0 && landlock)
      result.sandbox_reason += "; root keeps its owner rights on host files (Landlock launcher)";
    if (spec.sockets_truncated && !landlock)
      result.sandbox_reason +=
          "; the search for host UNIX sockets stopped at its limit, later ones are not masked";
  }
  if (!bwrap_path.empty()) {
    // Only for bubblewrap: Landlock cannot hide a path inside a readable tree, so the scan would
    // change nothing there.
    std::chrono::milliseconds scanned{0};
    if (!HideBlockedNames(c, caches, roots, *timeout, &spec, &result, &scanned)) {
      exec::RemoveSpool(&run->spool);
      return false;
    }
    options.timeout = std::max(std::chrono::milliseconds(1), *timeout - scanned);
  }
  if (!bwrap_path.empty() && geteuid() != 0 && c.settings.sandbox.max_processes > 0) {
    // The cap again, inside the command's own user namespace (sandbox/spec.h): bubblewrap's
    // first process there counts too.
    spec.nproc = static_cast<uint64_t>(c.settings.sandbox.max_processes) + 1;
  }
  if (!bwrap_path.empty() || landlock) {
    bool ok = !bwrap_path.empty() ? sandbox::SandboxPlan(bwrap_path, spec, cwd.path, confine, &plan,
                                                         &run->fds, &error)
                                  : sandbox::LandlockPlan(spec, &plan, &run->fds.ruleset, &error);
    if (!ok) {
      result.outcome = Outcome::kFailedToStart;
      result.error = error;
      return false;
    }
  }
  if (request.dry_run) {
    result.plan = plan.argv;
    result.plan[0] = plan.program;
    result.outcome = Outcome::kRan;
    result.exit_code = 0;
    return false;
  }
  if (!trail->Start(result, *timeout)) return end(AuditRefusal(*trail, "start"));
  // Resource limits, with or without the sandbox (exec/limits.h).
  exec::ResourceLimits want{static_cast<uint64_t>(c.settings.sandbox.max_processes),
                            c.settings.sandbox.memory_limit.value_or(exec::DefaultMemoryLimit())};
  exec::CommandLimits* limits = &run->limits;
  exec::PrepareLimits(want, c.limits_override == "rlimit" ? "rlimit" : "", limits);
  exec::ApplyLimits(*limits, &plan);
  options.should_stop = [limits](pid_t guard) { return exec::LimitReached(limits, guard); };
  options.check_every = limits->check_every;
  result.limits.via = limits->via;
  result.limits.max_processes = want.max_processes;
  result.limits.memory_bytes = want.memory_bytes;
  result.limits.fell_back = limits->fell_back;
  result.limits.reason = limits->reason;
  if (limits->via == "rlimit" && spec.nproc > 0 && !confine.empty())
    result.limits.reason += "; inside the sandbox's own user namespace RLIMIT_NPROC is " +
                            std::to_string(spec.nproc) +
                            ", which the kernel counts against the command's tasks alone: the "
                            "command stops at its cap, and the user's other processes keep their "
                            "room";
  return true;
}

// Step 6: the result of a run.
void FinishSteps(const exec::ExecResult& ran, const RunContext& c, PreparedRun* run) {
  RunResult& result = run->result;
  const exec::CommandLimits& limits = run->limits;
  std::string cleanup_error = exec::FinishLimits(&run->limits);
  result.limits.hit = limits.hit == exec::LimitHit::kProcesses ? "processes"
                      : limits.hit == exec::LimitHit::kMemory  ? "memory"
                                                               : "";
  result.limits.stopped = ran.stopped;

  // bubblewrap refusing to build the sandbox looks like this (the command never ran): whatever
  // remembered that it works is forgotten, so the next run probes again.
  if (!run->bwrap_path.empty() && ran.exited && ran.exit_code == 1 && ran.spooled_bytes >= 7) {
    char start[7];
    if (pread(run->spool.fd.get(), start, 7, 0) == 7 && std::string_view(start, 7) == "bwrap: ")
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
  if (ran.timed_out && run->request.background) {
    result.error = "its lifetime of " + Seconds(run->timeout) +
                   " s ran out ([background] max_lifetime_seconds, or the request's timeout)";
  } else if (ran.timed_out) {
    result.error = "command timed out after " + Seconds(run->timeout) + " s";
  } else if (result.cancelled) {
    result.error = run->cancel_reason.empty() ? "command cancelled" : run->cancel_reason;
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
  // A background command's output is read through its session, from the spool, which stays
  // open in `run` (named already when its output outgrew the view).
  exec::Spool& spool = run->spool;
  uint64_t limit = run->view_limit;
  std::string error;
  bool kept = !spool.path.empty() || (ran.output_bytes > limit && exec::KeepSpool(&spool, &error));
  if (ran.output_bytes > limit && !kept) result.error += (result.error.empty() ? "" : "; ") + error;
  if (!run->request.background) {
    exec::OutputView view;
    if (!exec::ReadView(spool.fd.get(), ran.output_bytes, ran.spooled_bytes, ran.unspooled, limit,
                        kept ? spool.path : std::string("(the spool could not be kept)"), &view,
                        &error)) {
      result.error += (result.error.empty() ? "" : "; ") + error;
    }
    result.output = std::move(view.text);
    result.truncated = view.truncated;
  } else {
    result.truncated = ran.output_bytes > limit;
  }
  if (result.sandbox_mode != "off" && (result.exit_code != 0 || result.signal != 0) &&
      !result.timed_out && !result.cancelled && !ran.stopped && !result.output.empty()) {
    result.advice = sandbox::PermissionAdvice(result.output, run->spec, result.sandbox_mode);
  }
  if (kept) {
    result.spool_path = spool.path;
  } else if (!run->request.background) {
    exec::RemoveSpool(&spool);
  }
}

// The end of every request: the notes, the end record, secrets masked.
RunResult EndRun(PreparedRun* run) {
  RunResult& result = run->result;
  if (!run->notes.empty()) result.error += (result.error.empty() ? "" : "; ") + run->notes;
  run->trail.End(&result, run->request.dry_run);
  MaskSecrets(&result, run->trail.secrets());
  return result;
}

}  // namespace

PreparedRun::PreparedRun(const RunRequest& r, const RunContext& context)
    : request(r),
      trail(r, context),
      caches(context.caches != nullptr ? context.caches
                                       : std::make_shared<sandbox::SandboxCaches>()) {}

std::unique_ptr<PreparedRun> PrepareRun(const RunRequest& request, const RunContext& c) {
  auto run = std::make_unique<PreparedRun>(request, c);
  if (!run->trail.ok()) {
    run->result = AuditRefusal(run->trail, "request");
  } else {
    run->ready = PrepareSteps(c, run.get());
  }
  if (!run->ready) run->result = EndRun(run.get());
  return run;
}

RunResult FinishRun(PreparedRun* run, const exec::ExecResult& ran, const RunContext& c) {
  FinishSteps(ran, c, run);
  return EndRun(run);
}

RunResult RefuseRun(const RunRequest& request, const RunContext& c, RunResult::Outcome outcome,
                    std::string error) {
  PreparedRun run(request, c);
  run.result =
      run.trail.ok() ? Refuse(outcome, std::move(error)) : AuditRefusal(run.trail, "request");
  run.result.is_background = request.background;
  return EndRun(&run);
}

RunResult RunShellCommand(const RunRequest& request, const RunContext& c) {
  if (request.background)
    return RefuseRun(request, c, Outcome::kInvalid,
                     "a background command needs a host that outlives this call: run it through "
                     "`safesh mcp` (or a session of the library), not a one-shot run");
  std::unique_ptr<PreparedRun> run = PrepareRun(request, c);
  if (!run->ready) return std::move(run->result);
  exec::ExecResult ran = exec::Execute(run->plan, run->options);
  return FinishRun(run.get(), ran, c);
}

std::string SandboxNotice(const RunResult& r) {
  if (r.outcome != Outcome::kRan) return "";
  if (r.sandbox_mode == "landlock") return "weaker sandbox: " + r.sandbox_reason;
  if (r.sandbox_mode == "off" && r.sandbox_reason.starts_with("auto:"))
    return "no sandbox: " + r.sandbox_reason;
  return "";
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
  if (r.is_background && !r.background_id.empty()) {
    w.Key("background_id");
    w.String(r.background_id);
  }
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
  if (!r.plan.empty()) {
    w.Key("plan");
    w.BeginArray();
    for (const std::string& a : r.plan)
      w.String(a);
    w.EndArray();
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
