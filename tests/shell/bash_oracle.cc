#include "bash_oracle.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace safesh::testing {

namespace {

// Runs bash with `args`, stdin from /dev/null, and returns its exit status and stderr+stdout.
BashVerdict RunBash(const std::vector<std::string>& args) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
  std::vector<char*> argv;
  std::string bash = "/bin/bash";
  argv.push_back(bash.data());
  std::vector<std::string> copy = args;
  for (std::string& a : copy)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  // A fixed, minimal environment: nothing in it may change how bash parses.
  std::string path = "PATH=/usr/bin:/bin";
  std::string lang = "LC_ALL=C.UTF-8";
  char* envp[] = {path.data(), lang.data(), nullptr};
  pid_t pid;
  int rc = posix_spawn(&pid, "/bin/bash", &fa, nullptr, argv.data(), envp);
  posix_spawn_file_actions_destroy(&fa);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    throw std::runtime_error("cannot run /bin/bash");
  }
  // bash's own parser can loop forever on some broken input: give it 10 seconds.
  std::string out;
  char buf[4096];
  bool timed_out = false;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      kill(pid, SIGKILL);
      break;
    }
    pollfd pfd{fds[0], POLLIN, 0};
    int pr = poll(&pfd, 1, static_cast<int>(left.count()));
    if (pr < 0 && errno == EINTR) continue;
    if (pr <= 0) continue;
    ssize_t n = read(fds[0], buf, sizeof buf);
    if (n > 0) {
      out.append(buf, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  BashVerdict v;
  if (timed_out) {
    v.broken = true;
    v.message = "did not finish parsing within 10 s";
    return v;
  }
  if (WIFSIGNALED(status)) {
    v.broken = true;
    v.message = std::string("killed by signal ") + std::to_string(WTERMSIG(status));
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
  v.accepted = WIFEXITED(status) && WEXITSTATUS(status) == 0 && v.message.empty();
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
  if (v.broken || v.message.find("unexpected token `)'") != std::string::npos) return first;
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
