// The MCP server's pieces: JSON-RPC lines, the tools' arguments and texts, and the server
// itself driven through pipes the way a client drives `safesh mcp`. The official TypeScript
// client's end-to-end tests are in tests/mcp/e2e/.
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "config/settings.h"
#include "exec/cancel.h"
#include "exec/procs.h"
#include "mcp/jsonrpc.h"
#include "mcp/server.h"
#include "mcp/tools.h"
#include "support/temp_dir.h"

namespace safesh::mcp {
namespace {

using namespace std::chrono_literals;

TEST(JsonRpc, ReadsEachKindOfMessage) {
  Message r = ParseMessage(R"({"jsonrpc":"2.0","id":7,"method":"ping"})");
  EXPECT_EQ(r.kind, Message::Kind::kRequest);
  EXPECT_EQ(r.id, 7);
  EXPECT_EQ(r.method, "ping");
  Message n = ParseMessage(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  EXPECT_EQ(n.kind, Message::Kind::kNotification);
  Message a = ParseMessage(R"({"jsonrpc":"2.0","id":"x","result":{"action":"accept"}})");
  EXPECT_EQ(a.kind, Message::Kind::kResponse);
  EXPECT_EQ(a.result["action"], "accept");
  Message e = ParseMessage(R"({"jsonrpc":"2.0","id":3,"error":{"code":-1,"message":"no"}})");
  EXPECT_EQ(e.kind, Message::Kind::kResponse);
  EXPECT_EQ(e.error["code"], -1);
}

TEST(JsonRpc, RefusesWhatIsNotAMessage) {
  struct Case {
    const char* line;
    int code;
  } cases[] = {
      {"not json", kParseError},
      {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"", kParseError},         // cut short
      {"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]", kInvalidRequest},  // a batch
      {"42", kInvalidRequest},
      {"{\"id\":1,\"method\":\"ping\"}", kInvalidRequest},  // no jsonrpc
      {"{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"ping\"}", kInvalidRequest},
      {"{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}", kInvalidRequest},  // id an object
      {"{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}", kInvalidRequest},
      {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":3}", kInvalidRequest},
      {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":3}", kInvalidRequest},
      {"{\"jsonrpc\":\"2.0\",\"id\":1}", kInvalidRequest},  // neither method nor result
      {"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":1,\"error\":{}}", kInvalidRequest},
      {"{\"jsonrpc\":\"2.0\",\"method\":\"\xff\"}", kParseError},  // not UTF-8
  };
  for (const Case& c : cases) {
    Message m = ParseMessage(c.line);
    EXPECT_EQ(m.kind, Message::Kind::kInvalid) << c.line;
    EXPECT_EQ(m.error_code, c.code) << c.line;
    EXPECT_FALSE(m.error_text.empty());
  }
  // The id of an invalid request is kept, so the error can be matched to it.
  EXPECT_EQ(ParseMessage(R"({"jsonrpc":"1.0","id":9,"method":"ping"})").id, 9);
}

TEST(JsonRpc, WritesValidJsonWhateverTheBytes) {
  std::string line = ResultLine(1, {{"text", std::string("a\xff\xfe"
                                                         "b\n\0c",
                                                         7)}});
  Json back = Json::parse(line);  // throws if invalid
  EXPECT_EQ(back["result"]["text"],
            "a\xEF\xBF\xBD\xEF\xBF\xBD"
            "b\n" +
                std::string(1, '\0') + "c");
  EXPECT_EQ(line.find('\n'), std::string::npos);  // one message, one line
}

// A pipe with `text` written into it and closed.
int PipeWith(const std::string& text) {
  int p[2];
  EXPECT_EQ(pipe(p), 0);
  std::thread([fd = p[1], text] {
    size_t done = 0;
    while (done < text.size()) {
      ssize_t n = write(fd, text.data() + done, text.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    close(fd);
  }).detach();
  return p[0];
}

TEST(JsonRpc, LineReaderSplitsLinesAndSkipsHugeOnes) {
  std::string huge(kMaxLineBytes + 10, 'x');
  int fd = PipeWith("one\r\ntwo\n\n" + huge + "\nthree\nlast without newline");
  LineReader reader(fd);
  std::string line;
  EXPECT_FALSE(reader.HasLine());
  ASSERT_EQ(reader.Next(&line), LineReader::Status::kLine);
  EXPECT_EQ(line, "one");
  // Read together with "one": waiting in the reader, not in the pipe.
  EXPECT_TRUE(reader.HasLine());
  ASSERT_EQ(reader.Next(&line), LineReader::Status::kLine);
  EXPECT_EQ(line, "two");
  ASSERT_EQ(reader.Next(&line), LineReader::Status::kLine);
  EXPECT_EQ(line, "");
  EXPECT_EQ(reader.Next(&line), LineReader::Status::kTooLong);
  ASSERT_EQ(reader.Next(&line), LineReader::Status::kLine);
  EXPECT_EQ(line, "three");
  ASSERT_EQ(reader.Next(&line), LineReader::Status::kLine);
  EXPECT_EQ(line, "last without newline");
  EXPECT_EQ(reader.Next(&line), LineReader::Status::kEnd);
  close(fd);
}

TEST(Tools, ArgumentsAreCheckedWithAReasonToAct) {
  std::string error;
  auto ok = ReadCommandArgs(kRunTool, {{"command", "ls"}, {"cwd", "src"}, {"timeout_seconds", 5}},
                            &error);
  ASSERT_TRUE(ok) << error;
  EXPECT_EQ(ok->command, "ls");
  EXPECT_EQ(ok->cwd, "src");
  EXPECT_EQ(*ok->timeout_seconds, 5);
  // argv: each word literal, quoted for bash.
  auto argv = ReadCommandArgs(kRunTool, {{"argv", {"printf", "%s\n", "$(id)", "a b"}}}, &error);
  ASSERT_TRUE(argv) << error;
  EXPECT_EQ(argv->command, "printf $'%s\\n' '$(id)' 'a b'");
  struct Bad {
    Json args;
    const char* says;
  } bad[] = {
      {Json::object(), "give `command`"},
      {{{"command", "ls"}, {"argv", {"ls"}}}, "not both"},
      {{{"command", 3}}, "`command` must be a string"},
      {{{"argv", Json::array()}}, "non-empty array"},
      {{{"argv", {"ls", 2}}}, "non-empty array"},
      {{{"command", "ls"}, {"timeout_seconds", "soon"}}, "number of seconds"},
      {{{"command", "ls"}, {"colour", true}}, "unknown argument `colour`"},
      {{{"command", "ls"}, {"notify", true}}, "background"},
      {{{"command", "ls"}, {"background", "yes"}}, "true or false"},
  };
  for (const Bad& b : bad) {
    EXPECT_FALSE(ReadCommandArgs(kRunTool, b.args, &error)) << b.args.dump();
    EXPECT_NE(error.find(b.says), std::string::npos) << error;
  }
  // check_command takes no run options.
  EXPECT_FALSE(ReadCommandArgs(kCheckTool, {{"command", "ls"}, {"timeout_seconds", 1}}, &error));
  EXPECT_NE(error.find("unknown argument"), std::string::npos);
}

TEST(Tools, StatusRidesInTheTextOnlyWhenThereIsSomethingToSay) {
  pipeline::RunResult r;
  r.outcome = pipeline::RunResult::Outcome::kRan;
  r.output = "built\n";
  r.exit_code = 0;
  EXPECT_EQ(RunResultText(r, 120), "built\n");
  r.exit_code = 2;
  EXPECT_EQ(RunResultText(r, 120), "built\nExit code: 2");
  r.output = "no newline";
  EXPECT_EQ(RunResultText(r, 120), "no newline\nExit code: 2");
  r.exit_code = -1;
  r.timed_out = true;
  r.error = "command timed out after 1.5 s";
  EXPECT_EQ(RunResultText(r, 1.5), "no newline\n[timed out after 1.5 s]");
  pipeline::RunResult denied;
  denied.outcome = pipeline::RunResult::Outcome::kDenied;
  denied.error = "blocked by command policy: rm of /";
  EXPECT_EQ(RunResultText(denied, 120), "blocked by command policy: rm of /");
  Json j = RunToolResult(denied, 120, ToolDialect{});
  EXPECT_TRUE(j["isError"].get<bool>());
  EXPECT_EQ(j["structuredContent"]["error"], "blocked by command policy: rm of /");
  // Text, then the same object as text.
  EXPECT_EQ(Json::parse(j["content"][1]["text"].get<std::string>()), j["structuredContent"]);
  EXPECT_FALSE(RunToolResult(denied, 120, ToolDialect{false}).contains("structuredContent"));
}

TEST(Tools, ListHasSchemasAndAnnotations) {
  Json list = ToolList(ToolDialect{});
  ASSERT_EQ(list["tools"].size(), 3u);
  for (const Json& t : list["tools"]) {
    EXPECT_EQ(t["inputSchema"]["type"], "object") << t["name"];
    EXPECT_EQ(t["outputSchema"]["type"], "object") << t["name"];
  }
  EXPECT_EQ(list["tools"][1]["name"], kManageTool);
  EXPECT_EQ(list["tools"][2]["name"], kCheckTool);
  EXPECT_TRUE(list["tools"][2]["annotations"]["readOnlyHint"].get<bool>());
  EXPECT_FALSE(ToolList(ToolDialect{false})["tools"][0].contains("outputSchema"));
}

// The first live process whose command line is `marker`, waited for up to 5 s; 0 if none.
pid_t WaitForProcess(const std::string& marker) {
  for (int i = 0; i < 250; ++i) {
    std::vector<int> found = testing::ProcessesWith(marker);
    if (!found.empty()) return found[0];
    std::this_thread::sleep_for(20ms);
  }
  return 0;
}

// The server on pipes, in this process: the test is the client.
class ServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(dir_.path + "/ws");
    std::filesystem::create_directories(dir_.path + "/home");
    std::filesystem::create_directories(dir_.path + "/state/spool");
    // The spool's folders must be private (exec/spool.h).
    std::filesystem::permissions(dir_.path + "/state", std::filesystem::perms::owner_all);
    std::filesystem::permissions(dir_.path + "/state/spool", std::filesystem::perms::owner_all);
  }

  // Starts the server with these [commands] rules (TOML) and [sandbox] shell (the sandbox, so
  // that auto_approve runs commands unasked).
  void Start(const std::string& rules, const std::string& shell = "required") {
    std::string error;
    std::optional<config::Settings> s = config::ParseSettings(
        rules + "\n[sandbox]\nshell = \"" + shell + "\"\n", "test.toml", &error);
    ASSERT_TRUE(s) << error;
    config_.context.settings = *s;
    policy_ = policy::Policy::Compile(s->commands, &error);
    ASSERT_TRUE(policy_) << error;
    config_.context.policy = &*policy_;
    config_.context.workspace = dir_.path + "/ws";
    config_.context.home = dir_.path + "/home";
    config_.context.spool_base = dir_.path + "/state/spool";
    for (const char* e : {"PATH=/usr/bin:/bin", "LC_ALL=C.UTF-8"})
      environment_.emplace_back(e);
    config_.context.environment = {environment_[0], environment_[1]};
    config_.version = "test";
    config_.progress_every_ms = 100;
    int in[2], out[2];
    ASSERT_EQ(pipe2(in, O_CLOEXEC), 0);
    ASSERT_EQ(pipe2(out, O_CLOEXEC), 0);
    to_server_ = in[1];
    from_server_ = out[0];
    server_ = std::thread([this, r = in[0], w = out[1]] {
      status_ = Serve(r, w, stop_.fd(), config_);
      close(r);
      close(w);
    });
    reader_.emplace(from_server_);
  }

  void TearDown() override {
    if (to_server_ >= 0) close(to_server_);
    if (server_.joinable()) server_.join();
    if (from_server_ >= 0) close(from_server_);
  }

  void SendLine(const std::string& line) {
    std::string l = line + "\n";
    ASSERT_EQ(write(to_server_, l.data(), l.size()), static_cast<ssize_t>(l.size()));
  }
  void Send(const Json& j) { SendLine(j.dump()); }

  // The next message from the server (within `wait`), or null.
  Json Next(std::chrono::milliseconds wait = 10s) {
    // Two messages may come in one read: the second is then waiting in the reader, not the pipe.
    pollfd p = {from_server_, POLLIN, 0};
    if (!reader_->HasLine() && poll(&p, 1, static_cast<int>(wait.count())) <= 0) return Json();
    std::string line;
    if (reader_->Next(&line) != LineReader::Status::kLine) return Json();
    return Json::parse(line);
  }

  // The next message that is not a notification.
  Json NextAnswer() {
    for (;;) {
      Json j = Next();
      if (j.is_null() || !j.contains("method") || j.contains("id")) return j;
    }
  }

  void Initialize(const Json& capabilities = Json::object(),
                  const std::string& version = "2025-11-25") {
    Send(Json{{"jsonrpc", "2.0"},
              {"id", 0},
              {"method", "initialize"},
              {"params",
               {{"protocolVersion", version},
                {"capabilities", capabilities},
                {"clientInfo", {{"name", "test"}, {"version", "1"}}}}}});
    Json j = NextAnswer();
    ASSERT_TRUE(j.contains("result")) << j.dump();
    Send(Json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
  }

  void Call(int id, const std::string& tool, const Json& args, const Json& meta = Json()) {
    Json params = {{"name", tool}, {"arguments", args}};
    if (!meta.is_null()) params["_meta"] = meta;
    Send(Json{{"jsonrpc", "2.0"}, {"id", id}, {"method", "tools/call"}, {"params", params}});
  }

  testing::TempDir dir_;
  ServerConfig config_;
  std::optional<policy::Policy> policy_;
  std::vector<std::string> environment_;
  exec::CancelToken stop_;
  int to_server_ = -1;
  int from_server_ = -1;
  std::optional<LineReader> reader_;
  std::thread server_;
  int status_ = -1;
};

TEST_F(ServerTest, InitializeNegotiatesTheVersion) {
  Start("");
  // Before initialize only ping is served.
  SendLine(R"({"jsonrpc":"2.0","id":1,"method":"server/discover"})");
  Json j = NextAnswer();
  EXPECT_EQ(j["id"], 1);
  EXPECT_EQ(j["error"]["code"], kMethodNotFound);
  SendLine(R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})");
  EXPECT_EQ(NextAnswer()["error"]["code"], kMethodNotFound);
  SendLine(R"({"jsonrpc":"2.0","id":3,"method":"ping"})");
  EXPECT_EQ(NextAnswer()["result"], Json::object());
  // A version the server does not know gets the newest.
  SendLine(
      R"({"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"1999-01-01","capabilities":{}}})");
  j = NextAnswer();
  EXPECT_EQ(j["result"]["protocolVersion"], kProtocolVersions[0]);
  EXPECT_EQ(j["result"]["serverInfo"]["name"], "safesh");
  EXPECT_TRUE(j["result"]["capabilities"].contains("tools"));
  SendLine(
      R"({"jsonrpc":"2.0","id":5,"method":"initialize","params":{"protocolVersion":"2025-06-18"}})");
  EXPECT_EQ(NextAnswer()["error"]["code"], kInvalidRequest);  // once only
}

TEST_F(ServerTest, OlderVersionsGetWhatTheyKnow) {
  Start("");
  Initialize(Json::object(), "2025-03-26");
  SendLine(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})");
  Json j = NextAnswer();
  EXPECT_FALSE(j["result"]["tools"][0].contains("outputSchema"));
}

