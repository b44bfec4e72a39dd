// What the parser says a word or a here-document is, against what bash makes of it.
//
// Random words built only from quoting (no expansions) are passed to `printf '%s\0'` in bash;
// the values bash prints must be, in order, the LiteralValue of the words safesh found. The same
// for here-document bodies through `cat`. Only printf and cat run, on literal arguments, in a
// scratch directory.
#include <stdlib.h>

#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "shell/parser.h"
#include "shell/word_value.h"
#include "support/subprocess.h"

namespace safesh::testing {
namespace {

// Runs `bash -c SCRIPT` in a scratch directory and returns its stdout.
std::string RunBashOutput(const std::string& script) {
  char dir[] = "/tmp/safesh-semantics-XXXXXX";
  if (mkdtemp(dir) == nullptr) return "<mkdtemp failed>";
  RunOptions options;
  options.env = {"PATH=/usr/bin:/bin", "LC_ALL=C.UTF-8"};
  options.cwd = dir;
  RunOutput run = RunProgram({"/bin/bash", "-c", "--", script}, options);
  std::filesystem::remove_all(dir);
  return run.out;
}

class WordMaker {
 public:
  explicit WordMaker(uint64_t seed) : rng_(seed) {}

  std::string Word() {
    std::string w;
    int pieces = 1 + Pick(4);
    for (int i = 0; i < pieces; ++i)
      w += Piece(i == 0);
    return w;
  }

 private:
  int Pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  char From(const char* set) {
    return set[Pick(static_cast<int>(std::char_traits<char>::length(set)))];
  }

  std::string Piece(bool first) {
    switch (Pick(9)) {
      case 0: {  // plain characters, never starting a tilde, comment or brace expansion
        std::string s;
        int n = 1 + Pick(5);
        for (int i = 0; i < n; ++i)
          s += From("abcxyz019._/=:+-@%^]!,");
        if (!first && Pick(3) == 0) s += "#~";
        if (Pick(6) == 0) s += "\r";
        if (Pick(8) == 0) s += "\xc2\xa0";
        return s;
      }
      case 1: {  // '...'
        std::string s = "'";
        int n = Pick(6);
        for (int i = 0; i < n; ++i)
          s += From("ab $\\\"`;&|<>(){}*?[]#~\n\t\r!");
        return s + "'";
      }
      case 2: {  // "..." with its escapes
        std::string s = "\"";
        int n = Pick(6);
        for (int i = 0; i < n; ++i) {
          switch (Pick(4)) {
            case 0:
              s += "\\";
              s += From("\\\"$`abn;'\n");
              break;
            default:
              s += From("ab ;&|<>(){}*?[]#~'\n\t!");
              break;
          }
        }
        return s + "\"";
      }
      case 3: {  // backslash-escaped character (a backslash-newline disappears)
        std::string s = "\\";
        s += From(" \t;&|<>()'\"$`*?[#~{}\\abn\n!");
        return s;
      }
      case 4: {  // $'...'
        const char* escapes[] = {"\\n",  "\\t",      "\\x41", "\\u00e9", "\\101", "\\c?",
                                 "\\\\", "\\'",      "\\\"",  "\\q",     "\\e",   "\\0x",
                                 "\\x",  "\\U1F600", "ab",    " "};
        std::string s = "$'";
        int n = Pick(4);
        for (int i = 0; i < n; ++i)
          s += escapes[Pick(std::size(escapes))];
        return s + "'";
      }
      case 5:
        return "$\"ab c\"";
      case 6:
        return "\\\n";  // line continuation inside the word
      case 7:
        return "\"\"";
      default:
        return "''";
    }
  }

  std::mt19937_64 rng_;
};

TEST(BashSemantics, LiteralWordValues) {
  WordMaker maker(2026);
  int compared = 0;
  for (int round = 0; round < 400; ++round) {
    std::vector<std::string> words;
    int n = 1 + (round % 6);
    std::string script = "printf '%s\\0'";
    for (int i = 0; i < n; ++i) {
      words.push_back(maker.Word());
      script += (i % 3 == 2) ? "\t" : " ";
      script += words.back();
    }
    shell::ParseResult r = shell::Parse(script);
    ASSERT_TRUE(r.ok()) << r.error->ToString() << "\nscript: " << script;
    ASSERT_EQ(r.script.body.statements.size(), 1u) << script;
    const auto& cmd = r.script.body.statements[0].body.pipelines[0].commands[0];
    const auto* simple = std::get_if<shell::SimpleCommand>(&cmd.node);
    ASSERT_NE(simple, nullptr) << script;
    std::string expected;
    for (size_t i = 2; i < simple->words.size(); ++i) {
      auto v = shell::LiteralValue(simple->words[i]);
      ASSERT_TRUE(v.has_value()) << "word " << i << " not literal in: " << script;
      expected += *v + '\0';
    }
    std::string got = RunBashOutput(script);
    EXPECT_EQ(got, expected) << "script: " << script;
    ++compared;
  }
  std::printf("[semantics] %d printf command lines compared with bash\n", compared);
}

TEST(BashSemantics, HeredocBodies) {
  std::mt19937_64 rng(99);
  auto pick = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
  const char* lines[] = {"plain text",
                         "\tindented",
                         "\t\tEOF",
                         "EOF ",
                         " EOF",
                         "EOFX",
                         "back\\\\slash",
                         "cont\\",
                         "tail",
                         "'quotes' \"too\"",
                         "x\r",
                         "\\",
                         "\\$ and \\` escaped",
                         "#not a comment",
                         ""};
  int compared = 0;
  for (int round = 0; round < 300; ++round) {
    std::string script;
    int docs = 1 + pick(2);
    for (int d = 0; d < docs; ++d) {
      if (d) script += "; ";
      script += pick(2) ? "cat <<" : "cat <<-";
      // Joined delimiters too: bash removes a backslash-newline unquoted and in double quotes,
      // and keeps it in single quotes (that delimiter never matches: the body runs to the end).
      const char* delims[] = {"EOF",     "'EOF'",   "\"EOF\"",     "\\EOF",
                              "E\"O\"F", "E\\\nOF", "\"E\\\nOF\"", "'E\\\nOF'"};
      script += delims[pick(std::size(delims))];
    }
    script += "\n";
    for (int d = 0; d < docs; ++d) {
      int n = pick(5);
      for (int i = 0; i < n; ++i)
        script += std::string(lines[pick(std::size(lines))]) + "\n";
      script += pick(4) ? "EOF\n" : "\tEOF\n";
    }
    shell::ParseResult r = shell::Parse(script);
    ASSERT_TRUE(r.ok()) << r.error->ToString() << "\nscript: " << script;
    std::string expected;
    for (const auto& st : r.script.body.statements) {
      const auto& cmd = st.body.pipelines[0].commands[0];
      const auto& simple = std::get<shell::SimpleCommand>(cmd.node);
      for (const auto& redir : simple.redirs) {
        ASSERT_TRUE(redir.heredoc) << script;
        auto v = shell::LiteralValue(redir.heredoc->body);
        ASSERT_TRUE(v.has_value()) << script;
        expected += *v;
      }
    }
    EXPECT_EQ(RunBashOutput(script), expected) << "script: " << script;
    ++compared;
  }
  std::printf("[semantics] %d here-document scripts compared with bash\n", compared);
}

}  // namespace
}  // namespace safesh::testing
