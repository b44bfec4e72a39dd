// `safesh check`: the policy's verdict on a command, without running anything.
#include <unistd.h>

#include <cstdlib>
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli/verbs.h"
#include "config/settings.h"
#include "policy/verdict.h"

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

// One line of --jsonl input: a JSON string (a command line) or an array of strings (an argv).
std::string JudgeLine(const policy::Policy* p, const std::string& line,
                      const policy::JudgeOptions& options) {
  nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_string()) return policy::VerdictJson(policy::Judge(p, j.get<std::string>(), options));
  if (j.is_array() && !j.empty() &&
      std::all_of(j.begin(), j.end(), [](const nlohmann::json& e) { return e.is_string(); })) {
    return policy::VerdictJson(policy::JudgeArgv(p, j.get<std::vector<std::string>>(), options));
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

  if (args.jsonl) {
    if (!args.words.empty() || args.argv_mode) {
      std::cerr << "safesh check: --jsonl reads commands from standard input; give no COMMAND\n";
      return kExitUsage;
    }
    std::ios::sync_with_stdio(false);
    std::string line, out;
    while (std::getline(std::cin, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      out = JudgeLine(p, line, options);
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
  }
  if (args.json) {
    std::cout << policy::VerdictJson(v) << "\n";
  } else {
    PrintText(v);
  }
  return ExitCode(v.decision);
}

}  // namespace safesh::cli
