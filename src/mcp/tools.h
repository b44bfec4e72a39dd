// The MCP tools safesh offers: their definitions (name, description, input and output schemas,
// annotations), how a call's arguments become a request, and how a result becomes a
// CallToolResult.
//
// A result carries the same object three ways: structuredContent (the result object of
// docs/architecture.md, checked by clients against the outputSchema), that object again as JSON
// text (for clients that read only text), and first the command's output as the model should
// read it: the output, then a final "Exit code: N" line only when N is not 0, or
// "[timed out after N s]" instead.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "mcp/jsonrpc.h"
#include "pipeline/run_shell_command.h"
#include "policy/verdict.h"
#include "session/session.h"

namespace safesh::mcp {

inline constexpr const char* kRunTool = "run_shell_command";
inline constexpr const char* kCheckTool = "check_command";
inline constexpr const char* kManageTool = "manage_background_process";

// What the client negotiated that changes what the tools say.
struct ToolDialect {
  bool structured = true;  // outputSchema and structuredContent (protocol 2025-06-18 and later)
};

// tools/list's result.
Json ToolList(const ToolDialect& dialect);

// A run_shell_command or check_command call's arguments, checked.
struct CommandArgs {
  std::string command;  // `command`, or `argv` quoted for bash
  std::string cwd;
  std::optional<double> timeout_seconds;
  bool background = false;
  bool notify = false;
  std::string notify_pattern;  // empty: none
};

// Reads `arguments` for `tool` (kRunTool or kCheckTool). On a bad argument returns nullopt with
// *error saying which and what to send instead.
std::optional<CommandArgs> ReadCommandArgs(const std::string& tool, const Json& arguments,
                                           std::string* error);

// The text the model reads for a result (see the top of this file). `timeout_seconds` is the
// timeout the command had, for "[timed out after N s]".
std::string RunResultText(const pipeline::RunResult& result, double timeout_seconds);

// CallToolResults.
Json RunToolResult(const pipeline::RunResult& result, double timeout_seconds,
                   const ToolDialect& dialect);
Json CheckToolResult(const policy::Verdict& verdict, const ToolDialect& dialect);
// A call that could not be made (bad arguments, refused before anything ran): isError, with
// `message` for the model.
Json ToolError(const std::string& message);

// A manage_background_process call's arguments, checked (as ReadCommandArgs).
struct ManageArgs {
  std::string action;   // "list", "output" or "kill"
  std::string id;       // output, kill
  uint64_t offset = 0;  // output: from this byte of the whole output
};
std::optional<ManageArgs> ReadManageArgs(const Json& arguments, std::string* error);

// The CallToolResults of its actions.
Json ListResult(const std::vector<session::ProcessInfo>& processes, const ToolDialect& dialect);
Json OutputResult(const session::ProcessOutput& output, const ToolDialect& dialect);
Json KillResult(const session::KillOutcome& outcome, const ToolDialect& dialect);

// Adds the notices waiting for the model to a CallToolResult, as one more text item.
void AddNotices(const std::vector<session::Notice>& notices, Json* result);

}  // namespace safesh::mcp
