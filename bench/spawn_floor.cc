// The least that any tool which runs a command and returns its output adds to the command:
// one process that starts it as a child (posix_spawn, as fast as a fork can be), reads its
// output from a pipe until the end, and waits for its exit status. No policy, no audit, no
// guard, no cleanup: what is left between this and `safesh run` is what safesh itself costs.
//   spawn_floor PROGRAM [ARG...]   (exits with the program's status; its output is dropped)
// bench/sandbox_compare.sh runs it around the same bubblewrap and bash as safesh's.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

extern char** environ;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: spawn_floor PROGRAM [ARG...]\n");
    return 2;
  }
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) {
    std::perror("spawn_floor: pipe");
    return 2;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, out[1], 2);
  pid_t pid;
  int err = posix_spawn(&pid, argv[1], &actions, nullptr, argv + 1, environ);
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  if (err != 0) {
    std::fprintf(stderr, "spawn_floor: %s: %s\n", argv[1], std::strerror(err));
    return 2;
  }
  char buf[65536];
  ssize_t n;
  while ((n = read(out[0], buf, sizeof buf)) != 0) {
    if (n < 0 && errno != EINTR) break;
  }
  int status;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