TEST_F(ServerTest, GarbageIsAnsweredAndServingGoesOn) {
  Start("[commands]\nauto_approve = [\"echo *\"]");
  Initialize();
  SendLine("this is not json");
  EXPECT_EQ(NextAnswer()["error"]["code"], kParseError);
  SendLine(R"([1,2])");
  EXPECT_EQ(NextAnswer()["error"]["code"], kInvalidRequest);
  SendLine(R"({"jsonrpc":"2.0","id":1,"method":"no/such"})");
  EXPECT_EQ(NextAnswer()["error"]["code"], kMethodNotFound);
  SendLine(R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"rm_everything"}})");
  EXPECT_EQ(NextAnswer()["error"]["code"], kInvalidParams);
  SendLine(R"({"jsonrpc":"2.0","id":3,"method":"tools/call"})");
  EXPECT_EQ(NextAnswer()["error"]["code"], kInvalidParams);
  SendLine(R"({"jsonrpc":"2.0","id":4,"method":"logging/setLevel","params":{"level":"loud"}})");
  EXPECT_EQ(NextAnswer()["error"]["code"], kInvalidParams);
  // Bad arguments are a tool error the model can act on, not a protocol error.
  Call(5, kRunTool, {{"command", "echo hi"}, {"colour", "red"}});
  Json j = NextAnswer();
  EXPECT_TRUE(j["result"]["isError"].get<bool>());
  EXPECT_NE(j["result"]["content"][0]["text"].get<std::string>().find("colour"), std::string::npos);
  // And it still serves.
  Call(6, kRunTool, {{"command", "echo still here"}});
  j = NextAnswer();
  EXPECT_EQ(j["id"], 6);
  EXPECT_EQ(j["result"]["content"][0]["text"], "still here\n");
  EXPECT_FALSE(j["result"]["isError"].get<bool>());
}

