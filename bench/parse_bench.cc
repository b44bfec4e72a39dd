// Parser speed: a typical agent command, and throughput over this machine's shell scripts.
//   build/bench/parse_bench
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "shell/parser.h"
#include "support/script_files.h"

namespace {

// 198 bytes, the shape of what coding agents run: a cd, a few commands joined by && and pipes,
// quoting, an assignment, a parameter expansion, a redirection.
const char kAgentCommand[] =
    "cd /work/app && git status --short && git diff --stat HEAD~1 -- src/ | head -50 && "
    "rg -n \"TODO|FIXME\" src/ --glob '*.ts' | wc -l && "
    "NODE_ENV=test npm test -- --runInBand \"$TEST_FILE\" 2>&1 | tail -20";

void BM_ParseAgentCommand(benchmark::State& state) {
  for (auto _ : state) {
    auto r = safesh::shell::Parse(kAgentCommand);
    benchmark::DoNotOptimize(r);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * (sizeof kAgentCommand - 1));
}
BENCHMARK(BM_ParseAgentCommand);

// Every shell script on this machine that the parser accepts.
const std::vector<std::string>& MachineScripts() {
  static const std::vector<std::string> scripts = [] {
    std::vector<std::string> out;
    for (safesh::testing::ScriptFile& f : safesh::testing::ShellScriptsOnThisMachine()) {
      if (safesh::shell::Parse(f.text).ok()) out.push_back(std::move(f.text));
    }
    return out;
  }();
  return scripts;
}

void BM_ParseMachineScripts(benchmark::State& state) {
  const auto& scripts = MachineScripts();
  int64_t bytes = 0;
  for (const std::string& s : scripts)
    bytes += static_cast<int64_t>(s.size());
  for (auto _ : state) {
    for (const std::string& s : scripts) {
      auto r = safesh::shell::Parse(s);
      benchmark::DoNotOptimize(r);
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * bytes);
  state.counters["scripts"] = static_cast<double>(scripts.size());
}
BENCHMARK(BM_ParseMachineScripts)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
