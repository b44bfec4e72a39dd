#include "exec/cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>

#include "util/file.h"

namespace safesh::exec {
namespace {

using Clock = std::chrono::steady_clock;

// How long removal keeps killing and retrying: the guard has normally killed and reaped
// everything before, so this is only for what escaped it.
constexpr std::chrono::milliseconds kRemoveDeadline{2000};

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (;;) {
    size_t end = s.find(sep, start);
    out.push_back(s.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) return out;
    start = end + 1;
  }
}

// The words of a one-line cgroup file such as cgroup.controllers ("cpu io memory pids").
std::vector<std::string> Words(const std::string& path) {
  std::string line = util::ReadFirstLine(path);
  std::vector<std::string> out;
  for (std::string_view w : Split(line, ' ')) {
    if (!w.empty()) out.emplace_back(w);
  }
  return out;
}

bool Has(const std::vector<std::string>& words, std::string_view w) {
  for (const std::string& x : words) {
    if (x == w) return true;
  }
  return false;
}

// mountinfo escapes space, tab, newline and backslash as \ooo.
std::string Unescape(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size()) {
      int v = 0;
      bool octal = true;
      for (size_t k = 1; k <= 3; ++k) {
        char c = s[i + k];
        if (c < '0' || c > '7') octal = false;
        v = v * 8 + (c - '0');
      }
      if (octal) {
        out.push_back(static_cast<char>(v));
        i += 3;
        continue;
      }
    }
    out.push_back(s[i]);
  }
  return out;
}

// Writes `value` to the control file `path` (which must exist: cgroup files cannot be created).
// False with the message, and the errno in *err when given.
bool WriteControl(const std::string& path, const std::string& value, std::string* error,
                  int* err = nullptr) {
  util::UniqueFd fd(open(path.c_str(), O_WRONLY | O_CLOEXEC));
  ssize_t n = -1;
  if (fd.valid()) {
    do {
      n = write(fd.get(), value.data(), value.size());
    } while (n < 0 && errno == EINTR);
  }
  if (n == static_cast<ssize_t>(value.size())) return true;
  int e = n < 0 ? errno : EIO;
  if (err != nullptr) *err = e;
  *error = "cannot write " + value + " to " + path + ": " + strerror(e);
  return false;
}

// The value of `key` in a flat keyed file ("key value" lines: memory.events, pids.events,
// memory.oom_control); 0 when absent.
uint64_t KeyedValue(const std::string& path, std::string_view key) {
  std::string text, ignored;
  if (!util::ReadWholeFile(path, &text, &ignored)) return 0;
  for (std::string_view line : Split(text, '\n')) {
    if (line.size() > key.size() && line.substr(0, key.size()) == key && line[key.size()] == ' ') {
      return std::strtoull(std::string(line.substr(key.size() + 1)).c_str(), nullptr, 10);
    }
  }
  return 0;
}

// The names of this process's command cgroups that exist now (so the stale sweep leaves them).
std::mutex g_active_mu;
std::set<std::string>& Active() {
  static std::set<std::string> active;
  return active;
}

std::string Basename(const std::string& path) {
  return path.substr(path.rfind('/') + 1);
}

// `safesh-<pidns>-<pid>-<n>` → pidns and pid; false for any other name.
bool ParseName(std::string_view name, std::string* pidns, pid_t* pid) {
  if (name.substr(0, 7) != "safesh-") return false;
  std::vector<std::string_view> parts = Split(name.substr(7), '-');
  if (parts.size() != 3) return false;
  for (std::string_view p : parts) {
    if (p.empty() || p.size() > 19 || p.find_first_not_of("0123456789") != std::string_view::npos)
      return false;
  }
  *pidns = std::string(parts[0]);
  long long v = std::strtoll(std::string(parts[1]).c_str(), nullptr, 10);
  if (v <= 0 || v > 0x3fffffff) return false;
  *pid = static_cast<pid_t>(v);
  return true;
}

// The subdirectories of `dir` (subgroups a command made, as root without a sandbox).
std::vector<std::string> Subdirectories(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return out;
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (e->d_type == DT_DIR && name != "." && name != "..") out.push_back(dir + "/" + name);
  }
  closedir(d);
  return out;
}

// The pids listed in `dir`/cgroup.procs.
std::vector<pid_t> Members(const std::string& dir) {
  std::string text, ignored;
  std::vector<pid_t> out;
  if (!util::ReadWholeFile(dir + "/cgroup.procs", &text, &ignored)) return out;
  for (std::string_view line : Split(text, '\n')) {
    if (!line.empty()) out.push_back(static_cast<pid_t>(std::atoi(std::string(line).c_str())));
  }
  return out;
}

