// What keeping background processes costs their host: N processes (8) started through one
// Session print continuously for a while (10 s); the host's CPU time (getrusage of its own
// process: every thread, not the commands or their guards) is reported against that wall time,
// with its resident memory sampled each second.
//
//   build/bench/background_bench [--processes N] [--seconds S] [--sandbox] [--rlimit]
//                                [--pattern RE] [--command CMD]
//
// The default command prints 80-byte lines as fast as bash can; --command 'CMD' replaces it
// (e.g. a log line every millisecond). --pattern gives every process a notify_pattern, so its
// output passes through the host's memory to be matched instead of being spliced to the spool.
// --rlimit: resource limits by rlimits and safesh's count of processes, as where no cgroup can
// be made (SAFESH_LIMITS=rlimit).
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "exec/env.h"
#include "sandbox/bwrap.h"
#include "session/session.h"

namespace {

double CpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// VmRSS of this process, in KiB.
long RssKiB() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 10);
  }
  return -1;
}

}  // namespace

int main(int argc, char** argv) {
  int processes = 8;
  double seconds = 10;
  bool sandboxed = false;
  bool rlimit = false;
  std::string pattern;
  std::string command =
      "while :; do echo 'GET /static/app.js 200 1532 bytes in 0.4 ms - a dev server log line'; "
      "done";
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--processes" && i + 1 < argc) {
      processes = std::atoi(argv[++i]);
    } else if (a == "--seconds" && i + 1 < argc) {
      seconds = std::atof(argv[++i]);
    } else if (a == "--sandbox") {
      sandboxed = true;
    } else if (a == "--pattern" && i + 1 < argc) {
      pattern = argv[++i];
    } else if (a == "--rlimit") {
      rlimit = true;
    } else if (a == "--command" && i + 1 < argc) {
      command = argv[++i];
    } else {
      fprintf(stderr,
              "usage: %s [--processes N] [--seconds S] [--sandbox] [--rlimit] [--pattern RE] "
              "[--command CMD]\n",
              argv[0]);
      return 64;
    }
  }

  char t[] = "/tmp/safesh-bg-bench-XXXXXX";
  std::string dir = mkdtemp(t);
  std::filesystem::create_directories(dir + "/ws");
  safesh::pipeline::RunContext context;
  context.workspace = dir + "/ws";
  context.home = dir;
  context.spool_base = dir + "/state/safesh/spool";
  context.environment = safesh::exec::CurrentEnvironment();
  context.settings.sandbox.shell = sandboxed ? "required" : "off";
  if (sandboxed) {
    context.bwrap = safesh::sandbox::FindBwrap();
    context.launcher = "bwrap";
  }
  context.settings.background.max_running = processes;
  if (rlimit) context.limits_override = "rlimit";
  context.prompter = [](const safesh::approval::ApprovalRequest&) {
    return safesh::approval::Answer::kApprove;
  };

  int status = 0;
  {
    safesh::session::Session session(context);
    for (int i = 0; i < processes; ++i) {
      safesh::pipeline::RunRequest r;
      r.command = command;
      r.background = true;
      r.notify_pattern = pattern;
      safesh::pipeline::RunResult res = session.Run(r);
      if (res.background_id.empty()) {
        fprintf(stderr, "background_bench: could not start: %s\n", res.error.c_str());
        return 1;
      }
    }
    auto start = std::chrono::steady_clock::now();
    double cpu0 = CpuSeconds();
    long rss_first = RssKiB(), rss_max = rss_first, rss_last = rss_first;
    std::vector<long> samples;
    for (int s = 1; s <= static_cast<int>(seconds); ++s) {
      std::this_thread::sleep_until(start + std::chrono::seconds(s));
      rss_last = RssKiB();
      rss_max = std::max(rss_max, rss_last);
      samples.push_back(rss_last);
    }
    std::this_thread::sleep_until(start + std::chrono::duration<double>(seconds));
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    double cpu = CpuSeconds() - cpu0;
    uint64_t bytes = 0;
    int running = 0;
    for (const safesh::session::ProcessInfo& p : session.List()) {
      bytes += p.output_bytes;
      running += p.running ? 1 : 0;
    }
    size_t notices = session.TakeNotices().size();
    printf("%d background processes%s%s%s for %.1f s wall\n", processes,
           sandboxed ? " in bubblewrap" : " without a sandbox", rlimit ? ", rlimits" : "",
           pattern.empty() ? "" : (", notify_pattern " + pattern).c_str(), wall);
    printf("host CPU: %.3f s = %.2f%% of one core\n", cpu, 100.0 * cpu / wall);
    printf("host RSS: %.1f MiB after start, %.1f MiB at most, %.1f MiB at the end (each second:",
           rss_first / 1024.0, rss_max / 1024.0, rss_last / 1024.0);
    for (long r : samples)
      printf(" %.1f", r / 1024.0);
    printf(")\n");
    printf("output: %.1f MiB (%.1f MiB/s), %d still running, %zu notices\n",
           static_cast<double>(bytes) / (1 << 20), static_cast<double>(bytes) / (1 << 20) / wall,
           running, notices);
    if (running != processes) status = 1;
  }
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
  return status;
}
