// Soundness against bash itself: every command bash really runs must be one the policy found,
// unless the policy said it could not verify the script.
//
// Each script runs under real bash inside a throwaway bubblewrap sandbox (read-only root, empty
// home, no network, its own PID namespace, killed after a few seconds). Every program name the
// script could use is a stand-in (argv_logger) that records its arguments, except a few real
// tools that run other commands (env, timeout, xargs, find, sed, awk, bash itself, ...), so that
// what they run is recorded too. bash traces every command it runs (xtrace, inherited by nested
// bash through SHELLOPTS). A command that ran but matches no command the policy extracted is a
// miss: the test fails and prints the script. A script the policy reports as unverified, as
// evaluating something at run time, or as not parsing is counted as covered (its verdict can
// never be `allow'), and not checked further.
//
// SAFESH_SOUNDNESS_CASES scales the number of generated scripts (default 1500 + 1500 mutated).
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <regex>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "policy/extract.h"
#include "script_generator.h"
#include "shell/parser.h"
#include "support/subprocess.h"

namespace safesh::policy {
namespace {

namespace fs = std::filesystem;

// Real programs inside the sandbox: they run other commands, which are then recorded too.
const char* const kRealTools[] = {"env",   "timeout", "nice", "nohup", "stdbuf", "setsid",
                                  "xargs", "find",    "sed",  "awk",   "sort",   "tee",
                                  "uniq",  "cat",     "head", "wc",    "tr",     "flock"};

std::string Which(const std::string& name) {
  for (const char* dir : {"/usr/bin", "/bin", "/usr/sbin", "/sbin"}) {
    std::string p = std::string(dir) + "/" + name;
    if (access(p.c_str(), X_OK) == 0) return p;
  }
  return "";
}

class Sandbox {
 public:
  Sandbox() {
    char tmpl[] = "/tmp/safesh-soundness-XXXXXX";
    if (mkdtemp(tmpl) == nullptr) return;
    root_ = tmpl;
    fs::create_directories(root_ + "/stubs");
    fs::create_directories(root_ + "/log");
    // A copy inside the sandbox's /tmp: the build tree itself may be hidden in there (a clone
    // under /tmp or /root, both replaced by empty file systems).
    fs::copy_file(SAFESH_ARGV_LOGGER, root_ + "/stubs/.argv_logger");
    bwrap_ = Which("bwrap");
    for (const char* t : kRealTools) {
      std::string p = Which(t);
      if (!p.empty()) fs::create_symlink(p, root_ + "/stubs/" + t);
      real_.insert(t);
    }
    // Nested shells are bash, so that they trace what they run.
    fs::create_symlink("/bin/bash", root_ + "/stubs/bash");
    fs::create_symlink("/bin/bash", root_ + "/stubs/sh");
    real_.insert("bash");
    real_.insert("sh");
  }
  ~Sandbox() {
    std::error_code ec;
    if (!root_.empty()) fs::remove_all(root_, ec);
  }

  bool ok() const { return !root_.empty() && !bwrap_.empty(); }
  std::string problem() const {
    return bwrap_.empty() ? "bubblewrap (bwrap) is not installed: run scripts/bootstrap --test"
                          : "cannot create a temporary folder";
  }

  // Every word of the script that could name a program gets a stand-in.
  void StubNames(const std::string& script) {
    static const std::regex word("[A-Za-z_][A-Za-z0-9_.+-]*");
    for (auto it = std::sregex_iterator(script.begin(), script.end(), word);
         it != std::sregex_iterator(); ++it) {
      std::string name = it->str();
      if (real_.count(name) || stubs_.count(name) || name.size() > 64) continue;
      std::error_code ec;
      fs::create_symlink("/tmp/stubs/.argv_logger", root_ + "/stubs/" + name, ec);
      stubs_.insert(name);
    }
  }

  struct Run {
    std::vector<std::vector<std::string>> traced;    // commands bash traced
    std::vector<std::vector<std::string>> recorded;  // programs the stand-ins saw run
    bool timed_out = false;
  };

