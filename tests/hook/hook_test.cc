// `safesh hook claude|codex|gemini` as the agents run it: recorded payloads (tests/data/hooks)
// on stdin, the exact answer on stdout and the exit code; every way safesh can fail to answer
// blocks the call (exit 2); and `--sandbox` rewrites that, run by bash, run the original command
// through `safesh run` and nothing else.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace safesh::testing {
namespace {

std::string ReadData(const std::string& name) {
  std::ifstream f(std::string(SAFESH_HOOK_DATA) + "/" + name, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

const char kRules[] =
    "[commands]\n"
    "deny = [\"rm\"]\n"
    "auto_approve = [\"echo *\", \"printf *\", \"wc *\", \"cat *\"]\n"
    "[sandbox]\n"
    "shell = \"auto\"\n";

class Hook : public ::testing::Test {
 protected:
  void SetUp() override {
    ws_ = dir_.path + "/ws";
    std::filesystem::create_directories(ws_);
    std::filesystem::create_directories(dir_.path + "/home");
    rules_ = dir_.path + "/rules.toml";
    std::ofstream(rules_) << kRules;
  }

  std::vector<std::string> Env() const {
    return {"PATH=/usr/bin:/bin", "LC_ALL=C.UTF-8", "HOME=" + dir_.path + "/home",
            "XDG_CONFIG_HOME=" + dir_.path + "/config", "XDG_STATE_HOME=" + state_.path + "/s"};
  }

  RunOutput Safesh(std::vector<std::string> args, const std::string& stdin_text,
                   std::vector<std::string> extra_env = {}) {
    args.insert(args.begin(), SAFESH_BINARY);
    RunOptions options;
    options.env = Env();
    // A variable given again replaces the default one (getenv finds the first).
    for (const std::string& e : extra_env) {
      std::string name = e.substr(0, e.find('=') + 1);
      std::erase_if(options.env, [&](const std::string& d) { return d.starts_with(name); });
      options.env.push_back(e);
    }
    options.stdin_text = stdin_text;
    options.timeout_seconds = 60;
    return RunProgram(args, options);
  }

  // A recorded payload with its cwd set to the test's workspace and, when given, its command.
  std::string Payload(const std::string& file, const std::string* command = nullptr) {
    nlohmann::json j = nlohmann::json::parse(ReadData(file));
    j["cwd"] = ws_;
    if (command != nullptr) j["tool_input"]["command"] = *command;
    return j.dump();
  }
  RunOutput Ask(const std::string& agent, const std::string& command,
                std::vector<std::string> extra_args = {}) {
    std::vector<std::string> args = {"hook", agent, "--config", rules_};
    args.insert(args.end(), extra_args.begin(), extra_args.end());
    return Safesh(args, Payload(File(agent), &command));
  }
  static std::string File(const std::string& agent) {
    if (agent == "claude") return "claude_pretooluse_bash.json";
    if (agent == "codex") return "codex_pretooluse_bash.json";
    return "gemini_beforetool_shell.json";
  }

  std::string Audit() const {
    std::string all;
    std::string dir = state_.path + "/s/safesh/audit";
    if (!std::filesystem::exists(dir)) return all;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
      std::ifstream f(e.path(), std::ios::binary);
      std::stringstream ss;
      ss << f.rdbuf();
      all += ss.str();
    }
    return all;
  }
  std::vector<nlohmann::json> AuditRecords(const std::string& event) const {
    std::vector<nlohmann::json> out;
    std::istringstream in(Audit());
    for (std::string line; std::getline(in, line);) {
      nlohmann::json j = nlohmann::json::parse(line);
      if (j["event"] == event) out.push_back(j);
    }
    return out;
  }
  void Remember(const std::string& command) {
    std::string dir = state_.path + "/s/safesh";
    std::filesystem::create_directories(dir);
    chmod((state_.path + "/s").c_str(), 0700);
    chmod(dir.c_str(), 0700);
    nlohmann::json j = {{"version", 1},
                        {"approvals",
                         {{{"id", "a1b2c3d4e5f6"},
                           {"kind", "run_command"},
                           {"workspace", std::filesystem::canonical(ws_).string()},
                           {"key", command},
                           {"target", command},
                           {"created", "2026-01-01T00:00:00.000Z"}}}}};
    std::ofstream(dir + "/approvals.json") << j.dump();
    chmod((dir + "/approvals.json").c_str(), 0600);
  }

  TempDir dir_;
  // Remembered approvals are trusted only outside the folders commands may write (/tmp ...).
  TempDir state_{OutsideWritableBase()};
  std::string ws_, rules_;
};

std::string ClaudeAnswer(const std::string& decision, const std::string& reason) {
  return "{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"" +
         decision + "\",\"permissionDecisionReason\":" + nlohmann::json(reason).dump() + "}}\n";
}

const char kAllowReason[] = "safesh: allowed: every command matches auto_approve";
const char kDenyReason[] =
    "safesh: blocked by command policy: `rm -rf build' matches the deny rule `rm'";
const char kAskReason[] = "needs approval: `git push' is not in auto_approve";

// --- Claude Code -------------------------------------------------------------------------

TEST_F(Hook, ClaudeAllowAskDeny) {
  RunOutput allow = Ask("claude", "echo hello");
  EXPECT_EQ(allow.exit_code, 0) << allow.err;
  EXPECT_EQ(allow.out, ClaudeAnswer("allow", kAllowReason));
  EXPECT_EQ(allow.err, "");

  RunOutput ask = Ask("claude", "git push");
  EXPECT_EQ(ask.exit_code, 0) << ask.err;
  EXPECT_EQ(ask.out, ClaudeAnswer("ask", std::string("safesh: ") + kAskReason));

  RunOutput deny = Ask("claude", "rm -rf build");
  EXPECT_EQ(deny.exit_code, 0) << deny.err;
  EXPECT_EQ(deny.out, ClaudeAnswer("deny", kDenyReason));
}

TEST_F(Hook, RecordedPayloadsAsTheyAre) {
  // The recorded cwd does not exist here: the call is blocked, unless --workspace says where.
  std::string recorded = ReadData("claude_pretooluse_bash.json");
  RunOutput blocked = Safesh({"hook", "claude", "--config", rules_}, recorded);
  EXPECT_EQ(blocked.exit_code, 2);
  EXPECT_EQ(blocked.out, "");
  EXPECT_EQ(blocked.err,
            "safesh hook: the workspace /home/user/proj is not an existing directory (an "
            "absolute path)\n");
  RunOutput answered = Safesh({"hook", "claude", "--config", rules_, "--workspace", ws_}, recorded);
  EXPECT_EQ(answered.exit_code, 0) << answered.err;
  EXPECT_EQ(answered.out,
            ClaudeAnswer("ask", "safesh: needs approval: `npm test' is not in auto_approve"));
  RunOutput codex = Safesh({"hook", "codex", "--config", rules_, "--workspace", ws_},
                           ReadData("codex_pretooluse_bash.json"));
  EXPECT_EQ(codex.exit_code, 0) << codex.err;
  EXPECT_NE(codex.out.find("\"permissionDecision\":\"deny\""), std::string::npos) << codex.out;
  RunOutput gemini = Safesh({"hook", "gemini", "--config", rules_, "--workspace", ws_},
                            ReadData("gemini_beforetool_shell.json"));
  EXPECT_EQ(gemini.exit_code, 0) << gemini.err;
  EXPECT_EQ(gemini.out.rfind("{\"decision\":\"deny\",\"reason\":", 0), 0u) << gemini.out;
}

TEST_F(Hook, OtherToolsGetNoDecision) {
  for (const auto& [agent, file, want] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"claude", "claude_pretooluse_read.json", "{}\n"},
           {"codex", "codex_pretooluse_apply_patch.json", ""},
           {"gemini", "gemini_beforetool_read_file.json", "{}\n"}}) {
    RunOutput r = Safesh({"hook", agent, "--config", rules_}, Payload(file));
    EXPECT_EQ(r.exit_code, 0) << agent << ": " << r.err;
    EXPECT_EQ(r.out, want) << agent;
    EXPECT_EQ(r.err, "") << agent;
  }
  EXPECT_TRUE(AuditRecords("hook").empty());
}

