#include "audit/record.h"

#include <unistd.h>

#include "util/json_writer.h"
#include "util/utc_time.h"

namespace safesh::audit {

Record::Record(std::string_view event, std::string_view request_id, const Redaction* redaction)
    : redaction_(redaction), unix_ms_(util::NowUnixMs()) {
  text_ = "{\"ts\":\"" + util::FormatUtc(unix_ms_) + "\",\"event\":";
  util::AppendJsonString(event, &text_);
  text_ += ",\"id\":";
  util::AppendJsonString(request_id, &text_);
  text_ += ",\"safesh_pid\":" + std::to_string(getpid());
}

void Record::Key(std::string_view key) {
  text_ += ',';
  util::AppendJsonString(key, &text_);
  text_ += ':';
}

void Record::Str(std::string_view key, std::string_view value) {
  Key(key);
  util::AppendJsonString(redaction_->Apply(value), &text_);
}

void Record::StrOrNull(std::string_view key, std::string_view value) {
  if (value.empty()) {
    Key(key);
    text_ += "null";
  } else {
    Str(key, value);
  }
}

void Record::Strs(std::string_view key, const std::vector<std::string>& values) {
  Key(key);
  text_ += '[';
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) text_ += ',';
    util::AppendJsonString(redaction_->Apply(values[i]), &text_);
  }
  text_ += ']';
}

void Record::Int(std::string_view key, int64_t value) {
  Key(key);
  text_ += std::to_string(value);
}

void Record::Bool(std::string_view key, bool value) {
  Key(key);
  text_ += value ? "true" : "false";
}

}  // namespace safesh::audit
