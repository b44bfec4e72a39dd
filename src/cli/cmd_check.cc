// `safesh check`: the policy's verdict on a command, without running anything.
#include <unistd.h>

#include <cstdlib>
#include <iostream>

#include <nlohmann/json.hpp>

#include "audit/log.h"
#include "cli/verbs.h"
#include "config/settings.h"
#include "exec/env.h"
#include "pipeline/audit_trail.h"
#include "pipeline/mask_secrets.h"
#include "policy/verdict.h"
#include "util/random_id.h"

namespace safesh::cli {

void AddCheckCommand(CLI::App& app, CheckArgs& args) {
  CLI::App* cmd = app.add_subcommand(
      "check", "Say whether the policy allows COMMAND, needs approval for it, or denies it");
  cmd->add_option("--config", args.config,
                  "Settings file (TOML), over the user's and the workspace's settings")
      ->type_name("FILE");
  cmd->add_option("--workspace", args.workspace,
                  "The workspace whose .safesh/settings.toml applies (default: the current "
                  "directory)")
      ->type_name("DIR");
  cmd->add_flag("--json", args.json, "Print the verdict as a JSON object");
  cmd->add_flag("--jsonl", args.jsonl,
                "Read one command per line from standard input, each a JSON string (or a JSON "
                "array: an argv), and print one JSON verdict per line");
  cmd->add_flag("--argv", args.argv_mode,
                "Judge the words after -- as an argv run without a shell");
  cmd->add_option("command", args.words, "The command line (use -- before it)")
      ->type_name("COMMAND");
  cmd->footer(
      "Exit status: 0 allow, 1 ask (needs approval), 2 deny, 64 usage error, 78 bad settings.\n"
      "Each verdict is recorded in the audit log (see safesh audit); when it cannot be, a\n"
      "warning says so on standard error and the exit status is the verdict's.\n"
      "Settings: ~/.config/safesh/settings.toml, then the workspace's .safesh/settings.toml,\n"
      "then --config (see `safesh config show`). Without any file there are no rules: every\n"
      "command needs approval, except searches of the whole disk or home folder, which are\n"
      "denied.");
}

namespace {

int ExitCode(policy::Decision d) {
  switch (d) {
    case policy::Decision::kAllow:
      return 0;
    case policy::Decision::kAsk:
      return 1;
    case policy::Decision::kDeny:
      return 2;
  }
  return 1;
}

void PrintText(const policy::Verdict& v) {
  std::cout << policy::DecisionName(v.decision) << ": " << v.reason << "\n";
  for (const policy::JudgedCommand& c : v.commands) {
    std::cout << "  ";
    if (c.use.pos.line > 0) std::cout << shell::FormatPosition(c.use.pos) << "  ";
    std::cout << policy::RoleName(c.use.role) << "  " << policy::ShowArgv(c.use.argv);
    if (!c.use.via.empty()) std::cout << "  (via " << c.use.via << ")";
    if (!c.matched.empty()) std::cout << "  [" << c.matched << "]";
    std::cout << "\n";
  }
}

// Each verdict goes to the audit log, masked like everything else safesh writes; a log that
// cannot be written is said once on stderr (nothing runs here, so nothing is refused).
class CheckAudit {
 public:
  explicit CheckAudit(const config::Settings& settings) : log_(audit::DefaultAuditDir()) {
    exec::EnvRules rules;
    if (settings.sandbox.scrub_env) rules.scrub = *settings.sandbox.scrub_env;
    secrets_ = exec::BuildChildEnv(exec::CurrentEnvironment(), rules).secrets;
    redaction_ = audit::Redaction(secrets_, rules.scrub);
    char buf[4096];
    if (getcwd(buf, sizeof buf) != nullptr) cwd_ = buf;
  }