// --- Codex and Gemini CLI: no ask ----------------------------------------------------------

std::string HowToApprove(const std::string& title, const std::string& ws) {
  return std::string("safesh: blocked by command policy: ") + kAskReason + ". " + title +
         " hooks cannot ask a person, so safesh denies it. To allow it, run it once yourself at "
         "a terminal with `safesh run --workspace " +
         ws +
         " -- COMMAND` and answer \"always\" (remembered for this exact command in this "
         "workspace, see `safesh approvals`), or add a pattern for it to [commands] auto_approve "
         "in ~/.config/safesh/settings.toml";
}

TEST_F(Hook, CodexAllowAskDeny) {
  RunOutput allow = Ask("codex", "echo hello");
  EXPECT_EQ(allow.exit_code, 0) << allow.err;
  EXPECT_EQ(allow.out, "");  // Codex: silence lets the call go on
  EXPECT_EQ(allow.err, "");

  RunOutput ask = Ask("codex", "git push");
  EXPECT_EQ(ask.exit_code, 0) << ask.err;
  EXPECT_EQ(ask.out, ClaudeAnswer("deny", HowToApprove("Codex", ws_)));

  RunOutput deny = Ask("codex", "rm -rf build");
  EXPECT_EQ(deny.exit_code, 0) << deny.err;
  EXPECT_EQ(deny.out, ClaudeAnswer("deny", kDenyReason));
}