TEST_F(ServerTest, RunAndDenyAndCheck) {
  Start(
      "[commands]\nauto_approve = [\"printf *\", \"exit *\"]\ndeny = [\"rm *\"]\nask = [\"touch "
      "*\"]");
  Initialize();
  Call(1, kRunTool, {{"command", "printf 'out\\n'; printf 'err\\n' >&2; exit 3"}});
  Json j = NextAnswer();
  EXPECT_EQ(j["result"]["content"][0]["text"], "out\nerr\nExit code: 3");
  EXPECT_FALSE(j["result"]["isError"].get<bool>());
  EXPECT_EQ(j["result"]["structuredContent"]["exit_code"], 3);
  Call(2, kRunTool, {{"command", "rm -rf build"}});
  j = NextAnswer();
  EXPECT_TRUE(j["result"]["isError"].get<bool>());
  EXPECT_NE(j["result"]["content"][0]["text"].get<std::string>().find("blocked by command policy"),
            std::string::npos);
  Call(3, kCheckTool, {{"command", "printf x && rm -f y"}});
  j = NextAnswer();
  EXPECT_EQ(j["result"]["structuredContent"]["verdict"], "deny");
  EXPECT_EQ(j["result"]["structuredContent"]["commands"].size(), 2u);
  // A command that needs approval, with a client that cannot show forms: the headless answer.
  Call(4, kRunTool, {{"command", "touch made"}});
  j = NextAnswer();
  EXPECT_TRUE(j["result"]["isError"].get<bool>());
  EXPECT_NE(j["result"]["content"][0]["text"].get<std::string>().find("no one could be asked"),
            std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir_.path + "/ws/made"));
}

