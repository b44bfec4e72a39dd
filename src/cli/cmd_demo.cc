// `safesh demo`: a scripted agent session through the real MCP server. It starts `safesh mcp`
// in a throwaway workspace and home, speaks to it over stdio as an agent's client would, and
// prints what the agent sends and what comes back: a command that runs, one the policy denies,
// one that needs an approval no one is there to give, a read of ~/.ssh and a network call that
// the policy allows and the sandbox stops, and a background server that says when it is ready.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "cli/verbs.h"
#include "mcp/jsonrpc.h"
#include "util/unique_fd.h"

namespace safesh::cli {

void AddDemoCommand(CLI::App& app) {
  app.add_subcommand("demo",
                     "Show safesh at work: a scripted agent session through `safesh mcp`, in a "
                     "throwaway workspace");
}

namespace {

using mcp::Json;
using Clock = std::chrono::steady_clock;

// The folder of the session, removed at the end.
struct DemoDir {
  std::string path;
  DemoDir() {
    std::string t = "/tmp/safesh-demo-XXXXXX";
    if (mkdtemp(t.data()) != nullptr) path = t;
  }
  ~DemoDir() {
    std::error_code ignored;
    if (!path.empty()) std::filesystem::remove_all(path, ignored);
  }
};

// The server, and the agent's end of its stdin and stdout.
struct Server {
  pid_t pid = -1;
  util::UniqueFd to, from;
  std::optional<mcp::LineReader> reader;
  int next_id = 1;
  std::vector<Json> notes;  // notifications seen while waiting for answers

  void Send(const std::string& method, const Json& params, int id) {
    std::string line = mcp::RequestLine(id, method, params) + "\n";
    if (write(to.get(), line.data(), line.size()) < 0) return;
  }
  void Notify(const std::string& method, const Json& params) {
    std::string line = mcp::NotificationLine(method, params) + "\n";
    if (write(to.get(), line.data(), line.size()) < 0) return;
  }
  // The next message, or null after `wait`.
  Json Next(std::chrono::milliseconds wait) {
    pollfd p = {from.get(), POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(wait.count())) <= 0) return Json();
    std::string line;
    if (reader->Next(&line) != mcp::LineReader::Status::kLine) return Json();
    return Json::parse(line, nullptr, false);
  }
  // Sends a request and waits for its answer (keeping notifications for later).
  Json Ask(const std::string& method, const Json& params) {
    int id = next_id++;
    Send(method, params, id);
    auto end = Clock::now() + std::chrono::seconds(60);
    while (Clock::now() < end) {
      Json m = Next(std::chrono::seconds(60));
      if (m.is_null() || m.is_discarded()) break;
      if (m.contains("id") && m["id"] == id) return m;
      notes.push_back(std::move(m));
    }
    return Json();
  }
};

std::optional<Server> StartServer(const std::string& self, const std::vector<std::string>& args,
                                  const std::vector<std::string>& env) {
  int in[2], out[2];
  if (pipe2(in, O_CLOEXEC) != 0) return std::nullopt;
  if (pipe2(out, O_CLOEXEC) != 0) {
    close(in[0]);
    close(in[1]);
    return std::nullopt;
  }
  Server s;
  s.to.Reset(in[1]);
  s.from.Reset(out[0]);
  util::UniqueFd child_in(in[0]), child_out(out[1]);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, child_in.get(), 0);
  posix_spawn_file_actions_adddup2(&fa, child_out.get(), 1);
  // The server's own messages would interleave with the transcript; what matters comes back in
  // its answers.
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  std::vector<char*> argv, envp;
  argv.push_back(const_cast<char*>(self.c_str()));
  for (const std::string& a : args)
    argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const std::string& e : env)
    envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  int rc = posix_spawn(&s.pid, self.c_str(), &fa, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return std::nullopt;
  s.reader.emplace(s.from.get());
  return s;
}

