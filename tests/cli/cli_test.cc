// The safesh command line as users meet it: exit codes, errors and outputs of each verb.
#include <unistd.h>

#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/subprocess.h"

namespace safesh::testing {
namespace {

RunOutput Safesh(std::vector<std::string> args, std::string stdin_text = "") {
  args.insert(args.begin(), SAFESH_BINARY);
  RunOptions options;
  options.stdin_text = std::move(stdin_text);
  // A home without settings: the user's own file must not change what these tests see.
  options.env = {"PATH=/usr/bin:/bin", "LC_ALL=C.UTF-8", "HOME=/nonexistent-safesh-test-home"};
  return RunProgram(args, options);
}

TEST(Cli, VersionAndHelp) {
  RunOutput v = Safesh({"--version"});
  EXPECT_EQ(v.exit_code, 0);
  EXPECT_EQ(v.out.rfind("safesh ", 0), 0u) << v.out;
  RunOutput h = Safesh({"--help"});
  EXPECT_EQ(h.exit_code, 0);
  EXPECT_NE(h.out.find("parse"), std::string::npos) << h.out;
  RunOutput ph = Safesh({"parse", "--help"});
  EXPECT_EQ(ph.exit_code, 0);
  EXPECT_NE(ph.out.find("--json"), std::string::npos) << ph.out;
}

TEST(Cli, UsageErrorsExit64WithAMessage) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{},
                                             {"frobnicate"},
                                             {"parse", "--no-such-option", "x"},
                                             {"parse", "-f"},
                                             {"parse", "-f", "/dev/null", "echo"},
                                             {"mcp", "--no-such-option"},
                                             // A server whose every command would be refused.
                                             {"mcp", "--workspace", "/nonexistent/ws"}}) {
    RunOutput r = Safesh(args);
    std::string shown;
    for (const std::string& a : args)
      shown += a + " ";
    EXPECT_EQ(r.exit_code, 64) << shown << r.err;
    EXPECT_FALSE(r.err.empty()) << shown;
    EXPECT_TRUE(r.out.empty()) << shown << r.out;
  }
}

