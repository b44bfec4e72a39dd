#include "util/utc_time.h"

#include <time.h>

#include <cstdio>

namespace safesh::util {
namespace {

bool Digits(std::string_view s, size_t at, size_t n, int* value) {
  if (at + n > s.size()) return false;
  int v = 0;
  for (size_t i = at; i < at + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
  }
  *value = v;
  return true;
}

}  // namespace

int64_t NowUnixMs() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

std::string FormatUtc(int64_t unix_ms) {
  time_t secs = static_cast<time_t>(unix_ms >= 0 ? unix_ms / 1000 : (unix_ms - 999) / 1000);
  int ms = static_cast<int>(unix_ms - static_cast<int64_t>(secs) * 1000);
  tm t{};
  gmtime_r(&secs, &t);
  char buf[96];  // room for any int the compiler can imagine in each field
  snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", t.tm_year + 1900, t.tm_mon + 1,
           t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec, ms);
  return buf;
}

std::string UtcDay(int64_t unix_ms) {
  return FormatUtc(unix_ms).substr(0, 10);
}

bool ParseUtc(std::string_view s, int64_t* unix_ms) {
  if (!s.empty() && s.back() == 'Z') s.remove_suffix(1);
  int year, month, day, hour = 0, minute = 0, second = 0, ms = 0;
  if (!Digits(s, 0, 4, &year) || s.size() < 10 || s[4] != '-' || !Digits(s, 5, 2, &month) ||
      s[7] != '-' || !Digits(s, 8, 2, &day)) {
    return false;
  }
  if (s.size() > 10) {
    if ((s[10] != 'T' && s[10] != ' ') || !Digits(s, 11, 2, &hour) || s.size() < 16 ||
        s[13] != ':' || !Digits(s, 14, 2, &minute)) {
      return false;
    }
    if (s.size() > 16) {
      if (s[16] != ':' || !Digits(s, 17, 2, &second)) return false;
      if (s.size() > 19 && (s[19] != '.' || !Digits(s, 20, 3, &ms) || s.size() != 23)) return false;
    }
  }
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59)
    return false;
  tm t{};
  t.tm_year = year - 1900;
  t.tm_mon = month - 1;
  t.tm_mday = day;
  t.tm_hour = hour;
  t.tm_min = minute;
  t.tm_sec = second;
  time_t secs = timegm(&t);
  // timegm normalises 31 February into March: such a date is refused, not moved.
  tm back{};
  gmtime_r(&secs, &back);
  if (back.tm_mday != day || back.tm_mon != month - 1) return false;
  *unix_ms = static_cast<int64_t>(secs) * 1000 + ms;
  return true;
}

}  // namespace safesh::util