TEST_F(Hook, GeminiAllowAskDeny) {
  RunOutput allow = Ask("gemini", "echo hello");
  EXPECT_EQ(allow.exit_code, 0) << allow.err;
  EXPECT_EQ(allow.out, "{\"decision\":\"allow\"}\n");
  EXPECT_EQ(allow.err, "");

  RunOutput ask = Ask("gemini", "git push");
  EXPECT_EQ(ask.exit_code, 0) << ask.err;
  EXPECT_EQ(ask.out, "{\"decision\":\"deny\",\"reason\":" +
                         nlohmann::json(HowToApprove("Gemini CLI", ws_)).dump() + "}\n");

  RunOutput deny = Ask("gemini", "rm -rf build");
  EXPECT_EQ(deny.exit_code, 0) << deny.err;
  EXPECT_EQ(deny.out,
            "{\"decision\":\"deny\",\"reason\":" + nlohmann::json(kDenyReason).dump() + "}\n");
}

// --- The same settings, approvals and audit log as check and run ----------------------------

TEST_F(Hook, RememberedApprovalAnswersTheAsk) {
  Remember("git push");
  for (const std::string agent : {"claude", "codex", "gemini"}) {
    RunOutput r = Ask(agent, "git push");
    EXPECT_EQ(r.exit_code, 0) << agent << ": " << r.err;
    if (agent == "claude") {
      EXPECT_EQ(r.out, ClaudeAnswer("allow",
                                    "safesh: approved before (remembered approval a1b2c3d4e5f6, "
                                    "see `safesh approvals`)"));
    } else if (agent == "codex") {
      EXPECT_EQ(r.out, "");
    } else {
      EXPECT_EQ(r.out, "{\"decision\":\"allow\"}\n");
    }
  }
  // Exactly that command: one byte more is asked about again.
  EXPECT_EQ(Ask("claude", "git push ").out,
            ClaudeAnswer("ask", "safesh: needs approval: `git push' is not in auto_approve"));
  // A deny is never overridden by an approval.
  Remember("rm -rf build");
  EXPECT_EQ(Ask("claude", "rm -rf build").out, ClaudeAnswer("deny", kDenyReason));
}

TEST_F(Hook, ProjectSettingsAndTrust) {
  std::filesystem::create_directories(ws_ + "/.safesh");
  // A project file may tighten without being trusted.
  std::ofstream(ws_ + "/.safesh/settings.toml") << "[commands]\ndeny = [\"printf\"]\n";
  RunOutput tightened = Ask("claude", "printf hi");
  EXPECT_EQ(tightened.exit_code, 0) << tightened.err;
  EXPECT_NE(tightened.out.find("\"permissionDecision\":\"deny\""), std::string::npos)
      << tightened.out;
  // A loosening one, untrusted, is bad settings: blocked.
  std::ofstream(ws_ + "/.safesh/settings.toml") << "[commands]\nauto_approve = [\"git\"]\n";
  RunOutput loosened = Ask("claude", "git push");
  EXPECT_EQ(loosened.exit_code, 2);
  EXPECT_EQ(loosened.out, "");
  EXPECT_EQ(loosened.err.rfind("safesh hook: bad settings: ", 0), 0u) << loosened.err;
}

