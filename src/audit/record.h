// Record: one audit record, a JSON object on one line, built field by field.
//
// Every string value goes through the Redaction as it is added: no caller can put a secret in
// the log by forgetting to mask a field. Every record starts with the same bytes, `{"ts":"`,
// which cannot occur inside a JSON string (its quotes would be escaped), so a reader can find
// where a record starts even after a torn line (see audit/read.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "audit/redact.h"

namespace safesh::audit {

class Record {
 public:
  // A record of `event` for the request `request_id`, stamped with the time now and this
  // process's id ("safesh_pid"). `redaction` must outlive the record.
  Record(std::string_view event, std::string_view request_id, const Redaction* redaction);

  // Keys are safesh's own constants and are written as they are; values are redacted.
  void Str(std::string_view key, std::string_view value);
  void StrOrNull(std::string_view key, std::string_view value);  // null when empty
  void Strs(std::string_view key, const std::vector<std::string>& values);
  void Int(std::string_view key, int64_t value);
  void Bool(std::string_view key, bool value);

  int64_t unix_ms() const { return unix_ms_; }
  // The whole line: the object and its newline.
  std::string Line() const { return text_ + "}\n"; }

 private:
  void Key(std::string_view key);

  const Redaction* redaction_;
  int64_t unix_ms_;
  std::string text_;  // the object so far, without its closing brace
};

}  // namespace safesh::audit
