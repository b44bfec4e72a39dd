// The cost of running a command through safesh as a library (the MCP server's path): a whole
// RunShellCommand of `true` (validate, judge, spool, guard, bash, result) against posix_spawn of
// `bash -c true` and waitpid, the baseline measured in the same run.
//   build/bench/run_bench
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include <benchmark/benchmark.h>

#include "exec/env.h"
#include "pipeline/run_shell_command.h"

namespace {

void BM_BashTrue(benchmark::State& state) {
  char arg0[] = "bash", arg1[] = "-c", arg2[] = "true";
  char* argv[] = {arg0, arg1, arg2, nullptr};
  for (auto _ : state) {
    pid_t pid;
    if (posix_spawn(&pid, "/bin/bash", nullptr, nullptr, argv, environ) != 0) std::abort();
    int status;
    waitpid(pid, &status, 0);
  }
}
BENCHMARK(BM_BashTrue)->Unit(benchmark::kMicrosecond)->UseRealTime();

void BM_RunShellCommandTrue(benchmark::State& state) {
  char t[] = "/tmp/safesh-run-bench-XXXXXX";
  std::string dir = mkdtemp(t);
  safesh::pipeline::RunContext c;
  c.workspace = dir;
  c.home = dir;
  c.spool_base = dir + "/state/safesh/spool";
  c.environment = safesh::exec::CurrentEnvironment();
  c.settings.sandbox.shell = "off";
  c.settings.commands.auto_approve = {"true"};
  std::string error;
  auto policy = safesh::policy::Policy::Compile(c.settings.commands, &error);
  c.policy = &*policy;
  c.caller_is_subreaper = prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0;
  safesh::pipeline::RunRequest r;
  r.command = "true";
  for (auto _ : state) {
    safesh::pipeline::RunResult result = safesh::pipeline::RunShellCommand(r, c);
    if (result.exit_code != 0) state.SkipWithError(result.error.c_str());
  }
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_RunShellCommandTrue)->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
