// Commands that run another command found in their arguments. Each wrapper's options are read
// exactly (policy/options.h), so the command it runs is found where the wrapper would find it;
// an option the table does not know makes the whole command unverified.
#include <algorithm>
#include <array>

#include "policy/extractor.h"
#include "policy/options.h"

namespace safesh::policy::internal {
namespace {

CommandUse& Use(Extractor& x, int index) {
  return x.out.commands[static_cast<size_t>(index)];
}

std::string Name(const Argv& argv) {
  return BaseName(argv[0].text);
}

// Reads the wrapper's options. False when the command cannot be found with certainty (the
// caller stops) or when only --help/--version was asked for.
bool ReadOptions(Extractor& x, const Argv& argv, const Frame& f, int index, const OptionSpec& spec,
                 ParsedOptions* p) {
  *p = ParseOptions(argv, 1, spec);
  if (!p->error.empty()) {
    x.Unverified(f, Shown(argv),
                 Name(argv) + ": " + p->error + "; safesh cannot tell which command it runs");
    return false;
  }
  if (p->Has("--help") || p->Has("--version")) {
    Use(x, index).role = Role::kLookup;
    return false;
  }
  return true;
}

// A wrapper whose command starts at operand number `skip` (after a duration, a file, ...).
void RunFromOperand(Extractor& x, const Argv& argv, const Frame& f, int index,
                    const ParsedOptions& p, size_t skip) {
  size_t start = p.first_operand + skip;
  if (start >= argv.size()) return;  // no command: the wrapper fails or does nothing else
  for (size_t i = p.first_operand; i < start; ++i) {
    if (!argv[i].is_static) {
      x.Unverified(f, Shown(argv),
                   Name(argv) + "'s argument `" + argv[i].text +
                       "' is computed when it runs; safesh cannot tell where the command starts");
      return;
    }
  }
  Use(x, index).role = Role::kWrapper;
  RunInner(x, argv, start, f, Name(argv));
}

void NoCommandMeansShell(Extractor& x, const Argv& argv, const Frame& f, const ParsedOptions& p) {
  if (p.first_operand >= argv.size()) {
    x.Unverified(f, Shown(argv),
                 Name(argv) +
                     " without a command starts an interactive shell, which the "
                     "policy cannot see");
  }
}

bool Timeout(Extractor& x, const Argv& argv, const Frame& f, int index) {
  static const OptionSpec spec{
      "v",
      "ks",
      "",
      {"kill-after=", "signal=", "verbose", "preserve-status", "foreground", "help", "version"}};
  ParsedOptions p;
  if (ReadOptions(x, argv, f, index, spec, &p)) RunFromOperand(x, argv, f, index, p, 1);
  return true;
}

bool Nice(Extractor& x, const Argv& argv, const Frame& f, int index) {
  static const OptionSpec spec{"", "n", "", {"adjustment=", "help", "version"}};
  Argv args = argv;
  // The old form nice -10 COMMAND: the number is the adjustment.
  if (args.size() > 1 && args[1].is_static && args[1].text.size() > 1 && args[1].text[0] == '-' &&
      std::all_of(args[1].text.begin() + 1, args[1].text.end(),
                  [](char c) { return c >= '0' && c <= '9'; })) {
    args.erase(args.begin() + 1);
  }
  ParsedOptions p;
  if (ReadOptions(x, args, f, index, spec, &p)) RunFromOperand(x, args, f, index, p, 0);
  return true;
}

bool Nohup(Extractor& x, const Argv& argv, const Frame& f, int index) {
  static const OptionSpec spec{"", "", "", {"help", "version"}};
  ParsedOptions p;
  if (ReadOptions(x, argv, f, index, spec, &p)) RunFromOperand(x, argv, f, index, p, 0);
  return true;
}

bool Stdbuf(Extractor& x, const Argv& argv, const Frame& f, int index) {
  static const OptionSpec spec{"", "ioe", "", {"input=", "output=", "error=", "help", "version"}};
  ParsedOptions p;
  if (ReadOptions(x, argv, f, index, spec, &p)) RunFromOperand(x, argv, f, index, p, 0);
  return true;
}

bool Setsid(Extractor& x, const Argv& argv, const Frame& f, int index) {
  static const OptionSpec spec{"cfwhV", "", "", {"ctty", "fork", "wait", "help", "version"}};
  ParsedOptions p;
  if (ReadOptions(x, argv, f, index, spec, &p)) RunFromOperand(x, argv, f, index, p, 0);
  return true;
}

bool Caffeinate(Extractor& x, const Argv& argv, const Frame& f, int index) {
  static const OptionSpec spec{"dimsu", "tw", "", {}};
  ParsedOptions p;
  if (ReadOptions(x, argv, f, index, spec, &p)) RunFromOperand(x, argv, f, index, p, 0);
  return true;
}

bool TimeCommand(Extractor& x, const Argv& argv, const Frame& f, int index) {
  static const OptionSpec spec{
      "apqvV",
      "fo",
      "",
      {"format=", "output=", "append", "portability", "quiet", "verbose", "help", "version"}};
  ParsedOptions p;
  if (!ReadOptions(x, argv, f, index, spec, &p)) return true;
  for (const ParsedOption& o : p.options) {
    if (o.name == "-o" || o.name == "--output") {
      x.AddWrite(f, o.value, o.value_static, Name(argv) + " " + o.name);
    }
  }
  RunFromOperand(x, argv, f, index, p, 0);
  return true;
}

// GNU env -S: splits its string into arguments. Only the plain forms are read here (words,
// single and double quotes without escapes); its escapes and ${VAR} references are left
// unverified rather than imitated.
bool SplitEnvString(const std::string& s, std::vector<std::string>* out, std::string* problem) {
  std::string cur;
  bool in_word = false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r') {
      if (in_word) out->push_back(cur);
      cur.clear();
      in_word = false;
      continue;
    }
    if (c == '$' || c == '\\' || (c == '#' && !in_word)) {
      *problem = std::string("env -S gives `") + c + "' a meaning of its own";
      return false;
    }
    if (c == '\'' || c == '"') {
      size_t close = s.find(c, i + 1);
      if (close == std::string::npos) {
        *problem = "env -S string has an unterminated quote";
        return false;
      }
      std::string inner = s.substr(i + 1, close - i - 1);
      if (c == '"' && inner.find_first_of("$\\") != std::string::npos) {
        *problem = "env -S expands $ and \\ inside double quotes";
        return false;
      }
      cur += inner;
      in_word = true;
      i = close;
      continue;
    }
    cur += c;
    in_word = true;
  }
  if (in_word) out->push_back(cur);
  return true;
}