  Run Execute(const std::string& script) {
    StubNames(script);
    std::string log = root_ + "/log/exec.log";
    std::ofstream(log, std::ios::trunc).close();
    std::vector<std::string> argv = {bwrap_,
                                     "--ro-bind",
                                     "/",
                                     "/",
                                     "--tmpfs",
                                     "/tmp",
                                     "--bind",
                                     root_ + "/stubs",
                                     "/tmp/stubs",
                                     "--bind",
                                     root_ + "/log",
                                     "/tmp/log",
                                     "--dir",
                                     "/tmp/work",
                                     "--chdir",
                                     "/tmp/work",
                                     "--tmpfs",
                                     "/home",
                                     "--tmpfs",
                                     "/root",
                                     "--dev",
                                     "/dev",
                                     "--proc",
                                     "/proc",
                                     "--unshare-all",
                                     "--die-with-parent",
                                     "--new-session",
                                     "--clearenv",
                                     "--setenv",
                                     "PATH",
                                     "/tmp/stubs",
                                     "--setenv",
                                     "HOME",
                                     "/tmp/work",
                                     "--setenv",
                                     "SHELLOPTS",
                                     "xtrace",
                                     "--setenv",
                                     "SAFESH_EXEC_LOG",
                                     "/tmp/log/exec.log",
                                     "--setenv",
                                     "LC_ALL",
                                     "C.UTF-8",
                                     "/bin/bash",
                                     "-c",
                                     script};
    testing::RunOptions options;
    options.timeout_seconds = 3;
    testing::RunOutput out = testing::RunProgram(argv, options);
    Run run;
    run.timed_out = out.timed_out;
    std::istringstream err(out.err);
    std::string line;
    while (std::getline(err, line)) {
      // bash ignores PS4 from the environment when run as root: traced lines start with the
      // default "+ " (one + per level of nesting).
      if (line.empty() || line[0] != '+') continue;
      size_t i = line.find_first_not_of('+');
      if (i == std::string::npos || line[i] != ' ') continue;
      if (auto words = TracedWords(line.substr(i + 1))) run.traced.push_back(*words);
    }
    std::ifstream in(log);
    while (std::getline(in, line)) {
      nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
      if (j.is_array()) run.recorded.push_back(j.get<std::vector<std::string>>());
    }
    return run;
  }

 private:
  // A traced line is bash's own quoting of the words it ran: parse it back.
  static std::optional<std::vector<std::string>> TracedWords(const std::string& line) {
    shell::ParseResult r = shell::Parse(line);
    if (!r.ok() || r.script.body.statements.size() != 1) return std::nullopt;
    const shell::Statement& st = r.script.body.statements[0];
    if (st.body.pipelines.size() != 1 || st.body.pipelines[0].commands.size() != 1) {
      return std::nullopt;
    }
    const auto* simple = std::get_if<shell::SimpleCommand>(&st.body.pipelines[0].commands[0].node);
    if (simple == nullptr || simple->words.empty()) return std::nullopt;
    Argv argv = EvaluateWords(simple->words, r.script.source);
    std::vector<std::string> out;
    for (const Arg& a : argv) {
      if (!a.is_static) return std::nullopt;
      out.push_back(a.text);
    }
    if (out.empty()) return std::nullopt;
    return out;
  }

