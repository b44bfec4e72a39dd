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

// Only what the allow-list names passes: a secret under a name no scrub glob knows stays out,
// and what env_allow adds passes too, unless a scrub glob matches it.
TEST(ChildEnv, OnlyAllowedVariablesPass) {
  std::vector<std::string_view> parent = {
      "PATH=/bin",
      "HOME=/h",
      "CARGO_HOME=/c",
      "LANG=C",
      "LC_ALL=C.UTF-8",
      "TERM=xterm",
      "TZ=UTC",
      "CARGO_TOKEN=secret123",
      "DB_PASS=hunter2",
      "MYSQL_PWD=pw1",
      "SMTP_PASS=pw2",
      "REDIS_URL=redis://:r3dis-pw@cache:6379/0",
      "MONGODB_URI=mongodb://app:m0ngo-pw@db/x?tls=true",
      "SLACK_WEBHOOK_URL=https://hooks.slack.com/services/T/B/X",
      "PLAIN_URL=https://example.com/a@b",
      "GIT_AUTHOR_NAME=A"};
  ChildEnv env = BuildChildEnv(parent, EnvRules{});
  EXPECT_EQ(env.vars, (std::vector<std::string>{"PATH=/bin", "HOME=/h", "LANG=C", "LC_ALL=C.UTF-8",
                                                "TERM=xterm", "TZ=UTC"}));
  // Left out, and masked in output where a value carries a password in a URL.
  std::vector<std::string> masked;
  for (const Secret& s : env.secrets)
    masked.push_back(s.name);
  EXPECT_EQ(masked, (std::vector<std::string>{"CARGO_TOKEN", "REDIS_URL", "REDIS_URL",
                                              "MONGODB_URI", "MONGODB_URI"}));
  // The password alone is masked too, wherever it shows; one with an unencoded '/' is found.
  EXPECT_EQ(env.secrets[2].value, "r3dis-pw");
  EXPECT_EQ(env.secrets[4].value, "m0ngo-pw");
  std::vector<std::string_view> slash = {"DB_URL=https://u:p/w-long@h/x"};
  ChildEnv s = BuildChildEnv(slash, EnvRules{});
  ASSERT_EQ(s.secrets.size(), 2u);
  EXPECT_EQ(s.secrets[1].value, "p/w-long");

  EnvRules rules;
  rules.allow.push_back("CARGO_*");
  env = BuildChildEnv(parent, rules);
  // CARGO_TOKEN matches the allow list but is still scrubbed: scrubbing always wins.
  EXPECT_TRUE(Has(env.vars, "CARGO_HOME=/c"));
  EXPECT_FALSE(Has(env.vars, "CARGO_TOKEN=secret123"));
}

TEST(ChildEnv, WrittenScrubListReplacesTheDefaults) {
  std::vector<std::string_view> parent = {"GITHUB_TOKEN=t", "INTERNAL_URL=u"};
  EnvRules rules;
  rules.scrub = {"internal_*"};
  rules.allow = {"*"};  // (everything allowed: the scrub list alone decides)
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