bool Env(Extractor& x, const Argv& input, const Frame& f, int index) {
  static constexpr std::array<std::string_view, 14> kLong = {"ignore-environment",
                                                             "null",
                                                             "unset=",
                                                             "chdir=",
                                                             "split-string=",
                                                             "block-signal?",
                                                             "default-signal?",
                                                             "ignore-signal?",
                                                             "list-signal-handling",
                                                             "debug",
                                                             "help",
                                                             "version",
                                                             "argv0=",
                                                             "verbose"};
  Argv argv = input;
  int splits = 0;
  size_t i = 1;
  while (i < argv.size()) {
    const Arg& a = argv[i];
    if (!a.is_static) break;  // an assignment or the command: handled below
    const std::string& w = a.text;
    if (w == "--") {
      ++i;
      break;
    }
    if (w == "-") {
      ++i;
      continue;
    }
    std::string split;
    bool has_split = false;
    size_t consumed = 1;
    if (w.rfind("--", 0) == 0) {
      OptionSpec spec{"", "", "", std::vector<std::string_view>(kLong.begin(), kLong.end())};
      Argv one(argv.begin() + static_cast<std::ptrdiff_t>(i),
               argv.begin() + static_cast<std::ptrdiff_t>(std::min(argv.size(), i + 2)));
      one.insert(one.begin(), argv[0]);
      ParsedOptions p = ParseOptions(one, 1, spec);
      if (!p.error.empty() && p.options.empty()) {
        x.Unverified(f, Shown(input),
                     "env: " + p.error + "; safesh cannot tell which command it runs");
        return true;
      }
      const ParsedOption& o = p.options[0];
      if (o.name == "--help" || o.name == "--version" || o.name == "--list-signal-handling") {
        Use(x, index).role = Role::kLookup;
        return true;
      }
      consumed = (o.has_value && w.find('=') == std::string::npos) ? 2 : 1;
      if (!o.value_static) {
        x.Unverified(f, Shown(input), "env's option " + o.name + " is computed when it runs");
        return true;
      }
      if (o.name == "--split-string") {
        split = o.value;
        has_split = true;
      }
    } else if (w.size() > 1 && w[0] == '-') {
      for (size_t k = 1; k < w.size(); ++k) {
        char c = w[k];
        if (c == 'i' || c == '0' || c == 'v') continue;
        if (c == 'u' || c == 'C' || c == 'S' || c == 'a') {
          std::string value;
          if (k + 1 < w.size()) {
            value = w.substr(k + 1);
          } else if (i + 1 < argv.size()) {
            if (!argv[i + 1].is_static) {
              x.Unverified(f, Shown(input), std::string("env's option -") + c + " is computed");
              return true;
            }
            value = argv[i + 1].text;
            consumed = 2;
          } else {
            x.Unverified(f, Shown(input), std::string("env: option -") + c + " needs a value");
            return true;
          }
          if (c == 'S') {
            split = value;
            has_split = true;
          }
          break;
        }
        x.Unverified(f, Shown(input),
                     std::string("env: unknown option -") + c +
                         "; safesh cannot tell which command it runs");
        return true;
      }
    } else {
      break;
    }
    if (has_split) {
      std::vector<std::string> parts;
      std::string problem;
      if (++splits > 3 || !SplitEnvString(split, &parts, &problem)) {
        x.Unverified(f, Shown(input), problem.empty() ? "env -S used too many times" : problem);
        return true;
      }
      // The split words take the place of the -S option and its string.
      Argv next(argv.begin(), argv.begin() + static_cast<std::ptrdiff_t>(i));
      Argv words = StaticArgv(parts);
      next.insert(next.end(), words.begin(), words.end());
      next.insert(next.end(), argv.begin() + static_cast<std::ptrdiff_t>(i + consumed), argv.end());
      argv = std::move(next);
      continue;
    }
    i += consumed;
  }
  // NAME=VALUE words set variables for the command. env takes any name (BASH_FUNC_f%% too).
  for (; i < argv.size(); ++i) {
    const std::string& w = argv[i].text;
    size_t eq = w.find('=');
    if (eq == std::string::npos || eq == 0 || (!argv[i].is_static && !IsName(w.substr(0, eq)))) {
      break;
    }
    std::string value = w.substr(eq + 1);
    x.Variable(f, w.substr(0, eq), argv[i].is_static ? &value : nullptr, Shown(input));
  }
  if (i >= argv.size()) return true;  // env alone prints the environment
  Use(x, index).role = Role::kWrapper;
  RunInner(x, argv, i, f, "env");
  return true;
}

