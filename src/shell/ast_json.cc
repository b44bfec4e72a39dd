#include "shell/ast_json.h"

#include <cstdio>
#include <variant>

#include "util/json_writer.h"

namespace safesh::shell {

namespace {

const char* PartKindName(PartKind k) {
  switch (k) {
    case PartKind::kLit:
      return "Lit";
    case PartKind::kEscaped:
      return "Escaped";
    case PartKind::kSingleQuoted:
      return "SingleQuoted";
    case PartKind::kAnsiC:
      return "AnsiC";
    case PartKind::kDoubleQuoted:
      return "DoubleQuoted";
    case PartKind::kLocale:
      return "Locale";
    case PartKind::kParam:
      return "Param";
    case PartKind::kCmdSubst:
      return "CmdSubst";
    case PartKind::kArith:
      return "Arith";
    case PartKind::kProcSubst:
      return "ProcSubst";
    case PartKind::kGlob:
      return "Glob";
    case PartKind::kExtGlob:
      return "ExtGlob";
    case PartKind::kBrace:
      return "Brace";
    case PartKind::kBraceRange:
      return "BraceRange";
    case PartKind::kTilde:
      return "Tilde";
    case PartKind::kSubscript:
      return "Subscript";
    case PartKind::kArrayLit:
      return "ArrayLit";
    case PartKind::kRegexGroup:
      return "RegexGroup";
  }
  return "?";
}

const char* ParamOpName(ParamOp op) {
  switch (op) {
    case ParamOp::kNone:
      return "none";
    case ParamOp::kLength:
      return "length";
    case ParamOp::kDefault:
      return "default";
    case ParamOp::kAssign:
      return "assign";
    case ParamOp::kError:
      return "error";
    case ParamOp::kAlternative:
      return "alternative";
    case ParamOp::kSubstring:
      return "substring";
    case ParamOp::kRemovePrefix:
      return "remove_prefix";
    case ParamOp::kRemoveSuffix:
      return "remove_suffix";
    case ParamOp::kReplace:
      return "replace";
    case ParamOp::kUpper:
      return "upper";
    case ParamOp::kLower:
      return "lower";
    case ParamOp::kTransform:
      return "transform";
    case ParamOp::kNamesPrefix:
      return "names_prefix";
    case ParamOp::kKeys:
      return "keys";
  }
  return "?";
}

const char* RedirOpText(RedirOp op) {
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

const char* ArithKindName(ArithKind k) {
  switch (k) {
    case ArithKind::kNumber:
      return "Number";
    case ArithKind::kVariable:
      return "Variable";
    case ArithKind::kWord:
      return "Word";
    case ArithKind::kUnary:
      return "Unary";
    case ArithKind::kPostfix:
      return "Postfix";
    case ArithKind::kBinary:
      return "Binary";
    case ArithKind::kTernary:
      return "Ternary";
    case ArithKind::kGroup:
      return "Group";
  }
  return "?";
}

const char* CondKindName(CondKind k) {
  switch (k) {
    case CondKind::kAnd:
      return "CondAnd";
    case CondKind::kOr:
      return "CondOr";
    case CondKind::kNot:
      return "CondNot";
    case CondKind::kGroup:
      return "CondGroup";
    case CondKind::kUnary:
      return "CondUnary";
    case CondKind::kBinary:
      return "CondBinary";
    case CondKind::kWord:
      return "CondWord";
  }
  return "?";
}

// Writes the tree as JSON, node by node, straight into the output string.
class JsonTree {
 public:
  JsonTree(const Script& s, std::string_view src, std::string* out)
      : script_(s), src_(src), w_(out) {}

  void ScriptJ() {
    w_.BeginObject();
    Str("type", "Script");
    w_.Key("body");
    ListJ(&script_.body);
    w_.Key("comments");
    w_.BeginArray();
    for (const Comment& c : script_.comments) {
      w_.BeginObject();
      PosJ("pos", c.begin);
      Str("text", c.text);
      w_.EndObject();
    }
    w_.EndArray();
    w_.EndObject();
  }

 private:
  void Str(std::string_view key, std::string_view value) {
    w_.Key(key);
    w_.String(value);
  }
  void Bool(std::string_view key, bool value) {
    w_.Key(key);
    w_.Bool(value);
  }

  void PosJ(std::string_view key, uint32_t off) {
    Position p = script_.At(off);
    w_.Key(key);
    w_.BeginArray();
    w_.Int(p.line);
    w_.Int(p.col);
    w_.EndArray();
  }

  // Opens a node's object with its type and position; the caller adds fields and closes it.
  void Node(const char* type, uint32_t begin) {
    w_.BeginObject();
    Str("type", type);
    PosJ("pos", begin);
  }

  // A node that also carries where it ends and its source text.
  void Spanned(const char* type, uint32_t begin, uint32_t end) {
    Node(type, begin);
    PosJ("end", end);
    Str("text", begin <= end && end <= src_.size() ? src_.substr(begin, end - begin) : "");
  }

  void WordJ(const Word& wd) {
    Spanned("Word", wd.begin, wd.end);
    PartsJ("parts", wd.parts);
    w_.EndObject();
  }

  void WordsJ(std::string_view key, const ArenaVec<Word>& ws) {
    w_.Key(key);
    w_.BeginArray();
    for (const Word& wd : ws)
      WordJ(wd);
    w_.EndArray();
  }

  void PartsJ(std::string_view key, const ArenaVec<Part>& parts) {
    w_.Key(key);
    w_.BeginArray();
    for (const Part& q : parts)
      PartJ(q);
    w_.EndArray();
  }

  void PartJ(const Part& p) {
    Node(PartKindName(p.kind), p.begin);
    PosJ("end", p.end);
    switch (p.kind) {
      case PartKind::kLit:
      case PartKind::kEscaped:
      case PartKind::kSingleQuoted:
      case PartKind::kAnsiC:
      case PartKind::kGlob:
      case PartKind::kBraceRange:
        Str("value", p.text);
        break;
      case PartKind::kTilde:
        Str("user", p.text);
        break;
      case PartKind::kDoubleQuoted:
      case PartKind::kLocale:
      case PartKind::kSubscript:
      case PartKind::kRegexGroup:
        PartsJ("parts", p.parts);
        break;
      case PartKind::kExtGlob:
        Str("op", p.text);
        PartsJ("parts", p.parts);
        break;
      case PartKind::kParam:
        w_.Key("param");
        ParamJ(*p.param);
        break;
      case PartKind::kCmdSubst:
        Bool("backquote", p.backquote);
        w_.Key("body");
        ListJ(p.body);
        break;
      case PartKind::kProcSubst:
        Str("direction", p.text);
        w_.Key("body");
        ListJ(p.body);
        break;
      case PartKind::kArith:
        w_.Key("arith");
        ArithJ(*p.arith);
        break;
      case PartKind::kBrace:
      case PartKind::kArrayLit:
        WordsJ("words", p.words);
        break;
    }
    w_.EndObject();
  }

  void ParamJ(const ParamExp& pe) {
    Spanned("ParamExp", pe.begin, pe.end);
    Str("name", pe.name);
    Bool("braced", pe.braced);
    if (pe.indirect) Bool("indirect", true);
    if (pe.index) {
      w_.Key("index");
      WordJ(*pe.index);
    }
    Str("op", ParamOpName(pe.op));
    if (!pe.op_text.empty()) Str("op_text", pe.op_text);
    if (pe.operand) {
      w_.Key("operand");
      WordJ(*pe.operand);
    }
    if (pe.replacement) {
      w_.Key("replacement");
      WordJ(*pe.replacement);
    }
    if (pe.arith) {
      w_.Key("offset");
      ArithJ(*pe.arith);
    }
    if (pe.arith2) {
      w_.Key("length");
      ArithJ(*pe.arith2);
    }
    w_.EndObject();
  }

  void ArithJ(const Arith& a) {
    Spanned("Arithmetic", a.begin, a.end);
    w_.Key("expr");
    if (a.expr) {
      ExprJ(*a.expr);
    } else {
      w_.Null();
    }
    w_.EndObject();
  }

  void ExprJ(const ArithExpr& e) {
    Node(ArithKindName(e.kind), e.begin);
    PosJ("end", e.end);
    if (!e.op.empty()) Str("op", e.op);
    if (!e.text.empty()) Str("value", e.text);
    if (e.word) {
      w_.Key("word");
      WordJ(*e.word);
    }
    if (e.index) {
      w_.Key("index");
      ExprJ(*e.index);
    }
    bool ternary = e.kind == ArithKind::kTernary;
    if (e.a) {
      w_.Key(ternary ? "cond" : e.b ? "left" : "operand");
      ExprJ(*e.a);
    }
    if (e.b) {
      w_.Key(ternary ? "then" : "right");
      ExprJ(*e.b);
    }
    if (e.c) {
      w_.Key("else");
      ExprJ(*e.c);
    }
    w_.EndObject();
  }

  void RedirJ(const Redirect& r) {
    Spanned("Redirect", r.begin, r.end);
    Str("op", RedirOpText(r.op));
    if (r.fd >= 0) {
      w_.Key("fd");
      w_.Int(r.fd);
    }
    if (!r.fd_var.empty()) Str("fd_var", r.fd_var);
    if (r.close) {
      Bool("close", true);
    } else {
      w_.Key("target");
      WordJ(r.target);
    }
    if (r.heredoc) {
      const Heredoc& h = *r.heredoc;
      w_.Key("heredoc");
      w_.BeginObject();
      Str("delimiter", h.delimiter);
      Bool("quoted", h.quoted);
      Bool("strip_tabs", h.strip_tabs);
      Bool("terminated", h.terminated);
      w_.Key("body");
      WordJ(h.body);
      w_.EndObject();
    }
    w_.EndObject();
  }

  void RedirsJ(const ArenaVec<Redirect>& rs) {
    w_.Key("redirects");
    w_.BeginArray();
    for (const Redirect& r : rs)
      RedirJ(r);
    w_.EndArray();
  }

  void AssignJ(const Assignment& a) {
    Spanned("Assignment", a.begin, a.end);
    Str("name", a.name);
    if (a.index) {
      w_.Key("index");
      WordJ(*a.index);
    }
    Bool("append", a.append);
    w_.Key("value");
    WordJ(a.value);
    w_.EndObject();
  }

  void CondJ(const CondExpr& c) {
    Node(CondKindName(c.kind), c.begin);
    if (!c.op.empty()) Str("op", c.op);
    if (c.left) {
      w_.Key("left");
      CondJ(*c.left);
    }
    if (c.right) {
      w_.Key("right");
      CondJ(*c.right);
    }
    if (c.kind == CondKind::kWord || c.kind == CondKind::kUnary || c.kind == CondKind::kBinary) {
      w_.Key("word");
      WordJ(c.word);
    }
    if (c.kind == CondKind::kBinary) {
      w_.Key("word2");
      WordJ(c.word2);
    }
    w_.EndObject();
  }

  void ListJ(const List* l) {
    w_.BeginArray();
    if (l != nullptr) {
      for (const Statement& s : l->statements)
        StatementJ(s);
    }
    w_.EndArray();
  }

  void KeyList(std::string_view key, const List* l) {
    w_.Key(key);
    ListJ(l);
  }

  void StatementJ(const Statement& s) {
    Node("Statement", s.begin);
    Bool("background", s.background);
    w_.Key("pipelines");
    w_.BeginArray();
    for (const Pipeline& p : s.body.pipelines)
      PipelineJ(p);
    w_.EndArray();
    w_.Key("ops");
    w_.BeginArray();
    for (AndOrOp op : s.body.ops)
      w_.String(op == AndOrOp::kAnd ? "&&" : "||");
    w_.EndArray();
    w_.EndObject();
  }

  void PipelineJ(const Pipeline& p) {
    Node("Pipeline", p.begin);
    if (p.negated) Bool("negated", true);
    if (p.timed) Bool("timed", true);
    if (p.time_posix) Bool("time_posix", true);
    w_.Key("commands");
    w_.BeginArray();
    for (const Command& c : p.commands)
      CommandJ(c);
    w_.EndArray();
    if (!p.pipe_stderr.empty()) {
      w_.Key("pipes");
      w_.BeginArray();
      for (bool b : p.pipe_stderr)
        w_.String(b ? "|&" : "|");
      w_.EndArray();
    }
    w_.EndObject();
  }

  void CommandJ(const Command& c) {
    std::visit([&](const auto& n) { NodeJ(n, c); }, c.node);
    if (!c.redirs.empty()) RedirsJ(c.redirs);
    w_.EndObject();
  }

  // Each NodeJ opens the command's object and writes its own fields; CommandJ closes it.
  void NodeJ(const SimpleCommand& n, const Command& c) {
    Spanned("SimpleCommand", c.begin, c.end);
    if (!n.assigns.empty()) {
      w_.Key("assigns");
      w_.BeginArray();
      for (const Assignment& x : n.assigns)
        AssignJ(x);
      w_.EndArray();
    }
    WordsJ("words", n.words);
    if (!n.redirs.empty()) RedirsJ(n.redirs);
  }
  void NodeJ(const Subshell& n, const Command& c) {
    Spanned("Subshell", c.begin, c.end);
    KeyList("body", n.body);
  }
  void NodeJ(const Group& n, const Command& c) {
    Spanned("Group", c.begin, c.end);
    KeyList("body", n.body);
  }
  void NodeJ(const IfClause& n, const Command& c) {
    Spanned("If", c.begin, c.end);
    KeyList("cond", n.cond);
    KeyList("then", n.then_body);
    if (!n.elifs.empty()) {
      w_.Key("elifs");
      w_.BeginArray();
      for (const auto& e : n.elifs) {
        w_.BeginObject();
        KeyList("cond", e.cond);
        KeyList("then", e.body);
        w_.EndObject();
      }
      w_.EndArray();
    }
    if (n.else_body) KeyList("else", n.else_body);
  }
  void NodeJ(const ForClause& n, const Command& c) {
    Spanned(n.select ? "Select" : "For", c.begin, c.end);
    Str("name", n.name);
    Bool("has_in", n.has_in);
    WordsJ("items", n.items);
    KeyList("body", n.body);
  }
  void NodeJ(const ArithForClause& n, const Command& c) {
    Spanned("ArithFor", c.begin, c.end);
    w_.Key("init");
    ArithJ(n.init);
    w_.Key("cond");
    ArithJ(n.cond);
    w_.Key("step");
    ArithJ(n.step);
    KeyList("body", n.body);
  }
  void NodeJ(const WhileClause& n, const Command& c) {
    Spanned(n.until ? "Until" : "While", c.begin, c.end);
    KeyList("cond", n.cond);
    KeyList("body", n.body);
  }
  void NodeJ(const CaseClause& n, const Command& c) {
    Spanned("Case", c.begin, c.end);
    w_.Key("subject");
    WordJ(n.subject);
    w_.Key("items");
    w_.BeginArray();
    for (const CaseItem& it : n.items) {
      Node("CaseItem", it.begin);
      WordsJ("patterns", it.patterns);
      KeyList("body", it.body);
      Str("terminator", it.terminator);
      w_.EndObject();
    }
    w_.EndArray();
  }
  void NodeJ(const ArithCommand& n, const Command& c) {
    Spanned("ArithCommand", c.begin, c.end);
    w_.Key("arith");
    ArithJ(n.arith);
  }
  void NodeJ(const CondCommand& n, const Command& c) {
    Spanned("CondCommand", c.begin, c.end);
    w_.Key("expr");
    CondJ(*n.expr);
  }
  void NodeJ(const FunctionDef& n, const Command& c) {
    Spanned("FunctionDef", c.begin, c.end);
    Str("name", n.name);
    Bool("keyword", n.keyword);
    w_.Key("body");
    CommandJ(*n.body);
  }
  void NodeJ(const Coproc& n, const Command& c) {
    Spanned("Coproc", c.begin, c.end);
    Str("name", n.name);
    w_.Key("body");
    CommandJ(*n.body);
  }

  const Script& script_;
  std::string_view src_;
  util::JsonWriter w_;
};

// The text tree: one line per command, words shown as written, bodies and substitutions
// indented below the command that holds them.
class TreeWriter {
 public:
  TreeWriter(const Script& s, std::string_view src) : script_(s), src_(src) {}

  std::string out;

  void ListT(const List& l, int indent) {
    for (size_t i = 0; i < l.statements.size(); ++i) {
      const Statement& st = l.statements[i];
      for (size_t p = 0; p < st.body.pipelines.size(); ++p) {
        const Pipeline& pl = st.body.pipelines[p];
        std::string lead = p == 0 ? "" : st.body.ops[p - 1] == AndOrOp::kAnd ? "&& " : "|| ";
        if (pl.timed) lead += pl.time_posix ? "time -p " : "time ";
        if (pl.negated) lead += "! ";
        if (pl.commands.empty()) Line(indent, pl.begin, lead + "(empty command)");
        for (size_t c = 0; c < pl.commands.size(); ++c) {
          std::string conn = c == 0 ? lead : (pl.pipe_stderr[c - 1] ? "|& " : "| ");
          CommandT(pl.commands[c], indent, conn);
        }
      }
      if (st.background) Line(indent, st.begin, "& (runs in the background)");
    }
  }

 private:
  std::string Text(uint32_t b, uint32_t e) const {
    if (b > e || e > src_.size()) return "";
    std::string t(src_.substr(b, e - b));
    std::string shown;
    for (char c : t) {
      if (c == '\n') {
        shown += "\\n";
      } else if (c == '\r') {
        shown += "\\r";
      } else if (c == '\t') {
        shown += "\\t";
      } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(c));
        shown += buf;
      } else {
        shown += c;
      }
    }
    return shown;
  }

