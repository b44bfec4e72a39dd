#include "shell/ast_json.h"

#include <cstdio>
#include <variant>

namespace safesh::shell {

using json = nlohmann::ordered_json;

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

class Writer {
 public:
  Writer(const Script& s, std::string_view src) : script_(s), src_(src) {}

  json Pos(uint32_t off) const {
    Position p = script_.At(off);
    return json::array({p.line, p.col});
  }

  std::string Text(uint32_t b, uint32_t e) const {
    if (b > e || e > src_.size()) return "";
    return std::string(src_.substr(b, e - b));
  }

  json Node(const char* type, uint32_t begin) const {
    json j;
    j["type"] = type;
    j["pos"] = Pos(begin);
    return j;
  }

  json Spanned(const char* type, uint32_t begin, uint32_t end) const {
    json j = Node(type, begin);
    j["end"] = Pos(end);
    j["text"] = Text(begin, end);
    return j;
  }

  json WordJ(const Word& w) const {
    json j = Spanned("Word", w.begin, w.end);
    json parts = json::array();
    for (const Part& p : w.parts)
      parts.push_back(PartJ(p));
    j["parts"] = std::move(parts);
    return j;
  }

  json Words(const std::vector<Word>& ws) const {
    json a = json::array();
    for (const Word& w : ws)
      a.push_back(WordJ(w));
    return a;
  }

  json PartJ(const Part& p) const {
    json j = Node(PartKindName(p.kind), p.begin);
    j["end"] = Pos(p.end);
    switch (p.kind) {
      case PartKind::kLit:
      case PartKind::kEscaped:
      case PartKind::kSingleQuoted:
      case PartKind::kAnsiC:
      case PartKind::kGlob:
      case PartKind::kBraceRange:
        j["value"] = p.text;
        break;
      case PartKind::kTilde:
        j["user"] = p.text;
        break;
      case PartKind::kDoubleQuoted:
      case PartKind::kLocale:
      case PartKind::kSubscript:
      case PartKind::kRegexGroup: {
        json parts = json::array();
        for (const Part& q : p.parts)
          parts.push_back(PartJ(q));
        j["parts"] = std::move(parts);
        break;
      }
      case PartKind::kExtGlob: {
        j["op"] = p.text;
        json parts = json::array();
        for (const Part& q : p.parts)
          parts.push_back(PartJ(q));
        j["parts"] = std::move(parts);
        break;
      }
      case PartKind::kParam:
        j["param"] = ParamJ(*p.param);
        break;
      case PartKind::kCmdSubst:
        j["backquote"] = p.backquote;
        j["body"] = ListJ(p.body.get());
        break;
      case PartKind::kProcSubst:
        j["direction"] = p.text;
        j["body"] = ListJ(p.body.get());
        break;
      case PartKind::kArith:
        j["arith"] = ArithJ(*p.arith);
        break;
      case PartKind::kBrace:
      case PartKind::kArrayLit:
        j["words"] = Words(p.words);
        break;
    }
    return j;
  }

  json ParamJ(const ParamExp& pe) const {
    json j = Spanned("ParamExp", pe.begin, pe.end);
    j["name"] = pe.name;
    j["braced"] = pe.braced;
    if (pe.indirect) j["indirect"] = true;
    if (pe.index) j["index"] = WordJ(*pe.index);
    j["op"] = ParamOpName(pe.op);
    if (!pe.op_text.empty()) j["op_text"] = pe.op_text;
    if (pe.operand) j["operand"] = WordJ(*pe.operand);
    if (pe.replacement) j["replacement"] = WordJ(*pe.replacement);
    if (pe.arith) j["offset"] = ArithJ(*pe.arith);
    if (pe.arith2) j["length"] = ArithJ(*pe.arith2);
    return j;
  }

  json ArithJ(const Arith& a) const {
    json j = Spanned("Arithmetic", a.begin, a.end);
    j["expr"] = a.expr ? ExprJ(*a.expr) : json(nullptr);
    return j;
  }

  json ExprJ(const ArithExpr& e) const {
    json j = Node(ArithKindName(e.kind), e.begin);
    j["end"] = Pos(e.end);
    if (!e.op.empty()) j["op"] = e.op;
    if (!e.text.empty()) j["value"] = e.text;
    if (e.word) j["word"] = WordJ(*e.word);
    if (e.index) j["index"] = ExprJ(*e.index);
    if (e.a) j[e.kind == ArithKind::kTernary ? "cond" : e.b ? "left" : "operand"] = ExprJ(*e.a);
    if (e.b) j[e.kind == ArithKind::kTernary ? "then" : "right"] = ExprJ(*e.b);
    if (e.c) j["else"] = ExprJ(*e.c);
    return j;
  }