bool Sudo(Extractor& x, const Argv& argv, const Frame& f, int index) {
  static const OptionSpec spec{"AbBEeHiKklnNPSsVv",
                               "aCcDgpRrTtUu",
                               "h",
                               {"askpass",
                                "background",
                                "bell",
                                "close-from=",
                                "chdir=",
                                "preserve-env?",
                                "edit",
                                "group=",
                                "set-home",
                                "help",
                                "host=",
                                "login",
                                "remove-timestamp",
                                "reset-timestamp",
                                "list",
                                "non-interactive",
                                "preserve-groups",
                                "prompt=",
                                "chroot=",
                                "role=",
                                "stdin",
                                "shell",
                                "type=",
                                "command-timeout=",
                                "other-user=",
                                "user=",
                                "version",
                                "validate"}};
  ParsedOptions p;
  if (!ReadOptions(x, argv, f, index, spec, &p)) return true;
  size_t i = p.first_operand;
  for (; i < argv.size(); ++i) {
    const std::string& w = argv[i].text;
    size_t eq = w.find('=');
    if (!argv[i].is_static || eq == std::string::npos || !IsName(w.substr(0, eq))) break;
    std::string value = w.substr(eq + 1);
    x.Variable(f, w.substr(0, eq), &value, Shown(argv));
  }
  if (p.Has("-e") || p.Has("--edit")) {
    for (size_t k = i; k < argv.size(); ++k)
      x.AddWrite(f, argv[k].text, argv[k].is_static, "sudo -e");
    return true;
  }
  bool shell = p.Has("-s") || p.Has("--shell") || p.Has("-i") || p.Has("--login");
  if (i >= argv.size()) {
    if (shell) x.Unverified(f, Shown(argv), "sudo -s/-i without a command starts a shell");
    return true;
  }
  Use(x, index).role = Role::kWrapper;
  if (shell) {
    // The command runs through the target user's shell: sudo -s CMD ARGS is SHELL -c 'CMD ARGS'.
    bool all_static = true;
    std::string text;
    for (size_t k = i; k < argv.size(); ++k) {
      all_static = all_static && argv[k].is_static;
      text += (k > i ? " " : "") + argv[k].text;
    }
    if (!all_static) {
      x.Unverified(f, Shown(argv), "sudo -s runs a command line computed when it runs");
      return true;
    }
    x.ShellText(text, f, "sudo -s", Shown(argv), Extractor::Dialect::kPosixSh);
    return true;
  }
  RunInner(x, argv, i, f, "sudo");
  return true;
}

