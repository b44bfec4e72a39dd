#include "ast_sexp.h"

#include <variant>

namespace safesh::testing {

using namespace shell;

namespace {

std::string S(std::string_view v) {
  return std::string(v);
}

std::string Parts(const ArenaVec<Part>& parts);
std::string Cmd(const Command& c);
std::string Redir(const Redirect& r);

std::string Arith(const shell::Arith& a) {
  return a.expr ? Sexp(*a.expr) : "";
}

std::string Param(const ParamExp& p) {
  if (!p.braced) return "$" + S(p.name);
  std::string out = "${";
  if (p.op == ParamOp::kLength) out += "#";
  if (p.indirect) out += "!";
  if (p.op == ParamOp::kNamesPrefix || p.op == ParamOp::kKeys) out += "!";
  out += S(p.name);
  if (p.index) out += "[" + Sexp(*p.index) + "]";
  if (p.op == ParamOp::kNamesPrefix) out += S(p.op_text);
  if (p.op == ParamOp::kSubstring) {
    out += ":" + Arith(*p.arith);
    if (p.arith2) out += ":" + Arith(*p.arith2);
  } else if (p.op == ParamOp::kTransform) {
    out += "@" + S(p.op_text);
  } else if (p.op != ParamOp::kNone && p.op != ParamOp::kLength && p.op != ParamOp::kKeys &&
             p.op != ParamOp::kNamesPrefix) {
    out += S(p.op_text);
    if (p.operand) out += Sexp(*p.operand);
    if (p.replacement) out += "/" + Sexp(*p.replacement);
  }
  return out + "}";
}

std::string Part1(const Part& p) {
  switch (p.kind) {
    case PartKind::kLit:
      return S(p.text);
    case PartKind::kEscaped:
      return "\\" + S(p.text);
    case PartKind::kSingleQuoted:
      return "'" + S(p.text) + "'";
    case PartKind::kAnsiC:
      return "$'" + S(p.text) + "'";
    case PartKind::kDoubleQuoted:
      return "\"" + Parts(p.parts) + "\"";
    case PartKind::kLocale:
      return "$\"" + Parts(p.parts) + "\"";
    case PartKind::kParam:
      return Param(*p.param);
    case PartKind::kCmdSubst:
      return p.backquote ? "`" + Sexp(*p.body) + "`" : "$(" + Sexp(*p.body) + ")";
    case PartKind::kArith:
      return "$((" + Arith(*p.arith) + "))";
    case PartKind::kProcSubst:
      return S(p.text) + "(" + Sexp(*p.body) + ")";
    case PartKind::kGlob:
      return "<" + S(p.text) + ">";
    case PartKind::kExtGlob:
      return S(p.text) + "(" + Parts(p.parts) + ")";
    case PartKind::kBrace: {
      std::string out = "{";
      for (size_t i = 0; i < p.words.size(); ++i) {
        if (i) out += "|";
        out += Sexp(p.words[i]);
      }
      return out + "}";
    }
    case PartKind::kBraceRange:
      return "{" + S(p.text) + "}";
    case PartKind::kTilde:
      return "<~" + S(p.text) + ">";
    case PartKind::kSubscript:
      return "[" + Parts(p.parts) + "]";
    case PartKind::kArrayLit: {
      std::string out = "(";
      for (size_t i = 0; i < p.words.size(); ++i) {
        if (i) out += " ";
        out += Sexp(p.words[i]);
      }
      return out + ")";
    }
    case PartKind::kRegexGroup:
      return "(" + Parts(p.parts) + ")";
  }
  return "?";
}

std::string Parts(const ArenaVec<Part>& parts) {
  std::string out;
  for (const Part& p : parts)
    out += Part1(p);
  return out;
}

const char* RedirText(RedirOp op) {
  switch (op) {
    case RedirOp::kIn:
      return "<";
    case RedirOp::kOut:
      return ">";
    case RedirOp::kAppend:
      return ">>";
    case RedirOp::kClobber:
      return ">|";
    case RedirOp::kInOut:
      return "<>";
    case RedirOp::kOutErr:
      return "&>";
    case RedirOp::kAppendOutErr:
      return "&>>";
    case RedirOp::kDupIn:
      return "<&";
    case RedirOp::kDupOut:
      return ">&";
    case RedirOp::kHeredoc:
      return "<<";
    case RedirOp::kHeredocStrip:
      return "<<-";
    case RedirOp::kHereString:
      return "<<<";
  }
  return "?";
}

std::string Redir(const Redirect& r) {
  std::string out;
  if (r.fd >= 0) out += std::to_string(r.fd);
  if (!S(r.fd_var).empty()) out += "{" + S(r.fd_var) + "}";
  out += RedirText(r.op);
  if (r.close) return out + "-";
  if (r.heredoc) {
    out += S(r.heredoc->delimiter) + (r.heredoc->quoted ? "(quoted)" : "") + "[" +
           Sexp(r.heredoc->body) + "]";
    if (!r.heredoc->terminated) out += "(unterminated)";
    return out;
  }
  return out + Sexp(r.target);
}

std::string Redirs(const ArenaVec<Redirect>& rs) {
  std::string out;
  for (const Redirect& r : rs)
    out += " " + Redir(r);
  return out;
}

std::string Cond(const CondExpr& c) {
  switch (c.kind) {
    case CondKind::kAnd:
      return "(" + Cond(*c.left) + " && " + Cond(*c.right) + ")";
    case CondKind::kOr:
      return "(" + Cond(*c.left) + " || " + Cond(*c.right) + ")";
    case CondKind::kNot:
      return "! " + Cond(*c.left);
    case CondKind::kGroup:
      return "( " + Cond(*c.left) + " )";
    case CondKind::kUnary:
      return S(c.op) + " " + Sexp(c.word);
    case CondKind::kBinary:
      return Sexp(c.word) + " " + S(c.op) + " " + Sexp(c.word2);
    case CondKind::kWord:
      return Sexp(c.word);
  }
  return "?";
}

std::string Body(const List* l) {
  return l ? Sexp(*l) : "";
}

std::string Cmd(const Command& c) {
  std::string out;
  std::visit(
      [&](const auto& n) {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, SimpleCommand>) {
          out = "(cmd";
          for (const Assignment& a : n.assigns) {
            out += " [" + S(a.name) + (a.index ? "[" + Sexp(*a.index) + "]" : "") +
                   (a.append ? "+=" : "=") + Sexp(a.value) + "]";
          }
          for (const Word& w : n.words)
            out += " " + Sexp(w);
          out += Redirs(n.redirs) + ")";
        } else if constexpr (std::is_same_v<T, Subshell>) {
          out = "(sub " + Body(n.body) + ")";
        } else if constexpr (std::is_same_v<T, Group>) {
          out = "(group " + Body(n.body) + ")";
        } else if constexpr (std::is_same_v<T, IfClause>) {
          out = "(if " + Body(n.cond) + " then " + Body(n.then_body);
          for (const auto& e : n.elifs)
            out += " elif " + Body(e.cond) + " then " + Body(e.body);
          if (n.else_body) out += " else " + Body(n.else_body);
          out += ")";
        } else if constexpr (std::is_same_v<T, ForClause>) {
          out = std::string(n.select ? "(select " : "(for ") + S(n.name);
          if (n.has_in) {
            out += " in";
            for (const Word& w : n.items)
              out += " " + Sexp(w);
          }
          out += " do " + Body(n.body) + ")";
        } else if constexpr (std::is_same_v<T, ArithForClause>) {
          out = "(for ((" + Arith(n.init) + "; " + Arith(n.cond) + "; " + Arith(n.step) + ")) do " +
                Body(n.body) + ")";
        } else if constexpr (std::is_same_v<T, WhileClause>) {
          out = std::string(n.until ? "(until " : "(while ") + Body(n.cond) + " do " +
                Body(n.body) + ")";
        } else if constexpr (std::is_same_v<T, CaseClause>) {
          out = "(case " + Sexp(n.subject);
          for (const CaseItem& it : n.items) {
            out += " (";
            for (size_t i = 0; i < it.patterns.size(); ++i) {
              if (i) out += "|";
              out += Sexp(it.patterns[i]);
            }
            out += ") " + Body(it.body) + (S(it.terminator).empty() ? "" : " " + S(it.terminator));
          }
          out += ")";
        } else if constexpr (std::is_same_v<T, ArithCommand>) {
          out = "(arith " + Arith(n.arith) + ")";
        } else if constexpr (std::is_same_v<T, CondCommand>) {
          out = "(cond " + Cond(*n.expr) + ")";
        } else if constexpr (std::is_same_v<T, FunctionDef>) {
          out = "(fn " + S(n.name) + " " + Cmd(*n.body) + ")";
        } else if constexpr (std::is_same_v<T, Coproc>) {
          out = "(coproc " + S(n.name) + " " + Cmd(*n.body) + ")";
        }
      },
      c.node);
  if (!c.redirs.empty()) out += Redirs(c.redirs);
  return out;
}

}  // namespace

