// `safesh run`: judge a command, ask if needed, run it, print its output (or the result object).
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>

#include "approval/store.h"
#include "audit/log.h"
#include "cli/verbs.h"
#include "exec/cancel.h"
#include "exec/env.h"
#include "exec/spool.h"
#include "pipeline/run_shell_command.h"
#include "util/base64.h"
#include "util/shell_quote.h"

namespace safesh::cli {

void AddRunCommand(CLI::App& app, RunArgs& args) {
  CLI::App* cmd =
      app.add_subcommand("run", "Judge COMMAND, ask when the policy says so, and run it with bash");
  cmd->add_option("--config", args.config,
                  "Settings file (TOML), over the user's and the workspace's settings")
      ->type_name("FILE");
  cmd->add_option("--workspace", args.workspace,
                  "The workspace root: the default cwd, and where a cwd must be (default: the "
                  "current directory)")
      ->type_name("DIR");
  cmd->add_option("--cwd", args.cwd, "Where the command runs (inside the workspace)")
      ->type_name("DIR");
  cmd->add_option("--timeout", args.timeout,
                  "Seconds before the command is killed (default [tools] "
                  "shell_timeout_seconds, 120; at most 1800)")
      ->type_name("S");
  cmd->add_flag("--json", args.json, "Print the result as a JSON object");
  cmd->add_flag("--dry-run", args.dry_run,
                "Judge the command and build its sandbox, print what would be executed (the "
                "bubblewrap command line), and run nothing");
  cmd->add_flag("--background", args.background,
                "Refused: a background command needs a host that stays running to keep it, "
                "watch it and end it; use `safesh mcp` (run_shell_command with background: true, "
                "then manage_background_process)");
  cmd->add_option("--approve", args.approve,
                  "When the policy asks: ask (at the terminal), yes, or no (default: ask at a "
                  "terminal, otherwise the [approvals] headless answer). A remembered approval "
                  "answers before any of these")
      ->check(CLI::IsMember({"ask", "yes", "no"}));
  cmd->add_option("--command-base64", args.command_base64,
                  "The command line, base64-encoded (RFC 4648, with padding), instead of "
                  "COMMAND; given more than once, the pieces are joined in order. No shell "
                  "reads it on the way: `safesh hook claude --sandbox` passes commands so")
      ->type_name("B64")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("command", args.words, "The command line (use -- before it)")
      ->type_name("COMMAND");
  cmd->footer(
      "Exit status: the command's; 124 timed out; 125 stopped at a resource limit ([sandbox]\n"
      "max_processes, memory_limit); 130 cancelled; 128+N killed by signal N; 77 denied or not\n"
      "approved; 69 sandbox required but unavailable; 64 bad request; 70 could not be started\n"
      "(also when the audit log cannot be written); 78 bad settings.\n"
      "Approvals answered \"always\" are remembered for the exact command in this workspace\n"
      "(see safesh approvals); every request is recorded in the audit log (see safesh audit).");
}

namespace {

const exec::CancelToken* g_cancel = nullptr;

void OnSignal(int) {
  if (g_cancel != nullptr) g_cancel->Cancel();
}

int ExitCodeFor(const pipeline::RunResult& r) {
  using O = pipeline::RunResult::Outcome;
  switch (r.outcome) {
    case O::kInvalid:
      return kExitUsage;
    case O::kDenied:
    case O::kNotApproved:
      return 77;
    case O::kSandboxUnavailable:
      return 69;
    case O::kFailedToStart:
      return 70;
    case O::kRan:
      break;
  }
  if (r.timed_out) return 124;
  if (r.cancelled) return 130;
  if (r.limits.stopped) return kExitLimit;
  if (r.exit_code >= 0) return r.exit_code;
  return 70;
}

}  // namespace

int RunRun(const RunArgs& args) {
  if (args.background) {
    // `safesh run` ends when its command does, and nothing it started may outlive it: there is
    // no one left to read a background command's output, tell the agent it ended, or kill it.
    std::cerr << "safesh run: --background is not available in a one-shot run: nothing would be "
                 "left to collect the command's output, report its end or kill it, and safesh "
                 "lets nothing it started outlive it. Run safesh as a server instead: `safesh "
                 "mcp` keeps background processes (run_shell_command with background: true, "
                 "then manage_background_process to list, read and kill them)\n";
    return kExitUsage;
  }
  std::string command;
  if (!args.command_base64.empty()) {
    std::string joined;
    for (const std::string& piece : args.command_base64)
      joined += piece;
    if (!args.words.empty()) {
      std::cerr << "safesh run: give the command either as COMMAND or with --command-base64, "
                   "not both\n";
      return kExitUsage;
    }
    if (!util::Base64Decode(joined, &command)) {
      std::cerr << "safesh run: --command-base64 is not valid base64 (RFC 4648, standard "
                   "alphabet, with padding)\n";
      return kExitUsage;
    }
  } else if (args.words.size() != 1) {
    std::cerr << (args.words.empty()
                      ? "safesh run: give the command to run, e.g. safesh run -- 'make test'\n"
                      : "safesh run: give the command line as one argument (quote it)\n");
    return kExitUsage;
  } else {
    command = args.words[0];
  }
  RunHost host;
  if (int code = PrepareRunHost("run", args.workspace, args.config, &host); code != 0) return code;
  pipeline::RunContext& context = host.context;
  context.client = "run";

  if (args.approve == "yes") {
    context.prompter = [](const approval::ApprovalRequest&) { return approval::Answer::kApprove; };
  } else if (args.approve == "no") {
    context.prompter = [](const approval::ApprovalRequest&) { return approval::Answer::kDeny; };
  } else if (args.approve == "ask" || isatty(STDIN_FILENO)) {
    context.prompter = approval::AskAtTerminal;
  }

  // Orphans of the command come back to safesh if its guard is killed (see exec/guard.h).
  context.caller_is_subreaper = prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0;
  // A SIGCHLD ignored by whoever started safesh would make exit statuses vanish.
  signal(SIGCHLD, SIG_DFL);
  signal(SIGPIPE, SIG_IGN);
  exec::CancelToken cancel;
  g_cancel = &cancel;
  context.cancel = &cancel;
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP})
    sigaction(sig, &sa, nullptr);

  pipeline::RunRequest request;
  request.command = command;
  request.cwd = args.cwd;
  request.timeout_seconds = args.timeout;
  request.dry_run = args.dry_run;
  pipeline::RunResult result = pipeline::RunShellCommand(request, context);

  if (args.dry_run && !args.json && !result.plan.empty()) {
    std::string line;
    for (const std::string& a : result.plan)
      line += (line.empty() ? "" : " ") + util::ShellQuote(a);
    std::cout << line << "\n";
    std::cerr << "safesh: dry run, nothing ran (" << result.sandbox_reason
              << "; descriptor 3 would be the seccomp filter, 4 the Landlock ruleset, 5 "
                 "safesh-confine, 6 the list of mounts it checks, and each --bind-fd or "
                 "--ro-bind-fd descriptor the path after it, opened without following links)\n";
  } else if (args.json) {
    std::cout << pipeline::RunResultJson(result) << "\n";
  } else {
    std::cout << result.output;
    std::cout.flush();
    if (!result.error.empty()) std::cerr << "safesh: " << result.error << "\n";
    if (!result.advice.empty()) std::cerr << "safesh: advice: " << result.advice << "\n";
    // Neither "auto" nor the Landlock sandbox is weaker than bubblewrap silently.
    if (std::string notice = pipeline::SandboxNotice(result); !notice.empty())
      std::cerr << "safesh: note: " << notice << "\n";
    // Nor does the blocked-name scan stop short silently.
    if (!result.sandbox_note.empty()) std::cerr << "safesh: note: " << result.sandbox_note << "\n";
    // Nor do the limits, when a cgroup that looked usable could not be made.
    if (result.limits.fell_back)
      std::cerr << "safesh: note: limits: " << result.limits.reason << "\n";
  }
  return ExitCodeFor(result);
}

}  // namespace safesh::cli
