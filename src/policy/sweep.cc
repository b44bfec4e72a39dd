#include "policy/sweep.h"

#include <algorithm>
#include <array>

namespace safesh::policy {
namespace {

std::string BaseName(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The folder a word names, with quotes around a lone $HOME dropped and trailing slashes (and a
// trailing /.) removed: "/", "~", "$HOME", "/home", ...
std::string Normalize(std::string s) {
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = s.substr(1, s.size() - 2);
  while (s.size() > 2 && s.compare(s.size() - 2, 2, "/.") == 0)
    s.resize(s.size() - 2);
  while (s.size() > 1 && s.back() == '/')
    s.pop_back();
  if (s == "${HOME}") s = "$HOME";
  return s;
}

std::optional<std::string> RootOf(const Arg& a, const std::string& home) {
  std::string n = Normalize(a.text);
  if (a.is_static) {
    static constexpr std::array<std::string_view, 6> kRoots = {
        "/", "/Users", "/home", "/Volumes", "/System/Volumes/Data", "/root"};
    if (std::find(kRoots.begin(), kRoots.end(), n) != kRoots.end()) return n;
    if (!home.empty() && n == Normalize(home)) return n;
    return std::nullopt;
  }
  if (n == "~" || n == "$HOME") return n;
  return std::nullopt;
}

bool IsOption(const Arg& a) {
  return a.is_static && a.text.size() > 1 && a.text[0] == '-';
}

// Options of a tool that take the next word as their value (so that word is not a path).
bool TakesValue(std::string_view tool, const std::string& w) {
  if (w.find('=') != std::string::npos || w.rfind("--", 0) != 0) {
    // Short options: the letters that take a value when they end the cluster.
    if (w.rfind("--", 0) == 0 || w.size() < 2) return false;
    char last = w.back();
    std::string_view shorts = tool == "rg"     ? "ABCeEfgjMmrtT"
                              : tool == "grep" ? "ABCdDefm"
                              : tool == "fd"   ? "cdeEjSstxX"
                              : tool == "du"   ? "BdtX"
                              : tool == "tree" ? "HILoPT"
                                               : "";
    return w.size() == 2 && shorts.find(last) != std::string_view::npos;
  }
  static constexpr std::array<std::string_view, 24> kLong = {
      "--regexp",    "--file",       "--glob",         "--iglob",          "--type",
      "--type-not",  "--max-count",  "--context",      "--before-context", "--after-context",
      "--threads",   "--max-depth",  "--exclude",      "--include",        "--exclude-dir",
      "--label",     "--extension",  "--search-path",  "--base-directory", "--block-size",
      "--threshold", "--time-style", "--max-filesize", "--replace"};
  return std::find(kLong.begin(), kLong.end(), w) != kLong.end();
}

// The words of argv[from..] that are operands (not options nor option values).
std::vector<size_t> Operands(std::string_view tool, const Argv& argv, size_t from) {
  std::vector<size_t> out;
  bool done = false;
  for (size_t i = from; i < argv.size(); ++i) {
    const Arg& a = argv[i];
    if (!done && a.is_static && a.text == "--") {
      done = true;
      continue;
    }
    if (!done && IsOption(a)) {
      if (TakesValue(tool, a.text)) ++i;
      continue;
    }
    out.push_back(i);
  }
  return out;
}

bool HasAny(const Argv& argv, std::initializer_list<std::string_view> names) {
  for (const Arg& a : argv) {
    if (!a.is_static) continue;
    for (std::string_view n : names) {
      if (a.text == n ||
          (n.size() > 2 && n.rfind("--", 0) == 0 && a.text.rfind(std::string(n) + "=", 0) == 0)) {
        return true;
      }
    }
  }
  return false;
}

// A short-option cluster containing `c` (-rn, -Rl).
bool HasShort(const Argv& argv, char c) {
  for (const Arg& a : argv) {
    if (a.is_static && a.text.size() > 1 && a.text[0] == '-' && a.text[1] != '-' &&
        a.text.find(c) != std::string::npos) {
      return true;
    }
  }
  return false;
}

}  // namespace

std::optional<std::string> DiskSweepRoot(const CommandUse& use, const std::string& home) {
  const Argv& argv = use.argv;
  if (argv.empty() || !argv[0].is_static || use.role == Role::kLookup) return std::nullopt;
  const std::string tool = BaseName(argv[0].text);
  std::vector<size_t> paths;
  if (tool == "find" || tool == "gfind") {
    size_t i = 1;
    while (i < argv.size() && argv[i].is_static &&
           (argv[i].text == "-H" || argv[i].text == "-L" || argv[i].text == "-P" ||
            argv[i].text.rfind("-O", 0) == 0 || argv[i].text == "-D")) {
      i += argv[i].text == "-D" ? 2 : 1;
    }
    for (; i < argv.size(); ++i) {
      const std::string& w = argv[i].text;
      if (argv[i].is_static && (w.rfind("-", 0) == 0 || w == "(" || w == "!")) break;
      paths.push_back(i);
    }
  } else if (tool == "fd" || tool == "fdfind") {
    std::vector<size_t> ops = Operands("fd", argv, 1);
    if (!ops.empty()) paths.assign(ops.begin() + 1, ops.end());
    for (size_t i = 1; i + 1 < argv.size(); ++i) {
      if (argv[i].is_static &&
          (argv[i].text == "--search-path" || argv[i].text == "--base-directory")) {
        paths.push_back(i + 1);
      }
    }
  } else if (tool == "rg") {
    std::vector<size_t> ops = Operands("rg", argv, 1);
    bool pattern_given =
        HasAny(argv, {"-e", "--regexp", "-f", "--file", "--files", "--type-list"}) ||
        HasShort(argv, 'e');
    paths = ops;
    if (!pattern_given && !paths.empty()) paths.erase(paths.begin());
  } else if (tool == "du" || tool == "tree") {
    paths = Operands(tool, argv, 1);
  } else if (tool == "grep" || tool == "egrep" || tool == "fgrep" || tool == "rgrep" ||
             tool == "zgrep") {
    bool recursive = tool == "rgrep" || HasShort(argv, 'r') || HasShort(argv, 'R') ||
                     HasAny(argv, {"--recursive", "--dereference-recursive"}) ||
                     HasAny(argv, {"--directories=recurse"});
    if (!recursive) return std::nullopt;
    std::vector<size_t> ops = Operands("grep", argv, 1);
    bool pattern_given = HasAny(argv, {"-e", "--regexp", "-f", "--file"});
    paths = ops;
    if (!pattern_given && !paths.empty()) paths.erase(paths.begin());
  } else if (tool == "ls") {
    if (!HasShort(argv, 'R') && !HasAny(argv, {"--recursive"})) return std::nullopt;
    paths = Operands("ls", argv, 1);
  } else {
    return std::nullopt;
  }
  for (size_t i : paths) {
    if (auto root = RootOf(argv[i], home)) return root;
  }
  return std::nullopt;
}

std::string DiskSweepReason(const CommandUse& use, const std::string& root) {
  std::string tool = BaseName(use.argv[0].text);
  return "`" + ShowArgv(use.argv) + "' searches " +
         (root == "/" ? std::string("the whole disk") : "all of " + root) +
         ", which is refused whatever the rules say. To find a program use `command -v NAME` "
         "(or `which NAME`); otherwise search the workspace or name a specific folder (for "
         "example " +
         tool + " ~/.cache/NAME).";
}

}  // namespace safesh::policy
