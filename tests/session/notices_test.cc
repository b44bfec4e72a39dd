// Notices about background processes: their texts, the line matcher, the waiting queue.
#include "session/notices.h"

#include <gtest/gtest.h>
#include <re2/re2.h>

#include <string>
#include <vector>

namespace safesh::session {
namespace {

TEST(NoticeText, Durations) {
  EXPECT_EQ(FormatDuration(0), "0ms");
  EXPECT_EQ(FormatDuration(850), "850ms");
  EXPECT_EQ(FormatDuration(4200), "4.2s");
  EXPECT_EQ(FormatDuration(59000), "59s");
  EXPECT_EQ(FormatDuration(185000), "3m 5s");
  EXPECT_EQ(FormatDuration(7200000), "2h 0m");
}

TEST(NoticeText, CommandOnOneLineAndCut) {
  EXPECT_EQ(NoticeCommand("npm run dev"), "npm run dev");
  EXPECT_EQ(NoticeCommand("  make \\\n  -j4\t\r\nall  "), "make \\ -j4 all");
  EXPECT_EQ(NoticeCommand("echo \x1b[31mred"), "echo [31mred");
  std::string long_command(300, 'x');
  std::string shown = NoticeCommand(long_command);
  EXPECT_EQ(shown, std::string(kNoticeCommandChars, 'x') + "…");
  // Characters, not bytes: a cut never splits one.
  std::string accents;
  for (int i = 0; i < 250; ++i)
    accents += "é";
  EXPECT_EQ(NoticeCommand(accents), accents.substr(0, 2 * kNoticeCommandChars) + "…");
}

TEST(NoticeText, ExitAsTheSpecSaysIt) {
  EXPECT_EQ(ExitNoticeText("npm test", 1, "", 4200, "3 failed\n"),
            "Background process (npm test) exited with code 1 after 4.2s. Its last output: "
            "3 failed\n");
  EXPECT_EQ(ExitNoticeText("true", 0, "", 5, ""),
            "Background process (true) exited with code 0 after 5ms. It printed nothing.");
  EXPECT_EQ(ExitNoticeText("sleep 9", -1, "its lifetime of 1 s ran out", 1000, "x"),
            "Background process (sleep 9) was killed after 1.0s: its lifetime of 1 s ran out. "
            "Its last output: x");
}

TEST(NoticeText, LastOutputIsTheLast1500Characters) {
  std::string out = "head";
  for (int i = 0; i < 2000; ++i)
    out += "é";
  std::string text = ExitNoticeText("x", 0, "", 1, out);
  std::string tail = text.substr(text.find("Its last output: ") + 17);
  EXPECT_EQ(tail.size(), 2 * kExitTailChars);
  EXPECT_EQ(tail.substr(0, 2), "é");
  // Bytes that are not UTF-8 count one each.
  EXPECT_EQ(LastChars("ab\xff\xfe", 3), "b\xff\xfe");
  EXPECT_EQ(LastChars("\xa9z", 5), "\xa9z");
  EXPECT_EQ(LastChars("", 5), "");
  EXPECT_EQ(FirstChars("éa", 1), "é");
}

TEST(NoticeText, PatternLineCutTo500Characters) {
  std::string line(800, 'y');
  EXPECT_EQ(PatternNoticeText("dev", line),
            "Background process (dev) printed: " + std::string(kPatternLineChars, 'y'));
}

std::vector<std::string> FeedAll(LineMatcher* m, const std::vector<std::string>& pieces, bool end) {
  std::vector<std::string> lines;
  auto add = [&](std::string_view l) { lines.emplace_back(l); };
  for (const std::string& p : pieces)
    m->Feed(p, add);
  if (end) m->End(add);
  return lines;
}

TEST(LineMatcher, LinesAcrossPiecesCarriageReturnsAndTheLastLine) {
  RE2 re("ready|listening");
  LineMatcher m(&re);
  std::vector<std::string> got = FeedAll(
      &m, {"boot\nserver rea", "dy on :3000\r\nnoise\n", "", "listening (no newline)"}, true);
  EXPECT_EQ(got, (std::vector<std::string>{"server ready on :3000", "listening (no newline)"}));
}

TEST(LineMatcher, TheLastLineIsNotMatchedTwiceOrBeforeItEnds) {
  RE2 re("x");
  LineMatcher m(&re);
  EXPECT_TRUE(FeedAll(&m, {"x"}, false).empty());
  EXPECT_EQ(FeedAll(&m, {"y\n"}, true), (std::vector<std::string>{"xy"}));
}

TEST(LineMatcher, AtMost20) {
  RE2 re("^hit");
  LineMatcher m(&re);
  std::string text;
  for (int i = 1; i <= 30; ++i)
    text += "hit " + std::to_string(i) + "\nmiss\n";
  std::vector<std::string> got = FeedAll(&m, {text, "hit at the end"}, true);
  ASSERT_EQ(got.size(), static_cast<size_t>(kMaxPatternNotices));
  EXPECT_EQ(got.front(), "hit 1");
  EXPECT_EQ(got.back(), "hit 20");
}

TEST(LineMatcher, ALongLineIsMatchedOnItsStart) {
  RE2 re("^start");
  RE2 end_re("end$");
  LineMatcher starts(&re), ends(&end_re);
  std::string line = "start" + std::string(kMaxLineBytes * 2, 'z') + "end\nstart again\n";
  EXPECT_EQ(FeedAll(&starts, {line}, true).size(), 2u);
  // Its end was not kept, but the line after it is whole.
  EXPECT_TRUE(FeedAll(&ends, {line}, true).empty());
}

TEST(LineMatcher, NoPatternNoMatch) {
  LineMatcher m(nullptr);
  EXPECT_TRUE(FeedAll(&m, {"a\nb"}, true).empty());
}

Notice Make(Notice::Kind kind, int i) {
  return {kind, "bg-1", std::to_string(i)};
}

TEST(NoticeQueue, AtMost50WaitAndAnExitTakesAPatternsPlace) {
  NoticeQueue q;
  for (int i = 0; i < 60; ++i)
    q.Add(Make(Notice::Kind::kPattern, i));
  EXPECT_EQ(q.size(), kMaxPendingNotices);
  q.Add(Make(Notice::Kind::kExit, 100));
  std::vector<Notice> got = q.Take();
  ASSERT_EQ(got.size(), kMaxPendingNotices + 1);
  EXPECT_EQ(got[0].text, "1");  // the oldest pattern notice made room
  EXPECT_EQ(got[kMaxPendingNotices - 1].text, "100");
  EXPECT_EQ(got.back().text.find("11 more background process notices were dropped"), 0u)
      << got.back().text;
  EXPECT_TRUE(q.Take().empty());
  // Exit notices only: a new one is dropped.
  for (int i = 0; i < 51; ++i)
    q.Add(Make(Notice::Kind::kExit, i));
  got = q.Take();
  ASSERT_EQ(got.size(), kMaxPendingNotices + 1);
  EXPECT_EQ(got[kMaxPendingNotices - 1].text, "49");
  EXPECT_EQ(got.back().text.find("1 more background process notice was dropped"), 0u);
}

}  // namespace
}  // namespace safesh::session