  void Line(int indent, uint32_t pos, const std::string& text) {
    Position p = script_.At(pos);
    out += std::string(static_cast<size_t>(indent) * 2, ' ') + std::to_string(p.line) + ":" +
           std::to_string(p.col) + "  " + text + "\n";
  }

  std::string WordT(const Word& w) const { return Text(w.begin, w.end); }

  std::string RedirT(const Redirect& r) const {
    std::string t = Text(r.begin, r.end);
    if (r.heredoc)
      t += " (here-document, " + std::string(r.heredoc->quoted ? "literal" : "expanded") + ")";
    return t;
  }

  // Substitutions inside a word, each with the script it runs.
  void Substitutions(const ArenaVec<Part>& parts, int indent) {
    for (const Part& p : parts) {
      if (p.kind == PartKind::kCmdSubst || p.kind == PartKind::kProcSubst) {
        const char* what = p.kind == PartKind::kProcSubst ? "process substitution"
                           : p.backquote                  ? "command substitution `...`"
                                                          : "command substitution $(...)";
        Line(indent, p.begin, what);
        if (p.body) ListT(*p.body, indent + 1);
      }
      Substitutions(p.parts, indent);
      for (const Word& w : p.words)
        Substitutions(w.parts, indent);
      if (p.param) {
        if (p.param->index) Substitutions(p.param->index->parts, indent);
        if (p.param->operand) Substitutions(p.param->operand->parts, indent);
        if (p.param->replacement) Substitutions(p.param->replacement->parts, indent);
        if (p.param->arith) ArithSubs(p.param->arith->expr, indent);
        if (p.param->arith2) ArithSubs(p.param->arith2->expr, indent);
      }
      if (p.arith) ArithSubs(p.arith->expr, indent);
    }
  }