bool Doas(Extractor& x, const Argv& argv, const Frame& f, int index) {
  static const OptionSpec spec{"nsL", "uC", "", {}};
  ParsedOptions p;
  if (!ReadOptions(x, argv, f, index, spec, &p)) return true;
  if (p.first_operand >= argv.size()) {
    if (p.Has("-s")) x.Unverified(f, Shown(argv), "doas -s starts a shell");
    return true;
  }
  RunFromOperand(x, argv, f, index, p, 0);
  return true;
}

bool Flock(Extractor& x, const Argv& argv, const Frame& f, int index) {
  static const OptionSpec spec{
      "sxeunoFhV",
      "wE",
      "",
      {"shared", "exclusive", "unlock", "nonblock", "nb", "close", "no-fork",
       "wait=", "timeout=", "conflict-exit-code=", "verbose", "help", "version"}};
  ParsedOptions p;
  if (!ReadOptions(x, argv, f, index, spec, &p)) return true;
  size_t file = p.first_operand;
  if (file + 1 >= argv.size()) return true;  // flock FD, or nothing to run
  const Arg& next = argv[file + 1];
  if (next.is_static && (next.text == "-c" || next.text == "--command")) {
    Use(x, index).role = Role::kWrapper;
    if (file + 2 >= argv.size()) return true;
    if (!argv[file + 2].is_static) {
      x.Unverified(f, Shown(argv), "flock -c runs a command line computed when it runs");
      return true;
    }
    x.ShellText(argv[file + 2].text, f, "flock -c", Shown(argv), Extractor::Dialect::kPosixSh);
    return true;
  }
  RunFromOperand(x, argv, f, index, p, 1);
  return true;
}

bool Taskset(Extractor& x, const Argv& argv, const Frame& f, int index) {
  static const OptionSpec spec{
      "apchV", "", "", {"all-tasks", "pid", "cpu-list", "help", "version"}};
  ParsedOptions p;
  if (!ReadOptions(x, argv, f, index, spec, &p)) return true;
  if (p.Has("-p") || p.Has("--pid")) return true;  // changes a running process
  RunFromOperand(x, argv, f, index, p, 1);
  return true;
}

bool Ionice(Extractor& x, const Argv& argv, const Frame& f, int index) {
  static const OptionSpec spec{
      "thV",
      "cnpPu",
      "",
      {"class=", "classdata=", "pid=", "pgid=", "uid=", "ignore", "help", "version"}};
  ParsedOptions p;
  if (!ReadOptions(x, argv, f, index, spec, &p)) return true;
  for (const char* o : {"-p", "--pid", "-P", "--pgid", "-u", "--uid"}) {
    if (p.Has(o)) return true;  // acts on running processes
  }
  RunFromOperand(x, argv, f, index, p, 0);
  return true;
}

bool Chrt(Extractor& x, const Argv& argv, const Frame& f, int index) {
  static const OptionSpec spec{"abdfiomprRvhVe",
                               "TPD",
                               "",
                               {"all-tasks", "batch", "deadline", "fifo", "idle", "other", "rr",
                                "reset-on-fork", "max", "pid", "verbose", "sched-runtime=",
                                "sched-period=", "sched-deadline=", "help", "version", "ext"}};
  ParsedOptions p;
  if (!ReadOptions(x, argv, f, index, spec, &p)) return true;
  if (p.Has("-p") || p.Has("--pid") || p.Has("-m") || p.Has("--max")) return true;
  RunFromOperand(x, argv, f, index, p, 1);
  return true;
}

