// Running a program to completion from a test: its output, its exit status, with a time limit.
#ifndef SAFESH_TESTS_SUPPORT_SUBPROCESS_H_
#define SAFESH_TESTS_SUPPORT_SUBPROCESS_H_

#include <string>
#include <vector>

namespace safesh::testing {

struct RunOptions {
  std::string stdin_text;        // written to the program's standard input, then closed
  std::vector<std::string> env;  // the whole environment ("NAME=value")
  int timeout_seconds = 10;      // then SIGKILL
  std::string cwd;               // where it runs (empty: where the caller is)
  int* pid = nullptr;            // when set, receives the program's pid once it has started
};

struct RunOutput {
  std::string out;
  std::string err;
  int exit_code = -1;  // when the program exited
  int signal = 0;      // when a signal ended it
  bool timed_out = false;
};

// Runs argv[0] (a path) with `argv`. Throws std::runtime_error when it cannot be started.
RunOutput RunProgram(const std::vector<std::string>& argv, const RunOptions& options = {});

// Starts argv[0] (a path) with `argv` and the environment `env`, its output to /dev/null, and
// returns its pid without waiting (the caller reaps it). Throws when it cannot be started.
int StartProgram(const std::vector<std::string>& argv, const std::vector<std::string>& env);

}  // namespace safesh::testing

#endif  // SAFESH_TESTS_SUPPORT_SUBPROCESS_H_