  std::string root_, bwrap_;
  std::set<std::string> real_, stubs_;
};

std::string BaseName(const std::string& s) {
  size_t slash = s.rfind('/');
  return slash == std::string::npos ? s : s.substr(slash + 1);
}

// Does the command that ran (`ran`) fit what the policy extracted (`use`)? A computed word (or
// find's {}) stands for any number of words; arguments read from input may follow.
bool Fits(const std::vector<std::string>& ran, const CommandUse& use) {
  if (use.argv.empty() || !use.argv[0].is_static) return false;
  if (ran[0] != use.argv[0].text && ran[0] != BaseName(use.argv[0].text)) return false;
  std::vector<const Arg*> pattern;
  for (size_t i = 1; i < use.argv.size(); ++i)
    pattern.push_back(&use.argv[i]);
  auto wildcard = [](const Arg* a) {
    return !a->is_static || a->text.find("{}") != std::string::npos;
  };
  std::function<bool(size_t, size_t)> fit = [&](size_t r, size_t p) -> bool {
    if (p == pattern.size()) return r == ran.size() || use.takes_input_args;
    if (wildcard(pattern[p])) {
      for (size_t k = r; k <= ran.size(); ++k) {
        if (fit(k, p + 1)) return true;
      }
      return false;
    }
    return r < ran.size() && ran[r] == pattern[p]->text && fit(r + 1, p + 1);
  };
  return fit(1, 0);
}

struct Tally {
  int scripts = 0, covered = 0, checked = 0, commands = 0, timed_out = 0;
  std::vector<std::string> misses;
};

void Check(Sandbox& box, const std::string& script, Tally& t) {
  ++t.scripts;
  Extraction ex = ExtractScript(script);
  if (ex.parse_error || !ex.unverified.empty() || !ex.runtime.empty()) {
    ++t.covered;
    return;
  }
  ++t.checked;
  Sandbox::Run run = box.Execute(script);
  if (run.timed_out) ++t.timed_out;
  std::vector<std::vector<std::string>> ran = run.traced;
  ran.insert(ran.end(), run.recorded.begin(), run.recorded.end());
  for (const auto& r : ran) {
    ++t.commands;
    bool found = std::any_of(ex.commands.begin(), ex.commands.end(),
                             [&](const CommandUse& u) { return Fits(r, u); });
    if (!found) {
      std::string shown;
      for (const std::string& w : r)
        shown += (shown.empty() ? "" : " ") + w;
      std::string extracted;
      for (const CommandUse& u : ex.commands)
        extracted += "\n      " + ShowArgv(u.argv);
      t.misses.push_back("bash ran `" + shown + "', which the policy did not find, in:\n    " +
                         script + "\n    extracted:" + extracted);
      return;
    }
  }
}

void Report(const char* what, const Tally& t) {
  std::printf(
      "[soundness] %s: %d scripts; %d checked (%d commands run, every one found by the policy), "
      "%d covered as unverified or evaluated at run time, %d stopped at the time limit, "
      "misses %zu\n",
      what, t.scripts, t.checked, t.commands, t.covered, t.timed_out, t.misses.size());
  std::string all;
  for (const std::string& m : t.misses)
    all += m + "\n";
  EXPECT_TRUE(t.misses.empty()) << t.misses.size() << " misses:\n" << all;
}

// Scripts built from what the policy follows: wrappers, shells, find -exec, sed and awk running
// commands, substitutions, functions, here-documents, brace expansion and quoting.
class PolicyScripts {
 public:
  explicit PolicyScripts(uint64_t seed) : rng_(seed) {}

  std::string Script() {
    std::string out = List(0);
    if (Pick(3) == 0) out += "\n" + List(0);
    return out;
  }

 private:
  int Pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

  std::string Name() {
    static const char* const kNames[] = {"tool", "alpha", "beta", "gamma", "echo", "printf",
                                         "true", "cat",   "wc",   "grep",  "head"};
    std::string n = kNames[Pick(std::size(kNames))];
    switch (Pick(8)) {
      case 0:
        return "'" + n + "'";
      case 1:
        return "\"" + n + "\"";
      case 2:
        return "\\" + n;
      case 3:
        return n.substr(0, 1) + "\\\n" + n.substr(1);
      default:
        return n;
    }
  }

  std::string Arg() {
    static const char* const kArgs[] = {"a",      "-x",         "--long=1", "b{1,2}",
                                        "{c,d}e", "'q w'",      "\"dq\"",   "x\\ y",
                                        "{1..3}", "$'t\\x41b'", "''",       "-"};
    return kArgs[Pick(std::size(kArgs))];
  }

  std::string Simple() {
    std::string out = Name();
    for (int i = Pick(3); i > 0; --i)
      out += " " + Arg();
    return out;
  }

  // A command line without quotes, for places that quote it (sh -c, sed e, awk system()).
  std::string Plain() {
    static const char* const kNames[] = {"tool", "alpha", "beta", "gamma"};
    std::string out = kNames[Pick(std::size(kNames))];
    for (int i = Pick(3); i > 0; --i)
      out += std::string(" ") + (Pick(2) ? "a" : "-x");
    return out;
  }