TEST(Cli, ParsePrintsTheTreeOrTheError) {
  RunOutput ok = Safesh({"parse", "--", "echo hi | wc -c"});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(ok.out, "1:1  command:  echo  hi\n1:11  | command:  wc  -c\n");
  EXPECT_TRUE(ok.err.empty());

  RunOutput bad = Safesh({"parse", "--", "if true; then echo"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_TRUE(bad.out.empty());
  EXPECT_NE(bad.err.find("1:1: unexpected end of input: `if' at 1:1 is not closed"),
            std::string::npos)
      << bad.err;

  // A script that starts with a dash after `--' is a script, not an option.
  RunOutput dash = Safesh({"parse", "--check", "--", "-x"});
  EXPECT_EQ(dash.exit_code, 0) << dash.err;
}

TEST(Cli, ParseJsonHasPositionsAndKinds) {
  RunOutput r = Safesh({"parse", "--json", "--", "a=1 echo \"$a\" >out"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  const nlohmann::json& cmd = j.at("body").at(0).at("pipelines").at(0).at("commands").at(0);
  EXPECT_EQ(cmd.at("type"), "SimpleCommand");
  EXPECT_EQ(cmd.at("pos"), nlohmann::json::array({1, 1}));
  EXPECT_EQ(cmd.at("end"), nlohmann::json::array({1, 19}));
  EXPECT_EQ(cmd.at("assigns").at(0).at("name"), "a");
  EXPECT_EQ(cmd.at("words").at(1).at("parts").at(0).at("type"), "DoubleQuoted");
  EXPECT_EQ(cmd.at("redirects").at(0).at("op"), ">");
  EXPECT_EQ(cmd.at("redirects").at(0).at("target").at("pos"), nlohmann::json::array({1, 16}));
}

TEST(Cli, ParseCheckAgreesWithParse) {
  for (const char* script : {"echo ok", "for x in; do :; done", "case x in (a) ;; esac",
                             "echo $((1 + ))", "cat <<EOF\nbody", "f() { :; }; f ) "}) {
    RunOutput full = Safesh({"parse", "--", script});
    RunOutput check = Safesh({"parse", "--check", "--", script});
    EXPECT_EQ(full.exit_code, check.exit_code) << script;
    EXPECT_EQ(full.err, check.err) << script;
    EXPECT_TRUE(check.out.empty()) << script;
  }
}

TEST(Cli, DeferredErrorsSayWhyBashDiffers) {
  RunOutput r = Safesh({"parse", "--", "echo $((1 + ))"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("note: bash itself reports this only when it runs"), std::string::npos)
      << r.err;
}

TEST(Cli, ParseReadsFilesAndStandardInput) {
  RunOutput in = Safesh({"parse", "--check", "-f", "-"}, "echo one\necho two |\n");
  EXPECT_EQ(in.exit_code, 1);
  EXPECT_NE(in.err.find("3:1: syntax error: unexpected end of input"), std::string::npos) << in.err;

  char path[] = "/tmp/safesh-cli-test-XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  std::string script = "while read -r l; do\n  echo \"$l\"\ndone <<'END'\nx\nEND\n";
  ASSERT_EQ(write(fd, script.data(), script.size()), static_cast<ssize_t>(script.size()));
  close(fd);
  RunOutput file = Safesh({"parse", "--file", path});
  unlink(path);
  EXPECT_EQ(file.exit_code, 0) << file.err;
  EXPECT_NE(file.out.find("while"), std::string::npos) << file.out;

  for (const char* path : {"/nonexistent/script.sh", "/tmp", "/dev/zero"}) {
    RunOutput r = Safesh({"parse", "-f", path});
    EXPECT_EQ(r.exit_code, 64) << path;
    EXPECT_NE(r.err.find(std::string("cannot read ") + path + ": "), std::string::npos) << r.err;
  }
}

// A settings file in a temporary folder, removed at the end of the test.
class TempFile {
 public:
  explicit TempFile(const std::string& text) {
    char path[] = "/tmp/safesh-cli-settings-XXXXXX";
    int fd = mkstemp(path);
    if (fd >= 0) {
      ssize_t n = write(fd, text.data(), text.size());
      (void)n;
      close(fd);
    }
    path_ = path;
  }
  ~TempFile() { unlink(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

const char kRules[] = R"([commands]
deny = ["rm"]
auto_approve = ["ls *", "git status"]
)";

TEST(Cli, CheckExitCodesFollowTheVerdict) {
  TempFile rules(kRules);
  RunOutput allow = Safesh({"check", "--config", rules.path(), "--", "ls -la"});
  EXPECT_EQ(allow.exit_code, 0) << allow.err;
  EXPECT_EQ(allow.out.rfind("allow: ", 0), 0u) << allow.out;
  RunOutput ask = Safesh({"check", "--config", rules.path(), "--", "ls > out.txt"});
  EXPECT_EQ(ask.exit_code, 1) << ask.err;
  EXPECT_NE(ask.out.find("out.txt"), std::string::npos) << ask.out;
  RunOutput deny = Safesh({"check", "--config", rules.path(), "--", "timeout 5 rm -rf x"});
  EXPECT_EQ(deny.exit_code, 2) << deny.err;
  EXPECT_NE(deny.out.find("matches the deny rule `rm'"), std::string::npos) << deny.out;
  // No settings: every command needs approval, a disk sweep is denied.
  EXPECT_EQ(Safesh({"check", "--", "ls"}).exit_code, 1);
  EXPECT_EQ(Safesh({"check", "--", "find / -name uv"}).exit_code, 2);
}

TEST(Cli, CheckJson) {
  TempFile rules(kRules);
  RunOutput r = Safesh({"check", "--json", "--config", rules.path(), "--", "ls && rm x"});
  EXPECT_EQ(r.exit_code, 2);
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("verdict"), "deny");
  EXPECT_EQ(j.at("commands").size(), 2u);
  for (const char* key : {"reason", "writes", "unverified", "parse_error"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
}

TEST(Cli, CheckJsonlKeepsOrderAndReportsBadLines) {
  TempFile rules(kRules);
  RunOutput r = Safesh({"check", "--jsonl", "--config", rules.path()},
                       "\"ls\"\nnot json\n[\"rm\", \"-rf\", \"/\"]\n42\n\"git status\"\n");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<nlohmann::json> lines;
  std::istringstream in(r.out);
  std::string line;
  while (std::getline(in, line))
    lines.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(lines.size(), 5u) << r.out;
  EXPECT_EQ(lines[0].at("verdict"), "allow");
  EXPECT_NE(lines[1].at("error").get<std::string>().find("not valid JSON"), std::string::npos);
  EXPECT_EQ(lines[2].at("verdict"), "deny");  // an argv
  EXPECT_TRUE(lines[3].contains("error"));
  EXPECT_EQ(lines[4].at("verdict"), "allow");
}

TEST(Cli, CheckArgv) {
  TempFile rules(kRules);
  RunOutput r = Safesh({"check", "--argv", "--config", rules.path(), "--", "ls", "$(rm x)", ";"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(Safesh({"check", "--argv", "--config", rules.path(), "--", "rm", "x"}).exit_code, 2);
}

TEST(Cli, CheckRefusesBadInput) {
  // Usage errors: 64, and a message saying what to do.
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"check"},
                                             {"check", "--", ""},
                                             {"check", "--", "ls", "-la"},
                                             {"check", "--jsonl", "--", "ls"},
                                             {"check", "--bogus", "--", "ls"}}) {
    RunOutput r = Safesh(args);
    EXPECT_EQ(r.exit_code, 64) << args.back() << r.err;
    EXPECT_FALSE(r.err.empty());
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
  // Bad settings: 78, naming the file, the line and the key.
  TempFile typo("[commands]\ndenny = [\"rm\"]\n");
  RunOutput bad = Safesh({"check", "--config", typo.path(), "--", "ls"});
  EXPECT_EQ(bad.exit_code, 78);
  EXPECT_NE(bad.err.find(typo.path() + ":2:1: unknown key `denny'"), std::string::npos) << bad.err;
  TempFile regex("[commands]\ndeny = [\"re:(\"]\n");
  RunOutput re = Safesh({"check", "--config", regex.path(), "--", "ls"});
  EXPECT_EQ(re.exit_code, 78);
  EXPECT_NE(re.err.find("re:("), std::string::npos) << re.err;
  RunOutput missing = Safesh({"check", "--config", "/nonexistent.toml", "--", "ls"});
  EXPECT_EQ(missing.exit_code, 78);
  EXPECT_NE(missing.err.find("/nonexistent.toml: No such file"), std::string::npos) << missing.err;
}

}  // namespace
}  // namespace safesh::testing
