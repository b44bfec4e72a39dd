// The MCP server: safesh's tools for any MCP client, over stdio (`safesh mcp`).
//
// One thread reads the client's lines and answers what is quick (initialize, ping, tools/list,
// check_command, logging/setLevel); each run_shell_command runs on its own thread, so that a
// long command does not hold up pings, other calls, or the cancellation of itself. Every line
// written goes through one Output, whole. stdout carries the protocol only; safesh's own
// messages go to stderr and, at or above the level the client set, as notifications/message.
//
// Approval: when the client declared the elicitation capability, a command the policy asks
// about becomes an elicitation/create form (approve: yes or no; remember: once or always when
// the command can be remembered); without it, or when the client answers with an error, the
// configured headless answer applies. A declined or cancelled form denies.
//
// Cancellation: notifications/cancelled for a running call kills its command (and answers a
// pending approval form with no); nothing more is sent for that request. When stdin ends, or
// `stop` becomes readable, every running command is cancelled, and Serve returns once their
// threads have ended.
#pragma once

#include <string>

#include "pipeline/run_shell_command.h"

namespace safesh::mcp {

// The protocol versions served, newest first. A client asking for another gets the newest.
inline constexpr const char* kProtocolVersions[] = {"2025-11-25", "2025-06-18", "2025-03-26"};

struct ServerConfig {
  // The context every call starts from. Each call gets its own copy with its own cancel token
  // and prompter; `context.cancel` and `context.prompter` here are not used.
  pipeline::RunContext context;
  std::string version;         // safesh's version, for serverInfo
  int max_running_calls = 16;  // run_shell_command calls at once; more are refused
  // How often a call with a progressToken hears that its command is still running.
  int progress_every_ms = 1000;
};

// Serves on `in_fd` / `out_fd` until the input ends or `stop_fd` (an eventfd or pipe, -1 for
// none) becomes readable. Returns 0, or 1 when the input could not be read.
int Serve(int in_fd, int out_fd, int stop_fd, const ServerConfig& config);

}  // namespace safesh::mcp