TEST_F(ServerTest, TimeoutRidesInTheText) {
  Start("[commands]\nauto_approve = [\"sleep *\"]");
  Initialize();
  Call(1, kRunTool, {{"command", "sleep 30"}, {"timeout_seconds", 0.3}});
  Json j = NextAnswer();
  EXPECT_EQ(j["result"]["content"][0]["text"], "[timed out after 0.3 s]");
  EXPECT_TRUE(j["result"]["structuredContent"]["timed_out"].get<bool>());
}

// The client's form answers the approval: accept runs the command, decline does not.
TEST_F(ServerTest, ElicitationApprovesOrDenies) {
  Start("[commands]\nask = [\"touch *\"]");
  Initialize({{"elicitation", Json::object()}});
  for (bool approve : {true, false}) {
    std::string file = approve ? "yes" : "no";
    Call(1, kRunTool, {{"command", "touch " + file}});
    Json ask = NextAnswer();
    ASSERT_EQ(ask["method"], "elicitation/create") << ask.dump();
    EXPECT_EQ(ask["params"]["mode"], "form");
    EXPECT_NE(ask["params"]["message"].get<std::string>().find("touch " + file), std::string::npos);
    EXPECT_EQ(ask["params"]["requestedSchema"]["properties"]["approve"]["type"], "boolean");
    Send(Json{{"jsonrpc", "2.0"},
              {"id", ask["id"]},
              {"result", approve ? Json{{"action", "accept"}, {"content", {{"approve", true}}}}
                                 : Json{{"action", "decline"}}}});
    Json j = NextAnswer();
    EXPECT_EQ(j["id"], 1);
    EXPECT_EQ(j["result"]["isError"].get<bool>(), !approve) << j.dump();
    EXPECT_EQ(std::filesystem::exists(dir_.path + "/ws/" + file), approve);
  }
}