TEST_F(Hook, EachAnswerIsAudited) {
  Ask("codex", "git push");
  std::vector<nlohmann::json> records = AuditRecords("hook");
  ASSERT_EQ(records.size(), 1u) << Audit();
  const nlohmann::json& r = records[0];
  EXPECT_EQ(r["client"], "hook-codex");
  EXPECT_EQ(r["command"], "git push");
  EXPECT_EQ(r["workspace"], ws_);
  EXPECT_EQ(r["tool"], "Bash");
  EXPECT_EQ(r["session_id"], "0199a7c2-5e1b-7f30-8d44-6b2a9c1e0f57");
  EXPECT_EQ(r["decision"], "ask");  // the policy's verdict
  EXPECT_EQ(r["answer"], "deny");   // what Codex was told
  EXPECT_EQ(r["sandboxed"], false);
  RunOutput shown = Safesh({"audit"}, "");
  EXPECT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_NE(shown.out.find("hook-codex: git push  → deny: needs approval"), std::string::npos)
      << shown.out;
}

// --- Failing closed: every way of not answering blocks the call ------------------------------

void ExpectBlocked(const RunOutput& r, const std::string& err_part, const std::string& what) {
  EXPECT_EQ(r.exit_code, 2) << what << ": " << r.err;
  EXPECT_EQ(r.signal, 0) << what;
  EXPECT_EQ(r.out, "") << what;
  EXPECT_EQ(r.err.rfind("safesh hook: ", 0), 0u) << what << ": " << r.err;
  EXPECT_NE(r.err.find(err_part), std::string::npos) << what << ": " << r.err;
}

TEST_F(Hook, BadPayloadsBlock) {
  for (const std::string agent : {"claude", "codex", "gemini"}) {
    std::vector<std::string> args = {"hook", agent, "--config", rules_};
    ExpectBlocked(Safesh(args, ""), "no hook payload", agent + " empty");
    ExpectBlocked(Safesh(args, "{\"tool_name\": \"Bash\""), "not valid JSON", agent + " bad");
    ExpectBlocked(Safesh(args, "[1,2]"), "not a JSON object", agent + " array");
    nlohmann::json j = nlohmann::json::parse(Payload(File(agent)));
    nlohmann::json no_input = j;
    no_input.erase("tool_input");
    ExpectBlocked(Safesh(args, no_input.dump()), "no tool_input object", agent + " no input");
    nlohmann::json no_command = j;
    no_command["tool_input"].erase("command");
    ExpectBlocked(Safesh(args, no_command.dump()), "no tool_input.command string",
                  agent + " no command");
    nlohmann::json number = j;
    number["tool_input"]["command"] = 42;
    ExpectBlocked(Safesh(args, number.dump()), "no tool_input.command string", agent + " number");
    nlohmann::json empty = j;
    empty["tool_input"]["command"] = " \n";
    ExpectBlocked(Safesh(args, empty.dump()), "the command is empty", agent + " empty command");
    nlohmann::json no_tool = j;
    no_tool.erase("tool_name");
    ExpectBlocked(Safesh(args, no_tool.dump()), "no tool_name", agent + " no tool");
    nlohmann::json other_event = j;
    other_event["hook_event_name"] = "PostToolUse";
    ExpectBlocked(Safesh(args, other_event.dump()), "not PostToolUse", agent + " event");
    nlohmann::json no_cwd = j;
    no_cwd.erase("cwd");
    ExpectBlocked(Safesh(args, no_cwd.dump()), "no cwd (give --workspace)", agent + " no cwd");
    nlohmann::json relative = j;
    relative["cwd"] = "proj";
    ExpectBlocked(Safesh(args, relative.dump()), "not an existing directory",
                  agent + " relative cwd");
    nlohmann::json cwd_number = j;
    cwd_number["cwd"] = 7;
    ExpectBlocked(Safesh(args, cwd_number.dump()), "\"cwd\" is not a string", agent + " cwd 7");
  }
  // Each agent's payload is refused by the others' hooks: the event names differ (Gemini), and
  // Claude Code's and Codex's shapes agree, so those two are answered by either.
  ExpectBlocked(Safesh({"hook", "gemini", "--config", rules_}, Payload(File("claude"))),
                "not PreToolUse", "claude payload to gemini");
  ExpectBlocked(Safesh({"hook", "claude", "--config", rules_}, Payload(File("gemini"))),
                "not BeforeTool", "gemini payload to claude");
}

