// The CLI's verbs. Each lives in its own file (src/cli/cmd_<verb>.cc) and registers its options
// on the shared CLI11 app; Run functions return the process exit code.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include <memory>

#include "audit/log.h"
#include "config/layers.h"
#include "config/settings.h"
#include "pipeline/run_shell_command.h"
#include "policy/verdict.h"

namespace safesh::cli {

// Exit codes shared by every verb (see docs/architecture.md, "External contracts").
inline constexpr int kExitUsage = 64;
inline constexpr int kExitNoInput = 66;     // an input file that must exist does not
inline constexpr int kExitCantCreate = 73;  // a file safesh keeps cannot be written
inline constexpr int kExitConfig = 78;
// `safesh run`: the command was stopped at a resource limit (next to 124, timed out).
inline constexpr int kExitLimit = 125;

// $HOME, or the password database's home folder; empty when neither is known.
std::string HomeFolder();

// The current directory; empty when it cannot be known.
std::string CurrentDir();

// The workspace a verb works in: `arg` (--workspace) made absolute, or the current directory.
std::string WorkspaceDir(const std::string& arg);

// The trust store's path (config/trust.h), from XDG_STATE_HOME or the home folder.
std::string TrustFile();

// Where the settings layers are for `workspace` (absolute) and the --config file `config`
// (none when empty): the user file, the project file, the trust store, SAFESH_SANDBOX_SHELL.
config::LayerSources LayerSourcesFor(const std::string& workspace, const std::string& config);

// Reads the layered settings (config/layers.h). On an error prints it, prefixed with
// "safesh VERB: bad settings: ", and returns false: the verb exits kExitConfig.
bool LoadLayers(const std::string& verb, const std::string& workspace, const std::string& config,
                config::LayeredSettings* layered);

// LoadLayers, then the rules compiled into *policy (left empty when no settings file exists).
bool LoadRules(const std::string& verb, const std::string& workspace, const std::string& config,
               config::Settings* settings, std::optional<policy::Policy>* policy);

struct ParseArgs {
  bool json = false;
  bool check = false;
  std::string file;
  std::string script;
};

void AddParseCommand(CLI::App& app, ParseArgs& args);
int RunParse(const ParseArgs& args);

struct CheckArgs {
  std::string config;
  std::string workspace;
  bool json = false;
  bool jsonl = false;
  bool argv_mode = false;
  std::vector<std::string> words;
};

void AddCheckCommand(CLI::App& app, CheckArgs& args);
int RunCheck(const CheckArgs& args);

struct RunArgs {
  std::string config;
  std::string workspace;
  std::string cwd;
  std::optional<double> timeout;
  bool json = false;
  bool dry_run = false;
  bool background = false;  // refused: a one-shot run cannot keep a background process
  std::string approve;
  std::vector<std::string> words;
  // --command-base64: the command, base64-encoded, in one or more pieces joined in order (how
  // `safesh hook claude --sandbox` passes a command that no shell may read).
  std::vector<std::string> command_base64;
};

void AddRunCommand(CLI::App& app, RunArgs& args);
int RunRun(const RunArgs& args);

// What a verb that runs commands (run, mcp) sets up once: the settings and rules, the
// environment commands derive from, the audit log, and the context that points into them
// (so a RunHost is never moved or copied).
struct RunHost {
  pipeline::RunContext context;
  std::optional<policy::Policy> policy;
  std::vector<std::string> environment;
  std::unique_ptr<audit::Log> audit;
  RunHost() = default;
  RunHost(const RunHost&) = delete;
  RunHost& operator=(const RunHost&) = delete;
};

// Fills `host` for `verb` (for messages) in the workspace `workspace_arg` (--workspace) with the
// --config file `config`; the environment overrides (SAFESH_BWRAP, SAFESH_SANDBOX_LAUNCHER,
// SAFESH_LIMITS) are read here. Then makes this process not dumpable and wipes the scrubbed
// variables from its own environment: a command of the same user must not read them in
// /proc/<pid>/environ. Returns 0, or the exit code after printing why (kExitConfig).
int PrepareRunHost(const std::string& verb, const std::string& workspace_arg,
                   const std::string& config, RunHost* host);

struct McpArgs {
  std::string config;
  std::string workspace;
};

void AddMcpCommand(CLI::App& app, McpArgs& args);
int RunMcp(const McpArgs& args);

void AddDemoCommand(CLI::App& app);
int RunDemo();

struct DoctorArgs {
  bool json = false;
  bool fix_apparmor = false;
};

void AddDoctorCommand(CLI::App& app, DoctorArgs& args);
int RunDoctor(const DoctorArgs& args);

struct ApprovalsArgs {
  bool json = false;
  bool revoke = false;  // `safesh approvals revoke`
  bool all = false;
  std::vector<std::string> ids;
};

void AddApprovalsCommand(CLI::App& app, ApprovalsArgs& args);
int RunApprovals(const ApprovalsArgs& args);

struct AuditArgs {
  std::string since = "24h";
  bool json = false;
};

void AddAuditCommand(CLI::App& app, AuditArgs& args);
int RunAudit(const AuditArgs& args);

struct ConfigArgs {
  std::string config;
  std::string workspace;
  bool json = false;
};

// `safesh config show`
void AddConfigCommand(CLI::App& app, ConfigArgs& args);
int RunConfigShow(const ConfigArgs& args);

struct TrustArgs {
  std::string workspace;
  bool revoke = false;
  bool list = false;
  bool yes = false;
};

void AddTrustCommand(CLI::App& app, TrustArgs& args);
int RunTrust(const TrustArgs& args);

struct HookArgs {
  std::string agent;  // claude, codex, gemini (checked by RunHook: a bad one blocks, exit 2)
  bool sandbox = false;
  std::string config;
  std::string workspace;
};

// `safesh hook AGENT`. Exits 0 with the answer on stdout, or 2 (the agents' "block") with the
// reason on stderr whenever safesh cannot answer.
void AddHookCommand(CLI::App& app, HookArgs& args);
int RunHook(const HookArgs& args);
// Before anything else runs for `safesh hook`: an uncaught exception, std::terminate or a
// crash exits 2 with a message, so that even a failing hook blocks the call.
void InstallHookCrashHandlers();

struct ImportArgs {
  std::string path;
};

// `safesh import claude`
void AddImportCommand(CLI::App& app, ImportArgs& args);
int RunImportClaude(const ImportArgs& args);

}  // namespace safesh::cli
