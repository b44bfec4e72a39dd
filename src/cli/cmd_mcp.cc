// `safesh mcp`: the MCP server over stdio (mcp/server.h).
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <iostream>

#include "cli/verbs.h"
#include "exec/cancel.h"
#include "mcp/server.h"
#include "safesh/version.h"

namespace safesh::cli {

void AddMcpCommand(CLI::App& app, McpArgs& args) {
  CLI::App* cmd = app.add_subcommand(
      "mcp",
      "Serve safesh's tools (run_shell_command, manage_background_process, check_command) to "
      "an MCP client over stdio");
  cmd->add_option("--config", args.config,
                  "Settings file (TOML), over the user's and the workspace's settings")
      ->type_name("FILE");
  cmd->add_option("--workspace", args.workspace,
                  "The workspace root: where commands run and may write (default: the current "
                  "directory)")
      ->type_name("DIR");
  cmd->footer(
      "JSON-RPC 2.0, one message per line on stdin and stdout; logs go to stderr. The server\n"
      "ends when stdin closes, stopping every command it started. Settings are read once, at\n"
      "start: restart the server after changing them.\n"
      "Exit status: 0 when the input ended; 1 when it could not be read; 64 the workspace is\n"
      "not a directory; 78 bad settings.");
}

namespace {

const exec::CancelToken* g_stop = nullptr;

void OnSignal(int) {
  if (g_stop != nullptr) g_stop->Cancel();
}

}  // namespace

int RunMcp(const McpArgs& args) {
  mcp::ServerConfig config;
  RunHost host;
  if (int code = PrepareRunHost("mcp", args.workspace, args.config, &host); code != 0) return code;
  config.context = host.context;
  config.context.client = "mcp";
  config.version = kVersion;
  // A client that goes away must not kill the server with SIGPIPE before it can clean up.
  signal(SIGPIPE, SIG_IGN);
  signal(SIGCHLD, SIG_DFL);
  exec::CancelToken stop;
  g_stop = &stop;
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP})
    sigaction(sig, &sa, nullptr);
  // Every command would be refused in a workspace that is not there: say so once, now.
  struct stat st;
  if (stat(config.context.workspace.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    std::cerr << "safesh mcp: the workspace " << config.context.workspace
              << " is not an existing directory (give --workspace DIR, or start the server in "
                 "the project's folder)\n";
    return kExitUsage;
  }
  std::cerr << "safesh mcp: serving " << config.context.workspace << "\n";
  int status = mcp::Serve(STDIN_FILENO, STDOUT_FILENO, stop.fd(), config);
  g_stop = nullptr;
  return status;
}

}  // namespace safesh::cli
