// Wall-clock time in UTC, as the audit log and the approvals file write it.
//
// UTC rather than local time: a day's file and a record's time mean the same thing whatever
// the time zone of the process that wrote them, and never jump at a daylight-saving change.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace safesh::util {

// Milliseconds since the Unix epoch (CLOCK_REALTIME).
int64_t NowUnixMs();

// "2026-11-30T01:56:28.123Z".
std::string FormatUtc(int64_t unix_ms);

// "2026-11-30": the UTC day `unix_ms` falls in.
std::string UtcDay(int64_t unix_ms);

// Reads "YYYY-MM-DD", "YYYY-MM-DDTHH:MM", "YYYY-MM-DDTHH:MM:SS" or with ".mmm", each with an
// optional trailing "Z" (a space may replace the "T"), as UTC. False when it is none of these
// or names no real date.
bool ParseUtc(std::string_view text, int64_t* unix_ms);

}  // namespace safesh::util