bool Prlimit(Extractor& x, const Argv& argv, const Frame& f, int index) {
  static const OptionSpec spec{
      "hV", "po", "cdefilmnqrstuvxy", {"pid=",      "output=",     "noheadings", "raw",   "verbose",
                                       "help",      "version",     "core?",      "data?", "nice?",
                                       "fsize?",    "sigpending?", "memlock?",   "rss?",  "nofile?",
                                       "msgqueue?", "rtprio?",     "stack?",     "cpu?",  "nproc?",
                                       "as?",       "locks?",      "rttime?"}};
  ParsedOptions p;
  if (!ReadOptions(x, argv, f, index, spec, &p)) return true;
  if (p.Has("-p") || p.Has("--pid")) return true;
  RunFromOperand(x, argv, f, index, p, 0);
  return true;
}

bool Unshare(Extractor& x, const Argv& argv, const Frame& f, int index) {
  static const OptionSpec spec{
      "fhVrcl", "RwSG", "muinpUCT", {"mount?",       "uts?",          "ipc?",
                                     "net?",         "pid?",          "user?",
                                     "cgroup?",      "time?",         "fork",
                                     "kill-child?",  "mount-proc?",   "map-user=",
                                     "map-group=",   "map-users=",    "map-groups=",
                                     "map-auto",     "map-root-user", "map-current-user",
                                     "propagation=", "setgroups=",    "keep-caps",
                                     "root=",        "wd=",           "setuid=",
                                     "setgid=",      "monotonic=",    "boottime=",
                                     "load-interp=", "help",          "version"}};
  ParsedOptions p;
  if (!ReadOptions(x, argv, f, index, spec, &p)) return true;
  NoCommandMeansShell(x, argv, f, p);
  RunFromOperand(x, argv, f, index, p, 0);
  return true;
}

bool Nsenter(Extractor& x, const Argv& argv, const Frame& f, int index) {
  static const OptionSpec spec{"ahVecFZ",
                               "tSGW",
                               "muinpCUTrw",
                               {"all",
                                "target=",
                                "mount?",
                                "uts?",
                                "ipc?",
                                "net?",
                                "pid?",
                                "cgroup?",
                                "user?",
                                "time?",
                                "setuid=",
                                "setgid=",
                                "preserve-credentials",
                                "root?",
                                "wd?",
                                "wdns=",
                                "env",
                                "join-cgroup",
                                "no-fork",
                                "follow-context",
                                "user-parent",
                                "help",
                                "version"}};
  ParsedOptions p;
  if (!ReadOptions(x, argv, f, index, spec, &p)) return true;
  NoCommandMeansShell(x, argv, f, p);
  RunFromOperand(x, argv, f, index, p, 0);
  return true;
}

bool Strace(Extractor& x, const Argv& argv, const Frame& f, int index) {
  static const OptionSpec spec{"cCdDfFhiknqrtTvVwxyzZ",
                               "abeEIoOpPsSuXU",
                               "",
                               {"output=",
                                "trace=",
                                "signal=",
                                "status=",
                                "attach=",
                                "user=",
                                "env=",
                                "string-limit=",
                                "summary-only",
                                "summary",
                                "follow-forks",
                                "output-separately",
                                "absolute-timestamps?",
                                "relative-timestamps?",
                                "syscall-times?",
                                "timestamps?",
                                "seccomp-bpf",
                                "decode-fds?",
                                "decode-pids?",
                                "stack-trace",
                                "stack-traces",
                                "no-abbrev",
                                "quiet?",
                                "silent?",
                                "verbose?",
                                "instruction-pointer",
                                "columns=",
                                "const-print-style=",
                                "summary-sort-by=",
                                "summary-columns=",
                                "summary-syscall-overhead=",
                                "trace-path=",
                                "detach-on=",
                                "kill-on-exit",
                                "daemonize?",
                                "debug",
                                "successful-only",
                                "failed-only",
                                "raw=",
                                "read=",
                                "write=",
                                "fault=",
                                "inject=",
                                "strings-in-hex?",
                                "help",
                                "version"}};
  ParsedOptions p;
  if (!ReadOptions(x, argv, f, index, spec, &p)) return true;
  for (const ParsedOption& o : p.options) {
    if (o.name == "-o" || o.name == "--output") {
      if (o.value_static && !o.value.empty() && (o.value[0] == '|' || o.value[0] == '!')) {
        // strace -o '|cmd' pipes the trace into a shell command.
        x.ShellText(o.value.substr(1), f, "strace -o |", Shown(argv), Extractor::Dialect::kPosixSh);
      } else {
        x.AddWrite(f, o.value, o.value_static, "strace " + o.name);
      }
    } else if (o.name == "-E" || o.name == "--env") {
      size_t eq = o.value.find('=');
      std::string value = eq == std::string::npos ? "" : o.value.substr(eq + 1);
      x.Variable(f, o.value.substr(0, eq), o.value_static ? &value : nullptr, Shown(argv));
    }
  }
  RunFromOperand(x, argv, f, index, p, 0);
  return true;
}

