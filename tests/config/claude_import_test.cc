// `safesh import claude`: each form of Claude Code rule, what it becomes, that the result means
// what Claude Code meant, and what cannot be imported.
#include "config/claude_import.h"

#include <gtest/gtest.h>

#include "config/settings.h"
#include "config/toml_text.h"
#include "policy/pattern.h"

namespace safesh::config {
namespace {

ClaudeImport Import(const std::string& json) {
  std::string error;
  std::optional<ClaudeImport> i = ImportClaudeSettings(json, "settings.json", &error);
  EXPECT_TRUE(i) << error;
  return i.value_or(ClaudeImport{});
}

// One rule in one list: what it became ("key value"), or "skipped: why".
std::string One(const std::string& list, const std::string& rule) {
  std::string escaped;
  for (char c : rule) {
    if (c == '"' || c == '\\') escaped += '\\';
    escaped += c;
  }
  ClaudeImport i = Import("{\"permissions\": {\"" + list + "\": [\"" + escaped + "\"]}}");
  if (i.rules.size() == 1 && i.skipped.empty()) return i.rules[0].key + " " + i.rules[0].value;
  if (i.skipped.size() == 1 && i.rules.empty()) return "skipped: " + i.skipped[0].why;
  return "?";
}

TEST(ClaudeImport, EachBashRuleForm) {
  struct Case {
    const char* list;
    const char* rule;
    const char* want;
  };
  for (const Case& c : std::vector<Case>{
           // An exact command: a words pattern would also match longer ones.
           {"allow", "Bash(npm run build)", "auto_approve re:npm run build"},
           {"allow", "Bash(git commit -m \"fix it\")", "auto_approve re:git commit -m fix it"},
           {"allow", "Bash(cat a.txt)", "auto_approve re:cat a\\.txt"},
           // The :* prefix form: the words, then any arguments.
           {"allow", "Bash(git log:*)", "auto_approve git log"},
           {"allow", "Bash(npm:*)", "auto_approve npm"},
           {"allow", "Bash(echo 'a b':*)", "auto_approve re:echo a b( .*)?"},
           // Globs.
           {"allow", "Bash(npm run *)", "auto_approve npm run *"},
           {"allow", "Bash(git   diff  *)", "auto_approve git diff *"},
           {"allow", "Bash(* --version)", "auto_approve * --version"},
           {"allow", "Bash(ls ?x *)", "auto_approve ls \\?x *"},
           {"allow", "Bash(git * main *)", "auto_approve re:git .* main .*"},
           // Every command.
           {"allow", "Bash", "auto_approve *"},
           {"deny", "Bash(*)", "deny *"},
           // Lists keep their meaning.
           {"deny", "Bash(rm:*)", "deny rm"},
           {"deny", "Bash(git push --force:*)", "deny git push --force"},
           {"ask", "Bash(git push:*)", "ask git push"},
       }) {
    EXPECT_EQ(One(c.list, c.rule), c.want) << c.list << " " << c.rule;
  }
}

// The patterns match what Claude Code's rules match.
TEST(ClaudeImport, ThePatternsMeanWhatClaudeCodeMeant) {
  struct Case {
    const char* rule;
    std::vector<std::string> matches;
    std::vector<std::string> not_matches;
  };
  for (const Case& c : std::vector<Case>{
           {"Bash(npm run build)", {"npm run build"}, {"npm run build --prod", "npm run"}},
           {"Bash(git log:*)", {"git log", "git log --oneline -3"}, {"git logs", "git"}},
           {"Bash(npm run *)", {"npm run", "npm run test", "npm run test -- -x"}, {"npm runx"}},
           {"Bash(ls *)", {"ls", "ls -la"}, {"lsof"}},
           {"Bash(git * main *)",
            {"git push main --force", "git checkout main x"},
            {"git push main", "git x"}},
           {"Bash(ls ?x *)", {"ls ?x a"}, {"ls ax a"}},
           {"Bash(echo 'a b':*)", {"echo 'a b'", "echo 'a b' c"}, {"echo a", "echo 'a bc'"}},
           {"Bash", {"anything at all"}, {}},
       }) {
    std::string got = One("allow", c.rule);
    ASSERT_EQ(got.rfind("auto_approve ", 0), 0u) << c.rule << ": " << got;
    std::string error;
    std::optional<policy::Pattern> p = policy::ParsePattern(got.substr(13), &error);
    ASSERT_TRUE(p) << error;
    auto words = [](const std::string& cmd) {
      // The commands here are simple: split on spaces, with '...' one word.
      std::vector<std::string> out;
      std::string w;
      bool quoted = false, any = false;
      for (char ch : cmd) {
        if (ch == '\'') {
          quoted = !quoted;
          any = true;
        } else if (ch == ' ' && !quoted) {
          if (any) out.push_back(w);
          w.clear();
          any = false;
        } else {
          w += ch;
          any = true;
        }
      }
      if (any) out.push_back(w);
      return policy::StaticArgv(out);
    };
    for (const std::string& m : c.matches)
      EXPECT_EQ(policy::Match(*p, words(m), false), policy::MatchResult::kYes)
          << c.rule << " ~ " << m;
    for (const std::string& m : c.not_matches)
      EXPECT_EQ(policy::Match(*p, words(m), false), policy::MatchResult::kNo)
          << c.rule << " !~ " << m;
  }
}

TEST(ClaudeImport, RulesSafeshCannotExpressAreReportedWithWhy) {
  struct Case {
    const char* list;
    const char* rule;
    const char* why;
  };
  for (const Case& c : std::vector<Case>{
           {"allow", "Bash(npm test && rm -rf x)", "more than one command"},
           {"allow", "Bash(timeout 5 make)", "through `timeout 5 make'"},
           {"allow", "Bash(echo $HOME)", "computed when it runs"},
           {"allow", "Bash(make > log.txt)", "writes a file"},
           {"allow", "Bash(if)", "not valid shell syntax"},
           {"allow", "Bash(git *:*)", "another *"},
           {"allow", "Bash(echo \"*\")", "quotes or shell syntax"},
           {"allow", "WebFetch(domain:example.com)", "no rules per site"},
           {"allow", "WebSearch", "no rules per site"},
           {"allow", "mcp__github__create_issue", "not a shell command"},
           {"allow", "Read(./src/**)", "sandbox decides what commands may read"},
           {"allow", "Edit", "sandbox decides"},
           {"deny", "Read(**/.env)", "a path pattern"},
           {"deny", "Read(/config/x)", "relative to the Claude Code settings file"},
           {"deny", "Read", "only a deny rule with a path"},
           {"deny", "Bash(oops", "not a rule Claude Code reads"},
       }) {
    std::string got = One(c.list, c.rule);
    EXPECT_EQ(got.rfind("skipped: ", 0), 0u) << c.rule << ": " << got;
    EXPECT_NE(got.find(c.why), std::string::npos) << c.rule << ": " << got;
  }
}

TEST(ClaudeImport, DeniedReadsAndEditsOfLiteralPathsBecomeSandboxPaths) {
  EXPECT_EQ(One("deny", "Read(./.env)"), "blocked_paths .env");
  EXPECT_EQ(One("deny", "Read(secrets/**)"), "blocked_paths secrets");
  EXPECT_EQ(One("deny", "Read(//etc/shadow)"), "blocked_paths /etc/shadow");
  EXPECT_EQ(One("deny", "Read(~/.aws)"), "blocked_paths ~/.aws");
  EXPECT_EQ(One("deny", "Edit(./src/generated/**)"), "read_only_paths src/generated");
  EXPECT_EQ(One("deny", "Write(package-lock.json)"), "read_only_paths package-lock.json");
}

TEST(ClaudeImport, OtherPermissionKeysAreReported) {
  ClaudeImport i = Import(
      "{\"permissions\": {\"defaultMode\": \"acceptEdits\", \"additionalDirectories\": [\"../x\"],"
      " \"allow\": [\"Bash(ls:*)\"]}, \"model\": \"x\"}");
  ASSERT_EQ(i.rules.size(), 1u);
  ASSERT_EQ(i.skipped.size(), 2u);
  EXPECT_EQ(i.skipped[0].list, "additionalDirectories");
  EXPECT_EQ(i.skipped[1].list, "defaultMode");
  EXPECT_NE(i.skipped[1].why.find("only the allow, ask and deny rules"), std::string::npos);
  // No permissions at all: nothing to import, not an error.
  EXPECT_TRUE(Import("{}").rules.empty());
}

TEST(ClaudeImport, BadJsonAndBadShapesAreErrorsThatSayWhere) {
  struct Case {
    const char* json;
    const char* message;
  };
  for (const Case& c : std::vector<Case>{
           {"{\"permissions\": {\"allow\": [\"Bash(ls)\",]}}",
            "settings.json:1:39: not valid JSON"},
           {"{\n  \"permissions\": {\n    \"allow\": [\"Bash(ls)\"\n  }\n}",
            "settings.json:4:3: not valid JSON"},
           {"", "settings.json:1:1: not valid JSON"},
           {"[1]", "settings.json: a Claude Code settings file is a JSON object"},
           {"{\"permissions\": []}", "settings.json: `permissions' must be an object"},
           {"{\"permissions\": {\"deny\": \"Bash(rm:*)\"}}",
            "settings.json: `permissions.deny' must be a list of rule strings"},
           {"{\"permissions\": {\"ask\": [1]}}",
            "`permissions.ask' must be a list of rule strings"},
       }) {
    std::string error;
    EXPECT_FALSE(ImportClaudeSettings(c.json, "settings.json", &error)) << c.json;
    EXPECT_NE(error.find(c.message), std::string::npos) << c.json << " -> " << error;
  }
}

TEST(ClaudeImport, TheOutputIsSafeshSettingsThatReadBack) {
  ClaudeImport i = Import(
      "{\"permissions\": {"
      "\"allow\": [\"Bash(npm run build)\", \"Bash(git log:*)\", \"Bash(npm run *)\", "
      "\"Bash(printf \\\"a\\\\tb\\\")\", \"WebFetch\"],"
      "\"deny\": [\"Bash(rm:*)\", \"Read(./.env)\", \"Bash(x\\ny)\"],"
      "\"ask\": [\"Bash(git push:*)\", \"Edit(docs/**)\"]}}");
  std::string toml = ClaudeImportToml(i, "/p/.claude/settings.json");
  std::string error;
  std::optional<Settings> s = ParseSettings(toml, "imported.toml", &error);
  ASSERT_TRUE(s) << error << "\n" << toml;
  EXPECT_EQ(s->commands.deny, (std::vector<std::string>{"rm"}));
  EXPECT_EQ(s->commands.ask, (std::vector<std::string>{"git push"}));
  EXPECT_EQ(s->commands.auto_approve, (std::vector<std::string>{"re:npm run build", "git log",
                                                                "npm run *", "re:printf a\\\\tb"}));
  EXPECT_FALSE(s->commands.allow_list);  // never an allow-list
  EXPECT_EQ(s->sandbox.blocked_paths, (std::vector<std::string>{".env"}));
  // The rules, as comments, and the ones left out with why.
  EXPECT_NE(toml.find("\"git log\",  # Bash(git log:*)\n"), std::string::npos) << toml;
  EXPECT_NE(toml.find("# Not imported (safesh cannot express these):\n"), std::string::npos);
  EXPECT_NE(toml.find("#   allow WebFetch: safesh has no rules per site"), std::string::npos)
      << toml;
  // A line break inside a rule stays inside its comment.
  EXPECT_NE(toml.find("#   deny $'Bash(x\\ny)': "), std::string::npos) << toml;
  EXPECT_NE(toml.find("#   ask Edit(docs/**): safesh's sandbox decides"), std::string::npos)
      << toml;
}

TEST(TomlText, StringsReadBackAsWritten) {
  for (const std::string& v :
       {std::string("plain"), std::string("quote \" and \\ backslash"), std::string("tab\tnl\n"),
        std::string("\x01\x1f\x7f"), std::string("\xc3\xa9\xe2\x80\xae")}) {
    std::string error;
    std::optional<Settings> s =
        ParseSettings("[commands]\ndeny = [" + TomlString(v) + "]\n", "t.toml", &error);
    ASSERT_TRUE(s) << error;
    EXPECT_EQ(s->commands.deny, std::vector<std::string>{v});
  }
  EXPECT_EQ(CommentText("Bash(ls)"), "Bash(ls)");
  EXPECT_EQ(CommentText("a\nb"), "$'a\\nb'");
  EXPECT_EQ(CommentText("\x1b[2J"), "$'\\x1b[2J'");
}

}  // namespace
}  // namespace safesh::config