  void ArithSubs(const ArithExpr* e, int indent) {
    if (e == nullptr) return;
    if (e->word) Substitutions(e->word->parts, indent);
    ArithSubs(e->index, indent);
    ArithSubs(e->a, indent);
    ArithSubs(e->b, indent);
    ArithSubs(e->c, indent);
  }

  void WordsSubs(const ArenaVec<Word>& ws, int indent) {
    for (const Word& w : ws)
      Substitutions(w.parts, indent);
  }

  void RedirsSubs(const ArenaVec<Redirect>& rs, int indent) {
    for (const Redirect& r : rs) {
      Substitutions(r.target.parts, indent);
      if (r.heredoc) Substitutions(r.heredoc->body.parts, indent);
    }
  }

  void Section(const char* label, const List* l, int indent, uint32_t pos) {
    if (l == nullptr) return;
    Line(indent, pos, label);
    ListT(*l, indent + 1);
  }

  std::string Redirs(const ArenaVec<Redirect>& rs) const {
    std::string t;
    for (const Redirect& r : rs)
      t += "  " + RedirT(r);
    return t;
  }

  void CommandT(const Command& c, int indent, const std::string& lead) {
    std::visit([&](const auto& n) { NodeT(n, c, indent, lead); }, c.node);
    RedirsSubs(c.redirs, indent + 1);
  }

