#include "bash_oracle.h"

#include <sstream>
#include <string>
#include <vector>

#include "support/subprocess.h"

namespace safesh::testing {

namespace {

// Runs bash with `args` and no input; bash's verdict from its exit status and messages.
BashVerdict RunBash(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"/bin/bash"};
  argv.insert(argv.end(), args.begin(), args.end());
  RunOptions options;
  // A fixed, minimal environment: nothing in it may change how bash parses.
  options.env = {"PATH=/usr/bin:/bin", "LC_ALL=C.UTF-8"};
  // bash's own parser can loop forever on some broken input: give it 10 seconds.
  options.timeout_seconds = 10;
  RunOutput run = RunProgram(argv, options);
  bool timed_out = run.timed_out;
  std::string out = run.err + run.out;
  BashVerdict v;
  if (timed_out) {
    v.broken = true;
    v.message = "did not finish parsing within 10 s";
    return v;
  }
  if (run.signal != 0) {
    v.broken = true;
    v.message = "killed by signal " + std::to_string(run.signal);
    return v;
  }
  // bash prints some syntax errors (in [[ ]]) and still exits 0: any non-warning line counts.
  std::istringstream lines(out);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.find("delimited by end-of-file") != std::string::npos) {
      v.unterminated_heredoc = true;
      size_t w = line.find("(wanted `");
      if (w != std::string::npos && line.size() >= w + 11 &&
          line.compare(line.size() - 2, 2, "')") == 0) {
        v.wanted_delimiters.push_back(line.substr(w + 9, line.size() - w - 11));
      }
    }
    if (line.empty() || line.find("warning:") != std::string::npos) continue;
    // Messages start with bash's name or the script's; other lines continue a warning.
    if (line.find(": line ") == std::string::npos && line.rfind("/bin/bash:", 0) != 0) continue;
    if (v.message.empty()) v.message = line;
  }
  v.accepted = run.exit_code == 0 && v.message.empty();
  return v;
}

}  // namespace

// bash stops silently (exit status 0, no message, nothing after it runs) on some syntax errors:
// `[[ ]]`, `for ((a) b))`. A script bash accepts is checked once more with a line that cannot
// parse appended: bash must get as far as that line and complain about it.
BashVerdict ConfirmReachesEnd(const std::string& script, BashVerdict first) {
  if (!first.accepted || first.broken) return first;
  // Here-documents the script leaves open are closed first, so the extra line stays a line.
  std::string closing;
  for (const std::string& d : first.wanted_delimiters)
    closing += "\n" + d;
  BashVerdict v = RunBash({"-n", "-c", "--", script + closing + "\n)"});
  // Only bash's complaint about that very `)' shows it got there; "syntax error in conditional
  // expression: unexpected token `)'" comes from a [[ ]] that swallowed it.
  if (v.broken || v.message.find("syntax error near unexpected token `)'") != std::string::npos) {
    return first;
  }
  if (v.message.empty()) {
    v.accepted = false;
    v.message = "bash stops here without a message";
  }
  return v;
}

BashVerdict BashCheckString(const std::string& script) {
  return ConfirmReachesEnd(script, RunBash({"-n", "-c", "--", script}));
}

BashVerdict BashCheckFile(const std::string& path, const std::string& content) {
  BashVerdict v = RunBash({"-n", path});
  if (content.size() > 100000) return v;
  return ConfirmReachesEnd(content, std::move(v));
}

}  // namespace safesh::testing
