// JSON-RPC 2.0 as MCP's stdio transport uses it: one message per line, UTF-8, no batches.
//
// This file knows messages, not MCP: what a line is (request, notification, response), the
// standard error codes, and how replies are written. The server (mcp/server.h) gives them
// meaning.
#pragma once

#include <cstddef>
#include <mutex>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace safesh::mcp {

using Json = nlohmann::json;

// The error codes of JSON-RPC 2.0.
inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;

// The longest line read. A longer one is skipped to its end and answered with a parse error:
// a client cannot make the server hold unbounded memory.
inline constexpr size_t kMaxLineBytes = 8 << 20;

struct Message {
  enum class Kind {
    kRequest,       // method and id
    kNotification,  // method, no id
    kResponse,      // id and result, or id and error (an answer to a request of ours)
    kInvalid,       // not a JSON-RPC 2.0 message: `error_code` and `error` say why
  };
  Kind kind = Kind::kInvalid;
  Json id;  // a string or an integer; null when there is none or it could not be read
  std::string method;
  Json params;  // an object, an array, or null when absent
  Json result;  // kResponse: the result, or null
  Json error;   // kResponse: the error object, or null
  int error_code = 0;
  std::string error_text;
};

// Reads one line as a message. Never throws.
Message ParseMessage(std::string_view line);

// The serialised messages, each without its newline. Invalid UTF-8 in strings becomes U+FFFD:
// what is written is always valid JSON.
std::string ResultLine(const Json& id, const Json& result);
std::string ErrorLine(const Json& id, int code, std::string_view message,
                      const Json& data = Json());
std::string NotificationLine(std::string_view method, const Json& params);
std::string RequestLine(const Json& id, std::string_view method, const Json& params);
std::string Dump(const Json& value);

// Where messages go: one line per write, whole, from any thread.
class Output {
 public:
  explicit Output(int fd) : fd_(fd) {}
  // False once a write has failed (the client is gone): later writes are dropped.
  bool Write(std::string_view line);

 private:
  std::mutex mu_;
  int fd_;
  bool broken_ = false;
};

// Reads lines from a descriptor (stdin), each at most kMaxLineBytes. When `stop_fd` (-1: none)
// becomes readable the input counts as ended.
class LineReader {
 public:
  explicit LineReader(int fd, int stop_fd = -1) : fd_(fd), stop_fd_(stop_fd) {}
  enum class Status { kLine, kTooLong, kEnd, kError };
  // The next line, without its newline (and without a trailing "\r"). A last line without a
  // newline still counts. kTooLong: a line was skipped; *line is empty.
  Status Next(std::string* line);
  // Whether a whole line is already read and waiting: Next returns it without reading (a caller
  // that polls the descriptor first would wait for data that has already arrived).
  bool HasLine() const { return buffer_.find('\n', start_) != std::string::npos; }

 private:
  int fd_;
  int stop_fd_;
  std::string buffer_;
  size_t start_ = 0;
  bool eof_ = false;
};

}  // namespace safesh::mcp
