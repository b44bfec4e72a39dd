// `safesh hook claude|codex|gemini`: an agent's pre-tool hook. Reads the tool call on stdin,
// judges a shell command with the same settings layers, project trust, remembered approvals and
// audit log as `safesh check` and `safesh run`, and prints the answer the agent expects
// (hooks/hook.h). Anything that keeps safesh from answering blocks the call: exit 2 with the
// reason on stderr.
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <exception>
#include <iostream>

#include "approval/store.h"
#include "audit/log.h"
#include "audit/record.h"
#include "cli/verbs.h"
#include "exec/env.h"
#include "hooks/hook.h"
#include "pipeline/approve.h"
#include "pipeline/audit_trail.h"
#include "pipeline/mask_secrets.h"
#include "pipeline/run_shell_command.h"
#include "pipeline/validate.h"
#include "policy/verdict.h"
#include "sandbox/choose.h"
#include "util/file.h"
#include "util/random_id.h"
#include "util/shell_quote.h"
#include "util/state_dir.h"

namespace safesh::cli {

void AddHookCommand(CLI::App& app, HookArgs& args) {
  CLI::App* cmd = app.add_subcommand(
      "hook", "Answer an agent's pre-tool hook (JSON on stdin) from safesh's policy");
  cmd->add_option("agent", args.agent, "claude, codex or gemini")->type_name("AGENT");
  cmd->add_flag("--sandbox", args.sandbox,
                "claude only: allowed commands are rewritten to run through `safesh run`, "
                "inside safesh's sandbox");
  cmd->add_option("--config", args.config,
                  "Settings file (TOML), over the user's and the workspace's settings")
      ->type_name("FILE");
  cmd->add_option("--workspace", args.workspace,
                  "The workspace whose .safesh/settings.toml applies (default: the payload's "
                  "cwd)")
      ->type_name("DIR");
  cmd->footer(
      "Reads Claude Code's or Codex's PreToolUse payload, or Gemini CLI's BeforeTool payload,\n"
      "and answers for the shell tool (Bash, run_shell_command); other tools get no decision.\n"
      "Codex and Gemini CLI cannot ask a person: a command that needs approval is denied, with\n"
      "how to approve it. Each answer is recorded in the audit log (client hook-AGENT).\n"
      "Exit status: 0 answered (on stdout); 2 blocked because safesh could not answer (bad\n"
      "payload, unknown agent, bad settings, audit log not writable, internal error), the\n"
      "reason on stderr. Every agent blocks the tool call on exit 2.");
}

namespace {

// Async-signal-safe: the last words of a hook that is going down.
[[noreturn]] void Die(const char* why) {
  static const char kPrefix[] = "safesh hook: ";
  static const char kSuffix[] = ": the call is blocked\n";
  [[maybe_unused]] ssize_t n = write(STDERR_FILENO, kPrefix, sizeof kPrefix - 1);
  n = write(STDERR_FILENO, why, strlen(why));
  n = write(STDERR_FILENO, kSuffix, sizeof kSuffix - 1);
  _exit(2);
}

void OnTerminate() {
  Die("internal error (std::terminate)");
}

void OnFatalSignal(int sig) {
  switch (sig) {
    case SIGSEGV:
      Die("internal error (SIGSEGV)");
    case SIGBUS:
      Die("internal error (SIGBUS)");
    case SIGFPE:
      Die("internal error (SIGFPE)");
    case SIGILL:
      Die("internal error (SIGILL)");
    default:
      Die("internal error (SIGABRT)");
  }
}

// Reads stdin to its end, or to one byte past `limit`.
bool ReadStdin(size_t limit, std::string* text, std::string* error) {
  char buf[65536];
  for (;;) {
    ssize_t n = read(STDIN_FILENO, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *error = std::string("cannot read the hook payload: ") + strerror(errno);
      return false;
    }
    if (n == 0) return true;
    text->append(buf, static_cast<size_t>(n));
    if (text->size() > limit) return true;
  }
}

// The layered settings and their rules, as LoadRules reads them, with the error kept for the
// reply instead of printed.
bool LoadHookRules(const std::string& workspace, const std::string& config,
                   config::Settings* settings, std::optional<policy::Policy>* policy,
                   std::string* error) {
  std::optional<config::LayeredSettings> layered =
      config::LoadLayered(LayerSourcesFor(workspace, config), error);
  if (!layered) return false;
  if (!layered->files.empty()) {
    *policy = policy::Policy::Compile(layered->settings.commands, error);
    if (!*policy) return false;
  }
  *settings = std::move(layered->settings);
  return true;
}

std::string Absolute(const std::string& path) {
  if (path.empty() || path[0] == '/') return path;
  return CurrentDir() + "/" + path;
}

// The folders a sandboxed command may write, as RunShellCommand makes them: remembered
// approvals kept in one of them are not trusted.
std::vector<std::string> WritableRoots(const std::string& workspace, const config::Settings& s,
                                       const std::string& home) {
  std::vector<std::string> roots = {workspace};
  for (const std::string& p : s.sandbox.writable_paths) {
    if (p == "~") {
      roots.push_back(home);
    } else if (p.starts_with("~/") && !home.empty()) {
      roots.push_back(home + p.substr(1));
    } else if (!p.empty() && p[0] != '/') {
      roots.push_back(workspace + "/" + p);
    } else {
      roots.push_back(p);
    }
  }
  return roots;
}

// The command as a person should see it in a prompt: escaped where a terminal would hide
// something, and not endless.
std::string Shown(const std::string& command) {
  constexpr size_t kMax = 2000;
  std::string s = util::ShellQuote(command);
  if (s.size() <= kMax) return s;
  size_t cut = kMax;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80)
    --cut;
  return s.substr(0, cut) + "… (" + std::to_string(command.size()) + " bytes)";
}

hooks::Reply Answer(const HookArgs& args) {
  // For the tests of the crash paths: each of these must still block the call.
  if (const char* f = std::getenv("SAFESH_HOOK_FAULT"); f != nullptr) {
    std::string fault = f;
    if (fault == "throw") throw std::runtime_error("fault injected by SAFESH_HOOK_FAULT");
    if (fault == "terminate") std::terminate();
    if (fault == "segv") raise(SIGSEGV);
    if (fault == "abort") abort();
  }

  std::optional<hooks::Agent> agent = hooks::ParseAgent(args.agent);
  if (!agent) {
    return hooks::Blocked(
        (args.agent.empty() ? std::string("no agent given")
                            : "unknown agent " + util::ShellQuote(args.agent)) +
        ": use `safesh hook claude`, `safesh hook codex` or `safesh hook gemini`");
  }
  if (args.sandbox && *agent != hooks::Agent::kClaude) {
    return hooks::Blocked(
        std::string("--sandbox works only with claude: ") + hooks::AgentTitle(*agent) +
        (*agent == hooks::Agent::kCodex
             ? " releases before updatedInput support take a rewritten command as an invalid "
               "answer and run the original one, outside the sandbox"
             : " merges a rewritten tool_input into the call, but safesh does not rewrite "
               "run_shell_command calls yet") +
        "; remove --sandbox from the hook, or point the agent at `safesh mcp`");
  }

  std::string payload, error;
  if (!ReadStdin(hooks::kMaxPayloadBytes, &payload, &error)) return hooks::Blocked(error);
  if (payload.size() > hooks::kMaxPayloadBytes) {
    return hooks::Blocked("the hook payload is larger than " +
                          std::to_string(hooks::kMaxPayloadBytes / (1024 * 1024)) +
                          " MiB: this is not a tool call safesh answers");
  }
  hooks::ToolCall call;
  if (!hooks::ParseToolCall(*agent, payload, &call, &error)) return hooks::Blocked(error);
  if (!call.shell) return hooks::PassThrough(*agent);

  // The workspace: --workspace, else the session's directory.
  std::string workspace = args.workspace.empty() ? call.cwd : WorkspaceDir(args.workspace);
  struct stat st;
  if (workspace.empty() || workspace[0] != '/' || workspace.find('\0') != std::string::npos ||
      stat(workspace.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return hooks::Blocked(workspace.empty()
                              ? "the hook payload has no cwd (give --workspace)"
                              : "the workspace " + util::ShellQuote(workspace) +
                                    " is not an existing directory (an absolute path)");
  }
  std::string config_file = Absolute(args.config);
  config::Settings settings;
  std::optional<policy::Policy> compiled;
  if (!LoadHookRules(workspace, config_file, &settings, &compiled, &error))
    return hooks::Blocked("bad settings: " + error);
  std::string home = HomeFolder();
  policy::JudgeOptions options;
  options.home = home;
  policy::Verdict v = policy::Judge(compiled ? &*compiled : nullptr, call.command, options);

  // An ask that a person answered "always" before, for this command in this workspace.
  std::string approval_id, approvals_error;
  if (v.decision == policy::Decision::kAsk) {
    std::optional<approval::Remembered> r = pipeline::FindRememberedApproval(
        approval::DefaultApprovalsFile(), pipeline::ApprovalWorkspace(workspace), call.command,
        WritableRoots(workspace, settings, home), home, &approvals_error);
    if (r) approval_id = r->id;
  }
  // A remembered "always" answers the ask.
  hooks::Decision decision = v.decision == policy::Decision::kAsk && !approval_id.empty()
                                 ? policy::Decision::kAllow
                                 : v.decision;
  // --sandbox where `safesh run` would find no sandbox: nothing runs unasked there (as in
  // pipeline/run_shell_command.cc), so the person is asked in the agent's prompt, and the run is
  // given that approval.
  if (args.sandbox && decision == hooks::Decision::kAllow) {
    sandbox::SandboxRequest want;
    want.shell = settings.sandbox.shell;  // SAFESH_SANDBOX_SHELL applied as a settings layer
    if (const char* l = getenv("SAFESH_SANDBOX_LAUNCHER")) want.launcher = l;
    if (const char* b = getenv("SAFESH_BWRAP")) want.bwrap = b;
    want.allow_network = settings.sandbox.allow_network;
    if (std::string state = util::StateDir(); !state.empty())
      want.probe_cache_file = state + "/bwrap-probe";
    sandbox::SandboxChoice choice = sandbox::ChooseSandbox(want, nullptr);
    if (choice.error.empty() && choice.kind == sandbox::SandboxChoice::kOff) {
      decision = hooks::Decision::kAsk;
      v.reason = std::string(pipeline::kAskedWithoutSandbox) + " (" + v.reason + ")";
    }
  }

  // Secrets of this environment are masked in what is recorded and in the reason.
  exec::EnvRules scrub;
  if (settings.sandbox.scrub_env) scrub.scrub = *settings.sandbox.scrub_env;
  std::vector<exec::Secret> secrets =
      exec::BuildChildEnv(exec::CurrentEnvironment(), scrub).secrets;
  audit::Redaction redaction(secrets, scrub.scrub);

  // --sandbox: what runs is `safesh run` with the same workspace and settings, which judges the
  // same command again and reaches the same verdict; an ask is approved in Claude Code's prompt.
  std::string updated_input;
  if (args.sandbox && decision != hooks::Decision::kDeny) {
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return hooks::Blocked("cannot find this program (/proc/self/exe)");
    hooks::SandboxedRun run;
    run.safesh.assign(exe, static_cast<size_t>(n));
    if (access(run.safesh.c_str(), X_OK) != 0) {
      return hooks::Blocked("this program " + util::ShellQuote(run.safesh) +
                            " cannot be run again (replaced or removed since it started?)");
    }
    run.workspace = workspace;
    run.config = config_file;
    if (call.timeout_ms && std::isfinite(*call.timeout_ms) && *call.timeout_ms > 0) {
      run.timeout_seconds = static_cast<int>(
          std::min(std::ceil(*call.timeout_ms / 1000.0), pipeline::kMaxTimeoutSeconds));
    }
    run.approved = decision == hooks::Decision::kAsk;
    run.command = call.command;
    std::string line = hooks::SandboxedCommandLine(run, &error);
    if (line.empty()) return hooks::Blocked(error);
    // The agent's shell gets the line as one argument, which Linux caps at 128 KiB: a longer
    // line would fail to start with an error that explains nothing.
    if (line.size() > pipeline::kMaxCommandBytes) {
      decision = hooks::Decision::kDeny;
      v.reason = "the command is too long to run in safesh's sandbox (" +
                 std::to_string(call.command.size()) +
                 " bytes; base64-encoded for `safesh run` it must stay under 128 KiB, so about "
                 "95 KiB): split it into shorter commands";
      approval_id.clear();
    } else {
      updated_input = hooks::ReplaceCommand(call.tool_input, line);
    }
  }

  // The record of the answer. Without it the call is blocked: the audit log is the record of
  // what an agent did.
  std::string client = std::string("hook-") + hooks::AgentName(*agent);
  const char* answer = decision == hooks::Decision::kAllow  ? "allow"
                       : decision == hooks::Decision::kDeny ? "deny"
                       : *agent == hooks::Agent::kClaude    ? "ask"
                                                            : "deny";
  {
    audit::Log log(audit::DefaultAuditDir());
    audit::Record r("hook", util::RandomHex(8), &redaction);
    r.Str("client", client);
    r.Str("workspace", workspace);
    r.StrOrNull("cwd", call.cwd);
    r.StrOrNull("session_id", call.session_id);
    r.Str("tool", call.tool_name);
    r.Str("command", call.command);
    pipeline::AddVerdict(v, &r);
    r.Str("answer", answer);
    r.StrOrNull("approval_id", approval_id);
    r.StrOrNull("approvals_error", approvals_error);
    r.Bool("sandboxed", !updated_input.empty());
    if (!log.Append(r, &error)) {
      return hooks::Blocked("the answer could not be recorded in the audit log (" + error +
                            "); safesh does not let a command it cannot record run");
    }
  }

  pipeline::MaskSecrets(&v, secrets);
  std::string reason;
  switch (decision) {
    case hooks::Decision::kAllow:
      reason = approval_id.empty() ? "safesh: allowed: " + v.reason
                                   : "safesh: approved before (remembered approval " + approval_id +
                                         ", see `safesh approvals`)";
      break;
    case hooks::Decision::kDeny:
      reason = "safesh: blocked by command policy: " + v.reason;
      break;
    case hooks::Decision::kAsk:
      if (*agent == hooks::Agent::kClaude) {
        reason = "safesh: " + v.reason;
        if (!updated_input.empty())
          reason +=
              "; approved, it runs in safesh's sandbox: " + Shown(redaction.Apply(call.command));
      } else {
        reason = "safesh: blocked by command policy: " + v.reason + ". " +
                 hooks::AgentTitle(*agent) +
                 " hooks cannot ask a person, so safesh denies it. To allow it, run it once "
                 "yourself at a terminal with `safesh run --workspace " +
                 util::ShellQuote(workspace) +
                 " -- COMMAND` and answer \"always\" (remembered for this exact command in this "
                 "workspace, see `safesh approvals`), or add a pattern for it to [commands] "
                 "auto_approve in ~/.config/safesh/settings.toml";
      }
      if (!approvals_error.empty())
        reason += " (remembered approvals were not used: " + approvals_error + ")";
      break;
  }
  return hooks::Answer(*agent, decision, reason, updated_input);
}

}  // namespace

void InstallHookCrashHandlers() {
  std::set_terminate(OnTerminate);
  struct sigaction sa {};
  sa.sa_handler = OnFatalSignal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND;
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT})
    sigaction(sig, &sa, nullptr);
  // A reader that went away must not kill the hook silently: the write fails and is reported.
  signal(SIGPIPE, SIG_IGN);
}

int RunHook(const HookArgs& args) {
  hooks::Reply reply;
  try {
    reply = Answer(args);
  } catch (const std::exception& e) {
    reply = hooks::Blocked(std::string("internal error: ") + e.what());
  } catch (...) {
    reply = hooks::Blocked("internal error");
  }
  // A blocked call says so on stderr and nothing on stdout; an answer that cannot be written
  // whole is no answer.
  if (reply.exit_code == 0 && !util::WriteAll(STDOUT_FILENO, reply.out)) {
    util::WriteAll(STDERR_FILENO,
                   "safesh hook: the answer could not be written to standard output: " +
                       std::string(strerror(errno)) + "\n");
    return 2;
  }
  if (reply.exit_code != 0) reply.exit_code = 2;
  if (!reply.err.empty()) util::WriteAll(STDERR_FILENO, reply.err);
  return reply.exit_code;
}

}  // namespace safesh::cli
