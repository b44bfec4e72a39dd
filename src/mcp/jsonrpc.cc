#include "mcp/jsonrpc.h"

#include <errno.h>
#include <poll.h>
#include <unistd.h>

#include <cstring>

#include "util/file.h"

namespace safesh::mcp {
namespace {

Message Invalid(int code, std::string text, Json id = Json()) {
  Message m;
  m.kind = Message::Kind::kInvalid;
  m.error_code = code;
  m.error_text = std::move(text);
  m.id = std::move(id);
  return m;
}

bool IsId(const Json& id) {
  return id.is_string() || id.is_number_integer();
}

}  // namespace

Message ParseMessage(std::string_view line) {
  Json j = Json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Invalid(kParseError, "the line is not valid JSON");
  if (j.is_array())
    return Invalid(kInvalidRequest, "batches are not supported: send one message per line");
  if (!j.is_object()) return Invalid(kInvalidRequest, "a message must be a JSON object");
  Json id;
  if (auto it = j.find("id"); it != j.end()) {
    if (!IsId(*it)) return Invalid(kInvalidRequest, "\"id\" must be a string or an integer");
    id = *it;
  }
  auto version = j.find("jsonrpc");
  if (version == j.end() || *version != "2.0")
    return Invalid(kInvalidRequest, "\"jsonrpc\" must be \"2.0\"", id);
  Message m;
  m.id = id;
  if (auto method = j.find("method"); method != j.end()) {
    if (!method->is_string()) return Invalid(kInvalidRequest, "\"method\" must be a string", id);
    m.method = method->get<std::string>();
    if (auto params = j.find("params"); params != j.end()) {
      if (!params->is_object() && !params->is_array())
        return Invalid(kInvalidRequest, "\"params\" must be an object", id);
      m.params = *params;
    }
    m.kind = id.is_null() ? Message::Kind::kNotification : Message::Kind::kRequest;
    return m;
  }
  auto result = j.find("result");
  auto error = j.find("error");
  if (id.is_null() || (result == j.end()) == (error == j.end()))
    return Invalid(kInvalidRequest,
                   "a message needs a \"method\", or an \"id\" with a result or an error", id);
  m.kind = Message::Kind::kResponse;
  if (result != j.end()) m.result = *result;
  if (error != j.end()) m.error = *error;
  return m;
}

std::string Dump(const Json& value) {
  return value.dump(-1, ' ', /*ensure_ascii=*/false, Json::error_handler_t::replace);
}

std::string ResultLine(const Json& id, const Json& result) {
  return Dump(Json{{"jsonrpc", "2.0"}, {"id", id}, {"result", result}});
}

std::string ErrorLine(const Json& id, int code, std::string_view message, const Json& data) {
  Json error = {{"code", code}, {"message", std::string(message)}};
  if (!data.is_null()) error["data"] = data;
  return Dump(Json{{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(error)}});
}

std::string NotificationLine(std::string_view method, const Json& params) {
  return Dump(Json{{"jsonrpc", "2.0"}, {"method", std::string(method)}, {"params", params}});
}

std::string RequestLine(const Json& id, std::string_view method, const Json& params) {
  return Dump(
      Json{{"jsonrpc", "2.0"}, {"id", id}, {"method", std::string(method)}, {"params", params}});
}

bool Output::Write(std::string_view line) {
  std::lock_guard<std::mutex> lock(mu_);
  if (broken_) return false;
  // The line and its newline in one buffer: a reader never sees half a message followed by
  // another thread's.
  std::string data;
  data.reserve(line.size() + 1);
  data.append(line);
  data.push_back('\n');
  if (!util::WriteAll(fd_, data)) {
    broken_ = true;
    return false;
  }
  return true;
}

LineReader::Status LineReader::Next(std::string* line) {
  line->clear();
  bool skipping = false;
  size_t scanned = start_;
  for (;;) {
    size_t nl = buffer_.find('\n', scanned);
    if (nl != std::string::npos) {
      if (skipping || nl - start_ > kMaxLineBytes) {
        start_ = nl + 1;
        return Status::kTooLong;
      }
      size_t end = nl;
      if (end > start_ && buffer_[end - 1] == '\r') --end;
      line->assign(buffer_, start_, end - start_);
      start_ = nl + 1;
      return Status::kLine;
    }
    // No newline yet: drop what was consumed, and what is too long to keep.
    if (start_ > 0) {
      buffer_.erase(0, start_);
      start_ = 0;
    }
    if (buffer_.size() > kMaxLineBytes) {
      buffer_.clear();
      skipping = true;
    }
    scanned = buffer_.size();
    if (eof_) {
      if (skipping) return Status::kTooLong;
      if (buffer_.empty()) return Status::kEnd;
      line->swap(buffer_);
      buffer_.clear();
      if (!line->empty() && line->back() == '\r') line->pop_back();
      return Status::kLine;
    }
    if (stop_fd_ >= 0) {
      pollfd fds[2] = {{fd_, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
      int ready = ::poll(fds, 2, -1);
      if (ready < 0 && errno == EINTR) continue;
      if (ready < 0) return Status::kError;
      if (fds[1].revents != 0) return Status::kEnd;
    }
    char chunk[1 << 16];
    ssize_t n = ::read(fd_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::kError;
    if (n == 0) {
      eof_ = true;
      continue;
    }
    buffer_.append(chunk, static_cast<size_t>(n));
  }
}

}  // namespace safesh::mcp