// A TCP listener on the host's 127.0.0.1, to show that it answers outside the sandbox and not
// inside. Returns the port, 0 if none.
int Listen(util::UniqueFd* fd) {
  fd->Reset(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd->valid()) return 0;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (bind(fd->get(), reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      listen(fd->get(), 8) != 0 ||
      getsockname(fd->get(), reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    return 0;
  }
  return ntohs(a.sin_port);
}

bool ConnectsFromHere(int port) {
  util::UniqueFd s(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(static_cast<uint16_t>(port));
  return s.valid() && connect(s.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
}

// Each line of `text` indented under the speaker.
void Show(const std::string& who, const std::string& text) {
  std::string t = text;
  while (!t.empty() && t.back() == '\n')
    t.pop_back();
  size_t start = 0;
  bool first = true;
  do {
    size_t nl = t.find('\n', start);
    std::string line = t.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    std::cout << (first ? who : std::string(who.size(), ' ')) << line << "\n";
    first = false;
    start = nl == std::string::npos ? t.size() + 1 : nl + 1;
  } while (start <= t.size());
}

std::string ResultText(const Json& answer) {
  if (answer.is_null()) return "(no answer)";
  if (answer.contains("error")) return "JSON-RPC error: " + answer["error"].value("message", "");
  const Json& content = answer["result"]["content"];
  std::string text;
  for (const Json& c : content) {
    // The second item repeats structuredContent as JSON: the first is what a model reads.
    if (&c == &content[1] && answer["result"].contains("structuredContent")) continue;
    if (!text.empty()) text += "\n";
    text += c.value("text", "");
  }
  return text.empty() ? "(no output)" : text;
}

Json Call(Server& s, const std::string& tool, const Json& args, const std::string& why) {
  std::cout << "\n# " << why << "\n";
  std::string shown = args.contains("command") ? args["command"].get<std::string>() : args.dump();
  Show("agent  > " + tool + ": ", shown);
  Json answer = s.Ask("tools/call", {{"name", tool}, {"arguments", args}});
  bool error = answer.contains("result") && answer["result"].value("isError", false);
  Show(std::string("safesh < ") + (error ? "[isError] " : ""), ResultText(answer));
  return answer;
}

}  // namespace

int RunDemo() {
  DemoDir dir;
  if (dir.path.empty()) {
    std::cerr << "safesh demo: cannot make a folder in /tmp\n";
    return kExitCantCreate;
  }
  std::string ws = dir.path + "/ws", home = dir.path + "/home",
              config = dir.path + "/settings.toml";
  std::error_code ec;
  std::filesystem::create_directories(ws, ec);
  std::filesystem::create_directories(home + "/.ssh", ec);
  std::filesystem::create_directories(dir.path + "/state", ec);
  std::filesystem::permissions(dir.path + "/state", std::filesystem::perms::owner_all, ec);
  std::ofstream(home + "/.ssh/id_ed25519") << "-----BEGIN OPENSSH PRIVATE KEY----- (a demo key)\n";
  bool have_curl = access("/usr/bin/curl", X_OK) == 0;
  std::ofstream(config) << "[commands]\n"
                           "auto_approve = [\"echo *\", \"cat *\", \"ls *\", \"printf *\", "
                           "\"sleep *\", \"curl *\", \"getent *\"]\n"
                           "deny = [\"rm\"]\n"
                           "ask = [\"git push\"]\n";
  util::UniqueFd listener;
  int port = Listen(&listener);

  std::string self = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  std::vector<std::string> env = {"PATH=/usr/local/bin:/usr/bin:/bin", "LC_ALL=C.UTF-8",
                                  "HOME=" + home, "XDG_STATE_HOME=" + dir.path + "/state",
                                  "XDG_CONFIG_HOME=" + home + "/.config"};
  std::optional<Server> server =
      StartServer(self, {"mcp", "--config", config, "--workspace", ws}, env);
  if (!server) {
    std::cerr << "safesh demo: cannot start safesh mcp\n";
    return 70;
  }
  Server& s = *server;
  std::cout << "safesh demo: an agent's session with `safesh mcp`, scripted. The server runs in a\n"
               "throwaway workspace ("
            << ws << ") with these rules:\n\n";
  std::ifstream rules(config);
  std::cout << rules.rdbuf() << "\n";

  Json init = s.Ask("initialize", {{"protocolVersion", "2025-11-25"},
                                   {"capabilities", Json::object()},
                                   {"clientInfo", {{"name", "safesh-demo"}, {"version", "1"}}}});
  if (!init.contains("result")) {
    std::cerr << "safesh demo: the server did not answer initialize\n";
    return 70;
  }
  s.Notify("notifications/initialized", Json::object());
  Json tools = s.Ask("tools/list", Json::object());
  std::string names;
  for (const Json& t : tools["result"]["tools"])
    names += (names.empty() ? "" : ", ") + t["name"].get<std::string>();
  std::cout << "agent  > initialize, tools/list\n"
            << "safesh < " << init["result"]["serverInfo"]["name"].get<std::string>() << " "
            << init["result"]["serverInfo"]["version"].get<std::string>() << ", protocol "
            << init["result"]["protocolVersion"].get<std::string>() << "; tools: " << names << "\n";

  Call(s, "run_shell_command", {{"command", "echo hello from the sandbox && ls -a"}},
       "Allowed by the rules: it runs, in the sandbox, in the workspace.");
  Call(s, "run_shell_command", {{"command", "echo cleaning up && rm -rf ~"}},
       "One part is denied, so none of it runs; the reason tells the model why.");
  Call(s, "run_shell_command", {{"command", "git push --force origin main"}},
       "Needs approval. This client cannot show approval forms, so the headless answer (deny) "
       "applies.");
  std::cout << "\n# On the host the key is there ("
            << std::filesystem::file_size(home + "/.ssh/id_ed25519", ec) << " bytes in " << home
            << "/.ssh/id_ed25519)...";
  Call(s, "run_shell_command", {{"command", "cat " + home + "/.ssh/id_ed25519"}},
       "...and the rules allow cat, but inside the sandbox ~/.ssh is an empty folder.");
  if (have_curl && port != 0) {
    std::cout << "\n# A server listens on the host's 127.0.0.1:" << port
              << " (reachable from here: " << (ConnectsFromHere(port) ? "yes" : "no") << ")...";
    Call(s, "run_shell_command",
         {{"command", "curl -sS --max-time 5 http://127.0.0.1:" + std::to_string(port) + "/"}},
         "...and the rules allow curl, but the sandbox has a network of its own, with no way out.");
  } else {
    Call(s, "run_shell_command", {{"command", "getent ahosts example.com"}},
         "The rules allow it, but the sandbox has no network: the name cannot be looked up.");
  }

  Json started = Call(s, "run_shell_command",
                      {{"command",
                        "printf 'compiling...\\n'; sleep 1; printf 'listening on "
                        "http://127.0.0.1:8000\\n'; sleep 300"},
                       {"background", true},
                       {"notify_pattern", "listening on"}},
                      "A dev server, in the background: the call returns at once.");
  std::string id =
      started["result"].value("structuredContent", Json::object()).value("background_id", "");
  if (!id.empty()) {
    std::cout << "\n# The agent works on; when the server prints its address, a notice arrives.\n";
    auto end = Clock::now() + std::chrono::seconds(15);
    bool noticed = false;
    while (!noticed && Clock::now() < end) {
      for (const Json& n : s.notes) {
        if (n.value("method", "") == "notifications/message") {
          Show("safesh < [notice] ", n["params"]["data"].get<std::string>());
          noticed = true;
        }
      }
      s.notes.clear();
      if (!noticed) {
        Json m = s.Next(std::chrono::milliseconds(500));
        if (!m.is_null() && !m.is_discarded()) s.notes.push_back(std::move(m));
      }
    }
    Call(s, "manage_background_process", {{"action", "output"}, {"id", id}}, "Its output so far.");
    Call(s, "manage_background_process", {{"action", "kill"}, {"id", id}},
         "Done with it: the whole process tree ends.");
  }

  // The end of the session: stdin closes, the server stops everything and exits.
  s.to.Reset();
  int status = 0;
  waitpid(s.pid, &status, 0);
  std::cout << "\n# The agent closes the session: safesh mcp exits ("
            << (WIFEXITED(status) ? "status " + std::to_string(WEXITSTATUS(status)) : "killed")
            << ") and nothing it started is left running.\n"
               "# Every request is in the audit log: safesh audit (here in "
            << dir.path << "/state, removed now).\n";
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

}  // namespace safesh::cli
