// Policy speed: judging a typical agent command (parse, extract every command, match the rules)
// under the reference policy of tests/data/corpus, and the parse alone as the baseline measured
// in the same run.
//   build/bench/policy_bench
#include <string>

#include <benchmark/benchmark.h>

#include "config/settings.h"
#include "policy/verdict.h"
#include "shell/parser.h"

namespace {

// 198 bytes, the same command as parse_bench's.
const char kAgentCommand[] =
    "cd /work/app && git status --short && git diff --stat HEAD~1 -- src/ | head -50 && "
    "rg -n \"TODO|FIXME\" src/ --glob '*.ts' | wc -l && "
    "NODE_ENV=test npm test -- --runInBand \"$TEST_FILE\" 2>&1 | tail -20";

const safesh::policy::Policy& Reference() {
  static const safesh::policy::Policy policy = [] {
    std::string error;
    auto settings = safesh::config::LoadSettings(
        SAFESH_SOURCE_DIR "/tests/data/corpus/reference-policy.toml", &error);
    if (!settings) std::abort();
    return *safesh::policy::Policy::Compile(settings->commands, &error);
  }();
  return policy;
}

void BM_ParseAgentCommand(benchmark::State& state) {
  for (auto _ : state) {
    auto r = safesh::shell::Parse(kAgentCommand);
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_ParseAgentCommand);

void BM_JudgeAgentCommand(benchmark::State& state) {
  const safesh::policy::Policy& policy = Reference();
  for (auto _ : state) {
    auto v = safesh::policy::Judge(&policy, kAgentCommand);
    benchmark::DoNotOptimize(v);
  }
}
BENCHMARK(BM_JudgeAgentCommand);

void BM_JudgeAndWriteJson(benchmark::State& state) {
  const safesh::policy::Policy& policy = Reference();
  for (auto _ : state) {
    std::string json = safesh::policy::VerdictJson(safesh::policy::Judge(&policy, kAgentCommand));
    benchmark::DoNotOptimize(json);
  }
}
BENCHMARK(BM_JudgeAndWriteJson);

}  // namespace

BENCHMARK_MAIN();
