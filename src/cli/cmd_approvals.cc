// `safesh approvals`: the remembered "always" answers, listed or revoked.
#include <iostream>

#include "approval/store.h"
#include "audit/log.h"
#include "audit/record.h"
#include "audit/redact.h"
#include "cli/verbs.h"
#include "exec/env.h"
#include "util/json_writer.h"
#include "util/random_id.h"
#include "util/shell_quote.h"

namespace safesh::cli {

void AddApprovalsCommand(CLI::App& app, ApprovalsArgs& args) {
  CLI::App* cmd = app.add_subcommand(
      "approvals", "List the approvals remembered when you answered \"always\", or revoke them");
  cmd->add_flag("--json", args.json, "Print the list as a JSON object");
  cmd->footer(
      "An approval is the exact text of one command in one workspace: any other command, or\n"
      "the same one elsewhere, is asked about again. Commands are shown with secrets masked.\n"
      "Exit status: 0; 1 the approvals file cannot be read or an id names nothing; 64 usage.");
  CLI::App* revoke = cmd->add_subcommand("revoke", "Forget remembered approvals");
  revoke->add_option("id", args.ids, "The ids to revoke (see safesh approvals)")->type_name("ID");
  revoke->add_flag("--all", args.all, "Revoke every remembered approval");
  revoke->footer("Exit status: 0; 1 an id names nothing or the file cannot be changed; 64 usage.");
  revoke->callback([&args] { args.revoke = true; });
}

namespace {

// For a person: a command with secrets masked, and on one line (escaped when it holds a line
// break or anything a terminal would not show as written).
std::string Shown(const std::string& text, const audit::Redaction& redaction) {
  std::string masked = redaction.Apply(text);
  if (util::HasHiddenCharacters(masked) || masked.find('\n') != std::string::npos)
    return util::ShellQuote(masked);
  return masked;
}

audit::Redaction CurrentRedaction() {
  exec::EnvRules rules;
  return audit::Redaction(exec::BuildChildEnv(exec::CurrentEnvironment(), rules).secrets,
                          rules.scrub);
}

int List(const ApprovalsArgs& args, const std::string& file) {
  std::vector<approval::Remembered> list;
  std::string error;
  if (!approval::LoadApprovals(file, &list, &error)) {
    std::cerr << "safesh approvals: " << error << "\n";
    return 1;
  }
  audit::Redaction redaction = CurrentRedaction();
  if (args.json) {
    std::string out;
    util::JsonWriter w(&out);
    w.BeginObject();
    w.Key("file");
    w.String(file);
    w.Key("approvals");
    w.BeginArray();
    for (const approval::Remembered& r : list) {
      w.BeginObject();
      w.Key("id");
      w.String(r.id);
      w.Key("kind");
      w.String(r.kind);
      w.Key("workspace");
      w.String(r.workspace);
      w.Key("command");
      w.String(redaction.Apply(r.target));
      w.Key("created");
      w.String(r.created);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
    std::cout << out << "\n";
    return 0;
  }
  if (list.empty()) {
    std::cout << "No remembered approvals (" << file << ").\n";
    return 0;
  }
  for (const approval::Remembered& r : list) {
    std::cout << r.id << "  " << r.created.substr(0, 16) << "Z  " << Shown(r.workspace, redaction)
              << "\n    " << Shown(r.target, redaction) << "\n";
  }
  return 0;
}

int Revoke(const ApprovalsArgs& args, const std::string& file) {
  if (args.all == !args.ids.empty()) {
    std::cerr << "safesh approvals revoke: give the ids to revoke (see safesh approvals), or "
                 "--all\n";
    return kExitUsage;
  }
  std::vector<approval::Remembered> removed;
  std::string error;
  if (!approval::RevokeApprovals(file, args.ids, args.all, &removed, &error)) {
    std::cerr << "safesh approvals revoke: " << error << "\n";
    return 1;
  }
  // Revoking is recorded like approving: the audit log says who could run what, and when.
  audit::Redaction redaction = CurrentRedaction();
  audit::Log log(audit::DefaultAuditDir());
  int status = 0;
  for (const approval::Remembered& r : removed) {
    std::cout << "revoked " << r.id << ": " << Shown(r.target, redaction) << "\n";
    audit::Record record("approval_revoked", util::RandomHex(8), &redaction);
    record.Str("approval_id", r.id);
    record.Str("kind", r.kind);
    record.Str("workspace", r.workspace);
    record.Str("command", r.target);
    if (!log.Append(record, &error)) {
      std::cerr << "safesh approvals revoke: warning: not recorded in the audit log: " << error
                << "\n";
    }
  }
  for (const std::string& id : args.ids) {
    bool found = false;
    for (const approval::Remembered& r : removed)
      found = found || r.id == id;
    if (!found) {
      std::cerr << "safesh approvals revoke: no remembered approval has the id "
                << util::ShellQuote(id) << " (see safesh approvals)\n";
      status = 1;
    }
  }
  if (args.all && removed.empty()) std::cout << "No remembered approvals to revoke.\n";
  return status;
}

}  // namespace

int RunApprovals(const ApprovalsArgs& args) {
  std::string file = approval::DefaultApprovalsFile();
  if (file.empty()) {
    std::cerr << "safesh approvals: no state folder: set HOME or XDG_STATE_HOME\n";
    return 1;
  }
  return args.revoke ? Revoke(args, file) : List(args, file);
}

}  // namespace safesh::cli
