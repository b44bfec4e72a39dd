#include "util/json_writer.h"

#include "util/utf8.h"

#include <random>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace safesh::util {
namespace {

std::string Quoted(std::string_view s) {
  std::string out;
  AppendJsonString(s, &out);
  return out;
}

TEST(JsonWriter, NestingAndCommas) {
  std::string out;
  JsonWriter w(&out);
  w.BeginObject();
  w.Key("a");
  w.BeginArray();
  w.Int(1);
  w.Int(-2);
  w.BeginObject();
  w.EndObject();
  w.BeginArray();
  w.EndArray();
  w.EndArray();
  w.Key("b");
  w.Bool(true);
  w.Key("c");
  w.Null();
  w.Key("d");
  w.String("x");
  w.EndObject();
  EXPECT_EQ(out, R"({"a":[1,-2,{},[]],"b":true,"c":null,"d":"x"})");
}

TEST(JsonWriter, Escapes) {
  EXPECT_EQ(Quoted("plain"), "\"plain\"");
  EXPECT_EQ(Quoted("q\"b\\"), R"("q\"b\\")");
  EXPECT_EQ(Quoted("\n\t\r\b\f"), R"("\n\t\r\b\f")");
  EXPECT_EQ(Quoted(std::string_view("\x00\x01\x1f\x7f", 4)), "\"\\u0000\\u0001\\u001f\x7f\"");
  EXPECT_EQ(Quoted("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
            "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
}

TEST(JsonWriter, InvalidUtf8BecomesReplacementCharacters) {
  const std::string kRep = "\xEF\xBF\xBD";
  EXPECT_EQ(Quoted("a\xff"
                   "b"),
            "\"a" + kRep + "b\"");
  EXPECT_EQ(Quoted("\xc3"), "\"" + kRep + "\"");                                   // truncated
  EXPECT_EQ(Quoted("\xc0\xaf"), "\"" + kRep + kRep + "\"");                        // overlong '/'
  EXPECT_EQ(Quoted("\xed\xa0\x80"), "\"" + kRep + kRep + kRep + "\"");             // surrogate
  EXPECT_EQ(Quoted("\xf4\x90\x80\x80"), "\"" + kRep + kRep + kRep + kRep + "\"");  // > U+10FFFF
  EXPECT_EQ(Quoted("\xe0\x80\x80"), "\"" + kRep + kRep + kRep + "\"");             // overlong NUL
}

// Whatever the bytes, the output is JSON that a strict parser accepts.
TEST(JsonWriter, AlwaysValidJson) {
  std::mt19937 rng(7);
  for (int i = 0; i < 2000; ++i) {
    std::string s(rng() % 40, '\0');
    for (char& c : s)
      c = static_cast<char>(rng() % 256);
    std::string out = Quoted(s);
    EXPECT_TRUE(nlohmann::json::accept(out)) << out;
  }
}

// Valid UTF-8 text comes back unchanged, whatever code points it holds.
TEST(JsonWriter, ValidTextRoundTrips) {
  std::mt19937 rng(11);
  for (int i = 0; i < 2000; ++i) {
    std::string s;
    for (int n = static_cast<int>(rng() % 20); n > 0; --n) {
      uint32_t cp;
      do {
        cp = rng() % 4 == 0 ? rng() % 0x80 : rng() % 0x110000;
      } while (cp >= 0xD800 && cp <= 0xDFFF);
      AppendUtf8(cp, &s);
    }
    EXPECT_EQ(nlohmann::json::parse(Quoted(s)).get<std::string>(), s);
  }
}

}  // namespace
}  // namespace safesh::util