  void NodeT(const SimpleCommand& n, const Command& c, int indent, const std::string& lead) {
    std::string t = lead + "command:";
    for (const Assignment& a : n.assigns)
      t += "  " + Text(a.begin, a.end);
    for (const Word& w : n.words)
      t += "  " + WordT(w);
    t += Redirs(n.redirs);
    Line(indent, c.begin, t);
    for (const Assignment& a : n.assigns) {
      if (a.index) Substitutions(a.index->parts, indent + 1);
      Substitutions(a.value.parts, indent + 1);
    }
    WordsSubs(n.words, indent + 1);
    RedirsSubs(n.redirs, indent + 1);
  }
  void NodeT(const Subshell& n, const Command& c, int indent, const std::string& lead) {
    Line(indent, c.begin, lead + "subshell ( ... )" + Redirs(c.redirs));
    if (n.body) ListT(*n.body, indent + 1);
  }
  void NodeT(const Group& n, const Command& c, int indent, const std::string& lead) {
    Line(indent, c.begin, lead + "group { ... }" + Redirs(c.redirs));
    if (n.body) ListT(*n.body, indent + 1);
  }
  void NodeT(const IfClause& n, const Command& c, int indent, const std::string& lead) {
    Line(indent, c.begin, lead + "if" + Redirs(c.redirs));
    Section("condition", n.cond, indent + 1, c.begin);
    Section("then", n.then_body, indent + 1, c.begin);
    for (const auto& e : n.elifs) {
      Section("elif", e.cond, indent + 1, c.begin);
      Section("then", e.body, indent + 1, c.begin);
    }
    Section("else", n.else_body, indent + 1, c.begin);
  }
  void NodeT(const ForClause& n, const Command& c, int indent, const std::string& lead) {
    std::string t = lead + (n.select ? "select " : "for ") + std::string(n.name);
    if (n.has_in) {
      t += " in";
      for (const Word& w : n.items)
        t += "  " + WordT(w);
    } else {
      t += " (over \"$@\")";
    }
    Line(indent, c.begin, t + Redirs(c.redirs));
    WordsSubs(n.items, indent + 1);
    Section("do", n.body, indent + 1, c.begin);
  }
  void NodeT(const ArithForClause& n, const Command& c, int indent, const std::string& lead) {
    Line(indent, c.begin,
         lead + "for ((" + Text(n.init.begin, n.init.end) + ";" + Text(n.cond.begin, n.cond.end) +
             ";" + Text(n.step.begin, n.step.end) + "))" + Redirs(c.redirs));
    ArithSubs(n.init.expr, indent + 1);
    ArithSubs(n.cond.expr, indent + 1);
    ArithSubs(n.step.expr, indent + 1);
    Section("do", n.body, indent + 1, c.begin);
  }
  void NodeT(const WhileClause& n, const Command& c, int indent, const std::string& lead) {
    Line(indent, c.begin, lead + (n.until ? "until" : "while") + Redirs(c.redirs));
    Section("condition", n.cond, indent + 1, c.begin);
    Section("do", n.body, indent + 1, c.begin);
  }
  void NodeT(const CaseClause& n, const Command& c, int indent, const std::string& lead) {
    Line(indent, c.begin, lead + "case  " + WordT(n.subject) + Redirs(c.redirs));
    Substitutions(n.subject.parts, indent + 1);
    for (const CaseItem& it : n.items) {
      std::string pats;
      for (size_t i = 0; i < it.patterns.size(); ++i)
        pats += (i ? " | " : "") + WordT(it.patterns[i]);
      Line(indent + 1, it.begin,
           "pattern  " + pats + (it.terminator.empty() ? "" : "  " + std::string(it.terminator)));
      WordsSubs(it.patterns, indent + 2);
      if (it.body) ListT(*it.body, indent + 2);
    }
  }
  void NodeT(const ArithCommand& n, const Command& c, int indent, const std::string& lead) {
    Line(indent, c.begin, lead + "arithmetic  " + Text(c.begin, c.end));
    ArithSubs(n.arith.expr, indent + 1);
  }
  void NodeT(const CondCommand& n, const Command& c, int indent, const std::string& lead) {
    Line(indent, c.begin, lead + "conditional  " + Text(c.begin, c.end));
    CondSubs(n.expr, indent + 1);
  }
  void CondSubs(const CondExpr* e, int indent) {
    if (e == nullptr) return;
    Substitutions(e->word.parts, indent);
    Substitutions(e->word2.parts, indent);
    CondSubs(e->left, indent);
    CondSubs(e->right, indent);
  }
  void NodeT(const FunctionDef& n, const Command& c, int indent, const std::string& lead) {
    Line(indent, c.begin,
         lead + "function " + std::string(n.name) + " (defined here, runs when called)");
    CommandT(*n.body, indent + 1, "");
  }
  void NodeT(const Coproc& n, const Command& c, int indent, const std::string& lead) {
    Line(indent, c.begin, lead + "coproc " + std::string(n.name));
    CommandT(*n.body, indent + 1, "");
  }

  const Script& script_;
  std::string_view src_;
};

}  // namespace

std::string ToJson(const Script& script, std::string_view source) {
  std::string out;
  // The JSON is about 15 times the size of the script it describes.
  out.reserve(source.size() * 16);
  JsonTree(script, source, &out).ScriptJ();
  return out;
}

std::string ToTree(const Script& script, std::string_view source) {
  TreeWriter w(script, source);
  w.ListT(script.body, 0);
  return w.out;
}

}  // namespace safesh::shell