TEST_F(Hook, HugePayloadBlocks) {
  std::string command = "echo " + std::string(5 * 1024 * 1024, 'a');
  ExpectBlocked(Ask("claude", command), "larger than 4 MiB", "5 MiB");
  // Garbage that never ends is cut at the limit too.
  ExpectBlocked(Safesh({"hook", "codex"}, std::string(4 * 1024 * 1024 + 1, '{')),
                "larger than 4 MiB", "4 MiB + 1");
}

TEST_F(Hook, BadAgentOrArgumentsBlock) {
  std::string payload = Payload(File("claude"));
  ExpectBlocked(Safesh({"hook", "cursor"}, payload), "unknown agent cursor", "unknown agent");
  ExpectBlocked(Safesh({"hook"}, payload), "no agent given", "no agent");
  ExpectBlocked(Safesh({"hook", "claude", "--frobnicate"}, payload), "bad arguments", "flag");
  ExpectBlocked(Safesh({"hook", "claude", "codex"}, payload), "bad arguments", "two agents");
  ExpectBlocked(Safesh({"hook", "codex", "--sandbox"}, Payload(File("codex"))),
                "--sandbox works only with claude", "codex --sandbox");
  ExpectBlocked(Safesh({"hook", "gemini", "--sandbox"}, Payload(File("gemini"))),
                "--sandbox works only with claude", "gemini --sandbox");
}

TEST_F(Hook, UnreadableSettingsBlock) {
  std::string payload = Payload(File("claude"));
  ExpectBlocked(Safesh({"hook", "claude", "--config", dir_.path + "/missing.toml"}, payload),
                "bad settings", "missing --config");
  ExpectBlocked(Safesh({"hook", "claude", "--config", dir_.path}, payload), "bad settings",
                "directory as --config");
  std::ofstream(dir_.path + "/broken.toml") << "[commands\n";
  ExpectBlocked(Safesh({"hook", "claude", "--config", dir_.path + "/broken.toml"}, payload),
                "bad settings", "broken --config");
  std::filesystem::create_directories(dir_.path + "/config/safesh");
  std::ofstream(dir_.path + "/config/safesh/settings.toml") << "[commands]\nauto_approve = 3\n";
  ExpectBlocked(Safesh({"hook", "claude"}, payload), "bad settings", "bad user settings");
}

TEST_F(Hook, AuditLogNotWritableBlocks) {
  std::filesystem::create_directories(state_.path + "/s/safesh");
  chmod((state_.path + "/s").c_str(), 0700);
  chmod((state_.path + "/s/safesh").c_str(), 0700);
  std::ofstream(state_.path + "/s/safesh/audit") << "not a folder";
  for (const std::string agent : {"claude", "codex", "gemini"}) {
    // Even an allow: a command that leaves no record does not run.
    ExpectBlocked(Ask(agent, "echo hello"), "could not be recorded in the audit log", agent);
  }
  // No state folder at all: nowhere to record.
  RunOutput r = Safesh({"hook", "claude", "--config", rules_}, Payload(File("claude")),
                       {"HOME=relative", "XDG_STATE_HOME="});
  ExpectBlocked(r, "could not be recorded in the audit log", "no state folder");
}

