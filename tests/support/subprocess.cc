#include "subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <stdexcept>

namespace safesh::testing {
namespace {

struct Pipe {
  int read = -1;
  int write = -1;
  Pipe() {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
    read = fds[0];
    write = fds[1];
  }
  ~Pipe() {
    CloseRead();
    CloseWrite();
  }
  void CloseRead() {
    if (read >= 0) close(read);
    read = -1;
  }
  void CloseWrite() {
    if (write >= 0) close(write);
    write = -1;
  }
};

}  // namespace

RunOutput Run(const std::vector<std::string>& args, const RunOptions& options) {
  if (args.empty()) throw std::runtime_error("Run: no program");
  Pipe in, out, err;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in.read, 0);
  posix_spawn_file_actions_adddup2(&fa, out.write, 1);
  posix_spawn_file_actions_adddup2(&fa, err.write, 2);
  std::vector<std::string> argv_copy = args, env_copy = options.env;
  std::vector<char*> argv, envp;
  for (std::string& a : argv_copy)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  for (std::string& e : env_copy)
    envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid;
  int rc = posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) throw std::runtime_error("cannot run " + args[0]);
  in.CloseRead();
  out.CloseWrite();
  err.CloseWrite();
  // The child may stop reading early: a write to a closed pipe must be an error, not a signal.
  signal(SIGPIPE, SIG_IGN);
  fcntl(in.write, F_SETFL, O_NONBLOCK);

  RunOutput result;
  size_t written = 0;
  if (options.stdin_text.empty()) in.CloseWrite();
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(options.timeout_seconds);
  while (out.read >= 0 || err.read >= 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.timed_out = true;
      kill(pid, SIGKILL);
      break;
    }
    pollfd pfds[3] = {{out.read, POLLIN, 0}, {err.read, POLLIN, 0}, {in.write, POLLOUT, 0}};
    int pr = poll(pfds, 3, static_cast<int>(left.count()));
    if (pr < 0 && errno != EINTR) break;
    if (pr <= 0) continue;
    if (pfds[2].revents != 0) {
      ssize_t n =
          write(in.write, options.stdin_text.data() + written, options.stdin_text.size() - written);
      if (n > 0) written += static_cast<size_t>(n);
      if ((n < 0 && errno != EAGAIN && errno != EINTR) || written == options.stdin_text.size()) {
        in.CloseWrite();
      }
    }
    for (int i = 0; i < 2; ++i) {
      if (pfds[i].revents == 0) continue;
      Pipe& p = i == 0 ? out : err;
      char buf[4096];
      ssize_t n = read(p.read, buf, sizeof buf);
      if (n > 0) {
        (i == 0 ? result.out : result.err).append(buf, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        p.CloseRead();
      }
    }
  }
  in.CloseWrite();
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  return result;
}

}  // namespace safesh::testing
