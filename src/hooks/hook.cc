#include "hooks/hook.h"

#include <nlohmann/json.hpp>

#include "util/base64.h"
#include "util/json_writer.h"
#include "util/shell_quote.h"

namespace safesh::hooks {
namespace {

// The event each agent fires before a tool runs, and the name of its shell tool.
const char* EventName(Agent agent) {
  return agent == Agent::kGemini ? "BeforeTool" : "PreToolUse";
}
const char* ShellTool(Agent agent) {
  return agent == Agent::kGemini ? "run_shell_command" : "Bash";
}

// Claude Code's shape, also Codex's for a deny.
std::string HookSpecificOutput(const char* decision, const std::string& reason,
                               const std::string& updated_input) {
  std::string out;
  util::JsonWriter w(&out);
  w.BeginObject();
  w.Key("hookSpecificOutput");
  w.BeginObject();
  w.Key("hookEventName");
  w.String("PreToolUse");
  w.Key("permissionDecision");
  w.String(decision);
  w.Key("permissionDecisionReason");
  w.String(reason);
  if (!updated_input.empty()) {
    w.Key("updatedInput");
    w.Raw(updated_input);
  }
  w.EndObject();
  w.EndObject();
  return out + "\n";
}

bool HasControlCharacters(std::string_view s) {
  for (char c : s) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) return true;
  }
  return false;
}

}  // namespace

std::optional<Agent> ParseAgent(std::string_view name) {
  if (name == "claude") return Agent::kClaude;
  if (name == "codex") return Agent::kCodex;
  if (name == "gemini") return Agent::kGemini;
  return std::nullopt;
}

const char* AgentName(Agent agent) {
  switch (agent) {
    case Agent::kClaude:
      return "claude";
    case Agent::kCodex:
      return "codex";
    case Agent::kGemini:
      return "gemini";
  }
  return "?";
}

const char* AgentTitle(Agent agent) {
  switch (agent) {
    case Agent::kClaude:
      return "Claude Code";
    case Agent::kCodex:
      return "Codex";
    case Agent::kGemini:
      return "Gemini CLI";
  }
  return "?";
}

bool ParseToolCall(Agent agent, std::string_view payload, ToolCall* call, std::string* error) {
  *call = ToolCall();
  if (payload.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    *error = "no hook payload on standard input (expected the agent's JSON)";
    return false;
  }
  nlohmann::json j = nlohmann::json::parse(payload, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    *error = "the hook payload is not valid JSON";
    return false;
  }
  if (!j.is_object()) {
    *error = "the hook payload is not a JSON object";
    return false;
  }
  auto text = [&](const char* key, std::string* out) {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) return true;
    if (!it->is_string()) {
      *error = std::string("the hook payload's \"") + key + "\" is not a string";
      return false;
    }
    *out = it->get<std::string>();
    return true;
  };
  std::string event;
  if (!text("hook_event_name", &event) || !text("tool_name", &call->tool_name) ||
      !text("cwd", &call->cwd) || !text("session_id", &call->session_id)) {
    return false;
  }
  // An event other than the pre-tool one would mean the hook is configured under the wrong
  // event, where an answer may mean something else entirely.
  if (event != EventName(agent)) {
    *error = std::string("this hook answers ") + AgentTitle(agent) + "'s " + EventName(agent) +
             " event, not " + (event.empty() ? "a payload without hook_event_name" : event) +
             ": configure `safesh hook " + AgentName(agent) + "` under " + EventName(agent);
    return false;
  }
  if (call->tool_name.empty()) {
    *error = "the hook payload has no tool_name";
    return false;
  }
  auto input = j.find("tool_input");
  if (input == j.end() || !input->is_object()) {
    *error = "the hook payload has no tool_input object";
    return false;
  }
  call->tool_input = input->dump();
  call->shell = call->tool_name == ShellTool(agent);
  if (!call->shell) return true;
  auto command = input->find("command");
  if (command == input->end() || !command->is_string()) {
    *error = std::string("the ") + call->tool_name + " call has no tool_input.command string";
    return false;
  }
  call->command = command->get<std::string>();
  if (call->command.find_first_not_of(" \t\r\n") == std::string::npos) {
    *error = "the command is empty";
    return false;
  }
  if (auto t = input->find("timeout"); t != input->end() && t->is_number())
    call->timeout_ms = t->get<double>();
  return true;
}

Reply Answer(Agent agent, Decision decision, const std::string& reason,
             const std::string& updated_input) {
  Reply r;
  r.exit_code = 0;
  if (agent == Agent::kClaude) {
    r.out = HookSpecificOutput(policy::DecisionName(decision), reason, updated_input);
    return r;
  }
  // Codex and Gemini CLI: no ask. A deny is the documented JSON answer with exit 0, so that a
  // policy's "no" and safesh failing to answer (exit 2) stay apart in the agents' logs.
  if (agent == Agent::kCodex) {
    // Codex takes a bare "allow" as an invalid answer (it wants updatedInput with it): staying
    // silent is how a Codex hook lets a call go on.
    if (decision != Decision::kAllow) r.out = HookSpecificOutput("deny", reason, "");
    return r;
  }
  util::JsonWriter w(&r.out);
  w.BeginObject();
  w.Key("decision");
  w.String(decision == Decision::kAllow ? "allow" : "deny");
  if (decision != Decision::kAllow) {
    w.Key("reason");
    w.String(reason);
  }
  w.EndObject();
  r.out += "\n";
  return r;
}

Reply PassThrough(Agent agent) {
  Reply r;
  r.exit_code = 0;
  // Codex reads no output as "nothing to say"; the others want a JSON object on stdout.
  if (agent != Agent::kCodex) r.out = "{}\n";
  return r;
}

Reply Blocked(const std::string& why) {
  Reply r;
  r.exit_code = 2;
  r.err = "safesh hook: " + why + "\n";
  return r;
}

std::string SandboxedCommandLine(const SandboxedRun& run, std::string* error) {
  for (const std::string* path : {&run.safesh, &run.workspace, &run.config}) {
    if (HasControlCharacters(*path)) {
      *error = "the path " + util::ShellQuote(*path) +
               " holds control characters: safesh does not put it in a command line";
      return "";
    }
  }
  if (run.safesh.empty() || run.safesh[0] != '/' || run.workspace.empty() ||
      run.workspace[0] != '/' || (!run.config.empty() && run.config[0] != '/')) {
    *error = "the paths of a sandboxed run must be absolute";
    return "";
  }
  std::string line =
      util::ShellQuote(run.safesh) + " run --workspace " + util::ShellQuote(run.workspace);
  if (!run.config.empty()) line += " --config " + util::ShellQuote(run.config);
  if (run.timeout_seconds) line += " --timeout " + std::to_string(*run.timeout_seconds);
  if (run.approved) line += " --approve yes";
  // Quoted although base64 needs no quoting in bash: zsh, for one, expands a word that starts
  // with "=".
  line += " --command-base64 '" + util::Base64Encode(run.command) + "'";
  return line;
}

std::string ReplaceCommand(std::string_view tool_input, const std::string& command) {
  nlohmann::json j = nlohmann::json::parse(tool_input, nullptr, /*allow_exceptions=*/false);
  std::string out;
  util::JsonWriter w(&out);
  w.BeginObject();
  w.Key("command");
  w.String(command);
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (it.key() == "command") continue;
      w.Key(it.key());
      w.Raw(it.value().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    }
  }
  w.EndObject();
  return out;
}

}  // namespace safesh::hooks