std::string Sexp(const ArithExpr& e) {
  switch (e.kind) {
    case ArithKind::kNumber:
      return S(e.text);
    case ArithKind::kVariable:
      return e.index ? S(e.text) + "[" + Sexp(*e.index) + "]" : S(e.text);
    case ArithKind::kWord:
      return "w:" + Sexp(*e.word);
    case ArithKind::kUnary:
      return "(" + S(e.op) + " " + Sexp(*e.a) + ")";
    case ArithKind::kPostfix:
      return "(post" + S(e.op) + " " + Sexp(*e.a) + ")";
    case ArithKind::kBinary:
      return "(" + S(e.op) + " " + Sexp(*e.a) + " " + Sexp(*e.b) + ")";
    case ArithKind::kTernary:
      return "(? " + Sexp(*e.a) + " " + Sexp(*e.b) + " " + Sexp(*e.c) + ")";
    case ArithKind::kGroup:
      return "(group " + Sexp(*e.a) + ")";
  }
  return "?";
}

std::string Sexp(const Word& word) {
  return Parts(word.parts);
}

std::string Sexp(const List& list) {
  std::string out;
  for (size_t i = 0; i < list.statements.size(); ++i) {
    const Statement& s = list.statements[i];
    if (i) out += " ; ";
    for (size_t p = 0; p < s.body.pipelines.size(); ++p) {
      if (p) out += s.body.ops[p - 1] == AndOrOp::kAnd ? " && " : " || ";
      const Pipeline& pl = s.body.pipelines[p];
      if (pl.timed) out += pl.time_posix ? "time -p " : "time ";
      if (pl.negated) out += "! ";
      for (size_t c = 0; c < pl.commands.size(); ++c) {
        if (c) out += pl.pipe_stderr[c - 1] ? " |& " : " | ";
        out += Cmd(pl.commands[c]);
      }
    }
    if (s.background) out += " &";
  }
  return out;
}

}  // namespace safesh::testing