  std::string Command(int depth) {
    if (depth > 2) return Simple();
    switch (Pick(16)) {
      case 0:
        return "timeout 5 " + Command(depth + 1);
      case 1:
        return "nice -n 1 " + Command(depth + 1);
      case 2:
        return "env A=1 " + Command(depth + 1);
      case 3:
        return "echo a b | xargs -n1 " + Simple();
      case 4:
        return "bash -c '" + Plain() + "; " + Plain() + "'";
      case 5:
        return "sh -c \"" + Plain() + " | " + Plain() + "\"";
      case 6:
        return "find . -maxdepth 0 -exec " + Plain() + " {} \\;";
      case 7:
        return "echo x | sed '1e " + Plain() + "'";
      case 8:
        return "awk 'BEGIN{system(\"" + Plain() + "\")}'";
      case 9:
        return "echo $(" + Command(depth + 1) + ")";
      case 10:
        return "cat <(" + Command(depth + 1) + ")";
      case 11:
        return "f() { " + Command(depth + 1) + "; }; f";
      case 12:
        return "cat <<EOF\n$(" + Plain() + ")\nEOF\n";
      case 13:
        return "command " + Simple();
      case 14:
        return "nohup " + Simple() + " >/dev/null";
      default:
        return Simple();
    }
  }

  std::string List(int depth) {
    std::string out = Command(depth);
    for (int i = Pick(3); i > 0; --i) {
      static const char* const kOps[] = {"; ", " && ", " || ", " | "};
      out += kOps[Pick(std::size(kOps))] + Command(depth);
    }
    if (Pick(6) == 0) out = "if " + Simple() + "; then " + out + "; fi";
    if (Pick(8) == 0) out = "for v in 1 2; do " + out + "; done";
    if (Pick(8) == 0) out = "( " + out + " )";
    return out;
  }

  std::mt19937_64 rng_;
};

int Cases() {
  const char* env = std::getenv("SAFESH_SOUNDNESS_CASES");
  return env ? std::max(1, std::atoi(env)) : 1500;
}

class Soundness : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { box_ = new Sandbox(); }
  static void TearDownTestSuite() {
    delete box_;
    box_ = nullptr;
  }
  void SetUp() override {
    if (!box_->ok()) GTEST_FAIL() << box_->problem();
  }
  static Sandbox* box_;
};
Sandbox* Soundness::box_ = nullptr;

TEST_F(Soundness, TheSandboxRecordsWhatRuns) {
  // The harness itself: a command run directly, through a wrapper, and through sed's e must all
  // be seen, or the other tests would pass for the wrong reason.
  Sandbox::Run r = box_->Execute("tool a; timeout 5 alpha b; echo x | sed '1e beta c'");
  std::set<std::string> seen;
  for (const auto& c : r.traced)
    seen.insert(c[0]);
  for (const auto& c : r.recorded)
    seen.insert(c[0] + (c.size() > 1 ? " " + c[1] : ""));
  for (const char* want : {"tool", "timeout", "alpha b", "beta c"}) {
    EXPECT_TRUE(seen.count(want)) << want;
  }
  // And a miss is reported: a script whose policy view lacks a command that ran.
  CommandUse only_tool;
  only_tool.argv = StaticArgv({"tool", "a"});
  EXPECT_TRUE(Fits({"tool", "a"}, only_tool));
  EXPECT_FALSE(Fits({"tool", "b"}, only_tool));
  EXPECT_FALSE(Fits({"alpha", "a"}, only_tool));
}

TEST_F(Soundness, Corpus) {
  Tally t;
  for (const char* file : {"bypass.tsv", "benign.tsv"}) {
    std::ifstream in(std::string(SAFESH_SOURCE_DIR) + "/tests/data/corpus/" + file);
    ASSERT_TRUE(in) << file;
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
      size_t tab = line.find('\t');
      std::string col = std::string(file) == "bypass.tsv" ? line.substr(tab + 1) : line;
      col = col.substr(0, col.find('\t'));
      nlohmann::json j = nlohmann::json::parse(col, nullptr, false);
      if (j.is_string()) Check(*box_, j.get<std::string>(), t);
    }
  }
  Report("corpus", t);
}

TEST_F(Soundness, PolicyScripts) {
  PolicyScripts gen(20261129);
  Tally t;
  for (int i = 0; i < Cases(); ++i)
    Check(*box_, gen.Script(), t);
  Report("generated policy scripts", t);
  EXPECT_GT(t.checked, Cases() / 2);
}

TEST_F(Soundness, GrammarScripts) {
  testing::ScriptGenerator gen(7);
  Tally t;
  for (int i = 0; i < Cases(); ++i) {
    std::string s = gen.Generate();
    Check(*box_, i % 2 ? gen.Mutate(s) : s, t);
  }
  Report("grammar scripts and mutations", t);
}

}  // namespace
}  // namespace safesh::policy
