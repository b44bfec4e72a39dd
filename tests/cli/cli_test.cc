// The safesh command line as users meet it: exit codes, errors and outputs of each verb.
#include <unistd.h>

#include <cstdlib>
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
  options.env = {"PATH=/usr/bin:/bin", "LC_ALL=C.UTF-8"};
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
                                             {"parse", "-f", "/dev/null", "echo"}}) {
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

}  // namespace
}  // namespace safesh::testing
