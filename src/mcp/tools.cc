#include "mcp/tools.h"

#include <cmath>

#include "util/shell_quote.h"

namespace safesh::mcp {
namespace {

Json Nullable(const char* type) {
  return Json::array({type, "null"});
}

Json VerdictSchema() {
  Json finding = {{"type", "object"},
                  {"properties",
                   {{"subject", {{"type", "string"}}},
                    {"reason", {{"type", "string"}}},
                    {"pos", {{"type", "string"}}}}},
                  {"required", {"subject", "reason"}}};
  Json command = {
      {"type", "object"},
      {"properties",
       {{"argv", {{"type", "array"}, {"items", {{"type", "string"}}}}},
        {"static", {{"type", "boolean"}, {"description", "every word is known before it runs"}}},
        {"matched", {{"type", Nullable("string")}, {"description", "the rule that matched"}}},
        {"role", {{"type", "string"}}},
        {"pos", {{"type", "string"}}},
        {"via", {{"type", "string"}}},
        {"in_unverified_code", {{"type", "boolean"}}}}},
      {"required", {"argv", "static", "matched", "role"}}};
  Json write = {{"type", "object"},
                {"properties",
                 {{"target", {{"type", "string"}}},
                  {"static", {{"type", "boolean"}}},
                  {"by", {{"type", "string"}}},
                  {"pos", {{"type", "string"}}}}},
                {"required", {"target", "static", "by"}}};
  return {{"type", "object"},
          {"properties",
           {{"verdict", {{"type", "string"}, {"enum", {"allow", "ask", "deny"}}}},
            {"reason", {{"type", "string"}}},
            {"commands", {{"type", "array"}, {"items", command}}},
            {"writes", {{"type", "array"}, {"items", write}}},
            {"unverified", {{"type", "array"}, {"items", finding}}},
            {"network", {{"type", "array"}, {"items", finding}}},
            {"runtime", {{"type", "array"}, {"items", finding}}},
            {"parse_error",
             {{"type", Nullable("string")},
              {"description", "line:col: message, when bash could not parse it"}}}}},
          {"required", {"verdict", "reason", "commands", "writes", "unverified", "parse_error"}}};
}

Json RunResultSchema() {
  Json verdict = VerdictSchema();
  verdict["type"] = Nullable("object");
  return {
      {"type", "object"},
      {"properties",
       {{"output",
         {{"type", "string"},
          {"description",
           "stdout and stderr interleaved; when longer than the limit, the head and the tail with "
           "a notice of what was left out and where the whole output is"}}},
        {"exit_code", {{"type", "integer"}, {"description", "-1 when it did not run to an exit"}}},
        {"duration_ms", {{"type", "integer"}}},
        {"is_background", {{"type", "boolean"}}},
        {"background_id",
         {{"type", "string"}, {"description", "a started background command's id (\"bg-1\")"}}},
        {"process_id", {{"type", Nullable("integer")}}},
        {"truncated", {{"type", "boolean"}}},
        {"output_bytes", {{"type", "integer"}}},
        {"spool_path",
         {{"type", Nullable("string")}, {"description", "the whole output, when truncated"}}},
        {"timed_out", {{"type", "boolean"}}},
        {"cancelled", {{"type", "boolean"}}},
        {"signal", {{"type", Nullable("integer")}}},
        {"error", {{"type", Nullable("string")}}},
        {"verdict", verdict},
        {"advice",
         {{"type", Nullable("string")},
          {"description",
           "when the command failed on a wall of the sandbox: the narrow way through"}}},
        {"sandbox",
         {{"type", "object"},
          {"properties",
           {{"mode", {{"type", Nullable("string")}}}, {"reason", {{"type", "string"}}}}}}},
        {"limits",
         {{"type", "object"},
          {"properties",
           {{"via", {{"type", Nullable("string")}}},
            {"max_processes", {{"type", Nullable("integer")}}},
            {"memory_bytes", {{"type", Nullable("integer")}}},
            {"hit", {{"type", Nullable("string")}}},
            {"stopped", {{"type", "boolean"}}},
            {"reason", {{"type", "string"}}}}}}}}},
      {"required",
       {"output", "exit_code", "duration_ms", "is_background", "process_id", "truncated",
        "spool_path", "timed_out", "error", "verdict", "sandbox"}}};
}

Json CommandProperties(bool run) {
  Json p = {
      {"command",
       {{"type", "string"},
        {"description",
         "The command, as bash source: pipes, lists, redirections and substitutions are judged "
         "part by part. Give this or argv."}}},
      {"argv",
       {{"type", "array"},
        {"items", {{"type", "string"}}},
        {"minItems", 1},
        {"description",
         "The program and its arguments, each taken literally (no expansion). Give this or "
         "command."}}},
      {"cwd",
       {{"type", "string"},
        {"description",
         "Where it runs: absolute, or relative to the workspace; it must lie inside the "
         "workspace or a writable path. Default: the workspace."}}}};
  if (run) {
    p["timeout_seconds"] = {
        {"type", "number"},
        {"exclusiveMinimum", 0},
        {"description", "Seconds before the command is killed (default 120, at most 1800)."}};
    p["background"] = {
        {"type", "boolean"},
        {"description",
         "Start it and return at once with its id (dev servers, watchers, long builds); follow "
         "it with manage_background_process."}};
    p["notify"] = {
        {"type", "boolean"},
        {"description", "With background: a notice when it exits, with its last output."}};
    p["notify_pattern"] = {
        {"type", "string"},
        {"description",
         "With background: an RE2 regular expression; each output line it matches becomes a "
         "notice (up to 20)."}};
  }
  return p;
}

Json TextContent(std::string text) {
  return {{"type", "text"}, {"text", std::move(text)}};
}

Json ProcessSchema() {
  return {{"type", "object"},
          {"properties",
           {{"id", {{"type", "string"}}},
            {"command", {{"type", "string"}}},
            {"running", {{"type", "boolean"}}},
            {"exit_code",
             {{"type", Nullable("integer")},
              {"description", "once ended: its exit code (128+N for signal N); -1 when killed"}}},
            {"runtime_ms", {{"type", "integer"}}},
            {"pid", {{"type", "integer"}}},
            {"output_bytes", {{"type", "integer"}}},
            {"error", {{"type", Nullable("string")}}}}},
          {"required", {"id", "command", "running", "exit_code", "runtime_ms"}}};
}

Json ManageSchema() {
  return {{"type", "object"},
          {"properties",
           {{"action", {{"type", "string"}, {"enum", {"list", "output", "kill"}}}},
            {"processes", {{"type", "array"}, {"items", ProcessSchema()}}},
            {"process", ProcessSchema()},
            {"output", {{"type", "string"}}},
            {"offset", {{"type", "integer"}}},
            {"next_offset", {{"type", "integer"}, {"description", "ask from here to follow"}}},
            {"skipped",
             {{"type", "integer"},
              {"description", "bytes after the offset asked for that are no longer retained"}}},
            {"spool_path", {{"type", Nullable("string")}}},
            {"error", {{"type", Nullable("string")}}}}},
          {"required", {"action"}}};
}

Json ProcessJson(const session::ProcessInfo& p) {
  return {{"id", p.id},
          {"command", p.command},
          {"running", p.running},
          {"exit_code", p.running ? Json() : Json(p.exit_code)},
          {"runtime_ms", p.runtime_ms},
          {"pid", p.pid},
          {"output_bytes", p.output_bytes},
          {"error", p.error.empty() ? Json() : Json(p.error)}};
}

// "bg-1 running for 12.3 s: npm run dev" / "bg-2 exited with code 1 after 3.0 s: make"
std::string ProcessLine(const session::ProcessInfo& p) {
  char secs[32];
  snprintf(secs, sizeof secs, "%.1f s", static_cast<double>(p.runtime_ms) / 1000.0);
  std::string state = p.running ? std::string("running for ") + secs
                      : p.exit_code >= 0
                          ? "exited with code " + std::to_string(p.exit_code) + " after " + secs
                          : std::string("killed after ") + secs;
  std::string line = p.id + " " + state + ": " + p.command;
  if (!p.error.empty()) line += " (" + p.error + ")";
  return line;
}

Json Structured(const std::string& text, Json structured, const ToolDialect& dialect,
                bool is_error) {
  Json out = {{"content", Json::array({TextContent(text)})}, {"isError", is_error}};
  if (dialect.structured) {
    out["content"].push_back(TextContent(Dump(structured)));
    out["structuredContent"] = std::move(structured);
  }
  return out;
}

std::string SecondsText(double s) {
  char buf[32];
  snprintf(buf, sizeof buf, "%g", s);
  return buf;
}

}  // namespace

Json ToolList(const ToolDialect& dialect) {
  Json run = {
      {"name", kRunTool},
      {"title", "Run a shell command"},
      {"description",
       "Runs a bash command in the workspace, inside safesh's sandbox: writes only in the "
       "workspace and the allowed paths, credentials hidden, network as configured, nothing left "
       "running afterwards. The command is judged against the policy first: a denied command "
       "does not run and the reason says why; one that needs approval asks the user. Returns the "
       "output (stdout and stderr interleaved); a final \"Exit code: N\" line when N is not 0."},
      {"inputSchema",
       {{"type", "object"},
        {"properties", CommandProperties(true)},
        {"additionalProperties", false}}},
      {"annotations",
       {{"title", "Run a shell command"},
        {"readOnlyHint", false},
        {"destructiveHint", true},
        {"idempotentHint", false},
        {"openWorldHint", true}}}};
  Json check = {
      {"name", kCheckTool},
      {"title", "Check a shell command"},
      {"description",
       "Judges a bash command against the policy without running it: allow, ask or deny, the "
       "reason, and every command it would run."},
      {"inputSchema",
       {{"type", "object"},
        {"properties", CommandProperties(false)},
        {"additionalProperties", false}}},
      {"annotations",
       {{"title", "Check a shell command"},
        {"readOnlyHint", true},
        {"destructiveHint", false},
        {"idempotentHint", true},
        {"openWorldHint", false}}}};
  Json manage = {
      {"name", kManageTool},
      {"title", "Follow background commands"},
      {"description",
       "The commands started with run_shell_command background: true. list: each one's id, "
       "command, whether it runs, its exit code and run time. output: what it printed (the "
       "last 256 KiB are kept; pass next_offset back as offset to follow). kill: ends it and "
       "everything it started."},
      {"inputSchema",
       {{"type", "object"},
        {"properties",
         {{"action", {{"type", "string"}, {"enum", {"list", "output", "kill"}}}},
          {"id", {{"type", "string"}, {"description", "the process, as list names it (\"bg-1\")"}}},
          {"offset",
           {{"type", "integer"},
            {"minimum", 0},
            {"description", "output: from this byte of its whole output (default 0)"}}}}},
        {"required", {"action"}},
        {"additionalProperties", false}}},
      {"annotations",
       {{"title", "Follow background commands"},
        {"readOnlyHint", false},
        {"destructiveHint", true},
        {"idempotentHint", false},
        {"openWorldHint", false}}}};
  if (dialect.structured) {
    run["outputSchema"] = RunResultSchema();
    check["outputSchema"] = VerdictSchema();
    manage["outputSchema"] = ManageSchema();
  }
  return {{"tools", Json::array({std::move(run), std::move(manage), std::move(check)})}};
}

std::optional<CommandArgs> ReadCommandArgs(const std::string& tool, const Json& arguments,
                                           std::string* error) {
  bool run = tool == kRunTool;
  if (!arguments.is_object() && !arguments.is_null()) {
    *error = "the arguments must be an object";
    return std::nullopt;
  }
  CommandArgs out;
  bool have_command = false, have_argv = false;
  if (arguments.is_null()) {
    *error = "give `command` (a bash command) or `argv` (a program and its arguments)";
    return std::nullopt;
  }
  for (auto it = arguments.begin(); it != arguments.end(); ++it) {
    const std::string& key = it.key();
    const Json& v = it.value();
    if (key == "command") {
      if (!v.is_string()) {
        *error = "`command` must be a string";
        return std::nullopt;
      }
      out.command = v.get<std::string>();
      have_command = true;
    } else if (key == "argv") {
      if (!v.is_array() || v.empty()) {
        *error = "`argv` must be a non-empty array of strings";
        return std::nullopt;
      }
      std::string joined;
      for (const Json& a : v) {
        if (!a.is_string()) {
          *error = "`argv` must be a non-empty array of strings";
          return std::nullopt;
        }
        if (!joined.empty()) joined += ' ';
        joined += util::ShellQuote(a.get<std::string>());
      }
      out.command = std::move(joined);
      have_argv = true;
    } else if (key == "cwd") {
      if (!v.is_string()) {
        *error = "`cwd` must be a string (a folder in the workspace)";
        return std::nullopt;
      }
      out.cwd = v.get<std::string>();
    } else if (run && key == "timeout_seconds") {
      if (!v.is_number() || !std::isfinite(v.get<double>())) {
        *error = "`timeout_seconds` must be a number of seconds";
        return std::nullopt;
      }
      out.timeout_seconds = v.get<double>();
    } else if (run && (key == "background" || key == "notify")) {
      if (!v.is_boolean()) {
        *error = "`" + key + "` must be true or false";
        return std::nullopt;
      }
      (key == "background" ? out.background : out.notify) = v.get<bool>();
    } else if (run && key == "notify_pattern") {
      if (!v.is_string()) {
        *error = "`notify_pattern` must be a string (an RE2 regular expression)";
        return std::nullopt;
      }
      out.notify_pattern = v.get<std::string>();
    } else {
      *error = "unknown argument `" + key + "` for " + tool + " (it takes " +
               (run ? "command or argv, cwd, timeout_seconds, background, notify, notify_pattern"
                    : "command or argv, cwd") +
               ")";
      return std::nullopt;
    }
  }
  if (have_command == have_argv) {
    *error = have_command
                 ? "give either `command` or `argv`, not both"
                 : "give `command` (a bash command) or `argv` (a program and its arguments)";
    return std::nullopt;
  }
  if (!out.background && (out.notify || !out.notify_pattern.empty())) {
    *error = "`notify` and `notify_pattern` apply to background commands: add \"background\": true";
    return std::nullopt;
  }
  return out;
}

std::string RunResultText(const pipeline::RunResult& r, double timeout_seconds) {
  using O = pipeline::RunResult::Outcome;
  if (r.outcome != O::kRan) {
    return r.error.empty() ? "the command did not run" : r.error;
  }
  if (r.is_background && !r.background_id.empty()) {
    return "started in the background as " + r.background_id +
           (r.process_id > 0 ? " (process " + std::to_string(r.process_id) + ")" : "") +
           ": follow it with manage_background_process (action output, id " + r.background_id +
           "), end it with action kill";
  }
  std::string text = r.output;
  auto line = [&text](const std::string& l) {
    if (!text.empty() && text.back() != '\n') text += '\n';
    text += l;
  };
  if (!r.error.empty() && !r.timed_out) line("[safesh: " + r.error + "]");
  if (!r.advice.empty()) line("[safesh: advice: " + r.advice + "]");
  if (std::string notice = pipeline::SandboxNotice(r); !notice.empty())
    line("[safesh: note: " + notice + "]");
  if (!r.sandbox_note.empty()) line("[safesh: note: " + r.sandbox_note + "]");
  if (r.timed_out) {
    line("[timed out after " + SecondsText(timeout_seconds) + " s]");
  } else if (r.exit_code != 0) {
    line("Exit code: " + std::to_string(r.exit_code));
  }
  return text;
}

Json RunToolResult(const pipeline::RunResult& r, double timeout_seconds,
                   const ToolDialect& dialect) {
  Json structured = Json::parse(pipeline::RunResultJson(r), nullptr, false);
  Json content = Json::array({TextContent(RunResultText(r, timeout_seconds))});
  Json out = {{"content", content}, {"isError", r.outcome != pipeline::RunResult::Outcome::kRan}};
  if (dialect.structured && !structured.is_discarded()) {
    out["content"].push_back(TextContent(Dump(structured)));
    out["structuredContent"] = std::move(structured);
  }
  return out;
}

Json CheckToolResult(const policy::Verdict& verdict, const ToolDialect& dialect) {
  Json structured = Json::parse(policy::VerdictJson(verdict), nullptr, false);
  std::string text = std::string(policy::DecisionName(verdict.decision)) + ": " + verdict.reason;
  Json out = {{"content", Json::array({TextContent(text)})}, {"isError", false}};
  if (dialect.structured && !structured.is_discarded()) {
    out["content"].push_back(TextContent(Dump(structured)));
    out["structuredContent"] = std::move(structured);
  }
  return out;
}

Json ToolError(const std::string& message) {
  return {{"content", Json::array({TextContent(message)})}, {"isError", true}};
}

std::optional<ManageArgs> ReadManageArgs(const Json& arguments, std::string* error) {
  if (!arguments.is_object()) {
    *error = "give `action`: list, output or kill";
    return std::nullopt;
  }
  ManageArgs out;
  for (auto it = arguments.begin(); it != arguments.end(); ++it) {
    const std::string& key = it.key();
    const Json& v = it.value();
    if (key == "action") {
      if (!v.is_string() || (v != "list" && v != "output" && v != "kill")) {
        *error = "`action` must be list, output or kill";
        return std::nullopt;
      }
      out.action = v.get<std::string>();
    } else if (key == "id") {
      if (!v.is_string()) {
        *error = "`id` must be a string such as \"bg-1\" (list shows them)";
        return std::nullopt;
      }
      out.id = v.get<std::string>();
    } else if (key == "offset") {
      if (!v.is_number_integer() || v.get<int64_t>() < 0) {
        *error = "`offset` must be a whole number of bytes, 0 or more";
        return std::nullopt;
      }
      out.offset = v.get<uint64_t>();
    } else {
      *error =
          "unknown argument `" + key + "` for " + kManageTool + " (it takes action, id, offset)";
      return std::nullopt;
    }
  }
  if (out.action.empty()) {
    *error = "give `action`: list, output or kill";
    return std::nullopt;
  }
  if (out.action != "list" && out.id.empty()) {
    *error = "`" + out.action + "` needs the process's `id` (list shows them)";
    return std::nullopt;
  }
  return out;
}

Json ListResult(const std::vector<session::ProcessInfo>& processes, const ToolDialect& dialect) {
  Json list = Json::array();
  std::string text;
  for (const session::ProcessInfo& p : processes) {
    list.push_back(ProcessJson(p));
    text += ProcessLine(p) + "\n";
  }
  if (processes.empty()) text = "no background processes\n";
  return Structured(text, {{"action", "list"}, {"processes", list}}, dialect, false);
}

Json OutputResult(const session::ProcessOutput& o, const ToolDialect& dialect) {
  if (!o.error.empty())
    return Structured(o.error, {{"action", "output"}, {"error", o.error}}, dialect, true);
  std::string text;
  if (o.skipped > 0)
    text += "[" + std::to_string(o.skipped) + " bytes no longer kept" +
            (o.spool_path.empty() ? "" : "; the whole output is in " + o.spool_path) + "]\n";
  text += o.text;
  if (!text.empty() && text.back() != '\n') text += '\n';
  text += "[" + ProcessLine(o.status) + "; next_offset " + std::to_string(o.next_offset) + "]";
  Json structured = {{"action", "output"},
                     {"process", ProcessJson(o.status)},
                     {"output", o.text},
                     {"offset", o.offset},
                     {"next_offset", o.next_offset},
                     {"skipped", o.skipped},
                     {"spool_path", o.spool_path.empty() ? Json() : Json(o.spool_path)},
                     {"error", nullptr}};
  return Structured(text, structured, dialect, false);
}

Json KillResult(const session::KillOutcome& k, const ToolDialect& dialect) {
  if (!k.error.empty()) {
    Json structured = {{"action", "kill"}, {"error", k.error}};
    if (!k.status.id.empty()) structured["process"] = ProcessJson(k.status);
    return Structured(k.error, structured, dialect, true);
  }
  return Structured("killed: " + ProcessLine(k.status),
                    {{"action", "kill"}, {"process", ProcessJson(k.status)}, {"error", nullptr}},
                    dialect, false);
}

void AddNotices(const std::vector<session::Notice>& notices, Json* result) {
  if (notices.empty()) return;
  std::string text = "[background notices]";
  for (const session::Notice& n : notices)
    text += "\n" + n.text;
  (*result)["content"].push_back(TextContent(text));
}

}  // namespace safesh::mcp