bool Script(Extractor& x, const Argv& argv, const Frame& f, int index) {
  static const OptionSpec spec{
      "aefqhV",
      "cTBIOmEo",
      "t",
      {"append", "command=", "echo=", "return", "flush", "force", "log-in=", "log-out=", "log-io=",
       "log-timing=", "logging-format=", "output-limit=", "quiet", "timing?", "help", "version"},
      /*stop_at_operand=*/false};
  ParsedOptions p;
  if (!ReadOptions(x, argv, f, index, spec, &p)) return true;
  const ParsedOption* cmd = p.Find("-c");
  if (cmd == nullptr) cmd = p.Find("--command");
  for (const ParsedOption& o : p.options) {
    if (o.name == "-B" || o.name == "-I" || o.name == "-O" || o.name == "-T" ||
        o.name == "--log-in" || o.name == "--log-out" || o.name == "--log-io" ||
        o.name == "--log-timing") {
      x.AddWrite(f, o.value, o.value_static, "script " + o.name);
    }
  }
  if (p.operands.empty()) {
    x.AddWrite(f, "typescript", true, "script");
  } else {
    const Arg& file = argv[p.operands[0]];
    x.AddWrite(f, file.text, file.is_static, "script");
  }
  if (cmd == nullptr) {
    x.Unverified(f, Shown(argv), "script without -c starts an interactive shell");
    return true;
  }
  if (!cmd->value_static) {
    x.Unverified(f, Shown(argv), "script -c runs a command line computed when it runs");
    return true;
  }
  Use(x, index).role = Role::kWrapper;
  x.ShellText(cmd->value, f, "script -c", Shown(argv), Extractor::Dialect::kPosixSh);
  return true;
}

bool Watch(Extractor& x, const Argv& argv, const Frame& f, int index) {
  static const OptionSpec spec{"bcCeghptvwxrq",
                               "n",
                               "d",
                               {"beep", "color", "no-color", "differences?", "errexit", "chgexit",
                                "equexit=", "interval=", "precise", "no-rerun", "no-title",
                                "no-wrap", "no-linewrap", "exec", "help", "version"}};
  ParsedOptions p;
  if (!ReadOptions(x, argv, f, index, spec, &p)) return true;
  if (p.first_operand >= argv.size()) return true;
  Use(x, index).role = Role::kWrapper;
  if (p.Has("-x") || p.Has("--exec")) {
    RunInner(x, argv, p.first_operand, f, "watch -x");
    return true;
  }
  // Without -x, watch joins its arguments with spaces and runs them with sh -c.
  bool all_static = true;
  std::string text;
  for (size_t k = p.first_operand; k < argv.size(); ++k) {
    all_static = all_static && argv[k].is_static;
    text += (k > p.first_operand ? " " : "") + argv[k].text;
  }
  if (!all_static) {
    x.Unverified(f, Shown(argv), "watch runs a command line computed when it runs");
    return true;
  }
  x.ShellText(text, f, "watch", Shown(argv), Extractor::Dialect::kPosixSh);
  return true;
}

