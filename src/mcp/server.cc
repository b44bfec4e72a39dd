#include "mcp/server.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "approval/prompt.h"
#include "exec/cancel.h"
#include "mcp/jsonrpc.h"
#include "mcp/tools.h"
#include "pipeline/validate.h"
#include "policy/verdict.h"
#include "session/session.h"

namespace safesh::mcp {
namespace {

// The levels of logging/setLevel, least severe first (RFC 5424's, as MCP names them).
constexpr const char* kLevels[] = {"debug", "info",     "notice", "warning",
                                   "error", "critical", "alert",  "emergency"};

int LevelIndex(const std::string& name) {
  for (int i = 0; i < 8; ++i) {
    if (name == kLevels[i]) return i;
  }
  return -1;
}

// One run_shell_command call in flight.
struct Call {
  Json id;
  exec::CancelToken cancel;
  // The client cancelled it: send nothing more for it. Set, and checked before anything is
  // written for the call, under say_mu: once the cancellation is handled, nothing follows.
  std::atomic<bool> cancelled{false};
  std::mutex say_mu;
  std::atomic<bool> done{false};
  std::thread thread;
};

// A request of ours (elicitation/create) waiting for the client's answer.
struct Pending {
  bool answered = false;
  Json result;
  Json error;
};

// The context the session keeps: the server's, with no prompter and no cancel token of its
// own (each call brings its own, session::Session::Call).
pipeline::RunContext SessionContext(const ServerConfig& config) {
  pipeline::RunContext c = config.context;
  c.prompter = nullptr;
  c.cancel = nullptr;
  if (c.client.empty()) c.client = "mcp";
  return c;
}

class Server {
 public:
  Server(int out_fd, const ServerConfig& config)
      : out_(out_fd), config_(config), session_(SessionContext(config)) {}

  int Run(int in_fd, int stop_fd);

 private:
  void Handle(const Message& m);
  void HandleRequest(const Message& m);
  void HandleNotification(const Message& m);
  void HandleResponse(const Message& m);
  Json Initialize(const Json& params, int* code, std::string* error);
  void CallTool(const Message& m);
  // Runs `work` on a thread of its own as the answer to request `id`.
  void StartCall(const Json& id, std::function<Json(const std::shared_ptr<Call>&)> work);
  Json RunCommand(const std::shared_ptr<Call>& call, const CommandArgs& args,
                  const Json& progress_token);
  Json Manage(const ManageArgs& args);
  // Takes the session's new notices: each goes out as notifications/message now, and waits in
  // notices_ for the next tool result.
  void DrainNotices();
  Json WithNotices(Json result);
  approval::Answer Elicit(const std::shared_ptr<Call>& call, const approval::ApprovalRequest& r);
  void Log(int level, const std::string& text);
  void ReapFinished();
  void Shutdown();

  Output out_;
  const ServerConfig& config_;
  session::Session session_;
  std::atomic<bool> initialized_{false};  // read by the notice pump too
  std::string protocol_;
  ToolDialect dialect_;
  bool can_elicit_ = false;
  std::atomic<int> log_level_{1};  // info

