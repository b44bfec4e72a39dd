// `safesh audit`: the audit log since a time, for people or as JSON lines.
#include <iostream>

#include <nlohmann/json.hpp>

#include "audit/log.h"
#include "audit/read.h"
#include "cli/verbs.h"
#include "util/shell_quote.h"
#include "util/utc_time.h"

namespace safesh::cli {

void AddAuditCommand(CLI::App& app, AuditArgs& args) {
  CLI::App* cmd = app.add_subcommand(
      "audit", "Show the audit log: every request, verdict, approval and run, secrets masked");
  cmd->add_option("--since", args.since,
                  "From when: a UTC date or time (2026-11-30, 2026-11-30T14:00) or a duration "
                  "back from now (90m, 12h, 7d, 2w); default 24h")
      ->type_name("WHEN");
  cmd->add_flag("--json", args.json, "Print each record as the JSON line it is stored as");
  cmd->footer(
      "The log is one file per UTC day in $XDG_STATE_HOME/safesh/audit (or\n"
      "~/.local/state/safesh/audit). Exit status: 0; 1 the log cannot be read; 64 usage.");
}

namespace {

std::string Text(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return "";
  std::string s = it->is_string() ? it->get<std::string>() : it->dump();
  // What the log holds came from commands: nothing in it may move the cursor, change colours
  // or pass for a line of its own on the terminal.
  if (util::HasHiddenCharacters(s) || s.find('\n') != std::string::npos) return util::ShellQuote(s);
  return s;
}

std::string Summary(const nlohmann::json& j, const std::string& event) {
  auto with = [](const std::string& label, const std::string& value) {
    return value.empty() ? std::string() : label + value;
  };
  if (event == "request") {
    return Text(j, "client") + ": " + Text(j, "command") + "  (in " + Text(j, "workspace") +
           with(", cwd ", Text(j, "cwd")) + (j.value("dry_run", false) ? ", dry run" : "") + ")";
  }
  if (event == "check") {
    std::string what = j.contains("argv") ? Text(j, "argv") : Text(j, "command");
    return what + "  → " + Text(j, "decision") + ": " + Text(j, "reason");
  }
  if (event == "hook") {
    return Text(j, "client") + ": " + Text(j, "command") + "  → " + Text(j, "answer") + ": " +
           Text(j, "reason") + with("  remembered approval ", Text(j, "approval_id")) +
           (j.value("sandboxed", false) ? "  (runs in safesh run)" : "");
  }
  if (event == "verdict") {
    std::string matched = Text(j, "matched");
    return Text(j, "decision") + ": " + Text(j, "reason") +
           (matched == "[]" ? "" : "  matched " + matched);
  }
  if (event == "approval_asked") {
    std::string unreadable = Text(j, "approvals_error");
    return Text(j, "reason") +
           (unreadable.empty() ? "" : "  (remembered approvals unreadable: " + unreadable + ")");
  }
  if (event == "approval") {
    return Text(j, "answer") + " (" + Text(j, "by") + ")" +
           with("  approval ", Text(j, "approval_id")) +
           with("  not remembered: ", Text(j, "remember_error"));
  }
  if (event == "start") return Text(j, "sandbox") + ": " + Text(j, "sandbox_reason");
  if (event == "exit" || event == "timeout" || event == "cancelled") {
    std::string s = event == "exit"      ? "exit " + Text(j, "exit_code")
                    : event == "timeout" ? std::string("timed out")
                                         : std::string("cancelled");
    s +=
        " after " + Text(j, "duration_ms") + " ms, " + Text(j, "output_bytes") + " bytes of output";
    // The error of a timeout or cancel only says so again.
    return s + (event == "exit" ? with("  ", Text(j, "error")) : "");
  }
  if (event == "denied") return Text(j, "error");
  if (event == "refused") return Text(j, "outcome") + ": " + Text(j, "error");
  if (event == "dry_run") return "nothing ran (" + Text(j, "sandbox") + ")";
  if (event == "approval_revoked") {
    return Text(j, "approval_id") + ": " + Text(j, "command") + "  (in " + Text(j, "workspace") +
           ")";
  }
  std::string all = j.dump();
  return util::HasHiddenCharacters(all) ? util::ShellQuote(all) : all;
}

}  // namespace

int RunAudit(const AuditArgs& args) {
  int64_t since = 0;
  if (!audit::ParseSince(args.since, util::NowUnixMs(), &since)) {
    std::cerr << "safesh audit: --since " << util::ShellQuote(args.since)
              << " is neither a UTC date or time (2026-11-30, 2026-11-30T14:00:00Z) nor a "
                 "duration (90m, 12h, 7d)\n";
    return kExitUsage;
  }
  std::string dir = audit::DefaultAuditDir();
  if (dir.empty()) {
    std::cerr << "safesh audit: no state folder: set HOME or XDG_STATE_HOME\n";
    return 1;
  }
  audit::ReadResult read;
  std::string error;
  if (!audit::ReadRecords(dir, since, &read, &error)) {
    std::cerr << "safesh audit: " << error << "\n";
    return 1;
  }
  for (const std::string& line : read.records) {
    if (args.json) {
      std::cout << line << "\n";
      continue;
    }
    nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    std::string ts = Text(j, "ts"), id = Text(j, "id"), event = Text(j, "event");
    // 2026-11-30 01:56:28Z  1a2b3c4d  request    run: ...
    std::string when = ts.size() >= 19 ? ts.substr(0, 10) + " " + ts.substr(11, 8) + "Z" : ts;
    event.resize(std::max<size_t>(event.size(), 14), ' ');
    std::cout << when << "  " << id.substr(0, 8) << "  " << event << " "
              << Summary(j, Text(j, "event")) << "\n";
  }
  if (read.damaged > 0) {
    std::cerr << "safesh audit: skipped " << read.damaged
              << (read.damaged == 1 ? " damaged line" : " damaged lines")
              << " (a record torn by a crash or a full disk)\n";
  }
  return 0;
}

}  // namespace safesh::cli