TEST_F(Hook, CrashesBlock) {
  std::string payload = Payload(File("claude"));
  for (const auto& [fault, message] : std::vector<std::pair<std::string, std::string>>{
           {"throw", "internal error: fault injected by SAFESH_HOOK_FAULT"},
           {"terminate", "internal error (std::terminate)"},
           {"segv", "internal error (SIGSEGV)"},
           {"abort", "internal error (SIGABRT)"}}) {
    RunOutput r =
        Safesh({"hook", "claude", "--config", rules_}, payload, {"SAFESH_HOOK_FAULT=" + fault});
    EXPECT_EQ(r.exit_code, 2) << fault << ": " << r.err;
    EXPECT_EQ(r.out, "") << fault;
    EXPECT_NE(r.err.find("safesh hook: " + message), std::string::npos) << fault << ": " << r.err;
  }
}

TEST_F(Hook, ClosedStdoutBlocks) {
  // The agent stopped reading: an answer that cannot be written is no answer.
  std::string payload = Payload(File("gemini"));
  RunOptions options;
  options.env = Env();
  options.stdin_text = payload;
  RunOutput r = RunProgram(
      {"/bin/sh", "-c", "exec \"$0\" hook gemini --config \"$1\" >&-", SAFESH_BINARY, rules_},
      options);
  EXPECT_EQ(r.exit_code, 2) << r.err;
}

// --- --sandbox: the rewritten command runs the original through safesh run -------------------

class SandboxHook : public Hook {
 protected:
  // The hook's answer for `command`, and the rewritten command line (empty when none).
  std::string Rewrite(const std::string& command, std::string* decision = nullptr,
                      const std::string& file = "claude_pretooluse_bash.json") {
    RunOutput r =
        Safesh({"hook", "claude", "--sandbox", "--config", rules_}, Payload(file, &command));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    nlohmann::json j = nlohmann::json::parse(r.out);
    const nlohmann::json& h = j["hookSpecificOutput"];
    if (decision != nullptr) *decision = h["permissionDecision"];
    if (!h.contains("updatedInput")) return "";
    return h["updatedInput"]["command"];
  }
  // Runs `line` as the agent's shell would: bash reading it from a file, in the workspace.
  RunOutput Bash(const std::string& line, const std::string& name = "line.sh") {
    std::string script = dir_.path + "/" + name;
    std::ofstream(script, std::ios::binary) << line;
    RunOptions options;
    options.env = Env();
    options.cwd = ws_;
    options.timeout_seconds = 60;
    return RunProgram({"/bin/bash", script}, options);
  }
  RunOutput BashC(const std::string& line) {
    RunOptions options;
    options.env = Env();
    options.cwd = ws_;
    options.timeout_seconds = 60;
    return RunProgram({"/bin/bash", "-c", line}, options);
  }
  // The commands `safesh run` was asked to run, from its audit records.
  std::vector<std::string> RunRequests() {
    std::vector<std::string> out;
    for (const nlohmann::json& r : AuditRecords("request"))
      if (r["client"] == "run") out.push_back(r["command"]);
    return out;
  }
};

TEST_F(SandboxHook, AllowCarriesTheRewriteAndKeepsTheOtherFields) {
  std::string command = "echo hello";
  RunOutput r = Safesh({"hook", "claude", "--sandbox", "--config", rules_},
                       Payload("claude_pretooluse_bash.json", &command));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // /proc/self/exe: the program's real path.
  std::string binary = std::filesystem::canonical(SAFESH_BINARY).string();
  std::string line = binary + " run --workspace " + ws_ + " --config " + rules_ +
                     " --timeout 120 --command-base64 'ZWNobyBoZWxsbw=='";
  EXPECT_EQ(r.out,
            "{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\","
            "\"permissionDecision\":\"allow\",\"permissionDecisionReason\":" +
                nlohmann::json(kAllowReason).dump() +
                ",\"updatedInput\":{\"command\":" + nlohmann::json(line).dump() +
                ",\"description\":\"Run the test suite\",\"timeout\":120000}}}\n");
  RunOutput ran = BashC(line);
  EXPECT_EQ(ran.exit_code, 0) << ran.err;
  EXPECT_EQ(ran.out, "hello\n");
  EXPECT_EQ(RunRequests(), std::vector<std::string>{"echo hello"});
  std::vector<nlohmann::json> hooks = AuditRecords("hook");
  ASSERT_EQ(hooks.size(), 1u);
  EXPECT_EQ(hooks[0]["sandboxed"], true);
}

