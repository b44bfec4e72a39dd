#include "exec/env.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "exec/redact.h"

namespace safesh::exec {
namespace {

bool Has(const std::vector<std::string>& vars, const std::string& entry) {
  return std::find(vars.begin(), vars.end(), entry) != vars.end();
}

TEST(ChildEnv, DefaultScrubRemovesCredentialsCaseInsensitively) {
  std::vector<std::string_view> parent = {"PATH=/usr/bin",
                                          "HOME=/home/u",
                                          "GITHUB_TOKEN=ghp_abcdefgh",
                                          "aws_secret_access_key=zzz",
                                          "MY_API_KEY=k1234567",
                                          "DB_PASSWORD=hunter22",
                                          "SSH_AUTH_SOCK=/tmp/agent",
                                          "LANG=C.UTF-8",
                                          "ANTHROPIC_API_KEY=sk-ant-xyz",
                                          "GIT_AUTHOR_NAME=A",
                                          "KEYBOARD=us"};
  ChildEnv env = BuildChildEnv(parent, EnvRules{});
  EXPECT_TRUE(Has(env.vars, "PATH=/usr/bin"));
  EXPECT_TRUE(Has(env.vars, "HOME=/home/u"));
  EXPECT_TRUE(Has(env.vars, "LANG=C.UTF-8"));
  EXPECT_TRUE(Has(env.vars, "GIT_AUTHOR_NAME=A"));
  EXPECT_TRUE(Has(env.vars, "KEYBOARD=us"));
  for (const char* gone : {"GITHUB_TOKEN", "aws_secret_access_key", "MY_API_KEY", "DB_PASSWORD",
                           "SSH_AUTH_SOCK", "ANTHROPIC_API_KEY"}) {
    for (const std::string& v : env.vars)
      EXPECT_FALSE(v.starts_with(std::string(gone) + "="));
  }
  EXPECT_EQ(env.secrets.size(), 6u);
}

TEST(ChildEnv, BashStartupVariablesAreAlwaysRemoved) {
  std::vector<std::string_view> parent = {
      "BASH_ENV=/tmp/x",  "ENV=/tmp/y",       "BASH_FUNC_ls%%=() { rm -rf ~; }",
      "SHELLOPTS=xtrace", "BASHOPTS=extglob", "PATH=/bin",
      "NOEQUALS"};
  EnvRules rules;
  rules.scrub.clear();
  ChildEnv env = BuildChildEnv(parent, rules);
  EXPECT_EQ(env.vars, std::vector<std::string>{"PATH=/bin"});
  EXPECT_EQ(env.removed.size(), 5u);
}

TEST(ChildEnv, AllowListKeepsPathAndNamedVariablesOnly) {
  std::vector<std::string_view> parent = {"PATH=/bin", "HOME=/h", "CARGO_HOME=/c", "LANG=C",
                                          "CARGO_TOKEN=secret123"};
  EnvRules rules;
  rules.allow = std::vector<std::string>{"CARGO_*"};
  ChildEnv env = BuildChildEnv(parent, rules);
  // CARGO_TOKEN matches the allow list but is still scrubbed: scrubbing always wins.
  EXPECT_EQ(env.vars, (std::vector<std::string>{"PATH=/bin", "CARGO_HOME=/c"}));
}

TEST(ChildEnv, WrittenScrubListReplacesTheDefaults) {
  std::vector<std::string_view> parent = {"GITHUB_TOKEN=t", "INTERNAL_URL=u"};
  EnvRules rules;
  rules.scrub = {"internal_*"};
  ChildEnv env = BuildChildEnv(parent, rules);
  EXPECT_EQ(env.vars, std::vector<std::string>{"GITHUB_TOKEN=t"});
}

std::string RedactInPieces(Redactor& r, const std::string& text, size_t piece) {
  std::string out;
  for (size_t i = 0; i < text.size(); i += piece)
    r.Feed(text.substr(i, piece), &out);
  r.Finish(&out);
  return out;
}

TEST(Redactor, MasksSecretsSplitAcrossReads) {
  std::vector<Secret> secrets = {{"TOKEN", "s3cr3t-value-42"}, {"SHORT", "abc"}};
  std::string text = "before s3cr3t-value-42 middle s3cr3t-value-4 abc s3cr3t-value-42";
  std::string want = "before [redacted TOKEN] middle s3cr3t-value-4 abc [redacted TOKEN]";
  for (size_t piece : {1u, 2u, 3u, 7u, 15u, 16u, 1000u}) {
    Redactor r(secrets);
    EXPECT_EQ(RedactInPieces(r, text, piece), want) << "piece " << piece;
  }
}

TEST(Redactor, LongerSecretWinsWhereTwoStartTogether) {
  std::vector<Secret> secrets = {{"A", "password1"}, {"B", "password1234"}};
  Redactor r(secrets);
  EXPECT_EQ(RedactInPieces(r, "x password1234 password1 y", 4), "x [redacted B] [redacted A] y");
}

TEST(Redactor, OverlappingSecretsAreMaskedTogether) {
  std::vector<Secret> secrets = {{"A", "sk-OVERLAPAAAABBBB"}, {"B", "BBBBCCCCDDDDsecret"}};
  for (size_t piece : {1u, 5u, 64u}) {
    Redactor r(secrets);
    EXPECT_EQ(RedactInPieces(r, "x sk-OVERLAPAAAABBBBCCCCDDDDsecret y", piece), "x [redacted A] y")
        << piece;
  }
}

// As the output pump uses it: after each piece the pipe is taken to be empty, and what
// Releasable allows is released before the next piece arrives.
std::string RedactReleasingEachPiece(const Redactor& r, const std::string& text, size_t piece,
                                     std::string* held_after_first = nullptr) {
  std::string out, pending;
  auto emit = [&out](const char* p, size_t n) { out.append(p, n); };
  for (size_t i = 0; i < text.size(); i += piece) {
    pending += text.substr(i, piece);
    size_t keep = r.Scan(pending.data(), pending.size(), false, emit);
    pending.erase(0, pending.size() - keep);
    size_t ready = r.Releasable(pending.data(), pending.size());
    r.Scan(pending.data(), ready, true, emit);
    pending.erase(0, ready);
    if (i == 0 && held_after_first != nullptr) *held_after_first = pending;
  }
  r.Scan(pending.data(), pending.size(), true, emit);
  return out;
}

TEST(Redactor, ReleasesWhatCannotStartASecretWhenTheStreamPauses) {
  std::vector<Secret> secrets = {{"TOKEN", "s3cr3t-value-42"}, {"OTHER", "password1234"}};
  Redactor r(secrets);
  std::string text = "up s3cr3t-value-42 and s3cr3t-valu password1234s3cr3t-value-42 end";
  std::string want = "up [redacted TOKEN] and s3cr3t-valu [redacted OTHER][redacted TOKEN] end";
  for (size_t piece = 1; piece <= text.size(); ++piece)
    EXPECT_EQ(RedactReleasingEachPiece(r, text, piece), want) << "piece " << piece;
  // A line that cannot begin a secret is not held back at all; one that might is, from there.
  std::string held;
  RedactReleasingEachPiece(r, "listening on :8080\n", 100, &held);
  EXPECT_EQ(held, "");
  RedactReleasingEachPiece(r, "the key is s3cr3", 100, &held);
  EXPECT_EQ(held, "s3cr3");
  // Overlapping secrets found whole in the held bytes are not cut apart.
  Redactor overlap({{"A", "sk-OVERLAPAAAABBBB"}, {"B", "BBBBCCCCDDDDsecret"}});
  for (size_t piece : {1u, 3u, 5u, 64u}) {
    EXPECT_EQ(RedactReleasingEachPiece(overlap, "x sk-OVERLAPAAAABBBBCCCCDDDDsecret y", piece),
              "x [redacted A] y")
        << piece;
  }
}

TEST(Redactor, InactiveWithoutCredibleSecrets) {
  Redactor r({{"X", "1"}, {"Y", "true"}});
  EXPECT_FALSE(r.active());
}

}  // namespace
}  // namespace safesh::exec