  std::mutex mu_;  // guards everything below
  std::condition_variable answered_;
  std::map<std::string, std::shared_ptr<Call>> calls_;   // by id (as JSON text)
  std::map<int64_t, std::shared_ptr<Pending>> pending_;  // our requests, by id
  int64_t next_request_id_ = 1;
  bool stopping_ = false;
  std::vector<session::Notice> notices_;  // for the next tool result
  std::condition_variable stop_pump_;
  std::thread pump_;  // DrainNotices, every kNoticeEvery, so notices go out without a call
};

constexpr std::chrono::milliseconds kNoticeEvery{250};

int Server::Run(int in_fd, int stop_fd) {
  pump_ = std::thread([this] {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stopping_) {
      stop_pump_.wait_for(lock, kNoticeEvery);
      if (stopping_) break;
      lock.unlock();
      DrainNotices();
      lock.lock();
    }
  });
  LineReader reader(in_fd, stop_fd);
  std::string line;
  int status = 0;
  for (;;) {
    LineReader::Status s = reader.Next(&line);
    if (s == LineReader::Status::kEnd) break;
    if (s == LineReader::Status::kError) {
      std::cerr << "safesh mcp: cannot read the input; stopping\n";
      status = 1;
      break;
    }
    if (s == LineReader::Status::kTooLong) {
      out_.Write(ErrorLine(Json(), kParseError,
                           "the message is longer than " + std::to_string(kMaxLineBytes) +
                               " bytes and was skipped"));
      continue;
    }
    if (line.find_first_not_of(" \t") == std::string::npos) continue;  // blank lines are allowed
    // Finished calls first: a client may use a finished request's id again.
    ReapFinished();
    Handle(ParseMessage(line));
  }
  Shutdown();
  return status;
}

void Server::Handle(const Message& m) {
  switch (m.kind) {
    case Message::Kind::kInvalid:
      out_.Write(ErrorLine(m.id, m.error_code, m.error_text));
      return;
    case Message::Kind::kRequest:
      // Nothing thrown by a handler (a JSON type mismatch, an allocation) may end the server.
      try {
        HandleRequest(m);
      } catch (const std::exception& e) {
        out_.Write(ErrorLine(m.id, kInternalError, std::string("internal error: ") + e.what()));
      }
      return;
    case Message::Kind::kNotification:
      try {
        HandleNotification(m);
      } catch (const std::exception& e) {
        Log(4, std::string("a notification could not be handled: ") + e.what());
      }
      return;
    case Message::Kind::kResponse:
      HandleResponse(m);
      return;
  }
}

Json Server::Initialize(const Json& params, int* code, std::string* error) {
  if (!params.is_object() || !params.contains("protocolVersion") ||
      !params["protocolVersion"].is_string()) {
    *code = kInvalidParams;
    *error = "initialize needs params.protocolVersion (a string such as \"2025-11-25\")";
    return Json();
  }
  std::string asked = params["protocolVersion"].get<std::string>();
  protocol_ = kProtocolVersions[0];
  for (const char* v : kProtocolVersions) {
    if (asked == v) protocol_ = v;
  }
  // Structured tool output and elicitation came with 2025-06-18.
  bool modern = protocol_ != "2025-03-26";
  dialect_.structured = modern;
  can_elicit_ = false;
  if (modern && params.contains("capabilities") && params["capabilities"].is_object()) {
    const Json& caps = params["capabilities"];
    if (auto e = caps.find("elicitation"); e != caps.end() && e->is_object()) {
      // {} is form mode (the 2025-06-18 shape); a client of 2025-11-25 may list its modes.
      can_elicit_ = e->empty() || e->contains("form");
    }
  }
  initialized_ = true;
  Json info = {{"name", "safesh"}, {"title", "safesh"}, {"version", config_.version}};
  return {{"protocolVersion", protocol_},
          {"capabilities", {{"tools", {{"listChanged", false}}}, {"logging", Json::object()}}},
          {"serverInfo", info},
          {"instructions",
           "safesh runs shell commands in a sandbox after judging them against the user's "
           "policy. Use run_shell_command for every shell command (background: true for dev "
           "servers and watchers, then manage_background_process); check_command tells whether "
           "a command would be allowed without running it. A denied command comes back with the "
           "reason: change the command, do not retry it as it was."}};
}

void Server::HandleRequest(const Message& m) {
  if (m.method == "ping") {
    out_.Write(ResultLine(m.id, Json::object()));
    return;
  }
  if (m.method == "initialize") {
    if (initialized_) {
      out_.Write(ErrorLine(m.id, kInvalidRequest, "initialize was already received"));
      return;
    }
    int code = 0;
    std::string error;
    Json result = Initialize(m.params, &code, &error);
    out_.Write(code != 0 ? ErrorLine(m.id, code, error) : ResultLine(m.id, result));
    return;
  }
  if (!initialized_) {
    out_.Write(ErrorLine(m.id, kMethodNotFound,
                         "method not found: " + m.method +
                             " (nothing but initialize and ping is served before initialize)"));
    return;
  }
  if (m.method == "tools/list") {
    out_.Write(ResultLine(m.id, ToolList(dialect_)));
  } else if (m.method == "tools/call") {
    CallTool(m);
  } else if (m.method == "logging/setLevel") {
    int level = m.params.is_object() && m.params.contains("level") && m.params["level"].is_string()
                    ? LevelIndex(m.params["level"].get<std::string>())
                    : -1;
    if (level < 0) {
      out_.Write(ErrorLine(m.id, kInvalidParams,
                           "level must be one of debug, info, notice, warning, error, critical, "
                           "alert, emergency"));
      return;
    }
    log_level_ = level;
    out_.Write(ResultLine(m.id, Json::object()));
  } else {
    out_.Write(ErrorLine(m.id, kMethodNotFound, "method not found: " + m.method));
  }
}

void Server::CallTool(const Message& m) {
  const Json& p = m.params;
  if (!p.is_object() || !p.contains("name") || !p["name"].is_string()) {
    out_.Write(ErrorLine(m.id, kInvalidParams, "tools/call needs params.name (a tool's name)"));
    return;
  }
  std::string name = p["name"].get<std::string>();
  Json arguments = p.contains("arguments") ? p["arguments"] : Json();
  std::string error;
  if (name == kManageTool) {
    std::optional<ManageArgs> args = ReadManageArgs(arguments, &error);
    if (!args) {
      out_.Write(ResultLine(m.id, WithNotices(ToolError(error))));
      return;
    }
    // A kill waits for the process to end: on a thread of its own, as a command does.
    StartCall(m.id, [this, args = *args](const std::shared_ptr<Call>&) { return Manage(args); });
    return;
  }
  if (name != kRunTool && name != kCheckTool) {
    out_.Write(ErrorLine(m.id, kInvalidParams,
                         "unknown tool: " + name + " (the tools are " + kRunTool + ", " +
                             kManageTool + " and " + kCheckTool + ")"));
    return;
  }
  std::optional<CommandArgs> args = ReadCommandArgs(name, arguments, &error);
  if (!args) {
    out_.Write(ResultLine(m.id, WithNotices(ToolError(error))));
    return;
  }
  if (name == kCheckTool) {
    const pipeline::RunContext& c = config_.context;
    policy::JudgeOptions options;
    options.home = c.home;
    policy::Verdict v = policy::Judge(c.policy, args->command, options);
    out_.Write(ResultLine(m.id, WithNotices(CheckToolResult(v, dialect_))));
    return;
  }
  Json token;
  if (p.contains("_meta") && p["_meta"].is_object() && p["_meta"].contains("progressToken")) {
    token = p["_meta"]["progressToken"];
    if (!token.is_string() && !token.is_number_integer()) token = Json();
  }
  StartCall(m.id, [this, args = std::move(*args), token](const std::shared_ptr<Call>& call) {
    return RunCommand(call, args, token);
  });
}

void Server::StartCall(const Json& id, std::function<Json(const std::shared_ptr<Call>&)> work) {
  std::lock_guard<std::mutex> lock(mu_);
  std::string key = Dump(id);
  if (calls_.count(key) != 0) {
    out_.Write(ErrorLine(id, kInvalidRequest, "a request with this id is still running"));
    return;
  }
  size_t running = 0;
  for (const auto& [k, c] : calls_)
    running += c->done ? 0 : 1;
  if (running >= static_cast<size_t>(config_.max_running_calls)) {
    out_.Write(ResultLine(
        id,
        ToolError("too many calls running at once (" + std::to_string(config_.max_running_calls) +
                  "): wait for one to finish, or start long commands with background: true")));
    return;
  }
  auto call = std::make_shared<Call>();
  call->id = id;
  calls_[key] = call;
  call->thread = std::thread([this, call, work = std::move(work)] {
    Json result;
    try {
      result = work(call);
    } catch (const std::exception& e) {
      result = ToolError(std::string("internal error: ") + e.what());
    }
    std::string line = ResultLine(call->id, WithNotices(std::move(result)));
    // Done before the answer is written: a client may reuse the id as soon as it has read it.
    std::lock_guard<std::mutex> say(call->say_mu);
    call->done = true;
    if (!call->cancelled) out_.Write(line);
  });
}

Json Server::Manage(const ManageArgs& args) {
  if (args.action == "list") return ListResult(session_.List(), dialect_);
  if (args.action == "output") return OutputResult(session_.Output(args.id, args.offset), dialect_);
  return KillResult(session_.Kill(args.id), dialect_);
}

Json Server::RunCommand(const std::shared_ptr<Call>& call, const CommandArgs& args,
                        const Json& progress_token) {
  approval::Prompter elicit;
  if (can_elicit_)
    elicit = [this, call](const approval::ApprovalRequest& r) { return Elicit(call, r); };
  // The progress ticker: "still running" every progress_every_ms, until the command ends.
  std::mutex tick_mu;
  std::condition_variable tick_cv;
  bool finished = false;
  std::thread ticker;
  if (!progress_token.is_null() && !args.background) {
    ticker = std::thread([&] {
      auto start = std::chrono::steady_clock::now();
      int n = 0;
      std::unique_lock<std::mutex> lock(tick_mu);
      for (;;) {
        if (finished) return;
        auto secs = std::chrono::duration_cast<std::chrono::seconds>(
                        std::chrono::steady_clock::now() - start)
                        .count();
        {
          std::lock_guard<std::mutex> say(call->say_mu);
          if (call->cancelled) return;
          out_.Write(NotificationLine(
              "notifications/progress",
              {{"progressToken", progress_token},
               {"progress", n++},
               {"message", n == 1 ? "started" : "running for " + std::to_string(secs) + " s"}}));
        }
        tick_cv.wait_for(lock, std::chrono::milliseconds(config_.progress_every_ms));
      }
    });
  }
  pipeline::RunRequest request;
  request.command = args.command;
  request.cwd = args.cwd;
  request.timeout_seconds = args.timeout_seconds;
  request.background = args.background;
  request.notify = args.notify;
  request.notify_pattern = args.notify_pattern;
  session::Session::Call own;
  own.cancel = &call->cancel;
  own.prompter = can_elicit_ ? &elicit : nullptr;
  pipeline::RunResult result = session_.Run(request, own);
  if (ticker.joinable()) {
    {
      std::lock_guard<std::mutex> lock(tick_mu);
      finished = true;
    }
    tick_cv.notify_all();
    ticker.join();
  }
  std::string ignored;
  std::optional<std::chrono::milliseconds> timeout = pipeline::ResolveTimeout(
      args.timeout_seconds, config_.context.settings.tools.shell_timeout_seconds, &ignored);
  double secs = timeout ? static_cast<double>(timeout->count()) / 1000.0 : 0;
  return RunToolResult(result, secs, dialect_);
}

void Server::DrainNotices() {
  std::vector<session::Notice> fresh = session_.TakeNotices();
  if (fresh.empty()) return;
  for (const session::Notice& n : fresh)
    Log(2, n.text);  // notice
  std::lock_guard<std::mutex> lock(mu_);
  for (session::Notice& n : fresh)
    notices_.push_back(std::move(n));
  // As many as the session keeps waiting: the oldest go first.
  if (notices_.size() > session::kMaxPendingNotices)
    notices_.erase(notices_.begin(),
                   notices_.end() - static_cast<std::ptrdiff_t>(session::kMaxPendingNotices));
}

Json Server::WithNotices(Json result) {
  DrainNotices();
  std::vector<session::Notice> pending;
  {
    std::lock_guard<std::mutex> lock(mu_);
    pending.swap(notices_);
  }
  AddNotices(pending, &result);
  return result;
}

approval::Answer Server::Elicit(const std::shared_ptr<Call>& call,
                                const approval::ApprovalRequest& r) {
  Json properties = {{"approve",
                      {{"type", "boolean"},
                       {"title", "Run this command"},
                       {"description", "Yes runs it; no refuses it."},
                       {"default", false}}}};
  if (r.can_remember) {
    properties["remember"] = {
        {"type", "string"},
        {"title", "Remember"},
        {"description",
         "always: approve this exact command in this workspace from now on (safesh approvals "
         "lists and revokes)"},
        {"enum", {"once", "always"}},
        {"default", "once"}};
  }
  Json params = {{"message", approval::ApprovalText(r)},
                 {"requestedSchema",
                  {{"type", "object"}, {"properties", properties}, {"required", {"approve"}}}}};
  if (protocol_ == "2025-11-25") params["mode"] = "form";
  auto pending = std::make_shared<Pending>();
  int64_t id;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return approval::Answer::kDeny;
    id = next_request_id_++;
    pending_[id] = pending;
  }
  if (!out_.Write(RequestLine(id, "elicitation/create", params))) {
    std::lock_guard<std::mutex> lock(mu_);
    pending_.erase(id);
    return approval::Answer::kNoOneToAsk;
  }
  std::unique_lock<std::mutex> lock(mu_);
  // Woken by the answer, a cancel of this call (HandleNotification), or the end of the input.
  answered_.wait(lock, [&] { return pending->answered || call->cancelled || stopping_; });
  pending_.erase(id);
  if (!pending->answered) return approval::Answer::kDeny;
  if (!pending->error.is_null()) {
    Log(3, "the client could not show the approval form (" + Dump(pending->error) +
               "); the headless answer applies");
    return approval::Answer::kNoOneToAsk;
  }
  const Json& res = pending->result;
  std::string action = res.is_object() && res.contains("action") && res["action"].is_string()
                           ? res["action"].get<std::string>()
                           : "";
  if (action != "accept") return approval::Answer::kDeny;
  const Json content =
      res.contains("content") && res["content"].is_object() ? res["content"] : Json::object();
  bool yes = content.contains("approve") && content["approve"].is_boolean() &&
             content["approve"].get<bool>();
  if (!yes) return approval::Answer::kDeny;
  bool always = content.contains("remember") && content["remember"] == "always";
  return always ? approval::Answer::kApproveAlways : approval::Answer::kApprove;
}

