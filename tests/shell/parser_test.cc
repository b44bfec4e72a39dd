// The parser, construct by construct. Each case states the tree in the compact form of
// ast_sexp.h; the cases where bash differs from other parsers say so.
#include "shell/parser.h"

#include <gtest/gtest.h>

#include "ast_sexp.h"

namespace safesh::testing {
namespace {

struct Case {
  const char* script;
  const char* tree;
};

std::string Tree(const std::string& script, shell::ParseOptions opt = {}) {
  shell::ParseResult r = shell::Parse(script, opt);
  if (!r.ok()) return "ERROR " + r.error->ToString();
  return Sexp(r.script.body);
}

void ExpectTrees(const std::vector<Case>& cases) {
  for (const Case& c : cases)
    EXPECT_EQ(Tree(c.script), c.tree) << "script: " << c.script;
}

struct ErrorCase {
  const char* script;
  const char* position;  // "line:col"
  const char* message;   // a part of the message
  shell::ErrorKind kind;
};

constexpr shell::ErrorKind kSyntax = shell::ErrorKind::kSyntax;
constexpr shell::ErrorKind kDeferred = shell::ErrorKind::kDeferred;
constexpr shell::ErrorKind kUnsupported = shell::ErrorKind::kUnsupported;

void ExpectErrors(const std::vector<ErrorCase>& cases) {
  for (const ErrorCase& c : cases) {
    shell::ParseResult r = shell::Parse(c.script);
    ASSERT_FALSE(r.ok()) << "script should not parse: " << c.script;
    EXPECT_EQ(shell::FormatPosition(r.error->pos), c.position)
        << c.script << " -> " << r.error->ToString();
    EXPECT_NE(r.error->message.find(c.message), std::string::npos)
        << c.script << " -> " << r.error->ToString();
    EXPECT_EQ(r.error->kind, c.kind) << c.script << " -> " << r.error->ToString();
  }
}

TEST(Parser, Quoting) {
  ExpectTrees({
      {"echo 'a b' \"c $d\" \\e", "(cmd echo 'a b' \"c $d\" \\e)"},
      {"echo $'x\\ty\\x41\\u00e9' $\"loc $v\"",
       "(cmd echo $'x\ty"
       "A\xc3\xa9' $\"loc $v\")"},
      {"echo \"a\\\"b\\$c\\d\"", "(cmd echo \"a\"b$c\\d\")"},
      {"echo 'it''s'", "(cmd echo 'it''s')"},
      {"echo \"\"''", "(cmd echo \"\"'')"},
      // $'...' stops at a NUL, as bash's value does.
      {"echo $'rm\\0 -rf'", "(cmd echo $'rm')"},
      {"echo $'\\c?\\cA\\q'", "(cmd echo $'\x7f\x01\\q')"},
      // Inside double quotes $'...' is not special.
      {"echo \"$'x'\"", "(cmd echo \"$'x'\")"},
  });
}

TEST(Parser, LineContinuation) {
  ExpectTrees({
      {"ec\\\nho hi", "(cmd echo hi)"},
      {"r\\\nm -rf ~", "(cmd rm -rf <~>)"},
      {"echo a \\\n b", "(cmd echo a b)"},
      {"echo \"a\\\nb\"", "(cmd echo \"ab\")"},
      // No joining inside single quotes or $'...'.
      {"echo 'a\\\nb'", "(cmd echo 'a\\\nb')"},
      // `&\` newline `&` is still &&.
      {"true &\\\n& false", "(cmd true) && (cmd false)"},
      // A -c string that ends in a backslash keeps it (bash adds another).
      {"echo a\\", "(cmd echo a\\)"},
  });
}

// Where bash and other parsers (mvdan/sh, tree-sitter-bash, Python's shlex) differ.
TEST(Parser, WhereBashDiffersFromOtherParsers) {
  ExpectTrees({
      // A carriage return is an ordinary word character: `echo\rrm` is one command name.
      {"echo\rrm", "(cmd echo\rrm)"},
      // CRLF line ends leave \r at the end of the last word.
      {"echo hi\r\nls\r\n", "(cmd echo hi\r) ; (cmd ls\r)"},
      // `then\r` is not the reserved word `then`.
      {"if true\r\nthen echo\r\nfi\r\n",
       "ERROR 1:1: unexpected end of input: `if' at 1:1 is not closed (expected `fi')"},
      // # starts a comment only at the start of a word.
      {"echo foo#bar", "(cmd echo foo#bar)"},
      {"echo a#b # c", "(cmd echo a#b)"},
      {"echo $(true)#; rm -rf ~", "(cmd echo $((cmd true))#) ; (cmd rm -rf <~>)"},
      {"echo ${x}#y", "(cmd echo ${x}#y)"},
      // A backslash-newline inside a comment does not continue it.
      {"# note \\\necho hi", "(cmd echo hi)"},
      // No-break space and vertical tab are not blanks.
      {"X=1\xc2\xa0"
       "echo rm -rf ~",
       "(cmd [X=1\xc2\xa0"
       "echo] rm -rf <~>)"},
      {"X=1\vecho rm -rf ~", "(cmd [X=1\vecho] rm -rf <~>)"},
      // Reserved words are reserved only where bash expects a command.
      {"echo if then fi", "(cmd echo if then fi)"},
      {"x=1 if", "(cmd [x=1] if)"},
      {"echo }", "(cmd echo })"},
      {"for x in do done; do :; done", "(for x in do done do (cmd :))"},
      {"case x in if) ;; esac", "(case x (if)  ;;)"},
      // `time` after a pipe is the time program, not bash's keyword.
      {"a | time b", "(cmd a) | (cmd time b)"},
  });
}

TEST(Parser, Parameters) {
  ExpectTrees({
      {"echo $x $1 $10 $@ $* $# $? $- $$ $! $0", "(cmd echo $x $1 $10 $@ $* $# $? $- $$ $! $0)"},
      {"echo ${x} ${x:-w} ${x-w} ${x:=w} ${x:?w} ${x:+w}",
       "(cmd echo ${x} ${x:-w} ${x-w} ${x:=w} ${x:?w} ${x:+w})"},
      {"echo ${x#p} ${x##p*} ${x%p} ${x%%p}", "(cmd echo ${x#p} ${x##p<*>} ${x%p} ${x%%p})"},
      {"echo ${x/p/r} ${x//p} ${x/#p/r} ${x/%p/r}",
       "(cmd echo ${x/p/r} ${x//p} ${x/#p/r} ${x/%p/r})"},
      {"echo ${x^} ${x^^p} ${x,} ${x,,} ${x@Q} ${x@P}",
       "(cmd echo ${x^} ${x^^p} ${x,} ${x,,} ${x@Q} ${x@P})"},
      {"echo ${!x} ${#x} ${x[i]} ${x[@]} ${!a[@]} ${!pre*} ${#a[*]}",
       "(cmd echo ${!x} ${#x} ${x[i]} ${x[@]} ${!a[@]} ${!pre*} ${#a[*]})"},
      {"echo ${x:1:2} ${x: -1} ${x:(-1):a+1}",
       "(cmd echo ${x:1:2} ${x:(- 1)} ${x:(group (- 1)):(+ a 1)})"},
      {"echo ${#} ${##} ${10} ${!}", "(cmd echo ${#} ${##} ${10} ${!})"},
      {"echo ${x:-$(rm -rf ~)}", "(cmd echo ${x:-$((cmd rm -rf <~>))})"},
      {"echo ${x:-'a b'} \"${x:-'a b'}\"", "(cmd echo ${x:-'a b'} \"${x:-'a b'}\")"},
      // The operand of ${x:-...} ends at the first `}`: a brace does not nest.
      {"echo ${x:-{a,b}}", "(cmd echo ${x:-{a,b}})"},
  });
}

TEST(Parser, Substitutions) {
  ExpectTrees({
      {"echo $(a; b) `c` $(a $(b))",
       "(cmd echo $((cmd a) ; (cmd b)) `(cmd c)` $((cmd a $((cmd b)))))"},
      {"echo \"`echo \\\"a\\\"`\"", "(cmd echo \"`(cmd echo \"a\")`\")"},
      {"echo `echo \\$HOME \\`x\\``", "(cmd echo `(cmd echo $HOME `(cmd x)`)`)"},
      {"echo $((1+2*3)) $[x**2]", "(cmd echo $(((+ 1 (* 2 3)))) $(((** x 2))))"},
      {"diff <(a) >(b)", "(cmd diff <((cmd a)) >((cmd b)))"},
      // $(( is arithmetic only when bash can read it as (EXPR); otherwise a command.
      {"echo $((echo a); (echo b))", "(cmd echo $((sub (cmd echo a)) ; (sub (cmd echo b))))"},
      {"echo $( (a) )", "(cmd echo $((sub (cmd a))))"},
      // $(...) is parsed as a script: a `)` in a case pattern does not end it.
      {"echo $(case x in a) b;; esac)", "(cmd echo $((case x (a) (cmd b) ;;)))"},
      {"echo $(# comment )\n)", "(cmd echo $())"},
  });
}

TEST(Parser, Arithmetic) {
  ExpectTrees({
      {"(( i++, --j, k = a ? b : c ))", "(arith (, (, (post++ i) (-- j)) (= k (? a b c))))"},
      {"(( x[$(rm -rf ~)] += 2 ))", "(arith (+= x[w:$((cmd rm -rf <~>))] 2))"},
      {"echo $(( -2**2 ))", "(cmd echo $(((** (- 2) 2))))"},
      {"echo $(( 16#ff + 2#101 + 0x1F ))", "(cmd echo $(((+ (+ 16#ff 2#101) 0x1F))))"},
      {"echo $(( a<<2 >= b && !c || ~d ))",
       "(cmd echo $(((|| (&& (>= (<< a 2) b) (! c)) (~ d)))))"},
      {"echo $(( 10#$x ))", "(cmd echo $((w:10#$x)))"},
      {"echo $(())", "(cmd echo $(()))"},
  });
}

TEST(Parser, WordExpansionsMarked) {
  ExpectTrees({
      {"echo {a,b} x{1..3}y {a,} {,} {a} {} {1..a}",
       "(cmd echo {a|b} x{1..3}y {a|} {|} {a} {} {1..a})"},
      {"echo {a,{b,c}}d \\{a,b} \"{a,b}\"", "(cmd echo {a|{b|c}}d \\{a,b} \"{a,b}\")"},
      {"echo *.go ? [ab] [ x]", "(cmd echo <*>.go <?> <[>ab] [ x])"},
      {"echo ~ ~root/x ~+ a=~/x:~/y ~\"q\" x~",
       "(cmd echo <~> <~root>/x <~+> a=<~>/x:<~>/y ~\"q\" x~)"},
      {"a=~/x:~/y b=* echo", "(cmd [a=<~>/x:<~>/y] [b=*] echo)"},
      {"[ -f x ]", "(cmd [ -f x ])"},
  });
}

TEST(Parser, Assignments) {
  ExpectTrees({
      {"a=b a+=c d[i+1]=e f=", "(cmd [a=b] [a+=c] [d[i+1]=e] [f=])"},
      {"a=(1 2 [k]=v)", "(cmd [a=(1 2 [k]=v)])"},
      {"declare -a x=(1 2) y", "(cmd declare -a x=(1 2) y)"},
      {"local a=(1) ; export b=(2)", "(cmd local a=(1)) ; (cmd export b=(2))"},
      {"a[x y]=1", "(cmd [a[x y]=1])"},
      {">f a=1 cmd", "(cmd [a=1] cmd >f)"},
      {"echo a=b", "(cmd echo a=b)"},
      {"a=(if then # comment\n fi)", "(cmd [a=(if then fi)])"},
  });
}

TEST(Parser, Redirections) {
  ExpectTrees({
      {"cmd <in >out >>app >|clob <>rw &>both &>>bothapp",
       "(cmd cmd <in >out >>app >|clob <>rw &>both &>>bothapp)"},
      {"cmd 2>&1 >&2 3<&0 >&- 2>&- 4>file {fd}>log {a[1]}<x",
       "(cmd cmd 2>&1 >&2 3<&0 >&- 2>&- 4>file {fd}>log {a[1]}<x)"},
      {"cmd <<< \"$x\" 2>&$fd", "(cmd cmd <<<\"$x\" 2>&$fd)"},
      {"echo 2 >x", "(cmd echo 2 >x)"},
      {"exec 3>file", "(cmd exec 3>file)"},
      {"{ a; } >f 2>&1", "(group (cmd a)) >f 2>&1"},
  });
}

TEST(Parser, Heredocs) {
  ExpectTrees({
      {"cat <<EOF\nhi $x\nEOF\n", "(cmd cat <<EOF[hi $x\n])"},
      {"cat <<'EOF'\nhi $x\nEOF\n", "(cmd cat <<EOF(quoted)['hi $x\n'])"},
      {"cat <<\\EOF\n$x\nEOF", "(cmd cat <<EOF(quoted)['$x\n'])"},
      {"cat <<-EOF\n\thi\n\tEOF\n", "(cmd cat <<-EOF[hi\n])"},
      {"cat <<A <<B\na\nA\nb\nB\n", "(cmd cat <<A[a\n] <<B[b\n])"},
      {"cat <<EOF; echo after\nbody\nEOF\n", "(cmd cat <<EOF[body\n]) ; (cmd echo after)"},
      {"echo $(cat <<EOF\nin\nEOF\n)", "(cmd echo $((cmd cat <<EOF[in\n])))"},
      // bash 5.2 accepts `EOF)` as the end of a here-document inside $(...).
      {"echo $(cat <<EOF\nin\nEOF)", "(cmd echo $((cmd cat <<EOF[in\n])))"},
      // A here-document begun inside $(...) on one line takes the lines after that line.
      {"echo $(cat <<EOF) after\nbody\nEOF\n", "(cmd echo $((cmd cat <<EOF[body\n])) after)"},
      // The body is read at the next newline token, after a multi-line word.
      {"cat <<EOF; echo \"a\nb\"\nbody\nEOF\n", "(cmd cat <<EOF[body\n]) ; (cmd echo \"a\nb\")"},
      {"cat <<EOF\nno end", "(cmd cat <<EOF[no end\n](unterminated))"},
      {"cat <<EOF\nabc\\\nEOF\nEOF\n", "(cmd cat <<EOF[abcEOF\n])"},
      {"cat <<EOF\n$(rm -rf ~)\nEOF\n", "(cmd cat <<EOF[$((cmd rm -rf <~>))\n])"},
      // A backslash-newline in a delimiter is joined where bash joins it (unquoted, and inside
      // double quotes) and kept inside single quotes, where such a delimiter can never match.
      {"cat <<E\\\nOF\nbody\nEOF\necho after", "(cmd cat <<EOF[body\n]) ; (cmd echo after)"},
      {"cat <<\"E\\\nOF\"\nbody\nEOF\necho after",
       "(cmd cat <<EOF(quoted)['body\n']) ; (cmd echo after)"},
      {"cat <<x\\\n'a\\\nb'\nxab\necho hidden",
       "(cmd cat <<xa\\\nb(quoted)['xab\necho hidden\n'](unterminated))"},
      {"cat <<x\\\n\"a\\\\\nb\"\nxa\\\nb\necho hidden",
       "(cmd cat <<xa\\\nb(quoted)['xa\\\nb\necho hidden\n'](unterminated))"},
  });
}

TEST(Parser, Pipelines) {
  ExpectTrees({
      {"a | b |& c", "(cmd a) | (cmd b) |& (cmd c)"},
      {"! a | b", "! (cmd a) | (cmd b)"},
      {"time -p a; time ! b; ! time c", "time -p (cmd a) ; time ! (cmd b) ; time ! (cmd c)"},
      {"a &&\n b ||\n c", "(cmd a) && (cmd b) || (cmd c)"},
      {"a & b; c &", "(cmd a) & ; (cmd b) ; (cmd c) &"},
      {"a |\n b", "(cmd a) | (cmd b)"},
      {"time", "time "},
  });
}

TEST(Parser, CompoundCommands) {
  ExpectTrees({
      {"(a; b)", "(sub (cmd a) ; (cmd b))"},
      {"{ a; b; }", "(group (cmd a) ; (cmd b))"},
      {"if a; then b; elif c; then d; else e; fi",
       "(if (cmd a) then (cmd b) elif (cmd c) then (cmd d) else (cmd e))"},
      {"for x in a b; do c; done", "(for x in a b do (cmd c))"},
      {"for x; do c; done", "(for x do (cmd c))"},
      {"for x\ndo c\ndone", "(for x do (cmd c))"},
      {"for x in a; { c; }", "(for x in a do (cmd c))"},
      {"for ((i=0; i<3; i++)); do c; done", "(for (((= i 0); (< i 3); (post++ i))) do (cmd c))"},
      {"for ((;;)) { c; }", "(for ((; ; )) do (cmd c))"},
      {"select x in a; do c; done", "(select x in a do (cmd c))"},
      {"while a; do b; done; until c; do d; done",
       "(while (cmd a) do (cmd b)) ; (until (cmd c) do (cmd d))"},
      {"case $x in a|b) c;; (d) e;& *) f;;& g) esac",
       "(case $x (a|b) (cmd c) ;; (d) (cmd e) ;& (<*>) (cmd f) ;;& (g) )"},
      {"case x in esac", "(case x)"},
      {"[[ -f x && ( $a == b* || ! $c =~ ^(a|b)$ ) ]]",
       "(cond (-f x && ( ($a == b<*> || ! $c =~ ^(a|b)$) )))"},
      {"[[ x ]]", "(cond x)"},
      {"[[ a < b ]]", "(cond a < b)"},
      {"[[ $x == @(a|b) ]]", "(cond $x == @(a|b))"},
      {"(( x > 1 ))", "(arith (> x 1))"},
      {"f() { a; }", "(fn f (group (cmd a)))"},
      // After a function's name only the next word may open a group: a later `{' is a word,
      // however long the words between.
      {"f() while printf {; do break; done", "(fn f (while (cmd printf {) do (cmd break)))"},
      {"function f while printf {; do :; done", "(fn f (while (cmd printf {) do (cmd :)))"},
      {"function f { a; }", "(fn f (group (cmd a)))"},
      {"function f() ( a )", "(fn f (sub (cmd a)))"},
      {"f() [[ x ]]", "(fn f (cond x))"},
      {"function f if a; then b; fi", "(fn f (if (cmd a) then (cmd b)))"},
      {"coproc a b", "(coproc COPROC (cmd a b))"},
      {"coproc n { a; }", "(coproc n (group (cmd a)))"},
      {"coproc { a; }", "(coproc COPROC (group (cmd a)))"},
  });
}

TEST(Parser, Errors) {
  ExpectErrors({
      {"if true; then", "1:1", "`if' at 1:1 is not closed (expected `fi')", kSyntax},
      {"while a; do b", "1:1", "`while' at 1:1 is not closed (expected `done')", kSyntax},
      {"echo )", "1:6", "unexpected token `)'", kSyntax},
      {"case x in", "1:1", "`case' at 1:1 is not closed (expected `esac')", kSyntax},
      {"echo $(", "1:6", "`$(' at 1:6 is not closed (expected `)')", kSyntax},
      {"echo $(ls; (", "1:12", "`(' at 1:12 is not closed", kSyntax},
      {"echo 'abc", "1:6", "matching `''", kSyntax},
      {"echo \"abc", "1:6", "matching `\"'", kSyntax},
      {"{ }", "1:3", "unexpected token `}'", kSyntax},
      {"( )", "1:3", "unexpected token `)'", kSyntax},
      {"f() echo", "1:5", "unexpected token `echo'", kSyntax},
      {"echo ;;", "1:6", "unexpected token `;;'", kSyntax},
      {"a | ! b", "1:5", "unexpected token `!'", kSyntax},
      {"echo a=(1)", "1:8", "unexpected token `('", kSyntax},
      {"foo=bar () { :; }", "1:9", "unexpected token `('", kSyntax},
      {"echo >", "1:6", "needs a word after it", kSyntax},
      // bash stops on these without a message; they are errors here.
      {"[[ ]]", "1:4", "an expression is expected", kSyntax},
      {"for ((a) b)) do :; done", "1:5", "expected `))'", kSyntax},
      {"for ((a)); do :; done", "1:7", "three expressions", kSyntax},
      // Errors bash finds only when it runs the command: still refused, marked deferred.
      {"echo ${x!!}", "1:6", "bad substitution", kDeferred},
      {"echo `if`", "1:7", "`if' at 1:7 is not closed", kDeferred},
      {"(( 1 + ))", "1:8", "operand expected", kDeferred},
      {"echo $(( 'a' ))", "1:10", "single quotes", kDeferred},
      {"echo ${x@Z}", "1:6", "unknown `@' operator", kDeferred},
      {"cat <<EOF\n$(if)\nEOF\n", "2:5", "unexpected token `)'", kDeferred},
      // bash accepts these, but what they mean depends on its implementation.
      {"cat <<$(x)\n$(x)\n", "1:7", "here-document delimiter", kUnsupported},
      {"echo $(a=(\\x))", "1:11", "backslash inside an array", kUnsupported},
      // bash reads `((a)` at the end of a line as the end of its input.
      {"((a)\n)", "1:1", "must be written `( ('", kSyntax},
  });
  shell::ParseResult nul = shell::Parse(std::string("echo a\0b", 8));
  ASSERT_FALSE(nul.ok());
  EXPECT_EQ(nul.error->ToString(),
            "1:7: a NUL byte in the input (bash would not see the text after it)");
}

TEST(Parser, DepthLimit) {
  std::string deep;
  for (int i = 0; i < 300; ++i)
    deep += "$(";
  deep += "x";
  for (int i = 0; i < 300; ++i)
    deep += ")";
  shell::ParseResult r = shell::Parse("echo " + deep);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error->message.find("nesting deeper than"), std::string::npos);
  shell::ParseOptions opt;
  opt.max_depth = 1000;
  EXPECT_TRUE(shell::Parse("echo " + deep, opt).ok());
}

// Every recursion of the parser counts against the limit, also where it only looks for the end
// of a construct: these used to overflow the stack.
TEST(Parser, DepthLimitCoversEveryRecursion) {
  auto repeat = [](const std::string& s, int n) {
    std::string out;
    for (int i = 0; i < n; ++i)
      out += s;
    return out;
  };
  for (const std::string& script :
       {"echo " + repeat("${x:-", 50000), "echo \"" + repeat("${x:-'", 50000),
        "(( " + repeat("x=", 100000) + "1 ))", "(( " + repeat("1?1:", 100000) + "1 ))",
        "(( " + repeat("2**", 100000) + "1 ))"}) {
    shell::ParseResult r = shell::Parse(script);
    ASSERT_FALSE(r.ok()) << script.substr(0, 40);
    EXPECT_NE(r.error->message.find("nesting deeper than"), std::string::npos) << r.error->message;
  }
  // `1+1+...' is read in a loop but makes a tree as deep as it is long: bounded too.
  shell::ParseResult chain = shell::Parse("echo $(( " + repeat("1+", 100000) + "1 ))");
  ASSERT_FALSE(chain.ok());
  EXPECT_NE(chain.error->message.find("operators in a row"), std::string::npos);
  EXPECT_TRUE(shell::Parse("echo $(( " + repeat("1+", 1999) + "1 ))").ok());
}

TEST(Parser, Extglob) {
  EXPECT_EQ(Tree("echo @(a|b)"), "ERROR 1:7: syntax error near unexpected token `('");
  shell::ParseOptions opt;
  opt.extglob = true;
  EXPECT_EQ(Tree("echo @(a|b) !(x) *(y)", opt), "(cmd echo @(a|b) !(x) *(y))");
}

TEST(Parser, Positions) {
  shell::ParseResult r = shell::Parse("echo a\n  ls -l $(x\ny)");
  ASSERT_TRUE(r.ok());
  const auto& stmts = r.script.body.statements;
  ASSERT_EQ(stmts.size(), 2u);
  const shell::Command& ls = stmts[1].body.pipelines[0].commands[0];
  shell::Position p = r.script.At(ls.begin);
  EXPECT_EQ(p.line, 2u);
  EXPECT_EQ(p.col, 3u);
  const auto& words = std::get<shell::SimpleCommand>(ls.node).words;
  shell::Position w = r.script.At(words[2].begin);
  EXPECT_EQ(w.line, 2u);
  EXPECT_EQ(w.col, 9u);
  // Inside backquotes the positions still point into the original text.
  shell::ParseResult b = shell::Parse("x `a \\$y`");
  ASSERT_TRUE(b.ok());
  const auto& bw =
      std::get<shell::SimpleCommand>(b.script.body.statements[0].body.pipelines[0].commands[0].node)
          .words;
  const shell::List& inner = *bw[1].parts[0].body;
  const auto& iw =
      std::get<shell::SimpleCommand>(inner.statements[0].body.pipelines[0].commands[0].node).words;
  EXPECT_EQ(b.script.At(iw[1].begin).col, 7u);  // the `$` of `\$y`
  // An array index begins at its first character, past a backslash-newline after `[`.
  shell::ParseResult a = shell::Parse("a[\\\n1]=2 b[x]=3");
  ASSERT_TRUE(a.ok());
  const auto& assigns =
      std::get<shell::SimpleCommand>(a.script.body.statements[0].body.pipelines[0].commands[0].node)
          .assigns;
  ASSERT_EQ(assigns.size(), 2u);
  EXPECT_EQ(FormatPosition(a.script.At(assigns[0].index->begin)), "2:1");
  EXPECT_EQ(FormatPosition(a.script.At(assigns[0].index->end)), "2:2");
  EXPECT_EQ(FormatPosition(a.script.At(assigns[1].index->begin)), "2:8");
  EXPECT_EQ(FormatPosition(a.script.At(assigns[1].index->end)), "2:9");
}

// Check forgets each top-level command once read; its answers must still be Parse's, also when
// an error comes many commands later, inside here-documents, substitutions or line joins.
TEST(Parser, CheckAgreesWithParse) {
  std::vector<std::string> scripts = {
      "echo a\necho b\n",
      "cat <<A; echo $(cat <<B\nb\nB\n)\na\nA\necho after\nif\n",
      "x=$(echo one\necho two)\ny=`echo three`\ncase $x in (a) ;; esac\necho $((1 +))\n",
      "for i in 1 2; do\n  echo \"$i\" \\\n   more\ndone\n( echo sub\n",
      "f() { echo; }\nf\n}\n",
      "echo $(echo $(echo deep))\n" + std::string(50, '\n') + "echo ${x",
  };
  std::string many;
  for (int i = 0; i < 2000; ++i)
    many += "echo line " + std::to_string(i) + " $(date) <<EOF\nbody\nEOF\n";
  scripts.push_back(many);
  scripts.push_back(many + "done\n");
  for (const std::string& script : scripts) {
    shell::ParseResult full = shell::Parse(script);
    std::optional<shell::SyntaxError> checked = shell::Check(script);
    ASSERT_EQ(full.ok(), !checked.has_value()) << script.substr(0, 200);
    if (checked) {
      EXPECT_EQ(checked->ToString(), full.error->ToString());
      EXPECT_EQ(checked->kind, full.error->kind);
    }
  }
  EXPECT_EQ(shell::Check(many + "done\n")->ToString(),
            "6001:1: syntax error near unexpected token `done'");
}

TEST(Parser, Comments) {
  shell::ParseResult r = shell::Parse("a # one\n# two \\\nb");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r.script.comments.size(), 2u);
  EXPECT_EQ(r.script.comments[0].text, " one");
  EXPECT_EQ(r.script.comments[1].text, " two \\");
  EXPECT_EQ(Sexp(r.script.body), "(cmd a) ; (cmd b)");
}

TEST(Parser, ArithmeticText) {
  shell::ArithParseResult r = shell::ParseArithmetic("a[$(id)] = 1 + b");
  ASSERT_TRUE(r.ok()) << r.error->ToString();
  EXPECT_EQ(Sexp(*r.arith.expr), "(= a[w:$((cmd id))] (+ 1 b))");
  EXPECT_FALSE(shell::ParseArithmetic("1 +").ok());
}

}  // namespace
}  // namespace safesh::testing
