#include "subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
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

RunOutput RunProgram(const std::vector<std::string>& args, const RunOptions& options) {
  if (args.empty()) throw std::runtime_error("RunProgram: no program");
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
  if (!options.cwd.empty()) posix_spawn_file_actions_addchdir_np(&fa, options.cwd.c_str());
  // This process ignores SIGPIPE (below); the child starts with every signal at its default and
  // none blocked, as it would from a shell.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t all, none;
  sigfillset(&all);
  sigemptyset(&none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  // The child may stop reading early: writing to its closed stdin must be an error, not a signal.
  signal(SIGPIPE, SIG_IGN);
  pid_t pid;
  int rc = posix_spawn(&pid, argv[0], &fa, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) throw std::runtime_error("cannot run " + args[0] + ": " + std::strerror(rc));
  if (options.pid != nullptr) *options.pid = pid;
  in.CloseRead();
  out.CloseWrite();
  err.CloseWrite();
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
    if (pr < 0 && errno != EINTR) {
      kill(pid, SIGKILL);  // cannot watch it any more: do not leave it blocked on a full pipe
      break;
    }
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
  out.CloseRead();
  err.CloseRead();
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR)
      throw std::runtime_error("waitpid failed: " + std::string(std::strerror(errno)));
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  return result;
}

int StartProgram(const std::vector<std::string>& argv, const std::vector<std::string>& env) {
  std::vector<char*> args, envp;
  for (const std::string& a : argv)
    args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  for (const std::string& e : env)
    envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  int rc = posix_spawn(&pid, args[0], &fa, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) throw std::runtime_error("cannot start " + argv[0] + ": " + strerror(rc));
  return pid;
}

}  // namespace safesh::testing
