// Reading the audit log back: the records since a time, whole ones only.
//
// A line that does not parse as a JSON object with a "ts" (a record torn by a crash, or by a
// full disk) is skipped and counted. When such a line holds a whole record after the torn one
// (a writer that started before the torn line was noticed), that record is still found: every
// record starts with `{"ts":"`, which cannot occur inside one (audit/record.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace safesh::audit {

struct ReadResult {
  std::vector<std::string> records;  // each one whole JSON object (without a newline), in order
  size_t damaged = 0;                // lines or parts of lines skipped
};

// The records in `text` (one file's contents) stamped at or after `since_ms`, appended to
// `*result`.
void ParseRecords(std::string_view text, int64_t since_ms, ReadResult* result);

// The records of every day file in `dir` from the day of `since_ms` on, oldest file first. A
// missing folder holds no records. False with `*error` when a file cannot be read.
bool ReadRecords(const std::string& dir, int64_t since_ms, ReadResult* result, std::string* error);

// Reads a --since value: a date or time (util/utc_time.h ParseUtc, UTC) or a duration back
// from `now_ms`: a number and s, m, h, d or w ("90m", "7d"). False when it is neither.
bool ParseSince(std::string_view text, int64_t now_ms, int64_t* since_ms);

}  // namespace safesh::audit