void Server::HandleNotification(const Message& m) {
  if (m.method != "notifications/cancelled") return;  // initialized, progress...: nothing to do
  if (!m.params.is_object() || !m.params.contains("requestId")) return;
  std::string key = Dump(m.params["requestId"]);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = calls_.find(key);
  if (it == calls_.end() || it->second->done) return;  // finished, or never ours: ignored
  {
    std::lock_guard<std::mutex> say(it->second->say_mu);
    it->second->cancelled = true;
  }
  it->second->cancel.Cancel();
  answered_.notify_all();
}

void Server::HandleResponse(const Message& m) {
  if (!m.id.is_number_integer()) return;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pending_.find(m.id.get<int64_t>());
  if (it == pending_.end()) return;  // late, or not ours
  it->second->answered = true;
  it->second->result = m.result;
  it->second->error = m.error;
  answered_.notify_all();
}

void Server::Log(int level, const std::string& text) {
  if (level >= 3) std::cerr << "safesh mcp: " << text << "\n";
  if (!initialized_ || level < log_level_) return;
  out_.Write(NotificationLine("notifications/message",
                              {{"level", kLevels[level]}, {"logger", "safesh"}, {"data", text}}));
}

void Server::ReapFinished() {
  std::vector<std::shared_ptr<Call>> finished;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = calls_.begin(); it != calls_.end();) {
      if (it->second->done) {
        finished.push_back(it->second);
        it = calls_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (auto& c : finished)
    c->thread.join();
}

void Server::Shutdown() {
  std::vector<std::shared_ptr<Call>> all;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    for (auto& [key, c] : calls_) {
      // The client is gone: nothing can be answered, so every command is stopped.
      {
        std::lock_guard<std::mutex> say(c->say_mu);
        c->cancelled = true;
      }
      c->cancel.Cancel();
      all.push_back(c);
    }
    calls_.clear();
    answered_.notify_all();
  }
  for (auto& c : all)
    c->thread.join();
  stop_pump_.notify_all();
  if (pump_.joinable()) pump_.join();
  // Every background command ends with the server.
  session_.Shutdown();
}

}  // namespace

int Serve(int in_fd, int out_fd, int stop_fd, const ServerConfig& config) {
  Server server(out_fd, config);
  return server.Run(in_fd, stop_fd);
}

}  // namespace safesh::mcp
