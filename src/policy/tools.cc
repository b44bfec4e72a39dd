// Ordinary tools that can run commands or write files through their options: find, sed, awk,
// git, sort, rg, tar, zip, man, tee, dd, uniq. Policies tend to approve these as read-only; here
// a literal inner command is judged like any other, a written file counts as a write, and
// anything computed where such an option could be makes the command unverified.
#include <algorithm>
#include <array>
#include <cctype>

#include "policy/extractor.h"
#include "policy/options.h"
#include "policy/tool_scripts.h"

namespace safesh::policy::internal {
namespace {

std::string Name(const Argv& argv) {
  return BaseName(argv[0].text);
}

bool AnyComputed(Extractor& x, const Argv& argv, const Frame& f, const std::string& could_be) {
  for (size_t i = 1; i < argv.size(); ++i) {
    if (!argv[i].is_static) {
      x.Unverified(f, Shown(argv),
                   Name(argv) + "'s argument `" + argv[i].text +
                       "' is computed when it runs and "
                       "could be " +
                       could_be);
      return true;
    }
  }
  return false;
}

// A shell command line given to an option. Empty or computed ones are unverified.
void OptionCommand(Extractor& x, const Argv& argv, const Frame& f, const std::string& option,
                   const std::string& value, bool is_static) {
  if (!is_static) {
    x.Unverified(f, Shown(argv), option + " runs a command computed when it runs");
    return;
  }
  x.ShellText(value, f, Name(argv) + " " + option, Shown(argv), Extractor::Dialect::kPosixSh);
}

// ---- find ----

bool FindPrimaryTakesArg(std::string_view w) {
  static constexpr std::array<std::string_view, 33> kOne = {
      "-name",     "-iname", "-path",   "-ipath",    "-wholename", "-iwholename", "-regex",
      "-iregex",   "-lname", "-ilname", "-type",     "-xtype",     "-user",       "-group",
      "-uid",      "-gid",   "-perm",   "-size",     "-newer",     "-anewer",     "-cnewer",
      "-samefile", "-inum",  "-links",  "-mtime",    "-atime",     "-ctime",      "-mmin",
      "-amin",     "-cmin",  "-used",   "-maxdepth", "-mindepth"};
  static constexpr std::array<std::string_view, 5> kMore = {"-regextype", "-fstype", "-context",
                                                            "-printf", "-files0-from"};
  if (std::find(kOne.begin(), kOne.end(), w) != kOne.end()) return true;
  if (std::find(kMore.begin(), kMore.end(), w) != kMore.end()) return true;
  // -newerXY REF
  return w.size() == 8 && w.substr(0, 6) == "-newer";
}

bool FindPrimaryAlone(std::string_view w) {
  static constexpr std::array<std::string_view, 35> kZero = {"-print",
                                                             "-print0",
                                                             "-ls",
                                                             "-prune",
                                                             "-quit",
                                                             "-true",
                                                             "-false",
                                                             "-empty",
                                                             "-readable",
                                                             "-writable",
                                                             "-executable",
                                                             "-nouser",
                                                             "-nogroup",
                                                             "-xdev",
                                                             "-mount",
                                                             "-depth",
                                                             "-d",
                                                             "-follow",
                                                             "-noleaf",
                                                             "-daystart",
                                                             "-ignore_readdir_race",
                                                             "-noignore_readdir_race",
                                                             "-warn",
                                                             "-nowarn",
                                                             "-help",
                                                             "--help",
                                                             "-version",
                                                             "--version",
                                                             "-not",
                                                             "!",
                                                             "-a",
                                                             "-and",
                                                             "-o",
                                                             "-or",
                                                             ","};
  return std::find(kZero.begin(), kZero.end(), w) != kZero.end() || w == "(" || w == ")";
}

bool Find(Extractor& x, const Argv& argv, const Frame& f, int) {
  size_t i = 1;
  // Options before the starting points: -H -L -P, -D LIST, -OLEVEL.
  while (i < argv.size() && argv[i].is_static) {
    const std::string& w = argv[i].text;
    if (w == "-H" || w == "-L" || w == "-P" || (w.size() > 2 && w.rfind("-O", 0) == 0)) {
      ++i;
    } else if (w == "-D") {
      i += 2;
    } else {
      break;
    }
  }
  // Starting points: up to the first word that starts an expression.
  for (; i < argv.size(); ++i) {
    const Arg& a = argv[i];
    if (!a.is_static) {
      char c = a.text.empty() ? '$' : a.text[0];
      // A computed starting point could begin with '-' and become part of the expression.
      if (!(c == '/' || c == '.' || c == '~' || std::isalnum(static_cast<unsigned char>(c)))) {
        x.Unverified(f, Shown(argv),
                     "find's starting point `" + a.text +
                         "' is computed and could be read as a "
                         "test or an action");
        return true;
      }
      continue;
    }
    const std::string& w = a.text;
    if ((!w.empty() && w[0] == '-') || w == "(" || w == "!" || w == ")" || w == ",") break;
  }
  // The expression.
  for (; i < argv.size(); ++i) {
    const Arg& a = argv[i];
    if (!a.is_static) {
      x.Unverified(f, Shown(argv),
                   "find's argument `" + a.text +
                       "' is computed when it runs and could be any "
                       "test or action, -exec included");
      return true;
    }
    const std::string& w = a.text;
    if (w == "-exec" || w == "-execdir" || w == "-ok" || w == "-okdir") {
      size_t start = i + 1, end = start;
      bool terminated = false;
      for (; end < argv.size(); ++end) {
        if (!argv[end].is_static) continue;
        if (argv[end].text == ";" || (argv[end].text == "+" && end > start &&
                                      argv[end - 1].is_static && argv[end - 1].text == "{}")) {
          terminated = true;
          break;
        }
      }
      if (!terminated || end == start) {
        x.Unverified(f, Shown(argv), "find " + w + " has no terminating `;' or `+'");
        return true;
      }
      Argv inner(argv.begin() + static_cast<std::ptrdiff_t>(start),
                 argv.begin() + static_cast<std::ptrdiff_t>(end));
      if (inner[0].is_static && inner[0].text.find("{}") != std::string::npos) {
        x.Unverified(f, Shown(argv), "find " + w + " runs the files it finds as commands");
      } else {
        // find puts each file's name wherever {} appears, inside words too: `sh -c 'echo {}''
        // runs file names as shell code. A word that is exactly {} is a path under a starting
        // point, harmless as a file operand, but a command that reads code or options from its
        // words (a shell, awk, sed, rg --pre, a wrapper, ...) could take it as code.
        std::string base = inner[0].is_static ? BaseName(inner[0].text) : std::string();
        bool reads_code = !inner[0].is_static || FindBuiltinHandler(base) != nullptr ||
                          FindWrapperHandler(base) != nullptr || FindToolHandler(base) != nullptr;
        for (Arg& a : inner) {
          if (!a.is_static || a.text.find("{}") == std::string::npos) continue;
          if (a.text == "{}" && !reads_code) continue;
          a.is_static = false;
          a.why = "find " + w + " replaces {} with the name of each file it finds";
        }
        RunInner(x, inner, 0, f, "find " + w);
      }
      i = end;
      continue;
    }
    if (w == "-delete") {
      x.AddWrite(f, "the files find matches", false, "find -delete");
      continue;
    }
    if (w == "-fprint" || w == "-fprint0" || w == "-fls" || w == "-fprintf") {
      if (i + 1 < argv.size()) x.AddWrite(f, argv[i + 1].text, argv[i + 1].is_static, "find " + w);
      i += w == "-fprintf" ? 2 : 1;
      continue;
    }
    if (FindPrimaryTakesArg(w)) {
      ++i;
      continue;
    }
    if (FindPrimaryAlone(w)) continue;
    if (!w.empty() && w[0] == '-') {
      x.Unverified(f, Shown(argv), "find: unknown test or action " + w);
      return true;
    }
  }
  return true;
}

// ---- sed and awk ----

void ApplyEffects(Extractor& x, const Argv& argv, const Frame& f, const ScriptEffects& e,
                  const std::string& what) {
  if (!e.problem.empty()) {
    x.Unverified(f, Shown(argv), what + ": " + e.problem);
    return;
  }
  for (const std::string& c : e.commands)
    x.ShellText(c, f, what, Shown(argv), Extractor::Dialect::kPosixSh);
  for (const std::string& w : e.writes)
    x.AddWrite(f, w, true, what);
  for (const std::string& c : e.computed)
    x.Unverified(f, Shown(argv), what + ": " + c);
}

bool Sed(Extractor& x, const Argv& argv, const Frame& f, int) {
  static const OptionSpec spec{
      "nrsuzEb",
      "efl",
      "i",
      {"quiet", "silent", "expression=", "file=", "in-place?", "line-length=", "regexp-extended",
       "separate", "unbuffered", "null-data", "zero-terminated", "posix", "debug", "sandbox",
       "follow-symlinks", "binary", "help", "version"},
      /*stop_at_operand=*/false};
  ParsedOptions p = ParseOptions(argv, 1, spec);
  if (!p.error.empty()) {
    x.Unverified(f, Shown(argv), "sed: " + p.error + "; its script cannot be read with certainty");
    return true;
  }
  std::string script;
  bool have_script = false;
  for (const ParsedOption& o : p.options) {
    if (o.name == "-f" || o.name == "--file") {
      x.Unverified(f, Shown(argv),
                   "sed -f reads its script from " + o.value + ", which the policy cannot see");
      return true;
    }
    if (o.name == "-e" || o.name == "--expression") {
      if (!o.value_static) {
        x.Unverified(f, Shown(argv), "sed's script is computed when it runs");
        return true;
      }
      // GNU sed joins -e scripts with newlines.
      script += (have_script ? "\n" : "") + o.value;
      have_script = true;
    }
  }
  std::vector<size_t> files = p.operands;
  if (!have_script) {
    if (files.empty()) return true;
    const Arg& s = argv[files[0]];
    if (!s.is_static) {
      x.Unverified(f, Shown(argv), "sed's script is computed when it runs");
      return true;
    }
    script = s.text;
    files.erase(files.begin());
  }
  ApplyEffects(x, argv, f, AnalyzeSedScript(script), "sed");
  if (p.Has("-i") || p.Has("--in-place")) {
    for (size_t k : files)
      x.AddWrite(f, argv[k].text, argv[k].is_static, "sed -i");
  }
  return true;
}

bool Awk(Extractor& x, const Argv& argv, const Frame& f, int) {
  static const OptionSpec spec{"bcCghMnNOPrsStVhu",
                               "FvfEeilW",
                               "dDLop",
                               {"field-separator=",
                                "assign=",
                                "file=",
                                "source=",
                                "exec=",
                                "include=",
                                "load=",
                                "dump-variables?",
                                "debug?",
                                "pretty-print?",
                                "profile?",
                                "lint?",
                                "sandbox",
                                "posix",
                                "traditional",
                                "bignum",
                                "characters-as-bytes",
                                "copyright",
                                "gen-pot",
                                "help",
                                "version",
                                "non-decimal-data",
                                "optimize",
                                "no-optimize",
                                "re-interval",
                                "use-lc-numeric",
                                "csv",
                                "lint-old",
                                "trace"}};
  ParsedOptions p = ParseOptions(argv, 1, spec);
  if (!p.error.empty()) {
    x.Unverified(f, Shown(argv),
                 Name(argv) + ": " + p.error + "; its program cannot be read with certainty");
    return true;
  }
  std::string program;
  bool have_program = false;
  // One option, with its full name; false when the program cannot be read with certainty.
  auto option = [&](const ParsedOption& o) {
    const std::string& n = o.name;
    if (n == "-f" || n == "--file" || n == "-E" || n == "--exec" || n == "-i" || n == "--include" ||
        n == "-l" || n == "--load") {
      x.Unverified(f, Shown(argv),
                   Name(argv) + " " + n + " reads program code from " + o.value +
                       ", which the policy cannot see");
      return false;
    }
    if (n == "-e" || n == "--source") {
      if (!o.value_static) {
        x.Unverified(f, Shown(argv), Name(argv) + "'s program is computed when it runs");
        return false;
      }
      program += (have_program ? "\n" : "") + o.value;
      have_program = true;
    }
    if ((n == "-d" || n == "--dump-variables" || n == "-o" || n == "--pretty-print" || n == "-p" ||
         n == "--profile")) {
      std::string file = o.has_value                              ? o.value
                         : (n == "-d" || n == "--dump-variables") ? "awkvars.out"
                         : (n == "-p" || n == "--profile")        ? "awkprof.out"
                                                                  : "awkprof.out";
      x.AddWrite(f, file, o.value_static, Name(argv) + " " + n);
    }
    return true;
  };
  for (const ParsedOption& o : p.options) {
    if (o.name != "-W") {
      if (!option(o)) return true;
      continue;
    }
    // gawk reads -W NAME[=VALUE] as --NAME[=VALUE], abbreviations included (-W so=TEXT is
    // --source=TEXT); mawk has -W options of its own (-W exec FILE reads the program from FILE).
    // The value is read as the long option it names; one that needs the next word (-W source
    // TEXT), an unknown or an ambiguous name cannot be read with certainty.
    ParsedOptions w;
    if (o.value_static && !o.value.empty()) {
      w = ParseOptions(Argv{argv[0], Arg{"--" + o.value, true, {}}}, 1, spec);
    }
    if (!o.value_static || o.value.empty() || !w.error.empty() || w.options.size() != 1 ||
        !w.operands.empty()) {
      x.Unverified(f, Shown(argv),
                   Name(argv) + " -W " + o.value +
                       " is not an option safesh can read; -W options can load code or read "
                       "the program from elsewhere");
      return true;
    }
    if (!option(w.options[0])) return true;
  }
  if (!have_program) {
    if (p.first_operand >= argv.size()) return true;
    const Arg& prog = argv[p.first_operand];
    if (!prog.is_static) {
      x.Unverified(f, Shown(argv), Name(argv) + "'s program is computed when it runs");
      return true;
    }
    program = prog.text;
  }
  ApplyEffects(x, argv, f, AnalyzeAwkProgram(program), Name(argv));
  return true;
}

// ---- git ----

std::string Lower(std::string s) {
  for (char& c : s)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool Matches(const std::string& key, std::string_view pattern) {
  // pattern: "a.b", "a.*.c" (any middle part), "a.*" (any rest)
  size_t star = pattern.find('*');
  if (star == std::string_view::npos) return key == pattern;
  std::string_view head = pattern.substr(0, star), tail = pattern.substr(star + 1);
  if (key.size() < head.size() + tail.size()) return false;
  return key.compare(0, head.size(), head) == 0 &&
         key.compare(key.size() - tail.size(), tail.size(), tail) == 0;
}

// Settings whose value is a command git runs through the shell.
constexpr std::array<std::string_view, 26> kGitCommandKeys = {"core.fsmonitor",
                                                              "core.editor",
                                                              "core.pager",
                                                              "core.sshcommand",
                                                              "core.askpass",
                                                              "core.gitproxy",
                                                              "sequence.editor",
                                                              "diff.external",
                                                              "diff.*.command",
                                                              "diff.*.textconv",
                                                              "merge.*.driver",
                                                              "filter.*.clean",
                                                              "filter.*.smudge",
                                                              "filter.*.process",
                                                              "pager.*",
                                                              "gpg.program",
                                                              "gpg.*.program",
                                                              "uploadpack.packobjectshook",
                                                              "remote.*.uploadpack",
                                                              "remote.*.receivepack",
                                                              "difftool.*.cmd",
                                                              "mergetool.*.cmd",
                                                              "interactive.difffilter",
                                                              "web.browser",
                                                              "browser.*.cmd",
                                                              "man.*.cmd"};
// Settings known to change nothing about what runs.
constexpr std::array<std::string_view, 36> kGitSafeKeys = {"user.name",
                                                           "user.email",
                                                           "color.*",
                                                           "advice.*",
                                                           "init.defaultbranch",
                                                           "core.quotepath",
                                                           "core.autocrlf",
                                                           "core.safecrlf",
                                                           "core.abbrev",
                                                           "core.filemode",
                                                           "core.ignorecase",
                                                           "core.longpaths",
                                                           "log.*",
                                                           "format.pretty",
                                                           "diff.noprefix",
                                                           "diff.renames",
                                                           "diff.algorithm",
                                                           "diff.mnemonicprefix",
                                                           "diff.colormoved",
                                                           "diff.context",
                                                           "merge.conflictstyle",
                                                           "pull.rebase",
                                                           "pull.ff",
                                                           "push.default",
                                                           "fetch.prune",
                                                           "protocol.version",
                                                           "gc.auto",
                                                           "maintenance.auto",
                                                           "status.*",
                                                           "blame.*",
                                                           "column.ui",
                                                           "i18n.*",
                                                           "commit.gpgsign",
                                                           "tag.gpgsign",
                                                           "safe.directory",
                                                           "rebase.autosquash"};

void GitConfigValue(Extractor& x, const Argv& argv, const Frame& f, const std::string& setting,
                    bool is_static, const std::string& how) {
  size_t eq = setting.find('=');
  std::string key = Lower(setting.substr(0, eq));
  std::string value = eq == std::string::npos ? "true" : setting.substr(eq + 1);
  if (!is_static) {
    x.Unverified(f, Shown(argv), how + " sets a value computed when it runs");
    return;
  }
  for (std::string_view k : kGitSafeKeys) {
    if (Matches(key, k)) return;
  }
  if (key.rfind("alias.", 0) == 0) {
    x.Unverified(f, Shown(argv), how + " defines an alias, which can run any command");
    if (!value.empty() && value[0] == '!')
      x.ShellText(value.substr(1), f, "git alias", Shown(argv), Extractor::Dialect::kPosixSh, true);
    return;
  }
  if (key == "core.fsmonitor" && (value == "true" || value == "false")) return;
  for (std::string_view k : kGitCommandKeys) {
    if (Matches(key, k)) {
      x.ShellText(value, f, "git -c " + key, Shown(argv), Extractor::Dialect::kPosixSh);
      return;
    }
  }
  x.Unverified(f, Shown(argv),
               how + " sets " + key +
                   ", which safesh does not know to be harmless (settings can "
                   "make git run programs)");
}

// An option of a git subcommand with its value: --name=VALUE, --name VALUE, -xVALUE, -x VALUE.
struct GitOption {
  size_t index;
  std::string value;
  bool is_static;
};

std::vector<GitOption> FindGitOption(const Argv& argv, size_t from, std::string_view long_name,
                                     std::string_view short_name,
                                     bool short_attached_only = false) {
  std::vector<GitOption> out;
  for (size_t i = from; i < argv.size(); ++i) {
    const Arg& a = argv[i];
    if (!a.is_static) continue;
    const std::string& w = a.text;
    if (w == "--") break;
    if (!long_name.empty()) {
      std::string eq = std::string(long_name) + "=";
      if (w.rfind(eq, 0) == 0) {
        out.push_back({i, w.substr(eq.size()), true});
        continue;
      }
      if (w == long_name && i + 1 < argv.size()) {
        out.push_back({i, argv[i + 1].text, argv[i + 1].is_static});
        ++i;
        continue;
      }
    }
    if (!short_name.empty() && w.rfind(short_name, 0) == 0) {
      if (w.size() > short_name.size()) {
        out.push_back({i, w.substr(short_name.size()), true});
      } else if (!short_attached_only && i + 1 < argv.size()) {
        out.push_back({i, argv[i + 1].text, argv[i + 1].is_static});
        ++i;
      } else if (short_attached_only) {
        out.push_back({i, "", true});
      }
    }
  }
  return out;
}

bool Git(Extractor& x, const Argv& argv, const Frame& f, int) {
  size_t i = 1;
  // Global options, before the subcommand.
  for (; i < argv.size(); ++i) {
    const Arg& a = argv[i];
    if (!a.is_static) {
      x.Unverified(f, Shown(argv),
                   "git's argument `" + a.text +
                       "' is computed when it runs and could be an "
                       "option such as -c that runs commands");
      return true;
    }
    const std::string& w = a.text;
    if (w == "-c") {
      if (i + 1 >= argv.size()) return true;
      GitConfigValue(x, argv, f, argv[i + 1].text, argv[i + 1].is_static, "git -c");
      ++i;
    } else if (w.rfind("-c", 0) == 0 && w.size() > 2) {
      GitConfigValue(x, argv, f, w.substr(2), true, "git -c");
    } else if (w.rfind("--config-env", 0) == 0) {
      x.Unverified(f, Shown(argv), "git --config-env takes a setting from the environment");
      if (w == "--config-env") ++i;
    } else if (w.rfind("--exec-path=", 0) == 0) {
      x.Unverified(f, Shown(argv),
                   "git --exec-path= makes git run its commands from another folder");
    } else if (w == "-C" || w == "--git-dir" || w == "--work-tree" || w == "--namespace" ||
               w == "--super-prefix" || w == "--list-cmds" || w == "--attr-source") {
      ++i;
    } else if (!w.empty() && w[0] == '-') {
      continue;  // -p, -P, --no-pager, --bare, --git-dir=X, --version, --help, ...
    } else {
      break;
    }
  }
  if (i >= argv.size()) return true;
  const std::string sub = argv[i].text;
  size_t rest = i + 1;
  auto computed_rest = [&](const char* could) {
    for (size_t k = rest; k < argv.size(); ++k) {
      if (!argv[k].is_static) {
        x.Unverified(f, Shown(argv),
                     "git " + sub + "'s argument `" + argv[k].text +
                         "' is computed when it runs and could be " + could);
        return true;
      }
    }
    return false;
  };
  auto commands = [&](std::string_view long_name, std::string_view short_name, bool shell) {
    for (const GitOption& o : FindGitOption(argv, rest, long_name, short_name)) {
      if (shell) {
        OptionCommand(x, argv, f, "git " + sub + " " + std::string(long_name), o.value,
                      o.is_static);
      } else if (!o.is_static) {
        x.Unverified(f, Shown(argv), "git " + sub + " runs a program computed when it runs");
      } else {
        Argv program = {Arg{o.value, true, {}}};
        RunInner(x, program, 0, f, "git " + sub + " " + std::string(long_name));
      }
    }
  };
  auto outputs = [&](std::string_view long_name, std::string_view short_name) {
    for (const GitOption& o : FindGitOption(argv, rest, long_name, short_name))
      x.AddWrite(f, o.value, o.is_static, "git " + sub + " " + std::string(long_name));
  };
  if (sub == "log" || sub == "diff" || sub == "show" || sub == "whatchanged" ||
      sub == "range-diff" || sub == "diff-tree" || sub == "diff-index" || sub == "diff-files") {
    if (computed_rest("--output=FILE, which writes a file")) return true;
    outputs("--output", "");
  } else if (sub == "format-patch") {
    if (computed_rest("--output-directory")) return true;
    bool to_stdout = std::any_of(argv.begin() + static_cast<std::ptrdiff_t>(rest), argv.end(),
                                 [](const Arg& a) { return a.text == "--stdout"; });
    std::vector<GitOption> dirs = FindGitOption(argv, rest, "--output-directory", "-o");
    if (!to_stdout && dirs.empty())
      x.AddWrite(f, "patch files in the current folder", false, "git format-patch");
    for (const GitOption& o : dirs)
      x.AddWrite(f, o.value, o.is_static, "git format-patch --output-directory");
    outputs("--output", "");
  } else if (sub == "archive") {
    if (computed_rest("--output or --exec")) return true;
    outputs("--output", "-o");
    for (const GitOption& o : FindGitOption(argv, rest, "--exec", "")) {
      (void)o;
      x.Unverified(f, Shown(argv), "git archive --exec names a program to run on the remote side");
    }
  } else if (sub == "grep") {
    if (computed_rest("--open-files-in-pager")) return true;
    for (const GitOption& o : FindGitOption(argv, rest, "--open-files-in-pager", "-O", true)) {
      if (!o.value.empty() || !o.is_static) {
        OptionCommand(x, argv, f, "git grep -O", o.value, o.is_static);
      }
    }
  } else if (sub == "clone" || sub == "fetch" || sub == "pull" || sub == "ls-remote") {
    if (computed_rest("--upload-pack")) return true;
    commands("--upload-pack", sub == "clone" ? "-u" : "", true);
  } else if (sub == "push" || sub == "send-pack") {
    if (computed_rest("--receive-pack")) return true;
    commands("--receive-pack", "", true);
    commands("--exec", "", true);
  } else if (sub == "rebase") {
    if (computed_rest("--exec")) return true;
    commands("--exec", "-x", true);
  } else if (sub == "difftool") {
    if (computed_rest("--extcmd")) return true;
    commands("--extcmd", "-x", true);
  } else if (sub == "filter-branch") {
    if (computed_rest("a filter")) return true;
    for (const char* opt : {"--env-filter", "--tree-filter", "--index-filter", "--parent-filter",
                            "--msg-filter", "--commit-filter", "--tag-name-filter"}) {
      commands(opt, "", true);
    }
  } else if (sub == "bisect") {
    if (rest < argv.size() && argv[rest].is_static && argv[rest].text == "run") {
      RunInner(x, argv, rest + 1, f, "git bisect run");
    }
  } else if (sub == "submodule") {
    for (size_t k = rest; k < argv.size(); ++k) {
      if (argv[k].is_static && argv[k].text == "foreach") {
        size_t c = k + 1;
        while (c < argv.size() && argv[c].is_static && argv[c].text.rfind("--", 0) == 0)
          ++c;
        bool all_static = true;
        std::string text;
        for (size_t j = c; j < argv.size(); ++j) {
          all_static = all_static && argv[j].is_static;
          text += (j > c ? " " : "") + argv[j].text;
        }
        if (!all_static) {
          x.Unverified(f, Shown(argv),
                       "git submodule foreach runs a command computed when it runs");
        } else if (!text.empty()) {
          x.ShellText(text, f, "git submodule foreach", Shown(argv), Extractor::Dialect::kPosixSh);
        }
        break;
      }
    }
  } else if (sub == "config") {
    static constexpr std::array<std::string_view, 9> kReadOnly = {
        "--get",       "--get-all",       "--get-regexp", "--get-urlmatch", "--list", "-l",
        "--get-color", "--get-colorbool", "get"};
    bool read_only =
        std::any_of(argv.begin() + static_cast<std::ptrdiff_t>(rest), argv.end(), [](const Arg& a) {
          return a.is_static &&
                 std::find(kReadOnly.begin(), kReadOnly.end(), a.text) != kReadOnly.end();
        });
    if (!read_only) {
      x.Unverified(f, Shown(argv),
                   "git config changes settings, which can make later git commands run programs");
    }
  } else if (sub == "send-email") {
    for (const char* opt : {"--to-cmd", "--cc-cmd", "--header-cmd", "--smtp-server"}) {
      if (!FindGitOption(argv, rest, opt, "").empty()) {
        x.Unverified(f, Shown(argv), std::string("git send-email ") + opt + " runs a program");
      }
    }
  }
  return true;
}

// ---- sort, rg, tar, zip, man ----

bool Sort(Extractor& x, const Argv& argv, const Frame& f, int) {
  static const OptionSpec spec{"bdfgiMhnRrVcCmsuz",
                               "koStT",
                               "",
                               {"ignore-leading-blanks",
                                "dictionary-order",
                                "ignore-case",
                                "general-numeric-sort",
                                "ignore-nonprinting",
                                "month-sort",
                                "human-numeric-sort",
                                "numeric-sort",
                                "random-sort",
                                "random-source=",
                                "reverse",
                                "sort=",
                                "version-sort",
                                "batch-size=",
                                "check?",
                                "compress-program=",
                                "debug",
                                "files0-from=",
                                "key=",
                                "merge",
                                "output=",
                                "stable",
                                "buffer-size=",
                                "field-separator=",
                                "temporary-directory=",
                                "parallel=",
                                "unique",
                                "zero-terminated",
                                "help",
                                "version"},
                               /*stop_at_operand=*/false};
  ParsedOptions p = ParseOptions(argv, 1, spec);
  if (!p.error.empty()) {
    x.Unverified(f, Shown(argv),
                 "sort: " + p.error + "; it could be --compress-program, which runs a program");
    return true;
  }
  for (const ParsedOption& o : p.options) {
    if (o.name == "--compress-program") {
      if (!o.value_static) {
        x.Unverified(f, Shown(argv),
                     "sort --compress-program runs a program computed when it runs");
      } else {
        RunInner(x, Argv{Arg{o.value, true, {}}}, 0, f, "sort --compress-program");
      }
    } else if (o.name == "-o" || o.name == "--output") {
      x.AddWrite(f, o.value, o.value_static, "sort " + o.name);
    }
  }
  return true;
}

bool Rg(Extractor& x, const Argv& argv, const Frame& f, int) {
  if (AnyComputed(x, argv, f, "--pre, which runs a program on every file")) return true;
  for (size_t i = 1; i < argv.size(); ++i) {
    const std::string& w = argv[i].text;
    if (w == "--") break;
    for (std::string_view opt : {"--pre", "--hostname-bin"}) {
      std::string value;
      bool found = false;
      if (w == opt && i + 1 < argv.size()) {
        value = argv[i + 1].text;
        found = true;
      } else if (w.rfind(std::string(opt) + "=", 0) == 0) {
        value = w.substr(opt.size() + 1);
        found = true;
      }
      if (found && !value.empty()) {
        RunInner(x, Argv{Arg{value, true, {}}}, 0, f, "rg " + std::string(opt));
      }
    }
  }
  return true;
}

// GNU tar 1.34's long options (`tar --usage'); "=" marks a required argument. Options with an
// optional argument (--backup[=CONTROL]) take it only after '='.
constexpr std::string_view kTarLongOptions[] = {
    "absolute-names",
    "acls",
    "add-file=",
    "after-date=",
    "anchored",
    "append",
    "atime-preserve",
    "auto-compress",
    "backup",
    "block-number",
    "blocking-factor=",
    "bzip2",
    "catenate",
    "check-device",
    "check-links",
    "checkpoint",
    "checkpoint-action=",
    "clamp-mtime",
    "compare",
    "compress",
    "concatenate",
    "confirmation",
    "create",
    "delay-directory-restore",
    "delete",
    "dereference",
    "diff",
    "directory=",
    "exclude-backups",
    "exclude-caches",
    "exclude-caches-all",
    "exclude-caches-under",
    "exclude-from=",
    "exclude-ignore-recursive=",
    "exclude-ignore=",
    "exclude-tag-all=",
    "exclude-tag-under=",
    "exclude-tag=",
    "exclude-vcs",
    "exclude-vcs-ignores",
    "exclude=",
    "extract",
    "file=",
    "files-from=",
    "force-local",
    "format=",
    "full-time",
    "get",
    "group-map=",
    "group=",
    "gunzip",
    "gzip",
    "hard-dereference",
    "help",
    "hole-detection=",
    "ignore-case",
    "ignore-command-error",
    "ignore-failed-read",
    "ignore-zeros",
    "incremental",
    "index-file=",
    "info-script=",
    "interactive",
    "keep-directory-symlink",
    "keep-newer-files",
    "keep-old-files",
    "label=",
    "level=",
    "list",
    "listed-incremental=",
    "lzip",
    "lzma",
    "lzop",
    "mode=",
    "mtime=",
    "multi-volume",
    "new-volume-script=",
    "newer-mtime=",
    "newer=",
    "no-acls",
    "no-anchored",
    "no-auto-compress",
    "no-check-device",
    "no-delay-directory-restore",
    "no-ignore-case",
    "no-ignore-command-error",
    "no-null",
    "no-overwrite-dir",
    "no-quote-chars=",
    "no-recursion",
    "no-same-owner",
    "no-same-permissions",
    "no-seek",
    "no-selinux",
    "no-unquote",
    "no-verbatim-files-from",
    "no-wildcards",
    "no-wildcards-match-slash",
    "no-xattrs",
    "null",
    "numeric-owner",
    "occurrence",
    "old-archive",
    "one-file-system",
    "one-top-level",
    "overwrite",
    "overwrite-dir",
    "owner-map=",
    "owner=",
    "pax-option=",
    "portability",
    "posix",
    "preserve-order",
    "preserve-permissions",
    "quote-chars=",
    "quoting-style=",
    "read-full-records",
    "record-size=",
    "recursion",
    "recursive-unlink",
    "remove-files",
    "restrict",
    "rmt-command=",
    "rsh-command=",
    "same-order",
    "same-owner",
    "same-permissions",
    "seek",
    "selinux",
    "show-defaults",
    "show-omitted-dirs",
    "show-snapshot-field-ranges",
    "show-stored-names",
    "show-transformed-names",
    "skip-old-files",
    "sort=",
    "sparse",
    "sparse-version=",
    "starting-file=",
    "strip-components=",
    "suffix=",
    "tape-length=",
    "test-label",
    "to-command=",
    "to-stdout",
    "totals",
    "touch",
    "transform=",
    "uncompress",
    "ungzip",
    "unlink-first",
    "unquote",
    "update",
    "usage",
    "use-compress-program=",
    "utc",
    "verbatim-files-from",
    "verbose",
    "verify",
    "version",
    "volno-file=",
    "warning=",
    "wildcards",
    "wildcards-match-slash",
    "xattrs",
    "xattrs-exclude=",
    "xattrs-include=",
    "xform=",
    "xz",
    "zstd",
};

bool Tar(Extractor& x, const Argv& argv, const Frame& f, int) {
  if (AnyComputed(x, argv, f, "an option such as --to-command that runs a program")) return true;
  // Short options that take a value (GNU tar), in clusters and in the old bundled form.
  const std::string_view with_value = "bCfFgHIKLNTVX";
  bool force_local = false;
  std::vector<std::string> archives;
  // What the command does to files: writes the archive (-c -r -u -A --delete), extracts files
  // wherever the archive names them (-x), deletes what it archived (--remove-files).
  bool writes_archive = false, extracts = false, to_stdout = false, removes = false;
  std::vector<std::string> other_writes;  // -g FILE and the like
  auto mode = [&](char c) {
    if (c == 'c' || c == 'r' || c == 'u' || c == 'A') writes_archive = true;
    if (c == 'x') extracts = true;
    if (c == 'O') to_stdout = true;
  };
  auto short_option = [&](char c, const std::string& value) {
    if (c == 'I') OptionCommand(x, argv, f, "-I", value, true);
    if (c == 'F') x.Unverified(f, Shown(argv), "tar -F runs a script at the end of each volume");
    if (c == 'f') archives.push_back(value);
    if (c == 'g') other_writes.push_back(value);  // the incremental snapshot file
  };
  for (size_t i = 1; i < argv.size(); ++i) {
    const std::string& w = argv[i].text;
    if (w == "--") break;
    if (w.rfind("--", 0) == 0) {
      size_t eq = w.find('=');
      std::string written = w.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
      // An exact name wins, else a unique abbreviation; tar itself refuses the others.
      std::string_view name;
      int matches = 0;
      for (std::string_view l : kTarLongOptions) {
        std::string_view bare = l.back() == '=' ? l.substr(0, l.size() - 1) : l;
        if (bare == written) {
          name = l;
          matches = 1;
          break;
        }
        if (bare.substr(0, written.size()) == written) {
          name = l;
          ++matches;
        }
      }
      if (matches != 1) {
        x.Unverified(f, Shown(argv),
                     "tar: " + std::string(matches == 0 ? "unknown" : "ambiguous") + " option " +
                         w + "; it could be one that runs a program");
        return true;
      }
      std::string value;
      if (name.back() == '=') {
        name.remove_suffix(1);
        if (eq != std::string::npos) {
          value = w.substr(eq + 1);
        } else if (i + 1 < argv.size()) {
          value = argv[++i].text;
        }
      } else if (eq != std::string::npos) {
        value = w.substr(eq + 1);  // an optional argument: --backup=numbered
      }
      if (name == "checkpoint-action") {
        if (value.rfind("exec=", 0) == 0) {
          OptionCommand(x, argv, f, "--checkpoint-action=exec", value.substr(5), true);
        }
      } else if (name == "info-script" || name == "new-volume-script" || name == "rmt-command") {
        x.Unverified(f, Shown(argv), "tar --" + std::string(name) + " runs a program");
      } else if (name == "to-command" || name == "use-compress-program" || name == "rsh-command") {
        OptionCommand(x, argv, f, "--" + std::string(name), value, true);
      } else if (name == "force-local") {
        force_local = true;
      } else if (name == "create" || name == "append" || name == "update" || name == "catenate" ||
                 name == "concatenate" || name == "delete") {
        writes_archive = true;
      } else if (name == "extract" || name == "get") {
        extracts = true;
      } else if (name == "to-stdout") {
        to_stdout = true;
      } else if (name == "remove-files") {
        removes = true;
      } else if (name == "file") {
        archives.push_back(value);
      } else if (name == "listed-incremental" || name == "index-file" || name == "volno-file") {
        other_writes.push_back(value);
      }
      continue;
    }
    bool bundled = i == 1 && !w.empty() && w[0] != '-';
    if ((w.size() > 1 && w[0] == '-') || bundled) {
      size_t next = i + 1;
      for (size_t k = bundled ? 0 : 1; k < w.size(); ++k) {
        char c = w[k];
        mode(c);
        if (with_value.find(c) == std::string_view::npos) continue;
        std::string value;
        if (bundled) {
          // Old style: each letter that takes a value takes the next word, in order.
          if (next < argv.size()) value = argv[next++].text;
        } else if (k + 1 < w.size()) {
          value = w.substr(k + 1);
          short_option(c, value);
          break;
        } else if (next < argv.size()) {
          value = argv[next++].text;
        }
        short_option(c, value);
        if (!bundled) break;
      }
      i = next - 1;
    }
  }
  if (removes) {
    x.Unverified(f, Shown(argv),
                 "tar --remove-files deletes the files it archives, which the policy judges "
                 "like rm only when written as rm");
  }
  if (writes_archive) {
    for (const std::string& a : archives) {
      if (a != "-") x.OutputFile(f, a, true, "tar archive");
    }
  }
  if (extracts && !to_stdout) {
    x.AddWrite(f, "the files named in the archive", false, "tar extract");
  }
  for (const std::string& w : other_writes)
    x.AddWrite(f, w, true, "tar");
  if (!force_local) {
    for (const std::string& a : archives) {
      size_t colon = a.find(':');
      if (colon != std::string::npos && a.find('/') > colon) {
        x.Unverified(f, Shown(argv),
                     "tar reads an archive named HOST:FILE through a remote shell; add "
                     "--force-local if " +
                         a + " is a local file");
      }
    }
  }
  return true;
}

bool Zip(Extractor& x, const Argv& argv, const Frame& f, int) {
  if (AnyComputed(x, argv, f, "-TT, which runs a command")) return true;
  for (size_t i = 1; i < argv.size(); ++i) {
    const std::string& w = argv[i].text;
    std::string value;
    bool found = false;
    if (w == "-TT" || (w.rfind("--unz", 0) == 0 &&
                       std::string("--unzip-command").rfind(w.substr(0, w.find('=')), 0) == 0)) {
      size_t eq = w.find('=');
      if (eq != std::string::npos) {
        value = w.substr(eq + 1);
      } else if (i + 1 < argv.size()) {
        value = argv[++i].text;
      }
      found = true;
    } else if (w.rfind("-TT", 0) == 0) {
      value = w.substr(3);
      found = true;
    }
    if (found) OptionCommand(x, argv, f, "zip -TT", value, true);
  }
  // zip -m (also in clusters such as -rm) and --move delete the files it adds.
  for (size_t i = 1; i < argv.size(); ++i) {
    const std::string& w = argv[i].text;
    if (w == "--") break;
    bool move = w.size() > 2 && w.rfind("--", 0) == 0
                    ? std::string("move").rfind(w.substr(2), 0) == 0
                    : w.size() > 1 && w[0] == '-' && w.find('m') != std::string::npos;
    if (move) {
      x.Unverified(f, Shown(argv),
                   "zip " + w +
                       " deletes the files it adds, which the policy judges like rm "
                       "only when written as rm");
      return true;
    }
  }
  // The archive it writes: the first operand, after options whose value is the next word.
  // -O/--out and -lf name other files it writes.
  static constexpr std::array<std::string_view, 14> kWithValue = {"-b",  "-n",
                                                                  "-t",  "-tt",
                                                                  "-Z",  "-P",
                                                                  "-O",  "--out",
                                                                  "-s",  "-ds",
                                                                  "-lf", "--logfile-path",
                                                                  "-TT", "--unzip-command"};
  for (size_t i = 1; i < argv.size(); ++i) {
    const std::string& w = argv[i].text;
    if (std::find(kWithValue.begin(), kWithValue.end(), w) != kWithValue.end()) {
      if (i + 1 < argv.size() &&
          (w == "-O" || w == "--out" || w == "-lf" || w == "--logfile-path")) {
        x.OutputFile(f, argv[i + 1].text, true, "zip " + w);
      }
      ++i;
      continue;
    }
    if (w != "-" && !w.empty() && w[0] == '-' && w != "--") continue;
    if (w == "--") ++i;
    if (i < argv.size() && argv[i].text != "-") {
      x.OutputFile(f, argv[i].text, true, "zip archive");
    }
    break;
  }
  return true;
}

bool Man(Extractor& x, const Argv& argv, const Frame& f, int) {
  if (AnyComputed(x, argv, f, "--pager, which runs a command")) return true;
  const std::string_view with_value = "CeELmMpPrRsS";
  for (size_t i = 1; i < argv.size(); ++i) {
    const std::string& w = argv[i].text;
    if (w == "--") break;
    if (w.rfind("--", 0) == 0) {
      size_t eq = w.find('=');
      std::string name = w.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
      if (name.size() >= 2 && std::string("pager").rfind(name, 0) == 0) {
        std::string value = eq != std::string::npos ? w.substr(eq + 1)
                            : i + 1 < argv.size()   ? argv[++i].text
                                                    : "";
        OptionCommand(x, argv, f, "man --pager", value, true);
      } else if (name.size() >= 2 && std::string("html").rfind(name, 0) == 0 &&
                 eq != std::string::npos) {
        OptionCommand(x, argv, f, "man --html", w.substr(eq + 1), true);
      } else if (name == "config-file" ||
                 (name.size() >= 3 && std::string("config-file").rfind(name, 0) == 0)) {
        x.Unverified(f, Shown(argv), "man --config-file reads settings from another file");
      }
      continue;
    }
    if (w.size() > 1 && w[0] == '-') {
      for (size_t k = 1; k < w.size(); ++k) {
        char c = w[k];
        if (c == 'H') {
          if (k + 1 < w.size()) OptionCommand(x, argv, f, "man -H", w.substr(k + 1), true);
          break;
        }
        if (with_value.find(c) == std::string_view::npos) continue;
        std::string value = k + 1 < w.size()      ? w.substr(k + 1)
                            : i + 1 < argv.size() ? argv[++i].text
                                                  : "";
        if (c == 'P') OptionCommand(x, argv, f, "man -P", value, true);
        if (c == 'C') x.Unverified(f, Shown(argv), "man -C reads settings from another file");
        break;
      }
    }
  }
  return true;
}

// ---- tee, dd, uniq: files they write ----

bool Tee(Extractor& x, const Argv& argv, const Frame& f, int) {
  bool options_done = false;
  for (size_t i = 1; i < argv.size(); ++i) {
    const Arg& a = argv[i];
    if (a.is_static && !options_done) {
      if (a.text == "--") {
        options_done = true;
        continue;
      }
      if (a.text.size() > 1 && a.text[0] == '-') continue;  // -a, --append, --output-error=...
    }
    x.OutputFile(f, a.text, a.is_static, "tee");
  }
  return true;
}

bool Dd(Extractor& x, const Argv& argv, const Frame& f, int) {
  for (size_t i = 1; i < argv.size(); ++i) {
    const Arg& a = argv[i];
    if (!a.is_static) {
      x.AddWrite(f, a.text, false, "dd (a computed operand could be of=FILE)");
      continue;
    }
    if (a.text.rfind("of=", 0) == 0) {
      std::string target = a.text.substr(3);
      x.OutputFile(f, target, true, "dd of=");
    }
  }
  return true;
}

bool Uniq(Extractor& x, const Argv& argv, const Frame& f, int) {
  static const OptionSpec spec{"cdDiuz",
                               "fsw",
                               "",
                               {"count", "repeated", "all-repeated?",
                                "skip-fields=", "skip-chars=", "check-chars=", "group?",
                                "ignore-case", "unique", "zero-terminated", "help", "version"},
                               /*stop_at_operand=*/false};
  ParsedOptions p = ParseOptions(argv, 1, spec);
  if (!p.error.empty()) {
    // A computed word could be the output file.
    x.AddWrite(f, Shown(argv), false, "uniq (" + p.error + ")");
    return true;
  }
  if (p.operands.size() >= 2) {
    const Arg& out = argv[p.operands[1]];
    if (!(out.is_static && (out.text == "-" || out.text == "/dev/null"))) {
      x.AddWrite(f, out.text, out.is_static, "uniq OUTPUT");
    }
  }
  return true;
}

struct NamedHandler {
  std::string_view name;
  Handler handler;
};

constexpr std::array<NamedHandler, 21> kTools = {{
    {"find", Find}, {"gfind", Find}, {"sed", Sed},
    {"gsed", Sed},  {"awk", Awk},    {"gawk", Awk},
    {"mawk", Awk},  {"nawk", Awk},   {"original-awk", Awk},
    {"git", Git},   {"sort", Sort},  {"gsort", Sort},
    {"rg", Rg},     {"tar", Tar},    {"gtar", Tar},
    {"zip", Zip},   {"man", Man},    {"tee", Tee},
    {"dd", Dd},     {"uniq", Uniq},  {"guniq", Uniq},
}};

}  // namespace

Handler FindToolHandler(std::string_view name) {
  for (const NamedHandler& h : kTools) {
    if (h.name == name) return h.handler;
  }
  return nullptr;
}

}  // namespace safesh::policy::internal
