// The syntax-tree half of the walk: everything in a script that executes or evaluates.
#include <algorithm>

#include "policy/extractor.h"

namespace safesh::policy {

using internal::Extractor;
using internal::Frame;

const char* RoleName(Role role) {
  switch (role) {
    case Role::kCommand:
      return "command";
    case Role::kWrapper:
      return "wrapper";
    case Role::kShell:
      return "shell";
    case Role::kLookup:
      return "lookup";
  }
  return "command";
}

bool CommandUse::IsStatic() const {
  for (const Arg& a : argv) {
    if (!a.is_static) return false;
  }
  return true;
}

namespace internal {
namespace {

bool IsNetworkPath(std::string_view s) {
  return s.rfind("/dev/tcp/", 0) == 0 || s.rfind("/dev/udp/", 0) == 0;
}

// Write targets that are not files: writing to them changes nothing on disk.
bool IsHarmlessTarget(std::string_view s) {
  return s == "/dev/null" || s == "/dev/tty";
}

// Names that reopen the file behind descriptor 1 or 2: harmless while those are the output the
// command line was given.
bool IsStdOutputName(std::string_view s) {
  return s == "/dev/stdout" || s == "/dev/stderr" || s == "/dev/fd/1" || s == "/dev/fd/2";
}

bool IsDescriptor(std::string_view s) {
  if (!s.empty() && s.back() == '-') s.remove_suffix(1);  // >&3- moves the descriptor
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

const char* RedirText(shell::RedirOp op) {
  switch (op) {
    case shell::RedirOp::kIn:
      return "<";
    case shell::RedirOp::kOut:
      return ">";
    case shell::RedirOp::kAppend:
      return ">>";
    case shell::RedirOp::kClobber:
      return ">|";
    case shell::RedirOp::kInOut:
      return "<>";
    case shell::RedirOp::kOutErr:
      return "&>";
    case shell::RedirOp::kAppendOutErr:
      return "&>>";
    case shell::RedirOp::kDupIn:
      return "<&";
    case shell::RedirOp::kDupOut:
      return ">&";
    case shell::RedirOp::kHeredoc:
      return "<<";
    case shell::RedirOp::kHeredocStrip:
      return "<<-";
    case shell::RedirOp::kHereString:
      return "<<<";
  }
  return "?";
}

bool IsArithComparison(std::string_view op) {
  return op == "-eq" || op == "-ne" || op == "-lt" || op == "-le" || op == "-gt" || op == "-ge";
}

}  // namespace

void Extractor::Unverified(const Frame& f, std::string subject, std::string reason) {
  for (const Finding& x : out.unverified) {
    if (x.subject == subject && x.reason == reason) return;
  }
  out.unverified.push_back({std::move(subject), std::move(reason), f.here});
}

void Extractor::Runtime(const Frame& f, std::string subject, std::string reason) {
  for (const Finding& x : out.runtime) {
    if (x.subject == subject && x.reason == reason) return;
  }
  out.runtime.push_back({std::move(subject), std::move(reason), f.here});
}

void Extractor::Network(const Frame& f, std::string subject, std::string reason) {
  out.network.push_back({std::move(subject), std::move(reason), f.here});
}

void Extractor::AddWrite(const Frame& f, std::string target, bool is_static, std::string how) {
  out.writes.push_back({std::move(target), is_static, std::move(how), f.here});
}

void Extractor::Script(std::string_view text, const Frame& frame, const std::string& subject) {
  if (frame.depth > options_.max_depth) {
    Unverified(frame, subject,
               "scripts nested more than " + std::to_string(options_.max_depth) +
                   " levels deep are not followed");
    return;
  }
  auto script = std::make_shared<shell::Script>();
  shell::ParseResult r = shell::Parse(text);
  if (!r.ok()) {
    out.unparsed.emplace_back(text);
    if (frame.depth == 0) {
      out.parse_error = r.error;
    } else {
      Unverified(frame, subject, "its script does not parse as bash: " + r.error->ToString());
    }
    return;
  }
  *script = std::move(r.script);
  nested_.push_back(script);
  Frame f = frame;
  f.script = script.get();
  f.source = script->source;
  List(&script->body, f);
}

void Extractor::List(const shell::List* list, const Frame& f) {
  if (list == nullptr) return;
  for (const shell::Statement& st : list->statements) {
    for (const shell::Pipeline& p : st.body.pipelines) {
      if (f.posix_sh &&
          std::find(p.pipe_stderr.begin(), p.pipe_stderr.end(), true) != p.pipe_stderr.end()) {
        NotPosix(f, "|&");
      }
      for (const shell::Command& c : p.commands)
        Command(c, f);
    }
  }
}

void Extractor::Command(const shell::Command& c, const Frame& frame) {
  Frame f = frame;
  f.here = f.Pos(c.begin);
  if (f.posix_sh) {
    std::visit(
        [&](const auto& n) {
          using T = std::decay_t<decltype(n)>;
          if constexpr (std::is_same_v<T, shell::CondCommand>) {
            NotPosix(f, "[[ ... ]]");
          } else if constexpr (std::is_same_v<T, shell::ArithCommand> ||
                               std::is_same_v<T, shell::ArithForClause>) {
            NotPosix(f, "(( ... ))");
          } else if constexpr (std::is_same_v<T, shell::Coproc>) {
            NotPosix(f, "coproc");
          } else if constexpr (std::is_same_v<T, shell::ForClause>) {
            if (n.select) NotPosix(f, "select");
          } else if constexpr (std::is_same_v<T, shell::FunctionDef>) {
            if (n.keyword) NotPosix(f, "function");
          } else if constexpr (std::is_same_v<T, shell::CaseClause>) {
            for (const shell::CaseItem& it : n.items) {
              if (it.terminator == ";&" || it.terminator == ";;&") NotPosix(f, it.terminator);
            }
          }
        },
        c.node);
  }
  std::visit(
      [&](const auto& n) {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, shell::SimpleCommand>) {
          for (const shell::Assignment& a : n.assigns)
            Assignment(a, f, /*persists=*/n.words.empty());
          Words(n.words, f);
          for (const shell::Redirect& r : n.redirs)
            Redirect(r, f);
          Argv argv = EvaluateWords(n.words, f.source);
          if (!argv.empty()) Run(argv, f, f.here);
        } else if constexpr (std::is_same_v<T, shell::Subshell> ||
                             std::is_same_v<T, shell::Group>) {
          List(n.body, f);
        } else if constexpr (std::is_same_v<T, shell::IfClause>) {
          List(n.cond, f);
          List(n.then_body, f);
          for (const auto& e : n.elifs) {
            List(e.cond, f);
            List(e.body, f);
          }
          List(n.else_body, f);
        } else if constexpr (std::is_same_v<T, shell::ForClause>) {
          Words(n.items, f);
          // The loop variable is assigned each item (`for PATH in /tmp/evil').
          std::string subject = std::string(n.select ? "select " : "for ") + std::string(n.name);
          Argv items = EvaluateWords(n.items, f.source);
          bool each_static = n.has_in;
          for (const Arg& a : items) {
            if (a.is_static) {
              Variable(f, n.name, &a.text, subject);
            } else {
              each_static = false;
            }
          }
          if (!each_static) Variable(f, n.name, nullptr, subject);
          List(n.body, f);
        } else if constexpr (std::is_same_v<T, shell::ArithForClause>) {
          Arith(&n.init, f);
          Arith(&n.cond, f);
          Arith(&n.step, f);
          List(n.body, f);
        } else if constexpr (std::is_same_v<T, shell::WhileClause>) {
          List(n.cond, f);
          List(n.body, f);
        } else if constexpr (std::is_same_v<T, shell::CaseClause>) {
          Word(n.subject, f);
          for (const shell::CaseItem& it : n.items) {
            Words(it.patterns, f);
            List(it.body, f);
          }
        } else if constexpr (std::is_same_v<T, shell::ArithCommand>) {
          Arith(&n.arith, f);
        } else if constexpr (std::is_same_v<T, shell::CondCommand>) {
          Cond(n.expr, f);
        } else if constexpr (std::is_same_v<T, shell::FunctionDef>) {
          // The body runs whenever the function is called: it is judged like any other code.
          if (n.body) Command(*n.body, f);
        } else if constexpr (std::is_same_v<T, shell::Coproc>) {
          // The coprocess's descriptors are stored in an array of that name (`coproc PATH').
          Assigned(f, n.name, "coproc " + std::string(n.name));
          if (n.body) Command(*n.body, f);
        }
      },
      c.node);
  for (const shell::Redirect& r : c.redirs)
    Redirect(r, f);
}

void Extractor::Words(const shell::ArenaVec<shell::Word>& words, const Frame& f) {
  for (const shell::Word& w : words)
    Word(w, f);
}

void Extractor::Word(const shell::Word& w, const Frame& f) {
  Parts(w.parts, f);
}

void Extractor::Parts(const shell::ArenaVec<shell::Part>& parts, const Frame& f) {
  using shell::PartKind;
  for (const shell::Part& p : parts) {
    if (f.posix_sh) PosixPart(p, f);
    switch (p.kind) {
      case PartKind::kDoubleQuoted:
      case PartKind::kLocale:
      case PartKind::kSubscript:
      case PartKind::kRegexGroup:
      case PartKind::kExtGlob:
        Parts(p.parts, f);
        break;
      case PartKind::kCmdSubst:
      case PartKind::kProcSubst:
        List(p.body, f);
        break;
      case PartKind::kArith:
        Arith(p.arith, f);
        break;
      case PartKind::kBrace:
      case PartKind::kArrayLit:
        Words(p.words, f);
        break;
      case PartKind::kParam: {
        const shell::ParamExp& pe = *p.param;
        std::string text(f.source.substr(pe.begin, pe.end - pe.begin));
        if (pe.index) {
          Word(*pe.index, f);
          WordValue iv = EvaluateWord(*pe.index, f.source);
          // The subscript is evaluated as arithmetic: a quoted $(...) in it still runs.
          if (iv.is_static && iv.values.size() == 1) ArithText(iv.values[0], f, text);
        }
        if (pe.operand) Word(*pe.operand, f);
        if (pe.replacement) Word(*pe.replacement, f);
        Arith(pe.arith, f);
        Arith(pe.arith2, f);
        // ${NAME:=value} assigns when NAME is unset or empty.
        if (pe.op == shell::ParamOp::kAssign && !pe.indirect) Assigned(f, pe.name, text);
        if (pe.op == shell::ParamOp::kTransform && pe.op_text == "P") {
          Unverified(f, text,
                     "${...@P} expands the value as a prompt string, which can run commands");
        }
        if (pe.indirect && pe.op != shell::ParamOp::kNamesPrefix &&
            pe.op != shell::ParamOp::kKeys) {
          Runtime(f, text,
                  "${!name} uses a value as a variable name; a subscript in it can run commands");
        }
        break;
      }
      default:
        break;
    }
  }
}

void Extractor::PosixPart(const shell::Part& p, const Frame& f) {
  using shell::PartKind;
  switch (p.kind) {
    case PartKind::kAnsiC:
      NotPosix(f, "$'...'");
      return;
    case PartKind::kLocale:
      NotPosix(f, "$\"...\"");
      return;
    case PartKind::kProcSubst:
      NotPosix(f, "process substitution");
      return;
    case PartKind::kExtGlob:
    case PartKind::kRegexGroup:
      NotPosix(f, "an extended glob");
      return;
    case PartKind::kBrace:
    case PartKind::kBraceRange:
      NotPosix(f, "brace expansion");
      return;
    case PartKind::kArrayLit:
    case PartKind::kSubscript:
      NotPosix(f, "an array");
      return;
    case PartKind::kArith:
      if (f.source.substr(p.begin, 2) == "$[") NotPosix(f, "$[...]");
      return;
    case PartKind::kParam: {
      const shell::ParamExp& pe = *p.param;
      std::string_view text = f.source.substr(pe.begin, pe.end - pe.begin);
      // Inside double quotes, bash matches single quotes in ${...} and dash does not: the two
      // end the expansion at different braces.
      if (text.find('\'') != std::string_view::npos) NotPosix(f, "a quote inside ${...}");
      using shell::ParamOp;
      if (pe.indirect || pe.index != nullptr || pe.op == ParamOp::kSubstring ||
          pe.op == ParamOp::kReplace || pe.op == ParamOp::kUpper || pe.op == ParamOp::kLower ||
          pe.op == ParamOp::kTransform || pe.op == ParamOp::kNamesPrefix ||
          pe.op == ParamOp::kKeys) {
        NotPosix(f, std::string(text));
      }
      return;
    }
    default:
      return;
  }
}

void Extractor::Arith(const shell::Arith* a, const Frame& f) {
  if (a != nullptr && a->expr != nullptr) ArithExpr(a->expr, f);
}

void Extractor::ArithExpr(const shell::ArithExpr* e, const Frame& f) {
  if (e == nullptr) return;
  // The parser reads `1+1+...+1' in a loop into a tree as deep as the expression is long; this
  // walk recurses, so its depth is bounded, or a long enough expression overflows the stack.
  constexpr int kMaxArithDepth = 1000;
  struct Depth {
    int& d;
    explicit Depth(int& depth) : d(++depth) {}
    ~Depth() { --d; }
  } depth(arith_depth_);
  if (arith_depth_ > kMaxArithDepth) {
    Unverified(f, "arithmetic",
               "an expression nested more than " + std::to_string(kMaxArithDepth) +
                   " levels deep is not followed");
    return;
  }
  switch (e->kind) {
    case shell::ArithKind::kVariable:
      // bash evaluates a variable's value as an expression in its turn, and a subscript in that
      // value can run commands: the result depends on what the variable holds when it runs.
      Runtime(f, std::string(e->text),
              "arithmetic evaluates the value of " + std::string(e->text) +
                  " as an expression when it runs");
      ArithExpr(e->index, f);
      break;
    case shell::ArithKind::kWord:
      if (e->word) {
        Word(*e->word, f);
        Runtime(f, std::string(f.source.substr(e->word->begin, e->word->end - e->word->begin)),
                "arithmetic evaluates an expanded value as an expression when it runs");
      }
      break;
    default:
      // `(( PATH = 1 ))', `let PATH++': arithmetic assigns too.
      if (e->a != nullptr && e->a->kind == shell::ArithKind::kVariable &&
          (((e->kind == shell::ArithKind::kUnary || e->kind == shell::ArithKind::kPostfix) &&
            (e->op == "++" || e->op == "--")) ||
           (e->kind == shell::ArithKind::kBinary && e->op.size() >= 1 && e->op.back() == '=' &&
            e->op != "==" && e->op != "!=" && e->op != "<=" && e->op != ">="))) {
        Assigned(f, e->a->text, std::string(e->a->text) + std::string(e->op));
      }
      ArithExpr(e->a, f);
      ArithExpr(e->b, f);
      ArithExpr(e->c, f);
      ArithExpr(e->index, f);
      break;
  }
}

void Extractor::ArithText(const std::string& text, const Frame& f, const std::string& subject) {
  bool expands = text.find_first_of("$`") != std::string::npos;
  bool names = std::any_of(text.begin(), text.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  });
  if (!expands && !names) return;  // numbers and operators only: nothing can run
  if (f.depth > options_.max_depth) {
    Unverified(f, subject, "arithmetic nested too deep to follow");
    return;
  }
  shell::ArithParseResult r = shell::ParseArithmetic(text);
  if (!r.ok()) {
    if (expands) {
      Unverified(f, subject,
                 "bash evaluates `" + text + "' as arithmetic, which safesh cannot read (" +
                     r.error->message + ")");
    } else {
      Runtime(f, subject, "bash evaluates `" + text + "' as arithmetic when it runs");
    }
    return;
  }
  arith_arenas_.push_back(r.arena);
  texts_.push_back(std::make_unique<std::string>(text));
  // The expression's offsets point into `text`: findings are reported at the command.
  Frame g = f;
  g.anchored = true;
  g.anchor = f.anchored ? f.anchor : f.here;
  g.here = g.anchor;
  g.script = nullptr;
  g.source = *texts_.back();
  g.depth = f.depth + 1;
  Arith(&r.arith, g);
}

void Extractor::Redirect(const shell::Redirect& r, const Frame& f) {
  using shell::RedirOp;
  bool heredoc = r.op == RedirOp::kHeredoc || r.op == RedirOp::kHeredocStrip;
  {
    // Does this make descriptor 1 or 2 point at something other than the line's own output?
    // Writing to a file already counts as a write; anything else (reading a file, a
    // here-document, a copy of another descriptor) means a later >/dev/stderr could reopen a
    // file the policy never saw written.
    bool input = r.op == RedirOp::kIn || r.op == RedirOp::kInOut || r.op == RedirOp::kDupIn ||
                 heredoc || r.op == RedirOp::kHereString;
    int fd = r.fd >= 0 ? r.fd : input ? 0 : 1;
    if (r.fd_var.empty() && !r.close && (fd == 1 || fd == 2)) {
      if (r.op == RedirOp::kDupIn || r.op == RedirOp::kDupOut) {
        WordValue t = EvaluateWord(r.target, f.source);
        bool std_copy = t.is_static && t.values.size() == 1 &&
                        (t.values[0] == "1" || t.values[0] == "2" || t.values[0] == "-");
        if (!std_copy) StdStreamRedirected();
      } else if (input) {
        StdStreamRedirected();
      }
    }
  }
  if (f.posix_sh) {
    if (r.op == RedirOp::kHereString) NotPosix(f, "<<<");
    if (r.op == RedirOp::kOutErr || r.op == RedirOp::kAppendOutErr) NotPosix(f, "&>");
    if (!r.fd_var.empty()) NotPosix(f, "{name}>");
    // The delimiter decides where the body ends: <<$'X' ends at X for bash, at $X for dash.
    if (heredoc) Parts(r.target.parts, f);
  }
  if (heredoc) {
    // An unquoted here-document body is expanded: its substitutions run.
    if (r.heredoc != nullptr && !r.heredoc->quoted) Word(r.heredoc->body, f);
    return;
  }
  if (!r.fd_var.empty())
    NameOperand(f, Arg{std::string(r.fd_var), true, {}}, "{" + std::string(r.fd_var) + "}",
                NameUse::kAssigns);
  if (r.close) return;
  Word(r.target, f);
  WordValue t = EvaluateWord(r.target, f.source);
  std::string target = t.is_static && t.values.size() == 1 ? t.values[0] : t.source;
  std::string how = std::string("redirection ") + RedirText(r.op);
  std::string shown = std::string(f.source.substr(r.begin, r.end - r.begin));
  bool net = IsNetworkPath(t.is_static ? target : t.source);
  switch (r.op) {
    case RedirOp::kIn:
    case RedirOp::kHereString:
      if (r.op == RedirOp::kIn && net) {
        Network(f, shown, "opens a network connection (" + target + ")");
      } else if (r.op == RedirOp::kIn && !t.is_static) {
        Runtime(f, shown, "reads a file whose name is computed when it runs (" + t.why + ")");
      }
      return;
    case RedirOp::kDupIn:
    case RedirOp::kDupOut:
      if (t.is_static && t.values.size() == 1 && (IsDescriptor(target) || target == "-")) return;
      if (r.op == RedirOp::kDupIn) {
        if (!t.is_static) Runtime(f, shown, "duplicates a descriptor computed when it runs");
        return;
      }
      break;  // >&word with a file name: like &>word
    default:
      break;
  }
  if (net) {
    Network(f, shown, "opens a network connection (" + target + ")");
    return;
  }
  OutputFile(f, target, t.is_static && t.values.size() == 1, how);
}

void Extractor::OutputFile(const Frame& f, const std::string& target, bool is_static,
                           const std::string& how) {
  if (is_static && IsHarmlessTarget(target)) return;
  if (is_static && IsStdOutputName(target)) {
    std_stream_writes_.push_back({target, true, how, f.here});
    return;
  }
  AddWrite(f, target, is_static, how);
}

void Extractor::Assignment(const shell::Assignment& a, const Frame& f, bool persists) {
  (void)persists;
  std::string text(f.source.substr(a.begin, a.end - a.begin));
  Word(a.value, f);
  if (a.index != nullptr) {
    Word(*a.index, f);
    WordValue iv = EvaluateWord(*a.index, f.source);
    if (iv.is_static && iv.values.size() == 1) {
      ArithText(iv.values[0], f, text);
    } else if (!iv.is_static) {
      Runtime(f, text, "the subscript is computed and then evaluated as arithmetic when it runs");
    }
  }
  WordValue v = EvaluateWord(a.value, f.source);
  std::string value = v.is_static && v.values.size() == 1 ? v.values[0] : std::string();
  Variable(f, a.name, v.is_static && v.values.size() == 1 ? &value : nullptr, text);
}

void Extractor::Variable(const Frame& f, std::string_view name, const std::string* value,
                         const std::string& subject) {
  Assigned(f, name, subject);
  assigns.push_back({std::string(name), value ? *value : std::string(), value != nullptr, f});
}

void Extractor::Assigned(const Frame& f, std::string_view name, const std::string& subject) {
  if (IsDangerousVariable(name)) {
    Unverified(f, subject,
               "setting " + std::string(name) +
                   " changes which programs or code run, in ways the policy cannot follow");
  }
}

void Extractor::NameOperand(const Frame& f, const Arg& arg, const std::string& subject,
                            NameUse use) {
  if (arg.is_static && use != NameUse::kTests) {
    std::string base = arg.text.substr(0, arg.text.find('['));
    // `read PATH', `printf -v PATH', `unset PATH' (bash then looks in the current folder),
    // `local PATH' (empty inside the function): each changes which programs run.
    Assigned(f, base, subject);
    // An integer variable evaluates the value it is given as arithmetic.
    if (use == NameUse::kAssigns) assigns.push_back({base, std::string(), false, f});
  }
  if (!arg.is_static) {
    std::string why = "the variable name `" + arg.text +
                      "' is computed when it runs; a subscript in it is evaluated as arithmetic, "
                      "which can run commands";
    if (arg.text.find('[') != std::string::npos) {
      Unverified(f, subject, why);
    } else {
      Runtime(f, subject, why);
    }
    return;
  }
  size_t open = arg.text.find('[');
  if (open == std::string::npos) return;
  std::string sub = arg.text.substr(open + 1);
  if (!sub.empty() && sub.back() == ']') sub.pop_back();
  if (!sub.empty() &&
      std::all_of(sub.begin(), sub.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return;
  }
  Unverified(f, subject,
             "the subscript of `" + arg.text +
                 "' is evaluated as arithmetic when it runs, which can run commands");
  // What it would run is still judged against the deny rules.
  Frame g = f;
  g.in_unverified = true;
  ArithText(sub, g, subject);
}

void Extractor::Cond(const shell::CondExpr* c, const Frame& f) {
  if (c == nullptr) return;
  switch (c->kind) {
    case shell::CondKind::kAnd:
    case shell::CondKind::kOr:
    case shell::CondKind::kNot:
    case shell::CondKind::kGroup:
      Cond(c->left, f);
      Cond(c->right, f);
      return;
    case shell::CondKind::kWord:
      Word(c->word, f);
      return;
    case shell::CondKind::kUnary: {
      Word(c->word, f);
      if (c->op == "-v") {
        WordValue v = EvaluateWord(c->word, f.source);
        Arg a{v.is_static && v.values.size() == 1 ? v.values[0] : v.source,
              v.is_static && v.values.size() == 1, v.why};
        NameOperand(f, a, "[[ -v " + v.source + " ]]", NameUse::kTests);
      }
      return;
    }
    case shell::CondKind::kBinary: {
      Word(c->word, f);
      Word(c->word2, f);
      if (IsArithComparison(c->op)) {
        for (const shell::Word* w : {&c->word, &c->word2}) {
          WordValue v = EvaluateWord(*w, f.source);
          std::string subject = "[[ ... " + std::string(c->op) + " ... ]]";
          if (v.is_static && v.values.size() == 1) {
            ArithText(v.values[0], f, subject);
          } else if (!v.is_static) {
            Runtime(f, subject,
                    "[[ " + std::string(c->op) + " ]] evaluates `" + v.source +
                        "' as arithmetic when it runs");
          }
        }
      }
      return;
    }
  }
}

void Extractor::ShellText(const std::string& text, const Frame& f, const std::string& via,
                          const std::string& subject, Dialect dialect, bool unverified) {
  Frame g = f.Nested(via, unverified);
  g.posix_sh = dialect == Dialect::kPosixSh;
  Script(text, g, subject);
}

void Extractor::NotPosix(const Frame& f, std::string_view what) {
  // The tree is bash's reading. dash and other POSIX shells read some of bash's syntax as
  // something else: $'...' is `$' then a single-quoted string, so the quoting of everything
  // after it shifts; `[[ a > b ]]' and `(( a > b ))' write the file b; `&>' runs in the
  // background. Judging bash's reading would judge commands other than the ones that run.
  Unverified(f, f.via,
             std::string(what) +
                 " is bash syntax, but this code is run by /bin/sh, which may be dash and read "
                 "it differently");
}

void Extractor::Finish() {
  if (std_streams_redirected_) {
    for (Write& w : std_stream_writes_) {
      w.how += " (descriptor 1 or 2 is pointed elsewhere in the line, so this can reopen a file)";
      out.writes.push_back(std::move(w));
    }
  }
  // A variable declared integer evaluates every value assigned to it as arithmetic.
  for (const PendingAssign& a : assigns) {
    if (!integer_names.count(a.name)) continue;
    if (a.is_static) {
      ArithText(a.value, a.frame, a.name + "=" + a.value);
    } else {
      Runtime(a.frame, a.name,
              a.name +
                  " is an integer variable: the value assigned to it is evaluated as "
                  "arithmetic when it runs");
    }
  }
}

}  // namespace internal

Extraction ExtractScript(std::string_view script, const ExtractOptions& options) {
  Extractor x(options);
  Frame f;
  x.Script(script, f, std::string(script));
  x.Finish();
  return std::move(x.out);
}

Extraction ExtractArgv(const std::vector<std::string>& argv, const ExtractOptions& options) {
  Extractor x(options);
  Frame f;
  f.anchored = true;
  f.anchor = shell::Position{0, 0};
  f.here = f.anchor;
  x.Run(StaticArgv(argv), f, f.here);
  x.Finish();
  return std::move(x.out);
}

}  // namespace safesh::policy
