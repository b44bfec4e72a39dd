// The command dispatcher, shells, and the bash builtins that run code or evaluate names.
#include <algorithm>
#include <array>

#include "policy/extractor.h"

namespace safesh::policy::internal {
namespace {

// Variables whose value makes bash, the dynamic loader or common programs run other code, find
// programs elsewhere, or read options and configuration that can run commands.
// Not among them, because nothing they change is treated as known: IFS only changes how
// computed words split; GLOBIGNORE only changes what globs match (and sets dotglob), and globs
// are computed; FUNCNEST and TIMEFORMAT change no program; CDPATH changes where `cd' goes, and
// the policy never judges by the current folder.
constexpr std::string_view kDangerousVariables[] = {
    "PATH",
    // The table behind `hash': BASH_CMDS=([ls]=/bin/rm) makes `ls' run rm.
    "BASH_CMDS",
    // Alias definitions, read when aliases are expanded (interactive shells, expand_aliases).
    "BASH_ALIASES",
    // Sends xtrace output to a descriptor number, which may be a file opened elsewhere.
    "BASH_XTRACEFD",
    // Changes how bash reads and runs scripts (quoting in [[ ]], locale strings, ...): the
    // policy reads them as the current bash does.
    "BASH_COMPAT",
    // bash's posix mode, and GNU tools stop reading options at the first operand: the policy
    // reads arguments as they are read without it.
    "POSIXLY_CORRECT",
    "PS4",
    "PROMPT_COMMAND",
    "BASH_ENV",
    "ENV",
    "SHELLOPTS",
    "BASHOPTS",
    "BASH_LOADABLES_PATH",
    "EXECIGNORE",
    "HOME",
    "XDG_CONFIG_HOME",
    "INPUTRC",
    "PAGER",
    "MANPAGER",
    "MANOPT",
    "MANROFFOPT",
    "BROWSER",
    "LESS",
    "LESSOPEN",
    "LESSCLOSE",
    "EDITOR",
    "VISUAL",
    "SHELL",
    "PERL5OPT",
    "PERL5LIB",
    "PERLLIB",
    "PYTHONPATH",
    "PYTHONSTARTUP",
    "PYTHONHOME",
    "NODE_OPTIONS",
    "NODE_PATH",
    "RUBYOPT",
    "RUBYLIB",
    "TAR_OPTIONS",
    "ZIPOPT",
    "UNZIPOPT",
    "RIPGREP_CONFIG_PATH",
    "GCONV_PATH",
    "SUDO_ASKPASS",
    "SSH_ASKPASS",
    "JAVA_TOOL_OPTIONS",
    "_JAVA_OPTIONS",
    "GOFLAGS",
    "RUSTC_WRAPPER",
    "MAKEFLAGS",
    "CC",
    "CXX",
    "HOSTALIASES",
};
constexpr std::string_view kDangerousPrefixes[] = {"LD_", "DYLD_", "GIT_", "BASH_FUNC_",
                                                   "npm_config_"};

bool StartsWith(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}

// Shells whose -c script is read by bash's grammar, and those that read other languages.
bool IsBashLike(std::string_view name) {
  return name == "sh" || name == "bash" || name == "dash" || name == "ash" || name == "rbash" ||
         name == "posh";
}
bool IsOtherShell(std::string_view name) {
  return name == "zsh" || name == "ksh" || name == "mksh" || name == "ksh93" || name == "yash" ||
         name == "fish" || name == "csh" || name == "tcsh" || name == "pwsh";
}
// Shells close enough to bash that a -c script's commands are worth judging, though the shell
// may read some of it differently.
bool IsBourneFamily(std::string_view name) {
  return name == "zsh" || name == "ksh" || name == "mksh" || name == "ksh93" || name == "yash";
}

CommandUse& Use(Extractor& x, int index) {
  return x.out.commands[static_cast<size_t>(index)];
}

// ---- shells ----

bool RunShell(Extractor& x, const Argv& argv, const Frame& f, int index) {
  const std::string name = BaseName(argv[0].text);
  bool command_mode = false;
  size_t i = 1;
  for (; i < argv.size(); ++i) {
    const Arg& a = argv[i];
    if (!a.is_static) {
      x.Unverified(f, Shown(argv),
                   "the shell's argument `" + a.text +
                       "' is computed when it runs, so safesh "
                       "cannot tell what the shell will run");
      return true;
    }
    const std::string& w = a.text;
    if (w == "--" || w == "-") {
      ++i;
      break;
    }
    if (StartsWith(w, "--")) {
      if (w == "--version" || w == "--help") {
        Use(x, index).role = Role::kLookup;
        return true;
      }
      if (w == "--rcfile" || w == "--init-file") {
        ++i;  // read only by interactive shells
        continue;
      }
      static constexpr std::array<std::string_view, 12> kLong = {
          "--norc",         "--noprofile",       "--posix",     "--login",
          "--noediting",    "--restricted",      "--verbose",   "--debugger",
          "--dump-strings", "--dump-po-strings", "--protected", "--wordexp"};
      if (std::find(kLong.begin(), kLong.end(), w) == kLong.end()) {
        x.Unverified(f, Shown(argv), name + ": unknown option " + w);
        return true;
      }
      continue;
    }
    if (w.size() < 2 || (w[0] != '-' && w[0] != '+')) break;
    for (size_t k = 1; k < w.size(); ++k) {
      char c = w[k];
      if (c == 'c' && w[0] == '-') {
        command_mode = true;
      } else if (c == 's' || c == 'i') {
        x.Unverified(
            f, Shown(argv),
            name + " -" + c + " reads commands from its input, which the policy cannot see");
        return true;
      } else if (c == 'o' || c == 'O') {
        ++i;  // the option's name follows
      } else if (std::string_view("abefhklmnprtuvxBCEHPT").find(c) == std::string_view::npos) {
        x.Unverified(f, Shown(argv), name + ": unknown option " + std::string(1, w[0]) + c);
        return true;
      }
    }
  }
  if (name == "fish" || name == "csh" || name == "tcsh" || name == "pwsh") {
    x.Unverified(f, Shown(argv), name + " scripts are not bash: safesh cannot read them");
    return true;
  }
  if (!command_mode) {
    if (i < argv.size()) {
      x.Unverified(f, Shown(argv),
                   name + " runs the script file " + argv[i].text +
                       ", which the policy cannot see; run its commands directly instead");
    } else {
      x.Unverified(f, Shown(argv),
                   name +
                       " reads commands from its input, which the policy cannot see; pass "
                       "them with -c instead");
    }
    return true;
  }
  if (i >= argv.size()) {
    x.Unverified(f, Shown(argv), name + " -c needs a script");
    return true;
  }
  if (!argv[i].is_static) {
    x.Unverified(
        f, Shown(argv),
        "the script given to " + name + " -c is computed when it runs (" + argv[i].why + ")");
    return true;
  }
  if (IsBourneFamily(name)) {
    // Judged for denied commands, but never approved automatically: this shell may read parts
    // of the script differently from bash.
    x.Unverified(f, Shown(argv), name + " reads scripts by rules that differ from bash's");
    x.ShellText(argv[i].text, f, name + " -c", Shown(argv), Extractor::Dialect::kPosixSh,
                /*unverified=*/true);
    return true;
  }
  Use(x, index).role = Role::kShell;
  // sh is dash on Debian and Ubuntu (and ash, posh, busybox elsewhere); only bash reads bash.
  bool bash = name == "bash" || name == "rbash";
  x.ShellText(argv[i].text, f, name + " -c", Shown(argv),
              bash ? Extractor::Dialect::kBash : Extractor::Dialect::kPosixSh);
  return true;
}

// ---- builtins that run code ----

// Words after leading options, for builtins with simple option syntax: stops at `--` or at the
// first word that does not start with '-'. `with_arg` lists options that take a value.
struct BuiltinArgs {
  std::vector<std::pair<char, Arg>> options;  // option letter, and its value when it has one
  size_t operands = 0;                        // index of the first operand
  bool computed = false;                      // a computed word where an option could be
};

BuiltinArgs ReadBuiltinOptions(const Argv& argv, std::string_view with_arg) {
  BuiltinArgs out;
  size_t i = 1;
  for (; i < argv.size(); ++i) {
    const Arg& a = argv[i];
    if (!a.is_static) {
      out.computed = true;
      break;
    }
    if (a.text == "--") {
      ++i;
      break;
    }
    if (a.text.size() < 2 || (a.text[0] != '-' && a.text[0] != '+')) break;
    for (size_t k = 1; k < a.text.size(); ++k) {
      char c = a.text[k];
      if (with_arg.find(c) != std::string_view::npos) {
        Arg value;
        if (k + 1 < a.text.size()) {
          value = Arg{a.text.substr(k + 1), true, {}};
        } else if (i + 1 < argv.size()) {
          value = argv[++i];
        }
        out.options.push_back({c, value});
        break;
      }
      out.options.push_back({c, Arg{}});
    }
  }
  out.operands = i;
  return out;
}

bool HasOption(const BuiltinArgs& b, char c) {
  return std::any_of(b.options.begin(), b.options.end(),
                     [c](const auto& o) { return o.first == c; });
}

const Arg* OptionValue(const BuiltinArgs& b, char c) {
  for (const auto& o : b.options) {
    if (o.first == c) return &o.second;
  }
  return nullptr;
}

std::string JoinStatic(const Argv& argv, size_t from, bool* all_static) {
  std::string out;
  *all_static = true;
  for (size_t i = from; i < argv.size(); ++i) {
    if (!argv[i].is_static) *all_static = false;
    if (i > from) out += ' ';
    out += argv[i].text;
  }
  return out;
}

bool Eval(Extractor& x, const Argv& argv, const Frame& f, int) {
  x.Unverified(f, Shown(argv),
               "eval runs text as code, which safesh checks only for denied commands; write the "
               "command directly instead");
  bool all_static;
  std::string code = JoinStatic(argv, 1, &all_static);
  if (all_static && argv.size() > 1)
    x.ShellText(code, f, "eval", Shown(argv), Extractor::Dialect::kBash, true);
  return true;
}

bool Source(Extractor& x, const Argv& argv, const Frame& f, int) {
  std::string file = argv.size() > 1 ? argv[1].text : "(none)";
  x.Unverified(f, Shown(argv),
               argv[0].text + " runs the file " + file +
                   " as code, which the policy cannot see; run its commands directly instead");
  return true;
}

bool Trap(Extractor& x, const Argv& argv, const Frame& f, int) {
  BuiltinArgs b = ReadBuiltinOptions(argv, "");
  if (b.computed) {
    x.Unverified(f, Shown(argv), "trap's arguments are computed when it runs");
    return true;
  }
  size_t n = argv.size() - b.operands;
  // trap, trap -l, trap -p, trap SIG (one operand: reset), trap - SIG, trap '' SIG.
  if (n <= 1) return true;
  const Arg& code = argv[b.operands];
  if (code.is_static && (code.text == "-" || code.text.empty())) return true;
  x.Unverified(f, Shown(argv),
               "trap runs its code later, when a signal arrives or the shell exits; safesh "
               "checks it only for denied commands");
  if (code.is_static)
    x.ShellText(code.text, f, "trap", Shown(argv), Extractor::Dialect::kBash, true);
  return true;
}

bool Mapfile(Extractor& x, const Argv& argv, const Frame& f, int) {
  BuiltinArgs b = ReadBuiltinOptions(argv, "dnOsuCc");
  if (HasOption(b, 'C')) {
    x.Unverified(f, Shown(argv), argv[0].text + " -C runs its callback as code for each line");
  }
  for (size_t i = b.operands; i < argv.size(); ++i)
    x.NameOperand(f, argv[i], Shown(argv), Extractor::NameUse::kAssigns);
  if (b.computed) x.Runtime(f, Shown(argv), argv[0].text + "'s arguments are computed");
  return true;
}

bool Bind(Extractor& x, const Argv& argv, const Frame& f, int) {
  BuiltinArgs b = ReadBuiltinOptions(argv, "mfqurxX");
  if (HasOption(b, 'x') || HasOption(b, 'f') || b.computed) {
    x.Unverified(f, Shown(argv), "bind -x and bind -f can make keys run commands");
  }
  return true;
}

bool Complete(Extractor& x, const Argv& argv, const Frame& f, int) {
  BuiltinArgs b = ReadBuiltinOptions(argv, "oAGWFCXPSD");
  if (b.computed) {
    x.Unverified(f, Shown(argv), argv[0].text + "'s options are computed when it runs");
    return true;
  }
  if (HasOption(b, 'C')) {
    x.Unverified(f, Shown(argv), argv[0].text + " -C runs a command to produce completions");
  }
  if (const Arg* w = OptionValue(b, 'W')) {
    // The word list is expanded when completions are made: a substitution in it runs then.
    if (!w->is_static || w->text.find_first_of("$`") != std::string::npos) {
      x.Unverified(f, Shown(argv),
                   argv[0].text + " -W expands its word list, which can run commands");
    }
  }
  return true;
}

bool Alias(Extractor& x, const Argv& argv, const Frame& f, int) {
  for (size_t i = 1; i < argv.size(); ++i) {
    if (!argv[i].is_static || argv[i].text.find('=') != std::string::npos) {
      x.Unverified(f, Shown(argv),
                   "alias changes what later command names mean, which the policy cannot follow");
      return true;
    }
  }
  return true;
}

bool Hash(Extractor& x, const Argv& argv, const Frame& f, int) {
  BuiltinArgs b = ReadBuiltinOptions(argv, "p");
  if (HasOption(b, 'p') || b.computed) {
    x.Unverified(f, Shown(argv),
                 "hash -p makes a command name run another program, which the policy cannot "
                 "follow");
  }
  return true;
}

bool Enable(Extractor& x, const Argv& argv, const Frame& f, int) {
  BuiltinArgs b = ReadBuiltinOptions(argv, "f");
  if (HasOption(b, 'f') || b.computed) {
    x.Unverified(f, Shown(argv), "enable -f loads code into bash from a shared library");
  }
  return true;
}

bool Fc(Extractor& x, const Argv& argv, const Frame& f, int) {
  BuiltinArgs b = ReadBuiltinOptions(argv, "e");
  if (!HasOption(b, 'l')) {
    x.Unverified(f, Shown(argv), "fc runs commands from the history, which the policy cannot see");
  }
  return true;
}

bool Printf(Extractor& x, const Argv& argv, const Frame& f, int) {
  BuiltinArgs b = ReadBuiltinOptions(argv, "v");
  if (const Arg* name = OptionValue(b, 'v'))
    x.NameOperand(f, *name, Shown(argv), Extractor::NameUse::kAssigns);
  if (b.computed) x.Runtime(f, Shown(argv), "printf's options are computed when it runs");
  return true;
}

bool Read(Extractor& x, const Argv& argv, const Frame& f, int) {
  BuiltinArgs b = ReadBuiltinOptions(argv, "adinNptu");
  if (const Arg* name = OptionValue(b, 'a'))
    x.NameOperand(f, *name, Shown(argv), Extractor::NameUse::kAssigns);
  for (size_t i = b.operands; i < argv.size(); ++i)
    x.NameOperand(f, argv[i], Shown(argv), Extractor::NameUse::kAssigns);
  if (b.computed) x.Runtime(f, Shown(argv), "read's options are computed when it runs");
  return true;
}

bool Unset(Extractor& x, const Argv& argv, const Frame& f, int) {
  BuiltinArgs b = ReadBuiltinOptions(argv, "");
  if (HasOption(b, 'f')) return true;  // function names are not evaluated
  for (size_t i = b.operands; i < argv.size(); ++i)
    x.NameOperand(f, argv[i], Shown(argv), Extractor::NameUse::kDeclares);
  if (b.computed) x.Runtime(f, Shown(argv), "unset's options are computed when it runs");
  return true;
}

bool Test(Extractor& x, const Argv& argv, const Frame& f, int) {
  for (size_t i = 1; i + 1 < argv.size(); ++i) {
    if (argv[i].is_static && argv[i].text == "-v") {
      x.NameOperand(f, argv[i + 1], Shown(argv), Extractor::NameUse::kTests);
    }
  }
  return true;
}

bool Getopts(Extractor& x, const Argv& argv, const Frame& f, int) {
  if (argv.size() > 2) x.NameOperand(f, argv[2], Shown(argv), Extractor::NameUse::kAssigns);
  return true;
}

bool Wait(Extractor& x, const Argv& argv, const Frame& f, int) {
  BuiltinArgs b = ReadBuiltinOptions(argv, "p");
  if (const Arg* name = OptionValue(b, 'p'))
    x.NameOperand(f, *name, Shown(argv), Extractor::NameUse::kAssigns);
  return true;
}

// declare, typeset, local, export, readonly: NAME and NAME=VALUE operands.
bool Declare(Extractor& x, const Argv& argv, const Frame& f, int) {
  BuiltinArgs b = ReadBuiltinOptions(argv, "");
  bool integer = false, nameref = false, functions = false, print = false;
  for (const auto& o : b.options) {
    print = print || o.first == 'p';
    integer = integer || o.first == 'i';
    nameref = nameref || o.first == 'n';
    functions = functions || o.first == 'f' || o.first == 'F';
  }
  if (functions) return true;
  if (b.computed) {
    x.Unverified(f, Shown(argv),
                 argv[0].text +
                     "'s arguments are computed when it runs; they could set any "
                     "variable or attribute");
    return true;
  }
  for (size_t i = b.operands; i < argv.size(); ++i) {
    const Arg& a = argv[i];
    if (!a.is_static) {
      // NAME=$(...) or NAME=(...): the name part is still written literally.
      size_t eq = a.text.find('=');
      std::string name = eq == std::string::npos ? a.text : a.text.substr(0, eq);
      if (!name.empty() && name.back() == '+') name.pop_back();
      if (IsName(name.substr(0, name.find('[')))) {
        x.Variable(f, name.substr(0, name.find('[')), nullptr, Shown(argv));
        if (integer) x.integer_names.insert(name);
        if (name.find('[') != std::string::npos) {
          x.Runtime(f, Shown(argv), "the subscript in " + name + " is evaluated as arithmetic");
        }
        continue;
      }
      x.Unverified(f, Shown(argv),
                   "the variable name in `" + a.text + "' is computed when it runs");
      continue;
    }
    size_t eq = a.text.find('=');
    std::string name = eq == std::string::npos ? a.text : a.text.substr(0, eq);
    if (!name.empty() && name.back() == '+') name.pop_back();
    std::string base = name.substr(0, name.find('['));
    // declare -p NAME only prints it.
    bool prints = print && eq == std::string::npos;
    x.NameOperand(f, Arg{name, true, {}}, Shown(argv),
                  prints ? Extractor::NameUse::kTests : Extractor::NameUse::kDeclares);
    if (integer) x.integer_names.insert(base);
    if (nameref && eq != std::string::npos) {
      x.Unverified(f, Shown(argv),
                   "a name reference makes every use of " + base + " use `" +
                       a.text.substr(eq + 1) + "' as a variable name, which can run commands");
    }
    if (eq != std::string::npos) {
      std::string value = a.text.substr(eq + 1);
      x.Variable(f, base, &value, Shown(argv));
    } else if (argv[0].text == "export" || argv[0].text == "readonly") {
      if (IsDangerousVariable(base) && argv[0].text == "export") {
        x.Unverified(f, Shown(argv), "exporting " + base + " changes which programs or code run");
      }
    }
  }
  return true;
}

bool Let(Extractor& x, const Argv& argv, const Frame& f, int) {
  for (size_t i = 1; i < argv.size(); ++i) {
    if (argv[i].is_static) {
      x.ArithText(argv[i].text, f, Shown(argv));
    } else {
      x.Runtime(f, Shown(argv), "let evaluates `" + argv[i].text + "' as arithmetic when it runs");
    }
  }
  return true;
}

// ---- builtins that run another command ----

bool CommandBuiltin(Extractor& x, const Argv& argv, const Frame& f, int index) {
  BuiltinArgs b = ReadBuiltinOptions(argv, "");
  if (b.computed) {
    x.Unverified(f, Shown(argv), "command's options are computed when it runs");
    return true;
  }
  // command -v NAME and command -V NAME only look NAME up.
  if (HasOption(b, 'v') || HasOption(b, 'V')) return true;
  if (b.operands >= argv.size()) return true;
  Use(x, index).role = Role::kWrapper;
  RunInner(x, argv, b.operands, f, "command");
  return true;
}

bool Builtin(Extractor& x, const Argv& argv, const Frame& f, int index) {
  if (argv.size() < 2) return true;
  Use(x, index).role = Role::kWrapper;
  RunInner(x, argv, 1, f, "builtin");
  return true;
}

bool Exec(Extractor& x, const Argv& argv, const Frame& f, int index) {
  BuiltinArgs b = ReadBuiltinOptions(argv, "a");
  if (b.computed) {
    x.Unverified(f, Shown(argv), "exec's options are computed when it runs");
    return true;
  }
  if (b.operands >= argv.size()) return true;  // exec with redirections only
  Use(x, index).role = Role::kWrapper;
  RunInner(x, argv, b.operands, f, "exec");
  return true;
}

struct NamedHandler {
  std::string_view name;
  Handler handler;
};

constexpr std::array<NamedHandler, 30> kBuiltins = {{
    {"eval", Eval},
    {"source", Source},
    {".", Source},
    {"trap", Trap},
    {"mapfile", Mapfile},
    {"readarray", Mapfile},
    {"bind", Bind},
    {"complete", Complete},
    {"compgen", Complete},
    {"alias", Alias},
    {"hash", Hash},
    {"enable", Enable},
    {"fc", Fc},
    {"printf", Printf},
    {"read", Read},
    {"unset", Unset},
    {"test", Test},
    {"[", Test},
    {"getopts", Getopts},
    {"wait", Wait},
    {"declare", Declare},
    {"typeset", Declare},
    {"local", Declare},
    {"export", Declare},
    {"readonly", Declare},
    {"let", Let},
    {"command", CommandBuiltin},
    {"builtin", Builtin},
    {"exec", Exec},
    {"sh", RunShell},
}};

constexpr std::array<std::string_view, 14> kShells = {"bash", "dash", "ash",  "rbash", "posh",
                                                      "zsh",  "ksh",  "mksh", "ksh93", "yash",
                                                      "fish", "csh",  "tcsh", "pwsh"};

}  // namespace

std::string BaseName(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool IsName(std::string_view s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

bool IsDangerousVariable(std::string_view name) {
  for (std::string_view v : kDangerousVariables) {
    if (v == name) return true;
  }
  for (std::string_view p : kDangerousPrefixes) {
    if (StartsWith(name, p)) return true;
  }
  return false;
}

std::string Shown(const Argv& argv) {
  return ShowArgv(argv);
}

void RunInner(Extractor& x, const Argv& argv, size_t from, const Frame& f, const std::string& via,
              bool takes_input_args) {
  if (from >= argv.size()) return;
  Argv inner(argv.begin() + static_cast<std::ptrdiff_t>(from), argv.end());
  Frame g = f;
  g.via = f.via.empty() ? via : f.via + ", " + via;
  int i = x.Run(inner, g, f.here);
  if (i >= 0 && takes_input_args) x.out.commands[static_cast<size_t>(i)].takes_input_args = true;
}

Handler FindBuiltinHandler(std::string_view name) {
  for (const NamedHandler& h : kBuiltins) {
    if (h.name == name) return h.handler;
  }
  if (std::find(kShells.begin(), kShells.end(), name) != kShells.end()) return RunShell;
  return nullptr;
}

int Extractor::Run(const Argv& argv, const Frame& frame, shell::Position pos) {
  if (argv.empty()) return -1;
  Frame f = frame;
  f.here = pos;
  CommandUse use;
  use.argv = argv;
  use.pos = pos;
  use.via = f.via;
  use.in_unverified = f.in_unverified;
  int index = static_cast<int>(out.commands.size());
  out.commands.push_back(std::move(use));
  if (!argv[0].is_static) {
    Unverified(f, Shown(argv),
               "the command name is computed when it runs (" + argv[0].why +
                   "), so safesh cannot tell which program runs");
    return index;
  }
  const std::string& name = argv[0].text;
  // `X --help` asks X to describe itself: it does not count as running X.
  if (argv.size() == 2 && argv[1].is_static && argv[1].text == "--help") {
    out.commands[static_cast<size_t>(index)].role = Role::kLookup;
    return index;
  }
  bool by_path = name.find('/') != std::string::npos;
  std::string base = BaseName(name);
  Handler h = by_path ? nullptr : FindBuiltinHandler(name);
  if (h == nullptr && by_path) {
    // A shell given by its path is still a shell.
    if (IsBashLike(base) || IsOtherShell(base)) h = RunShell;
  }
  if (h == nullptr) h = FindWrapperHandler(base);
  if (h == nullptr) h = FindToolHandler(base);
  if (h != nullptr) h(*this, argv, f, index);
  CommandUse& u = out.commands[static_cast<size_t>(index)];
  // A wrapper given by a path could be a program the agent wrote: it is not transparent.
  if (by_path && (u.role == Role::kWrapper || u.role == Role::kShell)) u.role = Role::kCommand;
  return index;
}

}  // namespace safesh::policy::internal
