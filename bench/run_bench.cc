// The cost of running a command through safesh as a library (the MCP server's path): a whole
// RunShellCommand of `true` (validate, judge, spool, guard, bash, result) against posix_spawn of
// `bash -c true` and waitpid, the baseline measured in the same run; and the same through the
// bubblewrap sandbox against posix_spawn of a bare bwrap with safesh's own flags (from a dry
// run, without the seccomp descriptor and safesh-confine) running /bin/true.
//   build/bench/run_bench
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

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

// A workspace (also the home) and a context for one benchmark.
struct Bench {
  Bench(const std::string& shell) {
    char t[] = "/tmp/safesh-run-bench-XXXXXX";
    dir = mkdtemp(t);
    // The home outside the writable roots, as on a user's machine: a home inside one (/tmp)
    // would have every default blocked path of it masked, some thirty more mounts.
    const char* h = getenv("HOME");
    std::string base = std::string(h != nullptr ? h : "/root") + "/.local/state";
    std::filesystem::create_directories(base);
    std::string home_template = base + "/safesh-run-bench-home-XXXXXX";
    home = mkdtemp(home_template.data());
    c.workspace = dir;
    c.home = home;
    c.spool_base = dir + "/state/safesh/spool";
    c.environment = safesh::exec::CurrentEnvironment();
    c.settings.sandbox.shell = shell;
    c.settings.commands.auto_approve = {"true"};
    // Without the sandbox auto_approve asks: answered by the headless setting, as a person who
    // runs without the sandbox and lets asks through would.
    if (shell == "off") c.settings.approvals.headless = "allow";
    c.confine = SAFESH_CONFINE;
    std::string error;
    policy = safesh::policy::Policy::Compile(c.settings.commands, &error);
    c.policy = &*policy;
    c.caller_is_subreaper = prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0;
    c.long_lived = true;  // as the MCP server: many commands in one process
    r.command = "true";
  }
  ~Bench() {
    std::filesystem::remove_all(dir);
    std::filesystem::remove_all(home);
  }
  std::string dir, home;
  safesh::pipeline::RunContext c;
  std::optional<safesh::policy::Policy> policy;
  safesh::pipeline::RunRequest r;
};

void RunTrue(benchmark::State& state, const std::string& shell) {
  Bench b(shell);
  for (auto _ : state) {
    safesh::pipeline::RunResult result = safesh::pipeline::RunShellCommand(b.r, b.c);
    if (result.exit_code != 0) state.SkipWithError(result.error.c_str());
  }
}

void BM_RunShellCommandTrue(benchmark::State& state) {
  RunTrue(state, "off");
}
BENCHMARK(BM_RunShellCommandTrue)->Unit(benchmark::kMicrosecond)->UseRealTime();

void BM_BareBwrapTrue(benchmark::State& state) {
  Bench b("required");
  b.r.dry_run = true;
  safesh::pipeline::RunResult plan = safesh::pipeline::RunShellCommand(b.r, b.c);
  if (plan.sandbox_mode != "bwrap") {
    state.SkipWithError("bubblewrap does not work here");
    return;
  }
  // safesh's flags, without the descriptor it passes, running /bin/true.
  std::vector<std::string> args;
  for (size_t i = 0; i < plan.plan.size(); ++i) {
    if (plan.plan[i] == "--seccomp") {
      ++i;
      continue;
    }
    args.push_back(plan.plan[i]);
    if (plan.plan[i] == "--") break;
  }
  args.push_back("/bin/true");
  std::vector<char*> argv;
  for (std::string& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto _ : state) {
    pid_t pid;
    if (posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ) != 0) std::abort();
    int status;
    waitpid(pid, &status, 0);
    if (status != 0) state.SkipWithError("bare bwrap failed");
  }
}
BENCHMARK(BM_BareBwrapTrue)->Unit(benchmark::kMicrosecond)->UseRealTime();

void BM_RunShellCommandSandboxedTrue(benchmark::State& state) {
  RunTrue(state, "required");
}
BENCHMARK(BM_RunShellCommandSandboxedTrue)->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
