#include "audit/read.h"

#include <dirent.h>
#include <errno.h>
#include <string.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "util/file.h"
#include "util/utc_time.h"

namespace safesh::audit {
namespace {

constexpr std::string_view kRecordStart = "{\"ts\":\"";

// A whole record: a JSON object whose "ts" is a time safesh wrote. Sets *ms to that time.
bool WholeRecord(std::string_view text, int64_t* ms) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return false;
  auto ts = j.find("ts");
  return ts != j.end() && ts->is_string() && util::ParseUtc(ts->get<std::string>(), ms);
}

bool IsDayFile(const char* name) {
  // YYYY-MM-DD.jsonl
  if (strlen(name) != 16 || strcmp(name + 10, ".jsonl") != 0) return false;
  for (int i = 0; i < 10; ++i) {
    bool dash = i == 4 || i == 7;
    if (dash ? name[i] != '-' : (name[i] < '0' || name[i] > '9')) return false;
  }
  return true;
}

}  // namespace

void ParseRecords(std::string_view text, int64_t since_ms, ReadResult* result) {
  size_t at = 0;
  while (at < text.size()) {
    size_t nl = text.find('\n', at);
    std::string_view line = text.substr(at, nl == std::string_view::npos ? nl : nl - at);
    at = nl == std::string_view::npos ? text.size() : nl + 1;
    if (line.empty()) continue;
    int64_t ms = 0;
    if (WholeRecord(line, &ms)) {
      if (ms >= since_ms) result->records.emplace_back(line);
      continue;
    }
    // Torn: try each record start after the first byte; what is before a start that parses is
    // the damage.
    ++result->damaged;
    for (size_t s = line.find(kRecordStart, 1); s != std::string_view::npos;
         s = line.find(kRecordStart, s + 1)) {
      if (WholeRecord(line.substr(s), &ms)) {
        if (ms >= since_ms) result->records.emplace_back(line.substr(s));
        break;
      }
    }
  }
}

bool ReadRecords(const std::string& dir, int64_t since_ms, ReadResult* result, std::string* error) {
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) {
    if (errno == ENOENT) return true;
    *error = "cannot read the audit folder " + dir + ": " + strerror(errno);
    return false;
  }
  std::vector<std::string> days;
  std::string first = util::UtcDay(since_ms);
  while (dirent* e = readdir(d)) {
    if (IsDayFile(e->d_name) && std::string(e->d_name, 10) >= first) days.push_back(e->d_name);
  }
  closedir(d);
  std::sort(days.begin(), days.end());
  for (const std::string& day : days) {
    std::string text;
    if (!util::ReadWholeFile(dir + "/" + day, &text, error)) return false;
    ParseRecords(text, since_ms, result);
  }
  return true;
}

bool ParseSince(std::string_view text, int64_t now_ms, int64_t* since_ms) {
  if (util::ParseUtc(text, since_ms)) return true;
  if (text.size() < 2) return false;
  int64_t unit;
  switch (text.back()) {
    case 's':
      unit = 1000;
      break;
    case 'm':
      unit = 60 * 1000;
      break;
    case 'h':
      unit = 3600 * 1000;
      break;
    case 'd':
      unit = 24 * 3600 * 1000;
      break;
    case 'w':
      unit = 7 * 24 * 3600 * 1000;
      break;
    default:
      return false;
  }
  int64_t n = 0;
  for (char c : text.substr(0, text.size() - 1)) {
    if (c < '0' || c > '9') return false;
    n = n * 10 + (c - '0');
    if (n > 100 * 365 * 24 * 3600LL) return false;  // a century of seconds: surely a typo
  }
  *since_ms = now_ms - n * unit;
  return true;
}

}  // namespace safesh::audit
