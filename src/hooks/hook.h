// The agent hooks: what Claude Code, Codex and Gemini CLI send a pre-tool hook, and the answer
// each of them expects. Only the formats live here; `safesh hook` (src/cli/cmd_hook.cc) judges
// the command with the same settings, approvals and audit log as `safesh check` and `run`.
//
// Each agent runs the hook as a program, the tool call as JSON on its stdin:
//   Claude Code  PreToolUse, tool_name "Bash", tool_input.command
//   Codex        PreToolUse, tool_name "Bash", tool_input.command
//   Gemini CLI   BeforeTool, tool_name "run_shell_command", tool_input.command
// and reads the answer from stdout when the hook exits 0. All three block the call when the
// hook exits 2, with stderr as the reason; any other failure lets the call go on. So every
// failure of safesh's is turned into exit 2 with a reason (Blocked below): a hook that failed
// open would be worse than none.
//
// The answers (docs/architecture.md, "Agent hooks", has the sources):
//   Claude Code  {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":
//                "allow"|"ask"|"deny","permissionDecisionReason":"…"[,"updatedInput":{…}]}}
//   Codex        allow: nothing (Codex refuses a bare "allow" and has no "ask");
//                deny: the Claude Code shape with "deny"
//   Gemini CLI   {"decision":"allow"} or {"decision":"deny","reason":"…"} (no "ask")
// A tool that is not the agent's shell tool gets the neutral answer: no decision at all.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "policy/verdict.h"

namespace safesh::hooks {

enum class Agent { kClaude, kCodex, kGemini };

// "claude", "codex", "gemini"; nullopt for anything else.
std::optional<Agent> ParseAgent(std::string_view name);
const char* AgentName(Agent agent);
// "Claude Code", "Codex", "Gemini CLI": for messages.
const char* AgentTitle(Agent agent);

// The most a hook reads from stdin. A command is at most 128 KiB, which JSON escapes can make
// six times longer; anything beyond this is not a tool call and is refused.
inline constexpr size_t kMaxPayloadBytes = 4 * 1024 * 1024;

// One tool call, as the agent described it.
struct ToolCall {
  std::string tool_name;
  bool shell = false;                // the agent's shell tool: `command` is what it will run
  std::string command;               // tool_input.command (when shell)
  std::string cwd;                   // the session's working directory (may be empty: see Parse)
  std::string session_id;            // for the audit log; may be empty
  std::string tool_input;            // tool_input as JSON text, to rewrite for --sandbox
  std::optional<double> timeout_ms;  // Claude Code's tool_input.timeout, when it is a number
};

// Reads the payload of `agent`'s pre-tool event. False with `*error` when it is not JSON, not
// the event this hook answers, or a shell call without a string command; the caller blocks.
// `cwd` is checked by the caller (it may come from --workspace instead).
bool ParseToolCall(Agent agent, std::string_view payload, ToolCall* call, std::string* error);

// The policy's decision, as the hook tells it to the agent.
using Decision = policy::Decision;

// What the hook prints and how it exits.
struct Reply {
  std::string out;  // stdout
  std::string err;  // stderr
  int exit_code = 2;
};

// The agent's answer to a shell call. `reason` is said to the agent (or the person) as it is.
// `updated_input` (JSON object text) rewrites the call; only Claude Code takes one here.
// An ask goes to Codex and Gemini CLI as a deny: they cannot ask (the reason must say how to
// approve).
Reply Answer(Agent agent, Decision decision, const std::string& reason,
             const std::string& updated_input = "");

// The neutral answer for a tool that is not a shell: no decision, the agent goes on as usual.
Reply PassThrough(Agent agent);

// Exit 2 with "safesh hook: WHY" on stderr: the call is blocked because safesh could not answer.
Reply Blocked(const std::string& why);

// `safesh hook claude --sandbox`: the command line that runs `command` through `safesh run`
// instead. The command is passed base64-encoded (util/base64.h), so that nothing in it is ever
// read by the shell that runs the rewritten line: the line is made of safesh's own words, the
// quoted paths, and base64 text.
struct SandboxedRun {
  std::string safesh;     // absolute path of this program
  std::string workspace;  // absolute: `safesh run --workspace`
  std::string config;     // absolute, or empty: `safesh run --config`
  std::optional<int> timeout_seconds;
  bool approved = false;  // a person approves in the agent's prompt: `--approve yes`
  std::string command;
};
// Empty with `*error` when a path holds characters no shell quoting should be trusted with
// (control characters).
std::string SandboxedCommandLine(const SandboxedRun& run, std::string* error);

// `tool_input` (a JSON object's text) with its "command" replaced by `command`, every other
// member kept as it was.
std::string ReplaceCommand(std::string_view tool_input, const std::string& command);

}  // namespace safesh::hooks
