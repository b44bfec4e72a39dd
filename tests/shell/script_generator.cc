#include "script_generator.h"

#include <vector>

namespace safesh::testing {

namespace {

const char* const kNames[] = {"x", "y", "foo", "PATH", "a_1", "HOME", "i"};
const char* const kLits[] = {"echo", "ls",   "a",    "b.txt", "-l", "--x=1", "/tmp/f", "1",
                             "git",  "rm",   "cat",  "x,y",   "=",  "a=b",   "%",      "@",
                             "if",   "then", "done", "in",    "{",  "}",     "!",      "]]",
                             "[[",   "time", "esac", "-p",    "..", "::",    "~",      "+"};

// Command names that are not reserved words anywhere.
const char* const kCommands[] = {"echo", "ls",      "cat",   "git",    "rm",  "printf",
                                 "true", ":",       "test",  "grep",   "sed", "x",
                                 "cd",   "declare", "local", "export", "eval"};

// Words that are plain in any position of the generated scripts.
const char* const kSafe[] = {"a", "b.txt", "-l", "--x=1", "/tmp/f", "1", "x,y",
                             "%", "@",     "..", "::",    "+",      "=", "-p"};

}  // namespace

std::string ScriptGenerator::SafeWord() {
  std::string out = kSafe[Pick(std::size(kSafe))];
  if (Chance(30)) out += "\"" + DoubleQuotedPart(6) + "\"";
  if (Chance(20)) out += Param(6);
  return out;
}

std::string ScriptGenerator::Generate() {
  pending_heredocs_.clear();
  std::string out;
  int lines = 1 + Pick(3);
  for (int i = 0; i < lines; ++i) {
    out += List(0, true);
    if (Chance(10)) out += " # comment " + Lit();
    out += "\n";
    out += pending_heredocs_;
    pending_heredocs_.clear();
  }
  return out;
}

std::string ScriptGenerator::Name() {
  return kNames[Pick(std::size(kNames))];
}

std::string ScriptGenerator::Lit() {
  return kLits[Pick(std::size(kLits))];
}

std::string ScriptGenerator::List(int depth, bool top) {
  std::string out = AndOr(depth);
  int more = Pick(depth > 2 ? 1 : 3);
  for (int i = 0; i < more; ++i) {
    int sep = Pick(top ? 2 : 3);
    if (sep == 0) {
      out += "; ";
    } else if (sep == 1) {
      out += " & ";
    } else {
      out += "\n";
      out += pending_heredocs_;
      pending_heredocs_.clear();
    }
    out += AndOr(depth);
  }
  // Only a whole line may end with its own terminator: callers add `;` after inner lists.
  if (top && Chance(10)) out += Chance(50) ? ";" : " &";
  return out;
}

std::string ScriptGenerator::AndOr(int depth) {
  std::string out = Pipeline(depth);
  while (Chance(20)) {
    out += Chance(50) ? " && " : " || ";
    if (Chance(10)) out += "\n";
    out += Pipeline(depth);
  }
  return out;
}

std::string ScriptGenerator::Pipeline(int depth) {
  std::string out;
  if (Chance(8)) out += "! ";
  if (Chance(5)) out += Chance(50) ? "time " : "time -p ";
  out += Command(depth);
  while (Chance(20)) {
    out += Chance(80) ? " | " : " |& ";
    out += Command(depth);
  }
  return out;
}

std::string ScriptGenerator::Command(int depth) {
  if (depth < 4 && Chance(30)) {
    std::string out = Compound(depth + 1);
    if (Chance(15)) out += " " + Redirect(depth + 1);
    return out;
  }
  if (depth < 3 && Chance(4)) {
    return std::string(Chance(50) ? "function " : "") + Name() + " () { " + List(depth + 1, false) +
           "; }";
  }
  return Simple(depth);
}

std::string ScriptGenerator::Simple(int depth) {
  std::string out;
  if (Chance(15)) {
    out += Name() + (Chance(20) ? "+=" : "=");
    if (Chance(15)) {
      out += "(" + Word(depth + 1) + " " + Word(depth + 1) + ")";
    } else if (Chance(80)) {
      out += Word(depth + 1);
    }
    out += " ";
  }
  if (Chance(10)) {
    out += Redirect(depth + 1) + " ";
  }
  out += kCommands[Pick(std::size(kCommands))];
  int words = Pick(4);
  for (int i = 0; i < words; ++i) {
    out += " ";
    if (Chance(12)) {
      out += Redirect(depth + 1);
    } else {
      out += Word(depth + 1);
    }
  }
  return out;
}

std::string ScriptGenerator::Compound(int depth) {
  switch (Pick(11)) {
    case 0:
      return "( " + List(depth, false) + " )";
    case 1:
      return "{ " + List(depth, false) + "; }";
    case 2: {
      std::string out = "if " + List(depth, false) + "; then " + List(depth, false);
      if (Chance(30)) out += "; elif " + List(depth, false) + "; then " + List(depth, false);
      if (Chance(40)) out += "; else " + List(depth, false);
      return out + "; fi";
    }
    case 3: {
      std::string out = (Chance(80) ? "for " : "select ") + Name();
      if (Chance(80)) {
        out += " in";
        int n = Pick(4);
        for (int i = 0; i < n; ++i)
          out += " " + Word(depth);
      }
      return out + "; do " + List(depth, false) + "; done";
    }
    case 4:
      return "for ((" + Arith(depth) + "; " + Arith(depth) + "; " + Arith(depth) + ")); do " +
             List(depth, false) + "; done";
    case 5:
      return std::string(Chance(50) ? "while " : "until ") + List(depth, false) + "; do " +
             List(depth, false) + "; done";
    case 6: {
      std::string out = "case " + Word(depth) + " in ";
      int n = 1 + Pick(3);
      for (int i = 0; i < n; ++i) {
        if (Chance(20)) out += "(";
        out += SafeWord();
        if (Chance(30)) out += "|" + (Chance(50) ? SafeWord() : std::string("*.c"));
        out += ") ";
        if (Chance(80)) out += List(depth, false);
        const char* terms[] = {" ;; ", " ;& ", " ;;& "};
        out += terms[Pick(3)];
      }
      return out + "esac";
    }
    case 7:
      return "[[ " + Cond(depth) + " ]]";
    case 8:
      return "(( " + Arith(depth) + " ))";
    case 9:
      return "coproc " + (Chance(50) ? Name() + " { " + List(depth, false) + "; }" : Simple(depth));
    default: {
      // A here-document, its body on the lines after this one.
      std::string tag = "EOF" + std::to_string(heredoc_count_++);
      bool quoted = Chance(40);
      bool strip = Chance(30);
      std::string out =
          std::string("cat <<") + (strip ? "-" : "") + (quoted ? "'" + tag + "'" : tag);
      std::string body;
      int n = Pick(3);
      for (int i = 0; i < n; ++i) {
        body += (strip ? "\t" : "") + Lit() + " " +
                (quoted || in_backquote_ ? "$x `y`" : DoubleQuotedPart(depth)) + "\n";
      }
      pending_heredocs_ += body + (strip ? "\t" : "") + tag + "\n";
      return out;
    }
  }
}

std::string ScriptGenerator::Cond(int depth) {
  switch (Pick(6)) {
    case 0:
      return SafeWord();
    case 1:
      return std::string(Chance(50) ? "-f " : "-n ") + SafeWord();
    case 2: {
      const char* ops[] = {"==", "!=", "=", "<", ">", "-eq", "-lt", "-nt"};
      return SafeWord() + " " + ops[Pick(std::size(ops))] + " " +
             (Chance(30) ? std::string("@(a|b*)") : SafeWord());
    }
    case 3:
      return SafeWord() + " =~ " + (Chance(50) ? "^a(b|c)+$" : SafeWord());
    case 4:
      return "! " + Cond(depth + 1);
    default:
      if (depth > 5) return Word(depth);
      return "( " + Cond(depth + 1) + (Chance(50) ? " && " : " || ") + Cond(depth + 1) + " )";
  }
}

std::string ScriptGenerator::Arith(int depth) {
  switch (Pick(depth > 5 ? 3 : 7)) {
    case 0:
      return std::to_string(Pick(100));
    case 1:
      return Name();
    case 2:
      return "$" + Name();
    case 3: {
      const char* ops[] = {
          "+", "-", "*", "/", "%", "<<", "==", "!=", "&&", "||", "&", "^", ",", "**"};
      return Arith(depth + 1) + " " + ops[Pick(std::size(ops))] + " " + Arith(depth + 1);
    }
    case 4:
      return "(" + Arith(depth + 1) + ")";
    case 5:
      return "(" + Name() + (Chance(50) ? " = " : " += ") + Arith(depth + 1) + ")";
    default:
      return Arith(depth + 1) + " ? " + Arith(depth + 1) + " : " + Arith(depth + 1);
  }
}

std::string ScriptGenerator::Word(int depth) {
  std::string out;
  int parts = 1 + Pick(3);
  for (int i = 0; i < parts; ++i)
    out += WordPart(depth);
  return out;
}

std::string ScriptGenerator::Param(int depth) {
  if (Chance(40)) return "$" + Name();
  const char* ops[] = {"", ":-", "-", ":=", ":+", "#", "##", "%", "%%", "/", "//", "^^", ",", ":"};
  std::string op = ops[Pick(std::size(ops))];
  std::string out = "${";
  if (op.empty() && Chance(20)) out += "#";
  out += Name();
  if (Chance(10)) out += "[" + std::to_string(Pick(3)) + "]";
  out += op;
  if (op == ":") {
    out += std::to_string(Pick(5));
  } else if (!op.empty() && depth < 6) {
    out += Word(depth + 1);
    if (op == "/" || op == "//") out += "/" + Lit();
  }
  return out + "}";
}

std::string ScriptGenerator::DoubleQuotedPart(int depth) {
  switch (Pick(depth > 5 ? 2 : 5)) {
    case 0:
      return Lit() + " text";
    case 1:
      return Param(depth + 1);
    case 2:
      return "$(" + List(depth + 1, false) + ")";
    case 3:
      return "$((" + Arith(depth + 1) + "))";
    default:
      return "\\\"" + Lit() + "\\$";
  }
}

std::string ScriptGenerator::WordPart(int depth) {
  int n = depth > 6 ? 4 : 19;
  switch (Pick(n)) {
    case 0:
    case 1:
    case 2:
      return Lit();
    case 3:
      return "'" + Lit() + " \"$x\"'";
    case 4:
      return "\\" + std::string(1, "abc$'\" |;&(){}*"[Pick(15)]);
    case 5:
    case 6:
      return "\"" + DoubleQuotedPart(depth) + "\"";
    case 7:
    case 8:
      return Param(depth);
    case 9:
      return "$(" + List(depth + 1, false) + ")";
    case 10: {
      if (in_backquote_ > 0) return "$(" + Simple(depth + 1) + ")";  // `` does not nest
      ++in_backquote_;
      std::string inner = Simple(depth + 1);
      --in_backquote_;
      return "`" + inner + "`";
    }
    case 11:
      return "$((" + Arith(depth + 1) + "))";
    case 12:
      return std::string(Chance(50) ? "<(" : ">(") + List(depth + 1, false) + ")";
    case 13:
      return "$'" + Lit() + "\\n\\x41'";
    case 14:
      return Chance(50) ? "{a," + Lit() + "}" : "*.txt";
    case 15:
      return Chance(50) ? "~/" + Lit() : "$" + std::string(1, "@*#?-$!0123"[Pick(11)]);
    case 16:
      return "$[" + Arith(depth + 1) + "]";
    case 17: {
      const char* forms[] = {"${x@Q}",   "${!x}",    "${a[@]}",    "${#a[*]}",
                             "${!a[@]}", "${!pre*}", "${x: -1:2}", "${x/#a/b}",
                             "${x^^}",   "${10}",    "${#}"};
      return forms[Pick(std::size(forms))];
    }
    default:
      return "\"${x:-" + Lit() + " '$y'}\"";
  }
}

std::string ScriptGenerator::Redirect(int depth) {
  switch (Pick(10)) {
    case 7:
      return "3>&-";
    case 8:
      return Chance(50) ? ">| " + SafeWord() : "<> " + SafeWord();
    case 9:
      return "{fd}<&0";
    case 0:
      return "> " + Word(depth);
    case 1:
      return "2>&1";
    case 2:
      return "< " + Word(depth);
    case 3:
      return ">> " + Word(depth);
    case 4:
      return "&> /dev/null";
    case 5:
      return "<<< " + Word(depth);
    default:
      return "{fd}>" + Lit();
  }
}

std::string ScriptGenerator::Mutate(const std::string& script) {
  static const char* const kInserts[] = {
      "'",     "\"",        "`",       "$",     "(",    ")",   "{",  "}",  "[",   "]",   ";",
      "&",     "|",         "<",       ">",     "\\",   "\n",  "#",  " ",  "\t",  "$(",  "${",
      "$((",   "))",        ";;",      "<<",    "<<-",  "&&",  "||", "\r", "=",   "if ", "then ",
      "fi",    "do ",       "done",    "case ", "esac", "in ", "{ ", " }", "[[ ", " ]]", "! ",
      "time ", "function ", "coproc ", "\\\n",  "*",    "~",   ",",  "@(", "!(",  "$'",  "$\"",
  };
  std::string s = script;
  int edits = 1 + Pick(3);
  for (int e = 0; e < edits && !s.empty(); ++e) {
    size_t at = static_cast<size_t>(Pick(static_cast<int>(s.size())));
    switch (Pick(4)) {
      case 0:
        s.erase(at, 1 + static_cast<size_t>(Pick(3)));
        break;
      case 1:
        s.insert(at, kInserts[Pick(std::size(kInserts))]);
        break;
      case 2: {
        size_t len = 1 + static_cast<size_t>(Pick(8));
        if (at + len <= s.size()) s.insert(at, s.substr(at, len));
        break;
      }
      default:
        s[at] = kInserts[Pick(std::size(kInserts))][0];
        break;
    }
  }
  return s;
}

}  // namespace safesh::testing
