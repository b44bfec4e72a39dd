#include "util/base64.h"

#include <string>

#include <gtest/gtest.h>

namespace safesh::util {
namespace {

TEST(Base64, Rfc4648Vectors) {
  const char* vectors[][2] = {{"", ""},
                              {"f", "Zg=="},
                              {"fo", "Zm8="},
                              {"foo", "Zm9v"},
                              {"foob", "Zm9vYg=="},
                              {"fooba", "Zm9vYmE="},
                              {"foobar", "Zm9vYmFy"}};
  for (const auto& v : vectors) {
    EXPECT_EQ(Base64Encode(v[0]), v[1]);
    std::string decoded;
    ASSERT_TRUE(Base64Decode(v[1], &decoded)) << v[1];
    EXPECT_EQ(decoded, v[0]);
  }
}

TEST(Base64, EveryByteRoundTrips) {
  std::string all;
  for (int i = 0; i < 256; ++i)
    all.push_back(static_cast<char>(i));
  for (size_t n = 0; n <= all.size(); n += 7) {
    std::string part = all.substr(0, n), decoded;
    ASSERT_TRUE(Base64Decode(Base64Encode(part), &decoded));
    EXPECT_EQ(decoded, part);
  }
}

TEST(Base64, RefusesWhatIsNotStrictlyBase64) {
  std::string out;
  for (const char* bad : {"Zg", "Zg=", "Zm9", "Z===", "=Zg=", "Zg==Zg==", "Zm9v\n", " Zm9v", "Zm-v",
                          "Zm_v", "Zh==", "Zm9=", "Zm8=Zm8="}) {
    EXPECT_FALSE(Base64Decode(bad, &out)) << bad;
  }
}

}  // namespace
}  // namespace safesh::util
