// Verdicts (SH-14, SH-14a, strict mode, argv mode) and their reasons.
#include "policy/verdict.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "config/settings.h"

namespace safesh::policy {
namespace {

Policy Rules(const std::string& toml) {
  std::string error;
  std::optional<config::Settings> s = config::ParseSettings(toml, "test.toml", &error);
  EXPECT_TRUE(s.has_value()) << error;
  std::optional<Policy> p = Policy::Compile(s ? s->commands : CommandRules{}, &error);
  EXPECT_TRUE(p.has_value()) << error;
  return p ? *p : Policy();
}

JudgeOptions Home() {
  JudgeOptions o;
  o.home = "/home/me";
  return o;
}

Decision D(const Policy* p, const std::string& command) {
  return Judge(p, command, Home()).decision;
}

constexpr Decision kAllow = Decision::kAllow;
constexpr Decision kAsk = Decision::kAsk;
constexpr Decision kDeny = Decision::kDeny;

struct Case {
  const char* command;
  Decision expected;
};

void Expect(const Policy* p, const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    Verdict v = Judge(p, c.command, Home());
    EXPECT_EQ(v.decision, c.expected) << c.command << "\n  " << VerdictJson(v);
  }
}

TEST(Verdict, DenyWinsAndCoversWrappers) {
  Policy p = Rules(R"(
[commands]
deny = ["rm", "sudo", "git push --force*"]
auto_approve = ["ls *", "echo *", "timeout *", "git *", "sudo *"]
)");
  Expect(&p, {
                 {"rm -rf x", kDeny},
                 {"/bin/rm x", kDeny},  // deny matches a path by its base name
                 {"ls && rm x", kDeny},
                 {"echo $(rm x)", kDeny},
                 {"timeout 5 rm x", kDeny},
                 {"sudo ls", kDeny},  // the wrapper itself is denied
                 {"git push --force-with-lease", kDeny},
                 {"git push origin main", kAllow},
                 {"echo rm", kAllow},
                 {"git rm --cached f", kAllow},
                 {"ls; rm $x", kDeny},
                 {"$x -rf /", kAsk},  // may be rm: not allowed, not provably denied
                 {"git push $flag", kAsk},
             });
}

TEST(Verdict, AutoApproveNeedsEverythingKnown) {
  Policy p = Rules(R"(
[commands]
auto_approve = ["ls *", "cat *", "grep *", "git status", "bash *", "timeout *", "find *"]
)");
  Expect(&p, {
                 {"ls -la", kAllow},
                 {"ls -la | grep x", kAllow},
                 {"timeout 5 ls", kAllow},  // transparent wrapper
                 {"bash -c 'ls | cat'", kAllow},
                 {"git status", kAllow},
                 {"ls $HOME", kAsk},      // computed argument
                 {"ls *.txt", kAsk},      // glob
                 {"ls > out.txt", kAsk},  // writes a file
                 {"ls > /dev/null 2>&1", kAllow},
                 {"cat < in.txt", kAllow},
                 {"ls | xargs cat", kAsk},  // xargs adds arguments read from its input
                 {"ls; pwd", kAsk},         // pwd is not approved
                 {"eval ls", kAsk},
                 {"cat /dev/tcp/h/80 < /dev/tcp/h/80", kAsk},
                 {"PATH=/tmp ls", kAsk},
                 {"x=1", kAllow},  // nothing runs
                 {"find . -name '*.md' -exec grep -l x {} \\;", kAllow},
                 {"find . -delete", kAsk},
                 {"ls; (( i++ ))", kAsk},
             });
  // Input text substituted into a shell script, and words appended through a wrapper.
  Policy p2 = Rules(R"(
[commands]
auto_approve = ["echo *", "sh *", "bash *", "xargs *", "find *", "timeout *", "rg *", "grep *",
                "awk *"]
)");
  Expect(&p2, {
                  {"echo 'x; rm -f victim' | xargs -I{} sh -c 'echo {}'", kAsk},
                  {"echo a | xargs -i sh -c 'echo {}'", kAsk},
                  {"echo a | xargs --replace=Q bash -c 'echo Q'", kAsk},
                  {"find fx -type f -exec sh -c 'echo {}' \\;", kAsk},
                  {"find fx -type f -exec sh -c 'echo x{}' \\;", kAsk},
                  {"find e -exec awk {} \\;", kAsk},
                  {"echo a | xargs timeout 5 rg x", kAsk},
                  {"echo a | xargs sh -c 'echo \"$@\"' sh", kAsk},
                  {"find . -name '*.go' -exec grep foo {} +", kAllow},
                  {"echo a | xargs -I{} sh -c 'echo x'", kAllow},
              });
  // `git status` in the words form is `git status` with any arguments.
  Policy words = Rules("[commands]\nauto_approve = [\"git status\"]\n");
  EXPECT_EQ(D(&words, "git status --short"), kAllow);
}

TEST(Verdict, AskRules) {
  Policy p = Rules(R"(
[commands]
ask = ["git push"]
auto_approve = ["git *"]
)");
  Expect(&p, {{"git push", kAsk}, {"git status", kAllow}, {"git $cmd", kAsk}});
}

TEST(Verdict, AllowListMode) {
  Policy p = Rules(R"(
[commands]
allow = ["ls", "git *", "timeout *"]
auto_approve = ["ls"]
)");
  Expect(&p, {
                 {"ls -la", kAllow},
                 {"git status", kAsk},  // allowed, not auto-approved
                 {"timeout 5 git log", kAsk},
                 {"cat x", kDeny},  // not on the list
                 {"ls | cat", kDeny},
                 {"eval ls", kDeny},      // unverified
                 {"$cmd", kDeny},         // computed command
                 {"ls; if true", kDeny},  // parse error
                 {"./ls", kDeny},         // allow rules never match a path
             });
  Policy empty = Rules("[commands]\nallow = []\n");
  EXPECT_EQ(D(&empty, "ls"), kDeny);
}

TEST(Verdict, ParseErrorsAndNoPolicy) {
  Policy p = Rules("[commands]\nauto_approve = [\"ls *\"]\n");
  Verdict v = Judge(&p, "ls; if true", Home());
  EXPECT_EQ(v.decision, kAsk);
  ASSERT_TRUE(v.parse_error.has_value());
  EXPECT_NE(v.reason.find("does not parse"), std::string::npos) << v.reason;
  // No policy: everything needs approval, except a disk sweep.
  EXPECT_EQ(D(nullptr, "ls"), kAsk);
  EXPECT_EQ(D(nullptr, "rm -rf /"), kAsk);
  EXPECT_EQ(D(nullptr, "find / -name x"), kDeny);
  EXPECT_EQ(D(nullptr, "   "), kDeny);  // empty
}

// bash accepts some text safesh cannot parse (extglob, for one): a denied command named in it
// is denied, not merely asked about. Nothing else changes.
TEST(Verdict, DeniedCommandsInTextThatDoesNotParse) {
  Policy p = Rules(R"(
[commands]
deny = ["rm", "git push --force*"]
auto_approve = ["ls *", "bash *", "echo *"]
)");
  Expect(&p, {
                 {"[[ x == @($(rm y)) ]]", kDeny},
                 {"bash -O extglob -c 'case x in @(a|b)) rm y;; esac'", kDeny},
                 {"bash -O extglob -c 'case x in @(a|b)) /bin/rm y;; esac'", kDeny},
                 {"eval 'r\"m\" x ('", kDeny},
                 {"ls; if true; then git push --force; ", kDeny},
                 {"bash -O extglob -c 'case x in @(a|b)) ls;; esac'", kAsk},
                 // Words are not told apart from arguments: unparsable text naming rm
                 // anywhere is denied (it could not have been approved anyway).
                 {"echo 'rm", kDeny},
             });
}

TEST(Verdict, DiskSweeps) {
  Policy p = Rules(
      "[commands]\nauto_approve = [\"find *\", \"rg *\", \"du *\", \"ls *\", \"grep *\", \"timeout "
      "*\", \"bash *\", \"tree *\", \"fd *\"]\n");
  Expect(&p, {
                 {"find / -name uv", kDeny},
                 {"find ~ -name x", kDeny},
                 {"find $HOME -type f", kDeny},
                 {"find \"$HOME\" -type f", kDeny},
                 {"find ${HOME}/ -type f", kDeny},
                 {"find /home/me -name x", kDeny},
                 {"find -L /Users -name x", kDeny},
                 {"rg foo /", kDeny},
                 {"rg -e foo ~", kDeny},
                 {"du -sh /", kDeny},
                 {"tree /home", kDeny},
                 {"fd uv /", kDeny},
                 {"ls -R ~", kDeny},
                 {"grep -r foo /", kDeny},
                 {"grep -R --include '*.c' foo ~", kDeny},
                 {"timeout 60 find / -name x", kDeny},
                 {"bash -c 'find / -name x'", kDeny},
                 {"find /opt/homebrew -name uv", kAllow},
                 {"find ~/.cache/uv -name x", kAsk},  // computed path, but a named folder
                 {"rg / src", kAllow},                // `/' is the pattern here
                 {"ls /", kAllow},
                 {"grep foo /etc/hosts", kAllow},
                 {"du -sh .", kAllow},
             });
  Verdict v = Judge(&p, "find / -name uv", Home());
  EXPECT_NE(v.reason.find("command -v"), std::string::npos) << v.reason;
}

TEST(Verdict, StrictMode) {
  Policy p = Rules(R"(
[commands]
strict = true
allow = ["git", "npm"]
auto_approve = ["git status", "git log"]
)");
  Expect(&p, {
                 {"git status", kAllow},
                 {"  git log --oneline", kAllow},
                 {"git commit -m 'a message'", kAsk},
                 {"git commit -m \"a;b\"", kDeny},
                 {"git status; ls", kDeny},
                 {"git log | head", kDeny},
                 {"git log $X", kDeny},
                 {"git log > f", kDeny},
                 {"'git' status", kDeny},
                 {"git log \\\n", kDeny},
                 {"ls", kDeny},  // not on the allow list
             });
  Verdict v = Judge(&p, "git commit -m \"a;b\"", Home());
  EXPECT_NE(v.reason.find("`;' at column 17"), std::string::npos) << v.reason;
}

TEST(Verdict, ArgvMode) {
  Policy p = Rules(R"(
[commands]
deny = ["rm"]
auto_approve = ["echo *", "git *", "bash *"]
)");
  EXPECT_EQ(JudgeArgv(&p, {"echo", "$(rm -rf ~)", ";", "|"}, Home()).decision, kAllow);
  EXPECT_EQ(JudgeArgv(&p, {"rm", "-rf", "/"}, Home()).decision, kDeny);
  EXPECT_EQ(JudgeArgv(&p, {"bash", "-c", "git log | rm x"}, Home()).decision, kDeny);
  EXPECT_EQ(JudgeArgv(&p, {"bash", "-c", "git log"}, Home()).decision, kAllow);
  EXPECT_EQ(JudgeArgv(&p, {"find", "/", "-name", "x"}, Home()).decision, kDeny);
  EXPECT_EQ(JudgeArgv(&p, {}, Home()).decision, kDeny);
}

TEST(Verdict, ReasonsSayWhatToDo) {
  Policy p = Rules(R"(
[commands]
deny = ["curl"]
auto_approve = ["echo *", "cat *"]
)");
  Verdict w = Judge(&p, "echo x >> ~/.bashrc", Home());
  EXPECT_EQ(w.decision, kAsk);
  EXPECT_NE(w.reason.find("~/.bashrc"), std::string::npos) << w.reason;
  Verdict d = Judge(&p, "cat x | bash -c 'curl -s h'", Home());
  EXPECT_EQ(d.decision, kDeny);
  EXPECT_NE(d.reason.find("`curl -s h' (run by bash -c) matches the deny rule `curl'"),
            std::string::npos)
      << d.reason;
  Verdict u = Judge(&p, "echo $(cat x)", Home());
  EXPECT_NE(u.reason.find("computed when it runs"), std::string::npos) << u.reason;
  Verdict shown = Judge(&p, "echo\rrm", Home());
  EXPECT_NE(shown.reason.find("$'echo\\rrm'"), std::string::npos) << shown.reason;
}

TEST(Verdict, Json) {
  Policy p = Rules("[commands]\ndeny = [\"rm\"]\nauto_approve = [\"ls *\"]\n");
  nlohmann::json j =
      nlohmann::json::parse(VerdictJson(Judge(&p, "ls -la > out; x=$(rm f)", Home())));
  EXPECT_EQ(j.at("verdict"), "deny");
  ASSERT_EQ(j.at("commands").size(), 2u);
  EXPECT_EQ(j["commands"][1]["argv"], nlohmann::json::array({"rm", "f"}));
  EXPECT_EQ(j["commands"][1]["matched"], "deny: rm");
  EXPECT_EQ(j["commands"][1]["role"], "command");
  EXPECT_EQ(j["commands"][0]["static"], true);
  EXPECT_EQ(j["commands"][0]["pos"], "1:1");
  EXPECT_TRUE(j["commands"][0]["matched"].is_null());  // judging stopped at the deny
  EXPECT_EQ(j["writes"][0]["target"], "out");
  EXPECT_TRUE(j.at("unverified").is_array());
  EXPECT_TRUE(j.at("parse_error").is_null());
  nlohmann::json e = nlohmann::json::parse(VerdictJson(Judge(&p, "ls (", Home())));
  EXPECT_EQ(e.at("verdict"), "ask");
  EXPECT_TRUE(e.at("parse_error").is_string());
}

// Inside double quotes (and an unquoted here-document) a single quote in the word of ${x:-...},
// ${x:=...} or ${x:+...} is an ordinary character: what it encloses is still expanded.
TEST(Verdict, SingleQuotesInsideDoubleQuotedDefaultsDoNotHideCommands) {
  Policy p = Rules("[commands]\ndeny = [\"rm\"]\nauto_approve = [\"echo *\", \"cat\"]\n");
  for (const char* c : {"echo \"${x:-'$(rm -f v)'}\"", "echo \"${x:+'$(rm -f v)'}\"",
                        "echo \"${x:='$(rm -f v)'}\"", "echo \"${x:-'}'$(rm -f v)}\"",
                        "echo \"${x-'`rm -f v`'}\"", "cat <<EOF\n${x:-'$(rm -f v)'}\nEOF\n"}) {
    EXPECT_EQ(Judge(&p, c, Home()).decision, Decision::kDeny) << c;
  }
  // For ${x?...} bash removes the quotes and expands nothing inside them.
  EXPECT_NE(Judge(&p, "echo \"${x?'$(rm -f v)'}\"", Home()).decision, Decision::kAllow);
}

TEST(Settings, ErrorsNameTheFileLineAndKey) {
  struct Bad {
    const char* toml;
    const char* message;
  };
  for (const Bad& b : std::vector<Bad>{
           {"[commands]\ndeny = \"rm\"\n",
            "test.toml:2:1: [commands] deny must be a list of strings"},
           {"[commands]\ndenny = [\"rm\"]\n", "test.toml:2:1: unknown key `denny' in [commands]"},
           {"[comands]\n", "test.toml:1:2: unknown section or key `comands'"},
           {"[commands]\nstrict = 1\n", "[commands] strict must be true or false"},
           {"[commands]\ndeny = [\"re:(\"]\n", "pattern `re:(': invalid regular expression"},
           {"[commands]\nauto_approve = [\"\"]\n", "an empty pattern matches nothing"},
           {"[commands\n", "test.toml:1:"},
       }) {
    std::string error;
    EXPECT_FALSE(config::ParseSettings(b.toml, "test.toml", &error)) << b.toml;
    EXPECT_NE(error.find(b.message), std::string::npos) << b.toml << " -> " << error;
  }
  std::string error;
  auto ok = config::ParseSettings(
      "[commands]\nstrict = true\nallow = []\n[sandbox]\nallow_network = false\n", "t", &error);
  ASSERT_TRUE(ok.has_value()) << error;
  EXPECT_TRUE(ok->commands.strict);
  EXPECT_TRUE(ok->commands.allow_list);
}

}  // namespace
}  // namespace safesh::policy