// Kills what is in `dir` (not its subgroups) until it is empty or the deadline passes.
void KillMembers(const std::string& dir, int version, Clock::time_point deadline) {
  if (version == 2 && access((dir + "/cgroup.kill").c_str(), F_OK) == 0) {
    std::string ignored;
    WriteControl(dir + "/cgroup.kill", "1", &ignored);
  }
  for (;;) {
    std::vector<pid_t> pids = Members(dir);
    if (pids.empty() || Clock::now() >= deadline) return;
    // A pid read here belongs to the cgroup: the kernel lists only its members, and a pid is
    // reused only after its process is reaped (it would have left the cgroup first).
    for (pid_t pid : pids) {
      if (pid > 0) kill(pid, SIGKILL);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

// Removes `dir` and its subgroups, deepest first; with `kill`, what is in them is killed first.
// rmdir of a cgroup fails (EBUSY) while it has members, so it is retried until the deadline.
bool RemoveTree(const std::string& dir, int version, bool kill_members, Clock::time_point deadline,
                std::string* error) {
  bool ok = true;
  for (const std::string& sub : Subdirectories(dir))
    ok = RemoveTree(sub, version, kill_members, deadline, error) && ok;
  for (;;) {
    // Again on every round: a process may join between the kill and the rmdir.
    if (kill_members) KillMembers(dir, version, deadline);
    if (rmdir(dir.c_str()) == 0 || errno == ENOENT) return ok;
    if (errno != EBUSY || !kill_members || Clock::now() >= deadline) {
      if (error->empty()) *error = "cannot remove the cgroup " + dir + ": " + strerror(errno);
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

std::string TryV2(std::string_view proc_cgroup, std::string_view mountinfo, bool need_pids,
                  bool need_memory, CgroupParent* out) {
  std::optional<std::string> path = CgroupPathFor(proc_cgroup, "");
  if (!path) return "this process has no cgroup v2 entry in /proc/self/cgroup";
  std::optional<std::string> dir = CgroupDirectory(mountinfo, "", *path);
  if (!dir) return "no cgroup2 mount shows this process's cgroup " + *path;
  std::vector<std::string> controllers = Words(*dir + "/cgroup.controllers");
  std::string wanted = std::string(need_pids ? " +pids" : "") + (need_memory ? " +memory" : "");
  if ((need_pids && !Has(controllers, "pids")) || (need_memory && !Has(controllers, "memory"))) {
    std::string list;
    for (const std::string& c : controllers)
      list += (list.empty() ? "" : " ") + c;
    return *dir + " does not offer the" + (need_pids ? std::string(" pids") : "") +
           (need_pids && need_memory ? " and" : "") + (need_memory ? " memory" : "") +
           (need_pids && need_memory ? " controllers" : " controller") +
           " (its cgroup.controllers: \"" + list + "\")";
  }
  if (access(dir->c_str(), W_OK) != 0 || access((*dir + "/cgroup.procs").c_str(), W_OK) != 0)
    return *dir + " is not writable by this user (not delegated to it)";
  std::vector<std::string> subtree = Words(*dir + "/cgroup.subtree_control");
  std::string enable;
  if (need_pids && !Has(subtree, "pids")) enable += "+pids ";
  if (need_memory && !Has(subtree, "memory")) enable += "+memory ";
  if (!enable.empty()) {
    enable.pop_back();
    std::string error;
    int err = 0;
    if (!WriteControl(*dir + "/cgroup.subtree_control", enable, &error, &err)) {
      return err == EBUSY ? *dir +
                                " holds processes, so it cannot give controllers to child "
                                "cgroups (cgroup v2's no-internal-processes rule)"
                          : error;
    }
  }
  out->version = 2;
  out->dirs.push_back({*dir, need_pids, need_memory});
  return "";
}

std::string TryV1(std::string_view proc_cgroup, std::string_view mountinfo, bool need_pids,
                  bool need_memory, CgroupParent* out) {
  CgroupParent found;
  for (const char* controller : {"pids", "memory"}) {
    bool pids = std::string_view(controller) == "pids";
    if (pids ? !need_pids : !need_memory) continue;
    std::optional<std::string> path = CgroupPathFor(proc_cgroup, controller);
    if (!path) return std::string("there is no ") + controller + " hierarchy";
    std::optional<std::string> dir = CgroupDirectory(mountinfo, controller, *path);
    if (!dir) return std::string("the ") + controller + " hierarchy is not mounted here";
    if (access(dir->c_str(), W_OK) != 0) return *dir + " is not writable by this user";
    // pids and memory may share one hierarchy, and then one directory.
    if (!found.dirs.empty() && found.dirs.back().dir == *dir) {
      found.dirs.back().memory = true;
    } else {
      found.dirs.push_back({*dir, pids, !pids});
    }
  }
  found.version = 1;
  *out = std::move(found);
  return "";
}

}  // namespace

std::optional<std::string> CgroupPathFor(std::string_view proc_self_cgroup,
                                         std::string_view controller) {
  for (std::string_view line : Split(proc_self_cgroup, '\n')) {
    size_t a = line.find(':');
    size_t b = a == std::string_view::npos ? a : line.find(':', a + 1);
    if (b == std::string_view::npos) continue;
    std::string_view id = line.substr(0, a), list = line.substr(a + 1, b - a - 1);
    std::string_view path = line.substr(b + 1);
    if (controller.empty()) {
      if (id == "0" && list.empty()) return std::string(path);
      continue;
    }
    for (std::string_view c : Split(list, ',')) {
      if (c == controller) return std::string(path);
    }
  }
  return std::nullopt;
}

std::optional<std::string> CgroupDirectory(std::string_view mountinfo, std::string_view controller,
                                           const std::string& path) {
  for (std::string_view line : Split(mountinfo, '\n')) {
    // ID PARENT MAJ:MIN ROOT POINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER_OPTIONS
    std::vector<std::string_view> f = Split(line, ' ');
    size_t dash = 6;
    while (dash < f.size() && f[dash] != "-")
      ++dash;
    if (f.size() < 10 || dash + 3 >= f.size()) continue;
    std::string_view fstype = f[dash + 1];
    if (controller.empty()) {
      if (fstype != "cgroup2") continue;
    } else {
      if (fstype != "cgroup") continue;
      bool has = false;
      for (std::string_view o : Split(f[dash + 3], ','))
        has = has || o == controller;
      if (!has) continue;
    }
    std::string root = Unescape(f[3]), point = Unescape(f[4]);
    if (root == "/") return path == "/" ? point : point + path;
    if (path == root) return point;
    if (path.size() > root.size() && path.compare(0, root.size(), root) == 0 &&
        path[root.size()] == '/') {
      return point + path.substr(root.size());
    }
  }
  return std::nullopt;
}

std::string PidNamespaceId() {
  char link[64];
  ssize_t n = readlink("/proc/self/ns/pid", link, sizeof link - 1);
  if (n <= 0) return "0";
  std::string s(link, static_cast<size_t>(n));  // "pid:[4026531836]"
  size_t open = s.find('['), close = s.find(']');
  if (open == std::string::npos || close == std::string::npos || close <= open + 1) return "0";
  return s.substr(open + 1, close - open - 1);
}

CgroupParent FindCgroupParent(bool need_pids, bool need_memory) {
  CgroupParent parent;
  std::string proc_cgroup, mountinfo, error;
  if (!util::ReadWholeFile("/proc/self/cgroup", &proc_cgroup, &error) ||
      !util::ReadWholeFile("/proc/self/mountinfo", &mountinfo, &error)) {
    parent.why_not = error;
    return parent;
  }
  std::string v2 = TryV2(proc_cgroup, mountinfo, need_pids, need_memory, &parent);
  if (v2.empty()) return parent;
  std::string v1 = TryV1(proc_cgroup, mountinfo, need_pids, need_memory, &parent);
  if (v1.empty()) {
    parent.why_not = v2;
    return parent;
  }
  parent.why_not = "cgroup v2: " + v2 + "; cgroup v1: " + v1;
  return parent;
}

CommandCgroup::CommandCgroup(CommandCgroup&& other) noexcept
    : version(other.version), dirs(std::move(other.dirs)), procs(std::move(other.procs)) {
  other.dirs.clear();
  other.procs.clear();
}

CommandCgroup& CommandCgroup::operator=(CommandCgroup&& other) noexcept {
  if (this != &other) {
    std::string ignored;
    RemoveCommandCgroup(this, &ignored);
    version = other.version;
    dirs = std::move(other.dirs);
    procs = std::move(other.procs);
    other.dirs.clear();
    other.procs.clear();
  }
  return *this;
}

CommandCgroup::~CommandCgroup() {
  std::string ignored;
  RemoveCommandCgroup(this, &ignored);
}

bool CreateCommandCgroup(const CgroupParent& parent, uint64_t max_processes, uint64_t memory_bytes,
                         CommandCgroup* out, std::string* error) {
  static std::atomic<uint64_t> counter{0};
  std::string name = "safesh-" + PidNamespaceId() + "-" + std::to_string(getpid()) + "-" +
                     std::to_string(++counter);
  CommandCgroup cg;
  cg.version = parent.version;
  {
    std::lock_guard<std::mutex> lock(g_active_mu);
    Active().insert(name);
  }
  auto fail = [&](const std::string& what) {
    *error = what;
    std::string ignored;
    RemoveCommandCgroup(&cg, &ignored);
    std::lock_guard<std::mutex> lock(g_active_mu);
    Active().erase(name);
    return false;
  };
  for (const CgroupParentDir& p : parent.dirs) {
    RemoveStaleCgroups(p.dir);
    std::string dir = p.dir + "/" + name;
    if (mkdir(dir.c_str(), 0755) != 0)
      return fail("cannot create the cgroup " + dir + ": " + strerror(errno));
    cg.dirs.push_back({dir, p.pids, p.memory});
    std::string why;
    if (p.pids && max_processes > 0 &&
        !WriteControl(dir + "/pids.max", std::to_string(max_processes), &why)) {
      return fail(why);
    }
    if (p.memory && memory_bytes > 0) {
      std::string bytes = std::to_string(memory_bytes);
      // Swap would let the command use more than the limit; its files exist only where the
      // kernel accounts swap (and then they are written like the others).
      bool ok = parent.version == 2
                    ? WriteControl(dir + "/memory.max", bytes, &why) &&
                          (access((dir + "/memory.swap.max").c_str(), F_OK) != 0 ||
                           WriteControl(dir + "/memory.swap.max", "0", &why))
                    : WriteControl(dir + "/memory.limit_in_bytes", bytes, &why) &&
                          (access((dir + "/memory.memsw.limit_in_bytes").c_str(), F_OK) != 0 ||
                           WriteControl(dir + "/memory.memsw.limit_in_bytes", bytes, &why));
      if (!ok) return fail(why);
      // v2: an OOM kill takes the whole cgroup at once. Only quicker: safesh stops the command
      // itself when it sees the kill, so a kernel without memory.oom.group changes nothing.
      if (parent.version == 2 && access((dir + "/memory.oom.group").c_str(), F_OK) == 0 &&
          !WriteControl(dir + "/memory.oom.group", "1", &why)) {
        return fail(why);
      }
    }
    // The command joins by writing "0" (itself) before it runs anything, while it is one
    // thread. v1's `tasks` moves just that thread, which the kernel does without taking its
    // global threadgroup lock for writing; `cgroup.procs` takes it, and that waits for an RCU
    // grace period: 1 to 15 ms on every command. v2 moves whole processes only.
    std::string join = dir + (parent.version == 2 ? "/cgroup.procs" : "/tasks");
    util::UniqueFd procs(open(join.c_str(), O_WRONLY | O_CLOEXEC));
    if (!procs.valid()) return fail("cannot open " + join + ": " + std::string(strerror(errno)));
    cg.procs.push_back(std::move(procs));
  }
  *out = std::move(cg);
  return true;
}

CgroupHit ReadCgroupHit(const CommandCgroup& cg) {
  bool processes = false;
  for (const CgroupParentDir& d : cg.dirs) {
    if (d.memory) {
      uint64_t kills = cg.version == 2 ? KeyedValue(d.dir + "/memory.events", "oom_kill") +
                                             KeyedValue(d.dir + "/memory.events", "oom")
                                       : KeyedValue(d.dir + "/memory.oom_control", "oom_kill");
      if (kills > 0) return CgroupHit::kMemory;
    }
    if (d.pids && KeyedValue(d.dir + "/pids.events", "max") > 0) processes = true;
  }
  return processes ? CgroupHit::kProcesses : CgroupHit::kNone;
}

bool RemoveCommandCgroup(CommandCgroup* cg, std::string* error) {
  cg->procs.clear();
  bool ok = true;
  Clock::time_point deadline = Clock::now() + kRemoveDeadline;
  for (auto it = cg->dirs.rbegin(); it != cg->dirs.rend(); ++it)
    ok = RemoveTree(it->dir, cg->version, true, deadline, error) && ok;
  // No longer in use: if a directory was left, a later sweep of this process removes it.
  if (!cg->dirs.empty()) {
    std::lock_guard<std::mutex> lock(g_active_mu);
    Active().erase(Basename(cg->dirs.front().dir));
  }
  cg->dirs.clear();
  return ok;
}

int RemoveStaleCgroups(const std::string& dir) {
  std::string ours = PidNamespaceId();
  pid_t self = getpid();
  std::vector<std::string> stale;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return 0;
  while (dirent* e = readdir(d)) {
    std::string pidns;
    pid_t pid = 0;
    if (e->d_type != DT_DIR || !ParseName(e->d_name, &pidns, &pid) || pidns != ours) continue;
    bool gone = pid == self ? false : kill(pid, 0) != 0 && errno == ESRCH;
    if (pid == self) {
      std::lock_guard<std::mutex> lock(g_active_mu);
      gone = Active().count(e->d_name) == 0;
    }
    if (gone) stale.push_back(dir + "/" + e->d_name);
  }
  closedir(d);
  int removed = 0;
  for (const std::string& s : stale) {
    std::string ignored;
    if (RemoveTree(s, 0, false, Clock::now(), &ignored)) ++removed;
  }
  return removed;
}

}  // namespace safesh::exec