// Cancelled: the command is killed, and nothing more is said about the request.
TEST_F(ServerTest, CancelKillsTheCommandAndSilencesTheRequest) {
  Start("[commands]\nauto_approve = [\"sleep *\"]");
  Initialize();
  Call(7, kRunTool, {{"command", "sleep 61.7071"}}, {{"progressToken", "tok"}});
  Json progress = Next();
  EXPECT_EQ(progress["method"], "notifications/progress");
  EXPECT_EQ(progress["params"]["progressToken"], "tok");
  pid_t pid = WaitForProcess("sleep 61.7071");
  ASSERT_GT(pid, 0);
  Send(Json{{"jsonrpc", "2.0"},
            {"method", "notifications/cancelled"},
            {"params", {{"requestId", 7}, {"reason", "user stopped it"}}}});
  bool gone = false;
  for (int i = 0; i < 250 && !gone; ++i) {
    gone = kill(pid, 0) != 0;
    if (!gone) std::this_thread::sleep_for(20ms);
  }
  EXPECT_TRUE(gone);
  // Messages are handled in order, so the cancellation was handled before ping 8 is answered.
  // Progress written before that may still arrive ahead of the answer; after it, for three
  // ticks and more, nothing at all comes for request 7. No answer for it ever comes. Each ping
  // checks the messages that come before its answer.
  auto ping = [&](int id, bool progress_allowed) {
    SendLine(R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"method":"ping"})");
    for (;;) {
      Json j = Next();
      ASSERT_FALSE(j.is_null());
      if (j.contains("id") && j["id"] == id) return;
      EXPECT_NE(j.value("id", Json()), 7) << j.dump();
      if (!progress_allowed) {
        EXPECT_NE(j.value("method", ""), "notifications/progress") << j.dump();
      }
    }
  };
  ping(8, true);
  std::this_thread::sleep_for(350ms);
  ping(9, false);
}

// The end of the input stops every running command and ends the server.
TEST_F(ServerTest, EndOfInputStopsEverything) {
  Start("[commands]\nauto_approve = [\"sleep *\"]");
  Initialize();
  Call(1, kRunTool, {{"command", "sleep 61.7072"}});
  pid_t pid = WaitForProcess("sleep 61.7072");
  ASSERT_GT(pid, 0);
  close(to_server_);
  to_server_ = -1;
  server_.join();
  EXPECT_EQ(status_, 0);
  EXPECT_NE(kill(pid, 0), 0);
}

}  // namespace
}  // namespace safesh::mcp
