// Reading the audit log back: whole records only, torn ones skipped, --since, UTC times.
#include "audit/read.h"

#include <sys/stat.h>

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "support/temp_dir.h"
#include "util/utc_time.h"

namespace safesh::audit {
namespace {

using safesh::testing::TempDir;

std::string Rec(const std::string& ts, const std::string& event) {
  return "{\"ts\":\"" + ts + "\",\"event\":\"" + event + "\",\"id\":\"x\"}";
}

std::vector<std::string> Events(const ReadResult& r) {
  std::vector<std::string> out;
  for (const std::string& line : r.records)
    out.push_back(nlohmann::json::parse(line)["event"]);
  return out;
}

TEST(AuditRead, WholeRecordsOnlyAndTornOnesCounted) {
  std::string text = Rec("2026-01-02T03:04:05.006Z", "a") + "\n\n" +  // an empty line: nothing
                     "not json at all\n" +                            // damaged
                     "[1,2]\n" +                                      // not a record
                     "{\"event\":\"no time\"}\n" +                    // not a record
                     // A torn record, then on the same line a whole one (a writer that did not
                     // see the tear): the whole one is found.
                     "{\"ts\":\"2026-01-02T03:04:05.007Z\",\"event\":\"to" +
                     Rec("2026-01-02T03:04:05.008Z", "b") + "\n" +
                     Rec("2026-01-02T03:04:05.009Z", "c") + "\n" +
                     "{\"ts\":\"2026-01-02T03:04:05.010Z\",\"event\":\"torn at the e";  // no \n
  ReadResult r;
  ParseRecords(text, 0, &r);
  EXPECT_EQ(Events(r), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(r.damaged, 5u);
}

TEST(AuditRead, SinceFiltersByTheRecordsTime) {
  std::string text =
      Rec("2026-01-02T00:00:00.000Z", "old") + "\n" + Rec("2026-01-02T12:00:00.000Z", "new") + "\n";
  int64_t noon = 0;
  ASSERT_TRUE(util::ParseUtc("2026-01-02T12:00", &noon));
  ReadResult r;
  ParseRecords(text, noon, &r);
  EXPECT_EQ(Events(r), (std::vector<std::string>{"new"}));
}

TEST(AuditRead, DayFilesFromTheDayOfSinceOn) {
  TempDir t;
  std::string dir = t.path + "/audit";
  ASSERT_EQ(mkdir(dir.c_str(), 0700), 0);
  std::ofstream(dir + "/2026-01-01.jsonl") << Rec("2026-01-01T10:00:00.000Z", "day1") << "\n";
  std::ofstream(dir + "/2026-01-03.jsonl") << Rec("2026-01-03T10:00:00.000Z", "day3") << "\n";
  std::ofstream(dir + "/2026-01-02.jsonl") << Rec("2026-01-02T10:00:00.000Z", "day2") << "\n";
  std::ofstream(dir + "/notes.txt") << Rec("2026-01-02T10:00:00.000Z", "ignored") << "\n";
  std::ofstream(dir + "/2026-01-02.jsonl.bak")
      << Rec("2026-01-02T10:00:00.000Z", "ignored") << "\n";
  ReadResult all;
  std::string error;
  ASSERT_TRUE(ReadRecords(dir, 0, &all, &error)) << error;
  EXPECT_EQ(Events(all), (std::vector<std::string>{"day1", "day2", "day3"}));
  int64_t since = 0;
  ASSERT_TRUE(util::ParseUtc("2026-01-02T09:00:00Z", &since));
  ReadResult some;
  ASSERT_TRUE(ReadRecords(dir, since, &some, &error)) << error;
  EXPECT_EQ(Events(some), (std::vector<std::string>{"day2", "day3"}));
  // No folder yet: no records, no error.
  ReadResult none;
  EXPECT_TRUE(ReadRecords(t.path + "/missing", 0, &none, &error));
  EXPECT_TRUE(none.records.empty());
}

TEST(AuditRead, SinceTakesDatesTimesAndDurations) {
  int64_t now = 0, ms = 0;
  ASSERT_TRUE(util::ParseUtc("2026-03-10T12:00:00.000Z", &now));
  ASSERT_TRUE(ParseSince("2026-03-09", now, &ms));
  EXPECT_EQ(util::FormatUtc(ms), "2026-03-09T00:00:00.000Z");
  ASSERT_TRUE(ParseSince("2026-03-09T08:30", now, &ms));
  EXPECT_EQ(util::FormatUtc(ms), "2026-03-09T08:30:00.000Z");
  ASSERT_TRUE(ParseSince("2026-03-09 08:30:15Z", now, &ms));
  EXPECT_EQ(util::FormatUtc(ms), "2026-03-09T08:30:15.000Z");
  ASSERT_TRUE(ParseSince("90m", now, &ms));
  EXPECT_EQ(util::FormatUtc(ms), "2026-03-10T10:30:00.000Z");
  ASSERT_TRUE(ParseSince("2d", now, &ms));
  EXPECT_EQ(util::FormatUtc(ms), "2026-03-08T12:00:00.000Z");
  ASSERT_TRUE(ParseSince("1w", now, &ms));
  EXPECT_EQ(util::FormatUtc(ms), "2026-03-03T12:00:00.000Z");
  ASSERT_TRUE(ParseSince("30s", now, &ms));
  EXPECT_EQ(now - ms, 30000);
  for (const char* bad : {"", "d", "-1d", "1.5h", "12", "1y", "yesterday", "2026-02-30",
                          "2026-13-01", "2026-01-01T25:00", "2026-1-1", "99999999999999999d"}) {
    EXPECT_FALSE(ParseSince(bad, now, &ms)) << bad;
  }
}

TEST(UtcTime, FormatsAndParsesMilliseconds) {
  EXPECT_EQ(util::FormatUtc(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(util::FormatUtc(1764467788123), "2025-11-30T01:56:28.123Z");
  EXPECT_EQ(util::UtcDay(1764467788123), "2025-11-30");
  int64_t ms = 0;
  ASSERT_TRUE(util::ParseUtc("2025-11-30T01:56:28.123Z", &ms));
  EXPECT_EQ(ms, 1764467788123);
  EXPECT_TRUE(util::ParseUtc("2024-02-29", &ms));  // a leap day
  EXPECT_FALSE(util::ParseUtc("2025-02-29", &ms));
  EXPECT_FALSE(util::ParseUtc("2025-11-30T01:56:28.1234Z", &ms));
  EXPECT_FALSE(util::ParseUtc("2025-11-30X", &ms));
}

}  // namespace
}  // namespace safesh::audit