  json RedirJ(const Redirect& r) const {
    json j = Spanned("Redirect", r.begin, r.end);
    j["op"] = RedirOpText(r.op);
    if (r.fd >= 0) j["fd"] = r.fd;
    if (!r.fd_var.empty()) j["fd_var"] = r.fd_var;
    if (r.close) {
      j["close"] = true;
    } else {
      j["target"] = WordJ(r.target);
    }
    if (r.heredoc) {
      const Heredoc& h = *r.heredoc;
      json hd;
      hd["delimiter"] = h.delimiter;
      hd["quoted"] = h.quoted;
      hd["strip_tabs"] = h.strip_tabs;
      hd["terminated"] = h.terminated;
      hd["body"] = WordJ(h.body);
      j["heredoc"] = std::move(hd);
    }
    return j;
  }

  json Redirs(const std::vector<Redirect>& rs) const {
    json a = json::array();
    for (const Redirect& r : rs)
      a.push_back(RedirJ(r));
    return a;
  }

  json AssignJ(const Assignment& a) const {
    json j = Spanned("Assignment", a.begin, a.end);
    j["name"] = a.name;
    if (a.index) j["index"] = WordJ(*a.index);
    j["append"] = a.append;
    j["value"] = WordJ(a.value);
    return j;
  }

  json CondJ(const CondExpr& c) const {
    json j = Node(CondKindName(c.kind), c.begin);
    if (!c.op.empty()) j["op"] = c.op;
    if (c.left) j["left"] = CondJ(*c.left);
    if (c.right) j["right"] = CondJ(*c.right);
    if (c.kind == CondKind::kWord || c.kind == CondKind::kUnary || c.kind == CondKind::kBinary) {
      j["word"] = WordJ(c.word);
    }
    if (c.kind == CondKind::kBinary) j["word2"] = WordJ(c.word2);
    return j;
  }

  json ListJ(const List* l) const {
    json a = json::array();
    if (l == nullptr) return a;
    for (const Statement& s : l->statements)
      a.push_back(StatementJ(s));
    return a;
  }

  json StatementJ(const Statement& s) const {
    json j = Node("Statement", s.begin);
    j["background"] = s.background;
    json pipes = json::array();
    for (const Pipeline& p : s.body.pipelines)
      pipes.push_back(PipelineJ(p));
    j["pipelines"] = std::move(pipes);
    json ops = json::array();
    for (AndOrOp op : s.body.ops)
      ops.push_back(op == AndOrOp::kAnd ? "&&" : "||");
    j["ops"] = std::move(ops);
    return j;
  }

  json PipelineJ(const Pipeline& p) const {
    json j = Node("Pipeline", p.begin);
    if (p.negated) j["negated"] = true;
    if (p.timed) j["timed"] = true;
    if (p.time_posix) j["time_posix"] = true;
    json cmds = json::array();
    for (const Command& c : p.commands)
      cmds.push_back(CommandJ(c));
    j["commands"] = std::move(cmds);
    if (!p.pipe_stderr.empty()) {
      json ps = json::array();
      for (bool b : p.pipe_stderr)
        ps.push_back(b ? "|&" : "|");
      j["pipes"] = std::move(ps);
    }
    return j;
  }

  json CommandJ(const Command& c) const {
    json j;
    std::visit([&](const auto& n) { j = NodeJ(n, c); }, c.node);
    if (!c.redirs.empty()) j["redirects"] = Redirs(c.redirs);
    return j;
  }