// Where `safesh run` would find no sandbox, a line the rules allow is asked about in the agent's
// prompt (nothing runs unasked without the sandbox), and the rewrite carries that approval.
TEST_F(SandboxHook, WithoutASandboxAnAllowedCommandIsAsked) {
  std::string command = "echo hello";
  RunOutput r =
      Safesh({"hook", "claude", "--sandbox", "--config", rules_},
             Payload("claude_pretooluse_bash.json", &command), {"SAFESH_SANDBOX_SHELL=off"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json h = nlohmann::json::parse(r.out)["hookSpecificOutput"];
  EXPECT_EQ(h["permissionDecision"], "ask");
  EXPECT_NE(h["permissionDecisionReason"].get<std::string>().find(
                "the sandbox is off, so nothing runs unasked"),
            std::string::npos)
      << h;
  EXPECT_NE(h["updatedInput"]["command"].get<std::string>().find("--approve yes"),
            std::string::npos)
      << h;
}

TEST_F(SandboxHook, HostileCommandsRunAsThemselves) {
  // Each is allowed by the rules (echo, printf, cat with literal words), and each would break
  // out of a rewrite that quoted it naively: the output must be bash's own for the command.
  const std::vector<std::string> commands = {
      "echo \"it's\" 'a \"quoted\" test' \\' \\\"",
      "echo one\necho two\n\necho 'three\nfour'",
      "echo '$(touch pwned1)' '`touch pwned2`' '${HOME}' \"\\$(touch pwned3)\"",
      "echo 'x'\"'\"'; touch pwned4; echo '\"'\"'y'",
      "printf '%s|' a b 'c d' '' ';' '&&' '|' '>' '\\n'",
      "echo ' \\' '; touch pwned5 #'",
      "echo $'tab\\there' $'\\x27' 'é ü ☃'",
      "echo --command-base64 Zm9v -- --workspace / ')' '(' \"\\\"\"",
  };
  for (const std::string& command : commands) {
    std::string decision;
    std::string line = Rewrite(command, &decision);
    ASSERT_EQ(decision, "allow") << command;
    ASSERT_FALSE(line.empty()) << command;
    EXPECT_EQ(line.find(command), std::string::npos) << "the command shows in the line";
    RunOutput want = BashC(command);
    ASSERT_EQ(want.exit_code, 0) << command;
    RunOutput got = Bash(line);
    EXPECT_EQ(got.exit_code, 0) << command << "\n" << got.err;
    EXPECT_EQ(got.out, want.out) << command;
    RunOutput got_c = BashC(line);
    EXPECT_EQ(got_c.out, want.out) << command;
  }
  for (int i = 1; i <= 5; ++i)
    EXPECT_FALSE(std::filesystem::exists(ws_ + "/pwned" + std::to_string(i))) << i;
  // safesh run ran exactly the commands, twice each, and nothing else.
  std::vector<std::string> want;
  for (const std::string& c : commands) {
    want.push_back(c);
    want.push_back(c);
  }
  EXPECT_EQ(RunRequests(), want);
}

TEST_F(SandboxHook, LongCommands) {
  // The longest command whose rewrite still fits one argument runs whole.
  std::string body(95 * 1024, 'A');
  std::string command = "printf %s " + body + " | wc -c";
  std::string decision;
  std::string line = Rewrite(command, &decision);
  ASSERT_EQ(decision, "allow");
  ASSERT_FALSE(line.empty());
  RunOutput got = BashC(line);
  EXPECT_EQ(got.exit_code, 0) << got.err;
  EXPECT_EQ(got.out, std::to_string(body.size()) + "\n");
  // 128 KiB cannot go through the agent's shell as one argument once encoded: denied, and said.
  std::string huge = "printf %s " + std::string(128 * 1024 - 1 - 18, 'B') + " | wc -c";
  ASSERT_EQ(huge.size(), 128u * 1024 - 1);
  line = Rewrite(huge, &decision);
  EXPECT_EQ(decision, "deny");
  EXPECT_EQ(line, "");
  // safesh run itself takes the longest command, in pieces, however it is split.
  RunOptions encode;
  encode.stdin_text = huge;
  RunOutput b64 = RunProgram({"/usr/bin/base64", "-w0"}, encode);
  ASSERT_EQ(b64.exit_code, 0);
  std::string pieces;
  for (size_t i = 0; i < b64.out.size(); i += 50000)
    pieces += " --command-base64 '" + b64.out.substr(i, 50000) + "'";
  RunOutput whole =
      Bash(std::string(SAFESH_BINARY) + " run --workspace " + ws_ + " --config " + rules_ + pieces,
           "pieces.sh");
  EXPECT_EQ(whole.exit_code, 0) << whole.err;
  EXPECT_EQ(whole.out, std::to_string(128 * 1024 - 1 - 18) + "\n");
  EXPECT_EQ(RunRequests().back(), huge);
}

TEST_F(SandboxHook, AskIsApprovedInClaudeCodesPromptDenyIsNotRewritten) {
  std::string decision;
  std::string line = Rewrite("uname -s", &decision);
  EXPECT_EQ(decision, "ask");
  EXPECT_NE(line.find(" --approve yes "), std::string::npos) << line;
  RunOutput ran = BashC(line);  // Claude Code runs it only after the person said yes
  EXPECT_EQ(ran.exit_code, 0) << ran.err;
  EXPECT_EQ(ran.out, "Linux\n");
  // The prompt shows the command itself, not only its base64.
  std::string uname = "uname -s";
  RunOutput r =
      Safesh({"hook", "claude", "--sandbox", "--config", rules_}, Payload(File("claude"), &uname));
  EXPECT_NE(r.out.find("approved, it runs in safesh's sandbox: 'uname -s'"), std::string::npos)
      << r.out;

  line = Rewrite("rm -rf build", &decision);
  EXPECT_EQ(decision, "deny");
  EXPECT_EQ(line, "");
}

TEST_F(SandboxHook, NulByteNeverRuns) {
  std::string command("echo a\0; touch pwned", 20);
  std::string decision;
  std::string line = Rewrite(command, &decision);
  EXPECT_NE(decision, "allow");
  if (!line.empty()) {
    RunOutput ran = BashC(line);
    EXPECT_NE(ran.exit_code, 0);
    EXPECT_EQ(ran.out, "");
  }
  EXPECT_FALSE(std::filesystem::exists(ws_ + "/pwned"));
}

TEST_F(SandboxHook, AWorkspacePathWithControlCharactersIsNotPutInALine) {
  std::string odd = dir_.path + "/a\nb";
  std::filesystem::create_directories(odd);
  nlohmann::json j = nlohmann::json::parse(Payload(File("claude")));
  j["cwd"] = odd;
  j["tool_input"]["command"] = "echo hi";
  ExpectBlocked(Safesh({"hook", "claude", "--sandbox", "--config", rules_}, j.dump()),
                "holds control characters", "newline in the workspace");
  // Without --sandbox nothing is rewritten, and the answer is the policy's.
  RunOutput plain = Safesh({"hook", "claude", "--config", rules_}, j.dump());
  EXPECT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(plain.out, ClaudeAnswer("allow", kAllowReason));
}

TEST_F(SandboxHook, RunRefusesBadBase64) {
  for (const std::string bad : {"Zm9", "Zm9v!", "Zh==", "Zm9v Zm9v"}) {
    RunOutput r =
        Safesh({"run", "--workspace", ws_, "--config", rules_, "--command-base64", bad}, "");
    EXPECT_EQ(r.exit_code, 64) << bad;
    EXPECT_NE(r.err.find("not valid base64"), std::string::npos) << r.err;
  }
  RunOutput both = Safesh(
      {"run", "--workspace", ws_, "--config", rules_, "--command-base64", "Zm9v", "--", "ls"}, "");
  EXPECT_EQ(both.exit_code, 64);
  EXPECT_TRUE(RunRequests().empty());
}

}  // namespace
}  // namespace safesh::testing