  // Records the verdict on `command` (or `argv`), then masks secrets in it for printing.
  void Record(const std::string* command, const std::vector<std::string>* argv,
              policy::Verdict* v) {
    audit::Record r("check", util::RandomHex(8), &redaction_);
    r.Str("client", "check");
    r.Str("cwd", cwd_);
    if (command != nullptr) r.Str("command", *command);
    if (argv != nullptr) r.Strs("argv", *argv);
    pipeline::AddVerdict(*v, &r);
    std::string error;
    if (!log_.Append(r, &error) && !warned_) {
      std::cerr << "safesh check: warning: the verdict was not recorded in the audit log: " << error
                << "\n";
      warned_ = true;
    }
    pipeline::MaskSecrets(v, secrets_);
  }

 private:
  audit::Log log_;
  std::vector<exec::Secret> secrets_;
  audit::Redaction redaction_;
  std::string cwd_;
  bool warned_ = false;
};

// One line of --jsonl input: a JSON string (a command line) or an array of strings (an argv).
std::string JudgeLine(const policy::Policy* p, const std::string& line,
                      const policy::JudgeOptions& options, CheckAudit* audit) {
  nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_string()) {
    std::string command = j.get<std::string>();
    policy::Verdict v = policy::Judge(p, command, options);
    audit->Record(&command, nullptr, &v);
    return policy::VerdictJson(v);
  }
  if (j.is_array() && !j.empty() &&
      std::all_of(j.begin(), j.end(), [](const nlohmann::json& e) { return e.is_string(); })) {
    std::vector<std::string> argv = j.get<std::vector<std::string>>();
    policy::Verdict v = policy::JudgeArgv(p, argv, options);
    audit->Record(nullptr, &argv, &v);
    return policy::VerdictJson(v);
  }
  nlohmann::json err = {{"error", j.is_discarded()
                                      ? "the line is not valid JSON: write each command as a "
                                        "JSON string, or an argv as a JSON array of strings"
                                      : "expected a JSON string (a command line) or a non-empty "
                                        "array of strings (an argv)"}};
  return err.dump();
}

}  // namespace

int RunCheck(const CheckArgs& args) {
  config::Settings settings;
  std::optional<policy::Policy> compiled;
  if (!LoadRules("check", WorkspaceDir(args.workspace), args.config, &settings, &compiled))
    return kExitConfig;
  const policy::Policy* p = compiled ? &*compiled : nullptr;
  policy::JudgeOptions options;
  options.home = HomeFolder();
  CheckAudit audit(settings);

  if (args.jsonl) {
    if (!args.words.empty() || args.argv_mode) {
      std::cerr << "safesh check: --jsonl reads commands from standard input; give no COMMAND\n";
      return kExitUsage;
    }
    std::ios::sync_with_stdio(false);
    std::string line, out;
    while (std::getline(std::cin, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      out = JudgeLine(p, line, options, &audit);
      out += '\n';
      std::cout << out;
    }
    std::cout.flush();
    return std::cout ? 0 : 1;
  }
  if (args.words.empty()) {
    std::cerr << "safesh check: give the command to judge, e.g. safesh check -- 'ls -la'\n";
    return kExitUsage;
  }
  policy::Verdict v;
  if (args.argv_mode) {
    v = policy::JudgeArgv(p, args.words, options);
    audit.Record(nullptr, &args.words, &v);
  } else {
    if (args.words.size() > 1) {
      std::cerr << "safesh check: give the command line as one argument (quote it), or use "
                   "--argv to judge separate words as an argv\n";
      return kExitUsage;
    }
    if (args.words[0].find_first_not_of(" \t\r\n") == std::string::npos) {
      std::cerr << "safesh check: the command is empty\n";
      return kExitUsage;
    }
    v = policy::Judge(p, args.words[0], options);
    audit.Record(&args.words[0], nullptr, &v);
  }
  if (args.json) {
    std::cout << policy::VerdictJson(v) << "\n";
  } else {
    PrintText(v);
  }
  return ExitCode(v.decision);
}

}  // namespace safesh::cli
