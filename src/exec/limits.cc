#include "exec/limits.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "exec/reap.h"

namespace safesh::exec {
namespace {

// The tasks (processes and threads) of this real user: what RLIMIT_NPROC counts. Read from
// /proc/PID/stat's thread count, for each process whose /proc directory the user owns.
uint64_t UserTasks() {
  uid_t uid = getuid();
  uint64_t tasks = 0;
  DIR* d = opendir("/proc");
  if (d == nullptr) return 0;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
    std::string base = std::string("/proc/") + e->d_name;
    struct stat st;
    if (stat(base.c_str(), &st) != 0 || st.st_uid != uid) continue;
    int fd = open((base + "/stat").c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    char buf[512];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) continue;
    buf[n] = '\0';
    // "pid (comm) state ppid ...": num_threads is the 20th field, the 17th after the comm.
    const char* p = strrchr(buf, ')');
    int field = 2;
    for (; p != nullptr && *p != '\0' && field < 20; ++p) {
      if (*p == ' ') ++field;
    }
    tasks += p != nullptr ? std::strtoull(p, nullptr, 10) : 1;
  }
  closedir(d);
  return tasks;
}

// Room left under RLIMIT_NPROC above the user's tasks and the cap (see UseRlimits).
constexpr uint64_t kNprocSlack = 8;

// `value`, or the current hard limit when that is lower (only privilege raises a hard limit).
rlim_t NoMoreThanHard(int resource, uint64_t value) {
  rlimit r{};
  if (getrlimit(static_cast<__rlimit_resource>(resource), &r) == 0 && r.rlim_max != RLIM_INFINITY &&
      r.rlim_max < value) {
    return r.rlim_max;
  }
  return static_cast<rlim_t>(value);
}

std::string Caps(const ResourceLimits& w) {
  std::string s;
  if (w.max_processes > 0) s = std::to_string(w.max_processes) + " processes";
  if (w.memory_bytes > 0) s += (s.empty() ? "" : " and ") + FormatBytes(w.memory_bytes);
  return s;
}

// Method 3 (see limits.h).
void UseRlimits(const ResourceLimits& want, const std::string& why_not_cgroup, CommandLimits* out) {
  out->via = "rlimit";
  std::string r = why_not_cgroup + "; rlimits instead:";
  if (want.memory_bytes > 0) {
    out->rlimits.push_back({RLIMIT_DATA, NoMoreThanHard(RLIMIT_DATA, want.memory_bytes)});
    r += " RLIMIT_DATA caps each process at " + FormatBytes(want.memory_bytes) +
         " (not the command as a whole; a process that reaches it fails to allocate, and says "
         "so in its own words: it is not reported as hit)";
  }
  if (want.max_processes > 0) {
    out->count_processes = want.max_processes;
    if (want.memory_bytes > 0) r += ";";
    if (getuid() == 0) {
      r += " RLIMIT_NPROC is not enforced for root, so";
    } else {
      // The slack covers the guard and a few processes the user starts meanwhile, so that the
      // count below sees the cap reached before the kernel refuses a fork.
      uint64_t now = UserTasks() + kNprocSlack;
      out->rlimits.push_back(
          {RLIMIT_NPROC, NoMoreThanHard(RLIMIT_NPROC, now + want.max_processes)});
      r += " RLIMIT_NPROC is set to this user's " + std::to_string(now) +
           " processes and threads (and a few more) plus " + std::to_string(want.max_processes) +
           " (it counts all of the user's processes, wherever they run), and";
    }
    out->check_every = kCountEvery;
    r += " safesh counts the command's processes every " + std::to_string(kCountEvery.count()) +
         " ms and stops it when it has " + std::to_string(want.max_processes) +
         " (not a hard cap: a fork bomb gets that long)";
  }
  out->reason = r;
}

}  // namespace

uint64_t DefaultMemoryLimit() {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return 8ull << 30;  // unknown: 8 GiB
  uint64_t half = static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) / 2;
  return half / (1 << 20) * (1 << 20);
}

std::string FormatBytes(uint64_t bytes) {
  static const char* const kUnits[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  while (unit < 4 && bytes != 0 && bytes % 1024 == 0) {
    bytes /= 1024;
    ++unit;
  }
  return std::to_string(bytes) + " " + kUnits[unit];
}

void PrepareLimits(const ResourceLimits& want, const std::string& force, CommandLimits* out) {
  out->want = want;
  if (want.max_processes == 0 && want.memory_bytes == 0) {
    out->via = "off";
    out->reason = "no limits: [sandbox] max_processes = 0 and memory_limit = \"off\"";
    return;
  }
  if (force == "rlimit") {
    UseRlimits(want, "SAFESH_LIMITS=rlimit", out);
    return;
  }
  CgroupParent parent = FindCgroupParent(want.max_processes > 0, want.memory_bytes > 0);
  if (parent.version == 0) {
    UseRlimits(want, "no cgroup can be made here (" + parent.why_not + ")", out);
    return;
  }
  std::string kind = parent.version == 2 ? "cgroup v2" : "cgroup v1";
  std::string error;
  if (!CreateCommandCgroup(parent, want.max_processes, want.memory_bytes, &out->cgroup, &error)) {
    out->fell_back = true;
    UseRlimits(want, kind + " looked usable but its cgroup could not be made: " + error, out);
    return;
  }
  out->via = parent.version == 2 ? "cgroup2" : "cgroup1";
  std::string dirs;
  for (const CgroupParentDir& d : parent.dirs)
    dirs += (dirs.empty() ? "" : " and ") + d.dir;
  out->reason = kind + ", a cgroup per command under " + dirs + ": at most " + Caps(want) +
                " for the whole command, all its processes together" +
                (want.max_processes > 0 ? " (threads count as processes)" : "") +
                (parent.version == 1 ? "; cgroup v2 is not used: " + parent.why_not : "");
}

void ApplyLimits(const CommandLimits& limits, LaunchPlan* plan) {
  for (const util::UniqueFd& fd : limits.cgroup.procs)
    plan->join_cgroups.push_back(fd.get());
  plan->rlimits.insert(plan->rlimits.end(), limits.rlimits.begin(), limits.rlimits.end());
}

bool LimitReached(CommandLimits* limits, pid_t guard) {
  if (limits->hit != LimitHit::kNone) return true;
  if (!limits->cgroup.dirs.empty()) {
    CgroupHit h = ReadCgroupHit(limits->cgroup);
    limits->hit = h == CgroupHit::kMemory      ? LimitHit::kMemory
                  : h == CgroupHit::kProcesses ? LimitHit::kProcesses
                                               : LimitHit::kNone;
  } else if (limits->count_processes > 0 && guard > 0) {
    auto now = std::chrono::steady_clock::now();
    if (now < limits->next_count) return false;
    // At the cap is reached: RLIMIT_NPROC (for a user other than root) refuses the next fork,
    // which this count cannot see, and bash would retry it for seconds.
    std::vector<pid_t> pids(limits->count_processes + 1);
    size_t n = ListDescendantsOf(guard, pids.data(), pids.size());
    if (n >= limits->count_processes) limits->hit = LimitHit::kProcesses;
    if (n > kCountManyAbove) limits->next_count = now + kCheckEvery;
  }
  return limits->hit != LimitHit::kNone;
}

std::string FinishLimits(CommandLimits* limits) {
  if (limits->cgroup.dirs.empty()) return "";
  LimitReached(limits, -1);
  std::string error;
  if (!RemoveCommandCgroup(&limits->cgroup, &error)) return error + " (a later run removes it)";
  return "";
}

}  // namespace safesh::exec