  json NodeJ(const SimpleCommand& n, const Command& c) const {
    json j = Spanned("SimpleCommand", c.begin, c.end);
    if (!n.assigns.empty()) {
      json a = json::array();
      for (const Assignment& x : n.assigns)
        a.push_back(AssignJ(x));
      j["assigns"] = std::move(a);
    }
    j["words"] = Words(n.words);
    if (!n.redirs.empty()) j["redirects"] = Redirs(n.redirs);
    return j;
  }
  json NodeJ(const Subshell& n, const Command& c) const {
    json j = Spanned("Subshell", c.begin, c.end);
    j["body"] = ListJ(n.body.get());
    return j;
  }
  json NodeJ(const Group& n, const Command& c) const {
    json j = Spanned("Group", c.begin, c.end);
    j["body"] = ListJ(n.body.get());
    return j;
  }
  json NodeJ(const IfClause& n, const Command& c) const {
    json j = Spanned("If", c.begin, c.end);
    j["cond"] = ListJ(n.cond.get());
    j["then"] = ListJ(n.then_body.get());
    json elifs = json::array();
    for (const auto& e : n.elifs) {
      elifs.push_back(json{{"cond", ListJ(e.cond.get())}, {"then", ListJ(e.body.get())}});
    }
    if (!elifs.empty()) j["elifs"] = std::move(elifs);
    if (n.else_body) j["else"] = ListJ(n.else_body.get());
    return j;
  }
  json NodeJ(const ForClause& n, const Command& c) const {
    json j = Spanned(n.select ? "Select" : "For", c.begin, c.end);
    j["name"] = n.name;
    j["has_in"] = n.has_in;
    j["items"] = Words(n.items);
    j["body"] = ListJ(n.body.get());
    return j;
  }
  json NodeJ(const ArithForClause& n, const Command& c) const {
    json j = Spanned("ArithFor", c.begin, c.end);
    j["init"] = ArithJ(n.init);
    j["cond"] = ArithJ(n.cond);
    j["step"] = ArithJ(n.step);
    j["body"] = ListJ(n.body.get());
    return j;
  }
  json NodeJ(const WhileClause& n, const Command& c) const {
    json j = Spanned(n.until ? "Until" : "While", c.begin, c.end);
    j["cond"] = ListJ(n.cond.get());
    j["body"] = ListJ(n.body.get());
    return j;
  }
  json NodeJ(const CaseClause& n, const Command& c) const {
    json j = Spanned("Case", c.begin, c.end);
    j["subject"] = WordJ(n.subject);
    json items = json::array();
    for (const CaseItem& it : n.items) {
      json ij = Node("CaseItem", it.begin);
      ij["patterns"] = Words(it.patterns);
      ij["body"] = ListJ(it.body.get());
      ij["terminator"] = it.terminator;
      items.push_back(std::move(ij));
    }
    j["items"] = std::move(items);
    return j;
  }
  json NodeJ(const ArithCommand& n, const Command& c) const {
    json j = Spanned("ArithCommand", c.begin, c.end);
    j["arith"] = ArithJ(n.arith);
    return j;
  }
  json NodeJ(const CondCommand& n, const Command& c) const {
    json j = Spanned("CondCommand", c.begin, c.end);
    j["expr"] = CondJ(*n.expr);
    return j;
  }
  json NodeJ(const FunctionDef& n, const Command& c) const {
    json j = Spanned("FunctionDef", c.begin, c.end);
    j["name"] = n.name;
    j["keyword"] = n.keyword;
    j["body"] = CommandJ(*n.body);
    return j;
  }
  json NodeJ(const Coproc& n, const Command& c) const {
    json j = Spanned("Coproc", c.begin, c.end);
    j["name"] = n.name;
    j["body"] = CommandJ(*n.body);
    return j;
  }

