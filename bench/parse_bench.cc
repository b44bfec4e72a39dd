// Parser speed: a typical agent command, and throughput over this machine's shell scripts.
//   build/bench/parse_bench
#include <dirent.h>
#include <sys/stat.h>

#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "shell/parser.h"

namespace {

// About 200 bytes, the shape of what coding agents run.
const char kAgentCommand[] =
    "cd /work/app && git status --short && git diff --stat HEAD~1 -- src/ | head -50 && "
    "rg -n \"TODO|FIXME\" src/ --glob '*.ts' | wc -l && npm test -- --runInBand 2>&1 | tail -20";

void BM_ParseAgentCommand(benchmark::State& state) {
  for (auto _ : state) {
    auto r = safesh::shell::Parse(kAgentCommand);
    benchmark::DoNotOptimize(r);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * (sizeof kAgentCommand - 1));
}
BENCHMARK(BM_ParseAgentCommand);

void Walk(const std::string& dir, int depth, const std::function<void(const std::string&)>& fn) {
  if (depth > 12) return;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return;
  std::vector<std::string> names;
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") names.push_back(n);
  }
  closedir(d);
  for (const std::string& n : names) {
    std::string path = dir + "/" + n;
    struct stat st;
    if (lstat(path.c_str(), &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      Walk(path, depth + 1, fn);
    } else if (S_ISREG(st.st_mode) && st.st_size > 0 && st.st_size < (1 << 20)) {
      fn(path);
    }
  }
}

// Every shell script under the usual system directories that parses.
const std::vector<std::string>& MachineScripts() {
  static const std::vector<std::string> scripts = [] {
    std::vector<std::string> out;
    for (const char* root : {"/usr/bin", "/usr/sbin", "/etc", "/usr/share", "/usr/lib"}) {
      Walk(root, 0, [&](const std::string& path) {
        std::ifstream in(path, std::ios::binary);
        char head[2] = {0, 0};
        in.read(head, 2);
        if (head[0] != '#' || head[1] != '!') return;
        std::ostringstream ss;
        ss << "#!" << in.rdbuf();
        std::string text = ss.str();
        std::string first = text.substr(0, text.find('\n'));
        if (first.find("sh") == std::string::npos) return;
        if (safesh::shell::Parse(text).ok()) out.push_back(std::move(text));
      });
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