// su and runuser: the command is the -c string, run by the target user's shell.
bool Su(Extractor& x, const Argv& argv, const Frame& f, int index) {
  const std::string name = Name(argv);
  const Arg* command = nullptr;
  Arg attached;  // the command when written as -cCMD or --command=CMD
  for (size_t i = 1; i < argv.size(); ++i) {
    const Arg& a = argv[i];
    if (!a.is_static) {
      x.Unverified(f, Shown(argv), name + "'s argument `" + a.text + "' is computed when it runs");
      return true;
    }
    const std::string& w = a.text;
    if (w == "-s" || w.rfind("--shell", 0) == 0 || (w.size() > 2 && w.rfind("-s", 0) == 0)) {
      x.Unverified(f, Shown(argv), name + " -s runs another shell, which the policy cannot read");
      return true;
    }
    if (w == "-c" || w == "--command" || w == "--session-command") {
      if (i + 1 < argv.size()) command = &argv[++i];
    } else if (w.rfind("--command=", 0) == 0 || w.rfind("--session-command=", 0) == 0) {
      attached = Arg{w.substr(w.find('=') + 1), true, {}};
      command = &attached;
    } else if (w.size() > 2 && w.rfind("-c", 0) == 0) {
      attached = Arg{w.substr(2), true, {}};
      command = &attached;
    }
  }
  if (command == nullptr) {
    x.Unverified(f, Shown(argv), name + " without -c starts an interactive shell");
    return true;
  }
  if (!command->is_static) {
    x.Unverified(f, Shown(argv), name + " -c runs a command line computed when it runs");
    return true;
  }
  Use(x, index).role = Role::kWrapper;
  x.ShellText(command->text, f, name + " -c", Shown(argv), Extractor::Dialect::kPosixSh);
  return true;
}

bool Busybox(Extractor& x, const Argv& argv, const Frame& f, int index) {
  if (argv.size() < 2 || (argv[1].is_static && argv[1].text.rfind("-", 0) == 0)) return true;
  Use(x, index).role = Role::kWrapper;
  RunInner(x, argv, 1, f, "busybox");
  return true;
}

bool Xargs(Extractor& x, const Argv& argv, const Frame& f, int index) {
  static const OptionSpec spec{
      "0prtxo",
      "aEdILPns",
      "eil",
      {"null", "arg-file=", "delimiter=", "eof?", "replace?", "max-lines?", "max-args=", "open-tty",
       "interactive", "max-procs=", "no-run-if-empty", "max-chars=", "show-limits", "verbose",
       "exit", "process-slot-var=", "help", "version"}};
  ParsedOptions p;
  if (!ReadOptions(x, argv, f, index, spec, &p)) return true;
  Use(x, index).role = Role::kWrapper;
  if (p.first_operand >= argv.size()) {
    // xargs without a command runs echo.
    Argv echo = {Arg{"echo", true, {}}};
    RunInner(x, echo, 0, f, "xargs", /*takes_input_args=*/true);
    return true;
  }
  // With -I R, -i[R] or --replace[=R], xargs puts each input line wherever R appears, inside
  // words too: `xargs -I{} sh -c 'echo {}'' runs input as shell code. Such words are computed.
  std::string replace;
  for (const ParsedOption& o : p.options) {
    if (o.name == "-I" || o.name == "-i" || o.name == "--replace") {
      if (!o.value_static) {
        x.Unverified(f, Shown(argv),
                     "xargs " + o.name + " uses a replace string computed when it runs");
        return true;
      }
      replace = o.has_value ? o.value : std::string("{}");
    }
  }
  Argv run = argv;
  if (!replace.empty()) {
    for (size_t k = p.first_operand; k < run.size(); ++k) {
      if (run[k].text.find(replace) == std::string::npos) continue;
      run[k].is_static = false;
      run[k].why = "xargs replaces " + replace + " with a line of its input";
    }
  }
  // With a replace string, xargs appends nothing.
  RunInner(x, run, p.first_operand, f, "xargs", /*takes_input_args=*/replace.empty());
  return true;
}

struct NamedHandler {
  std::string_view name;
  Handler handler;
};

constexpr std::array<NamedHandler, 26> kWrappers = {{
    {"timeout", Timeout},
    {"gtimeout", Timeout},
    {"nice", Nice},
    {"nohup", Nohup},
    {"stdbuf", Stdbuf},
    {"setsid", Setsid},
    {"caffeinate", Caffeinate},
    {"time", TimeCommand},
    {"env", Env},
    {"sudo", Sudo},
    {"doas", Doas},
    {"flock", Flock},
    {"taskset", Taskset},
    {"ionice", Ionice},
    {"chrt", Chrt},
    {"prlimit", Prlimit},
    {"unshare", Unshare},
    {"nsenter", Nsenter},
    {"strace", Strace},
    {"script", Script},
    {"watch", Watch},
    {"su", Su},
    {"runuser", Su},
    {"busybox", Busybox},
    {"xargs", Xargs},
    {"gxargs", Xargs},
}};

}  // namespace

Handler FindWrapperHandler(std::string_view name) {
  for (const NamedHandler& h : kWrappers) {
    if (h.name == name) return h.handler;
  }
  return nullptr;
}

}  // namespace safesh::policy::internal