 private:
  const Script& script_;
  std::string_view src_;
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
  void Substitutions(const std::vector<Part>& parts, int indent) {
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
        if (p.param->arith) ArithSubs(p.param->arith->expr.get(), indent);
        if (p.param->arith2) ArithSubs(p.param->arith2->expr.get(), indent);
      }
      if (p.arith) ArithSubs(p.arith->expr.get(), indent);
    }
  }

  void ArithSubs(const ArithExpr* e, int indent) {
    if (e == nullptr) return;
    if (e->word) Substitutions(e->word->parts, indent);
    ArithSubs(e->index.get(), indent);
    ArithSubs(e->a.get(), indent);
    ArithSubs(e->b.get(), indent);
    ArithSubs(e->c.get(), indent);
  }

  void WordsSubs(const std::vector<Word>& ws, int indent) {
    for (const Word& w : ws)
      Substitutions(w.parts, indent);
  }

  void RedirsSubs(const std::vector<Redirect>& rs, int indent) {
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

  std::string Redirs(const std::vector<Redirect>& rs) const {
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
    Section("condition", n.cond.get(), indent + 1, c.begin);
    Section("then", n.then_body.get(), indent + 1, c.begin);
    for (const auto& e : n.elifs) {
      Section("elif", e.cond.get(), indent + 1, c.begin);
      Section("then", e.body.get(), indent + 1, c.begin);
    }
    Section("else", n.else_body.get(), indent + 1, c.begin);
  }
  void NodeT(const ForClause& n, const Command& c, int indent, const std::string& lead) {
    std::string t = lead + (n.select ? "select " : "for ") + n.name;
    if (n.has_in) {
      t += " in";
      for (const Word& w : n.items)
        t += "  " + WordT(w);
    } else {
      t += " (over \"$@\")";
    }
    Line(indent, c.begin, t + Redirs(c.redirs));
    WordsSubs(n.items, indent + 1);
    Section("do", n.body.get(), indent + 1, c.begin);
  }
  void NodeT(const ArithForClause& n, const Command& c, int indent, const std::string& lead) {
    Line(indent, c.begin,
         lead + "for ((" + Text(n.init.begin, n.init.end) + ";" + Text(n.cond.begin, n.cond.end) +
             ";" + Text(n.step.begin, n.step.end) + "))" + Redirs(c.redirs));
    ArithSubs(n.init.expr.get(), indent + 1);
    ArithSubs(n.cond.expr.get(), indent + 1);
    ArithSubs(n.step.expr.get(), indent + 1);
    Section("do", n.body.get(), indent + 1, c.begin);
  }
  void NodeT(const WhileClause& n, const Command& c, int indent, const std::string& lead) {
    Line(indent, c.begin, lead + (n.until ? "until" : "while") + Redirs(c.redirs));
    Section("condition", n.cond.get(), indent + 1, c.begin);
    Section("do", n.body.get(), indent + 1, c.begin);
  }
  void NodeT(const CaseClause& n, const Command& c, int indent, const std::string& lead) {
    Line(indent, c.begin, lead + "case  " + WordT(n.subject) + Redirs(c.redirs));
    Substitutions(n.subject.parts, indent + 1);
    for (const CaseItem& it : n.items) {
      std::string pats;
      for (size_t i = 0; i < it.patterns.size(); ++i)
        pats += (i ? " | " : "") + WordT(it.patterns[i]);
      Line(indent + 1, it.begin,
           "pattern  " + pats + (it.terminator.empty() ? "" : "  " + it.terminator));
      WordsSubs(it.patterns, indent + 2);
      if (it.body) ListT(*it.body, indent + 2);
    }
  }
  void NodeT(const ArithCommand& n, const Command& c, int indent, const std::string& lead) {
    Line(indent, c.begin, lead + "arithmetic  " + Text(c.begin, c.end));
    ArithSubs(n.arith.expr.get(), indent + 1);
  }
  void NodeT(const CondCommand& n, const Command& c, int indent, const std::string& lead) {
    Line(indent, c.begin, lead + "conditional  " + Text(c.begin, c.end));
    CondSubs(n.expr.get(), indent + 1);
  }
  void CondSubs(const CondExpr* e, int indent) {
    if (e == nullptr) return;
    Substitutions(e->word.parts, indent);
    Substitutions(e->word2.parts, indent);
    CondSubs(e->left.get(), indent);
    CondSubs(e->right.get(), indent);
  }
  void NodeT(const FunctionDef& n, const Command& c, int indent, const std::string& lead) {
    Line(indent, c.begin, lead + "function " + n.name + " (defined here, runs when called)");
    CommandT(*n.body, indent + 1, "");
  }
  void NodeT(const Coproc& n, const Command& c, int indent, const std::string& lead) {
    Line(indent, c.begin, lead + "coproc " + n.name);
    CommandT(*n.body, indent + 1, "");
  }

  const Script& script_;
  std::string_view src_;
};

}  // namespace

json ToJson(const Script& script, std::string_view source) {
  Writer w(script, source);
  json j;
  j["type"] = "Script";
  j["body"] = w.ListJ(&script.body);
  json comments = json::array();
  for (const Comment& c : script.comments) {
    comments.push_back(json{{"pos", w.Pos(c.begin)}, {"text", c.text}});
  }
  j["comments"] = std::move(comments);
  return j;
}

std::string ToTree(const Script& script, std::string_view source) {
  TreeWriter w(script, source);
  w.ListT(script.body, 0);
  return w.out;
}

}  // namespace safesh::shell
