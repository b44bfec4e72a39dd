// safesh's command line: one verb per file under src/cli/.
#include <iostream>
#include <string_view>

#include "cli/verbs.h"
#include "safesh/version.h"

int main(int argc, char** argv) {
  // `safesh hook` must block the agent's call whatever goes wrong, from the first instruction:
  // every agent reads exit 2 as "blocked" and any other failure as "go on".
  const bool hook = argc > 1 && std::string_view(argv[1]) == "hook";
  if (hook) safesh::cli::InstallHookCrashHandlers();
  CLI::App app{"safesh: a sandboxed shell for AI coding agents"};
  app.set_version_flag("--version", std::string("safesh ") + safesh::kVersion);
  app.require_subcommand(1);
  app.fallthrough(false);

  safesh::cli::ParseArgs parse_args;
  safesh::cli::AddParseCommand(app, parse_args);
  safesh::cli::CheckArgs check_args;
  safesh::cli::AddCheckCommand(app, check_args);
  safesh::cli::RunArgs run_args;
  safesh::cli::AddRunCommand(app, run_args);
  safesh::cli::DoctorArgs doctor_args;
  safesh::cli::AddDoctorCommand(app, doctor_args);
  safesh::cli::ApprovalsArgs approvals_args;
  safesh::cli::AddApprovalsCommand(app, approvals_args);
  safesh::cli::AuditArgs audit_args;
  safesh::cli::AddAuditCommand(app, audit_args);
  safesh::cli::ConfigArgs config_args;
  safesh::cli::AddConfigCommand(app, config_args);
  safesh::cli::TrustArgs trust_args;
  safesh::cli::AddTrustCommand(app, trust_args);
  safesh::cli::ImportArgs import_args;
  safesh::cli::AddImportCommand(app, import_args);
  safesh::cli::McpArgs mcp_args;
  safesh::cli::AddMcpCommand(app, mcp_args);
  safesh::cli::AddDemoCommand(app);
  safesh::cli::HookArgs hook_args;
  safesh::cli::AddHookCommand(app, hook_args);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    if (hook) {
      std::cerr << "safesh hook: bad arguments (" << e.what() << "): the call is blocked\n";
      return 2;
    }
    app.exit(e);
    return safesh::cli::kExitUsage;
  }

  if (app.got_subcommand("parse")) return safesh::cli::RunParse(parse_args);
  if (app.got_subcommand("check")) return safesh::cli::RunCheck(check_args);
  if (app.got_subcommand("run")) return safesh::cli::RunRun(run_args);
  if (app.got_subcommand("doctor")) return safesh::cli::RunDoctor(doctor_args);
  if (app.got_subcommand("approvals")) return safesh::cli::RunApprovals(approvals_args);
  if (app.got_subcommand("audit")) return safesh::cli::RunAudit(audit_args);
  if (app.got_subcommand("config")) return safesh::cli::RunConfigShow(config_args);
  if (app.got_subcommand("trust")) return safesh::cli::RunTrust(trust_args);
  if (app.got_subcommand("import")) return safesh::cli::RunImportClaude(import_args);
  if (app.got_subcommand("mcp")) return safesh::cli::RunMcp(mcp_args);
  if (app.got_subcommand("demo")) return safesh::cli::RunDemo();
  if (app.got_subcommand("hook")) return safesh::cli::RunHook(hook_args);
  return safesh::cli::kExitUsage;
}
