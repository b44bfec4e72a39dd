#include "util/utf8.h"

#include <string>

#include <gtest/gtest.h>

namespace safesh::util {
namespace {

// Every code point encodes to a sequence the checker accepts whole; surrogates are rejected.
TEST(Utf8, EveryCodePointRoundTripsThroughTheChecker) {
  for (uint32_t cp = 0; cp < 0x110000; ++cp) {
    std::string s;
    AppendUtf8(cp, &s);
    size_t want = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    ASSERT_EQ(s.size(), want) << cp;
    bool surrogate = cp >= 0xD800 && cp <= 0xDFFF;
    ASSERT_EQ(Utf8SequenceLength(s, 0), surrogate ? 0 : want) << cp;
  }
  std::string none;
  AppendUtf8(0x110000, &none);
  EXPECT_TRUE(none.empty());
}

TEST(Utf8, MalformedSequences) {
  for (const char* bad :
       {"\x80", "\xbf", "\xc0\x80", "\xc1\xbf", "\xc3", "\xe2\x82", "\xe0\x9f\xbf",
        "\xf0\x8f\xbf\xbf", "\xf4\x90\x80\x80", "\xf5\x80\x80\x80", "\xff", "\xc3\x28"}) {
    EXPECT_EQ(Utf8SequenceLength(bad, 0), 0u) << bad;
  }
}

}  // namespace
}  // namespace safesh::util
