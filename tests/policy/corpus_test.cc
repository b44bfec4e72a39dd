// The attack and benign corpus (tests/data/corpus/README.md), judged row by row.
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "config/settings.h"
#include "policy/verdict.h"

namespace safesh::policy {
namespace {

const std::string kDir = SAFESH_SOURCE_DIR "/tests/data/corpus/";

std::vector<std::vector<std::string>> ReadTsv(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in) << "cannot read " << path;
  std::vector<std::vector<std::string>> rows;
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    if (header) {
      header = false;
      continue;
    }
    if (line.empty()) continue;
    std::vector<std::string> cols;
    std::stringstream ss(line);
    std::string col;
    while (std::getline(ss, col, '\t'))
      cols.push_back(col);
    rows.push_back(cols);
  }
  return rows;
}

Policy ReferencePolicy() {
  std::string error;
  std::optional<config::Settings> s = config::LoadSettings(kDir + "reference-policy.toml", &error);
  EXPECT_TRUE(s.has_value()) << error;
  std::optional<Policy> p = Policy::Compile(s ? s->commands : CommandRules{}, &error);
  EXPECT_TRUE(p.has_value()) << error;
  return p ? *p : Policy();
}

Policy PolicyOf(CommandRules rules) {
  std::string error;
  std::optional<Policy> p = Policy::Compile(rules, &error);
  EXPECT_TRUE(p.has_value()) << error;
  return p ? *p : Policy();
}

JudgeOptions Options() {
  JudgeOptions o;
  o.home = "/home/user";
  return o;
}

TEST(Corpus, NoBypassIsAllowed) {
  Policy policy = ReferencePolicy();
  auto rows = ReadTsv(kDir + "bypass.tsv");
  ASSERT_GT(rows.size(), 50u);
  int denied = 0, asked = 0;
  for (const auto& row : rows) {
    ASSERT_GE(row.size(), 3u);
    std::string command = nlohmann::json::parse(row[1]).get<std::string>();
    Verdict v = Judge(&policy, command, Options());
    EXPECT_NE(v.decision, Decision::kAllow)
        << row[0] << ": " << command << "\n  hides: " << row[2] << "\n  " << VerdictJson(v);
    (v.decision == Decision::kDeny ? denied : asked)++;
  }
  std::printf("[corpus] %zu bypass rows: %d denied, %d need approval, 0 allowed\n", rows.size(),
              denied, asked);
}

// Rows whose hidden command is plainly written in the line (after the quoting and parsing bash
// does) must be denied, not merely asked about.
TEST(Corpus, VisibleDangerIsDenied) {
  Policy policy = ReferencePolicy();
  const std::vector<std::string> visible = {"\\rm -rf ~",
                                            "r\\\nm -rf ~",
                                            "echo ${x:-$(rm -rf ~)}",
                                            "diff <(rm -rf ~) /dev/null",
                                            "echo $[$(rm -rf ~)]",
                                            "printf -v 'a[$(rm -rf ~)]' x",
                                            "read 'a[$(rm -rf ~)]' <<< x",
                                            "let 'x=a[$(rm -rf ~)]'",
                                            "ls; let 'x=a[$(rm -rf ~)]'",
                                            "ls; declare -i n='a[$(rm -rf ~)]'",
                                            "trap 'rm -rf ~' EXIT",
                                            "eval 'rm -rf ~'",
                                            "bash -c -- 'rm -rf ~'",
                                            "env -S 'rm -rf ~'",
                                            "timeout --kill-after 5 10 rm -rf ~",
                                            "/usr/bin/time -f %e rm -rf ~",
                                            "flock /tmp/l rm -rf ~",
                                            "su -c 'rm -rf ~' root",
                                            "find . -maxdepth 0 -exec sh -c 'rm -rf ~' \\;",
                                            "rm -fr /",
                                            "awk 'BEGIN{system(\"rm -rf ~\")}'",
                                            "sed -n '1e rm -rf ~' file.txt",
                                            "zip z.zip f -T -TT 'rm -rf ~ #'",
                                            "git -c core.fsmonitor='rm -rf ~; false' status",
                                            "git grep --open-files-in-pager='rm -rf ~ #' foo",
                                            "git -c diff.external='rm -rf ~ #' diff",
                                            "true && rm -rf ~",
                                            "cat f | rm -rf ~",
                                            "echo $(true)#; rm -rf ~"};
  for (const std::string& command : visible) {
    Verdict v = Judge(&policy, command, Options());
    EXPECT_EQ(v.decision, Decision::kDeny) << command << "\n  " << VerdictJson(v);
  }
}

TEST(Corpus, BenignRowsAreNotDenied) {
  auto rows = ReadTsv(kDir + "benign.tsv");
  ASSERT_GT(rows.size(), 20u);
  Policy reference = ReferencePolicy();
  // The expected column may name the rule a row is about.
  const std::regex not_denied_by("not denied by deny '([^']+)'");
  const std::regex allowed_by("allowed by '([^']+)'");
  const std::regex auto_approvable("^auto|: auto$");
  int allowed = 0;
  for (const auto& row : rows) {
    ASSERT_GE(row.size(), 2u);
    std::string command = nlohmann::json::parse(row[0]).get<std::string>();
    const std::string& expected = row[1];
    std::smatch m;
    Policy policy = reference;
    bool must_allow = false;
    if (std::regex_search(expected, m, not_denied_by)) {
      policy = PolicyOf(CommandRules{{m[1]}, {}, {}, {}, false, false});
    } else if (std::regex_search(expected, m, allowed_by)) {
      policy = PolicyOf(CommandRules{{}, {}, {}, {m[1]}, false, false});
      must_allow = true;
    } else if (std::regex_search(expected, auto_approvable)) {
      must_allow = true;
    }
    Verdict v = Judge(&policy, command, Options());
    EXPECT_NE(v.decision, Decision::kDeny)
        << command << " (" << expected << ")\n  " << VerdictJson(v);
    if (must_allow) {
      EXPECT_EQ(v.decision, Decision::kAllow)
          << command << " (" << expected << ")\n  " << VerdictJson(v);
    }
    if (v.decision == Decision::kAllow) ++allowed;
  }
  std::printf("[corpus] %zu benign rows: none denied, %d allowed\n", rows.size(), allowed);
}

}  // namespace
}  // namespace safesh::policy
