#include "policy/pattern.h"

#include <gtest/gtest.h>

namespace safesh::policy {
namespace {

Argv A(std::initializer_list<const char*> words) {
  Argv out;
  for (const char* w : words) {
    std::string s(w);
    if (s.size() > 1 && s[0] == '$') {
      out.push_back({s, false, s});
    } else {
      out.push_back({s, true, {}});
    }
  }
  return out;
}

MatchResult M(const char* pattern, Argv argv, bool base = false) {
  std::string error;
  auto p = ParsePattern(pattern, &error);
  EXPECT_TRUE(p.has_value()) << error;
  return p ? Match(*p, argv, base) : MatchResult::kNo;
}

constexpr MatchResult kYes = MatchResult::kYes;
constexpr MatchResult kNo = MatchResult::kNo;
constexpr MatchResult kMaybe = MatchResult::kMaybe;

TEST(Pattern, WordsNameACommandWithAnyArguments) {
  EXPECT_EQ(M("ls", A({"ls", "-la"})), kYes);
  EXPECT_EQ(M("git log", A({"git", "log", "--oneline"})), kYes);
  EXPECT_EQ(M("git log", A({"git", "logs"})), kNo);
  EXPECT_EQ(M("git log", A({"git"})), kNo);
  EXPECT_EQ(M("rm -rf /", A({"rm", "-rf", "./build"})), kNo);
  EXPECT_EQ(M("sudo", A({"echo", "sudo"})), kNo);
  EXPECT_EQ(M("rm", A({"git", "rm", "--cached", "f"})), kNo);
}

TEST(Pattern, GlobsMatchTheWholeCommand) {
  EXPECT_EQ(M("git *", A({"git"})), kYes);  // a trailing ` *' also names the bare command
  EXPECT_EQ(M("git *", A({"git", "status"})), kYes);
  EXPECT_EQ(M("git *", A({"gitx"})), kNo);
  EXPECT_EQ(M("git push --force*", A({"git", "push", "--force-with-lease"})), kYes);
  EXPECT_EQ(M("git push --force*", A({"git", "push", "origin"})), kNo);
  EXPECT_EQ(M("ls ?", A({"ls", "a"})), kYes);
  EXPECT_EQ(M("ls ?", A({"ls", "ab"})), kNo);
  EXPECT_EQ(M("sudo *", A({"echo", "sudo"})), kNo);
  EXPECT_EQ(M("echo \\*", A({"echo", "*"})), kYes);
  EXPECT_EQ(M("echo \\*", A({"echo", "x"})), kNo);
}

TEST(Pattern, RegularExpressionsMatchTheWholeCommand) {
  EXPECT_EQ(M("re:git (log|show)( .*)?", A({"git", "show", "HEAD"})), kYes);
  EXPECT_EQ(M("re:git (log|show)( .*)?", A({"git", "shows"})), kNo);
  EXPECT_EQ(M("re:git (log|show)( .*)?", A({"git", "$x"})), kMaybe);
  std::string error;
  EXPECT_FALSE(ParsePattern("re:git (", &error));
  EXPECT_NE(error.find("re:git ("), std::string::npos) << error;
  EXPECT_FALSE(ParsePattern("   ", &error));
}

TEST(Pattern, ComputedWordsMayMatch) {
  EXPECT_EQ(M("rm -rf /", A({"rm", "$x", "/"})), kMaybe);
  EXPECT_EQ(M("git push --force", A({"git", "$x"})), kMaybe);
  EXPECT_EQ(M("git push --force", A({"git", "pull", "$x"})), kNo);
  EXPECT_EQ(M("ls", A({"ls", "$x"})), kYes);
  EXPECT_EQ(M("ls *", A({"ls", "$x"})), kYes);  // the * covers any value
  EXPECT_EQ(M("ls ?", A({"ls", "$x"})), kMaybe);
  EXPECT_EQ(M("git push --force*", A({"git", "push", "$x"})), kMaybe);
  EXPECT_EQ(M("git push --force*", A({"git", "$x"})), kMaybe);
  EXPECT_EQ(M("git status", A({"$x", "status"})), kMaybe);
}

TEST(Pattern, BaseNameOnlyWhenAsked) {
  EXPECT_EQ(M("rm", A({"/bin/rm", "-rf", "x"}), true), kYes);
  EXPECT_EQ(M("rm", A({"/bin/rm", "-rf", "x"}), false), kNo);
  EXPECT_EQ(M("ls *", A({"./ls"}), false), kNo);
}

TEST(Pattern, GlobMatchWithUnknownPieces) {
  std::vector<std::string> s = {"ab", "?", "cd"};
  std::vector<bool> u = {false, true, false};
  EXPECT_EQ(GlobMatch("ab*cd", s, u), kYes);
  EXPECT_EQ(GlobMatch("abxcd", s, u), kMaybe);
  EXPECT_EQ(GlobMatch("abcd", s, u), kMaybe);  // the unknown piece may be empty
  EXPECT_EQ(GlobMatch("xbcd", s, u), kNo);
  EXPECT_EQ(GlobMatch("a*", s, u), kYes);
}

}  // namespace
}  // namespace safesh::policy
