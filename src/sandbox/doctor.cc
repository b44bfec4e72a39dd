#include "sandbox/doctor.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exec/limits.h"
#include "sandbox/bwrap.h"
#include "sandbox/landlock.h"
#include "sandbox/root_map.h"
#include "sandbox/seccomp.h"
#include "util/file.h"
#include "util/json_writer.h"

namespace safesh::sandbox {
namespace {

// The first line a program prints on stdout; empty when it cannot run.
std::string Output(const std::vector<std::string>& args) {
  int p[2];
  if (pipe2(p, O_CLOEXEC) != 0) return "";
  util::UniqueFd r(p[0]), w(p[1]);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, w.get(), 1);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  std::vector<char*> argv;
  for (const std::string& a : args)
    argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid;
  int rc = posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  w.Reset();
  if (rc != 0) return "";
  std::string out, ignored;
  util::ReadToEnd(r.get(), args[0], &out, &ignored);
  int status;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return out.substr(0, out.find('\n'));
}

}  // namespace

int LandlockAbi(std::string* why) {
  long abi = syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  if (abi >= 1) return static_cast<int>(abi);
  *why = errno == ENOSYS       ? "the kernel has no Landlock"
         : errno == EOPNOTSUPP ? "Landlock is disabled (boot with lsm=...,landlock)"
                               : std::string("Landlock: ") + strerror(errno);
  return 0;
}

std::string AppArmorProfile(const std::string& bwrap_real_path) {
  return "# Installed by `safesh doctor --fix-apparmor`: lets bubblewrap create the user\n"
         "# namespaces safesh's sandbox is built from (Ubuntu restricts them by default).\n"
         "abi <abi/4.0>,\n"
         "include <tunables/global>\n\n"
         "profile safesh-bwrap " +
         bwrap_real_path +
         " flags=(unconfined) {\n"
         "  userns,\n\n"
         "  include if exists <local/safesh-bwrap>\n"
         "}\n";
}

std::vector<std::string> AppArmorInstallCommands(const std::string& profile_path,
                                                 const std::string& temp_copy) {
  return {"install -m 0644 -o root -g root " + temp_copy + " " + profile_path,
          "apparmor_parser -r " + profile_path};
}

Diagnosis Diagnose(const std::string& bwrap) {
  Diagnosis d;
  // User namespaces: what bubblewrap is built on (root needs none to be unprivileged).
  {
    Layer l{"user namespaces", true, ""};
    std::string clone = util::ReadFirstLine("/proc/sys/kernel/unprivileged_userns_clone");
    std::string max = util::ReadFirstLine("/proc/sys/user/max_user_namespaces");
    if (geteuid() == 0) {
      l.detail = "running as root: not needed";
    } else if (clone == "0" || max == "0") {
      l.ok = false;
      l.detail =
          clone == "0" ? "kernel.unprivileged_userns_clone = 0" : "user.max_user_namespaces = 0";
    } else {
      l.detail = "allowed (max " + (max.empty() ? std::string("?") : max) + ")";
    }
    d.layers.push_back(l);
  }
  std::string restrict_userns =
      util::ReadFirstLine("/proc/sys/kernel/apparmor_restrict_unprivileged_userns");
  d.layers.push_back({"AppArmor", restrict_userns != "1",
                      restrict_userns == "1"    ? "restricts unprivileged user namespaces"
                      : restrict_userns.empty() ? "no user-namespace restriction"
                                                : "user namespaces not restricted"});
  std::string version = bwrap.empty() ? "" : Output({bwrap, "--version"});
  d.layers.push_back({"bubblewrap", !bwrap.empty(),
                      bwrap.empty() ? "not installed" : bwrap + " (" + version + ")"});
  bool seccomp_ok = false;
  {
    util::UniqueFd filter;
    std::string error;
    seccomp_ok = BuildSeccompFilter({}, &filter, &error) && prctl(PR_GET_SECCOMP) >= 0;
    if (error.empty() && !seccomp_ok) error = "the kernel has no seccomp filters";
    d.layers.push_back(
        {"seccomp", seccomp_ok, seccomp_ok ? "filters can be built and loaded" : error});
  }
  if (geteuid() == 0) {
    // As a run does it (root_map.h), on the folder doctor runs in, which is mostly the workspace.
    util::UniqueFd ns, here(open(".", O_PATH | O_DIRECTORY | O_CLOEXEC)), tree;
    std::string error;
    bool ok = RootMapNamespace(&ns, &error) && here.valid() &&
              IdmapTree(here.get(), ns.get(), "this folder", &tree, &error);
    d.layers.push_back(
        {"root's sandbox", ok,
         ok ? "commands run as uid " + std::to_string(kRootMapFirstId) +
                  " on the host (root inside), the workspace idmapped to it: no owner rights on "
                  "root's files ([sandbox] root_keeps_owner_rights = true turns this off)"
            : error});
  }
  std::string why = ProbeBwrap(bwrap, false);
  d.layers.push_back({"network namespace", why.empty(),
                      why.empty() ? "a sandbox without network starts" : "untested: " + why});
  {
    std::string lwhy;
    int abi = LandlockAbi(&lwhy);
    d.layers.push_back(
        {"Landlock", abi > 0,
         abi > 0 ? "ABI " + std::to_string(abi) +
                       (FindConfineLauncher().empty()
                            ? " (the launcher where bubblewrap cannot run; no layer inside "
                              "bubblewrap: safesh-confine is not installed next to safesh)"
                            : " (a second layer inside bubblewrap, and the launcher where "
                              "bubblewrap cannot run)")
                 : lwhy});
    d.landlock_abi = abi;
  }
  {
    // Found as a run finds it: the default limits are prepared (a cgroup made, then removed).
    exec::CommandLimits limits;
    exec::PrepareLimits({4096, exec::DefaultMemoryLimit()}, "", &limits);
    std::string error = exec::FinishLimits(&limits);
    d.limits_via = limits.via;
    d.limits_reason = limits.reason + (error.empty() ? "" : "; " + error);
    // Under bubblewrap with its Landlock layer, the cap is also a hard one (run_shell_command.cc).
    if (limits.via == "rlimit" && geteuid() != 0 && why.empty() && d.landlock_abi > 0 &&
        !FindConfineLauncher().empty())
      d.limits_reason +=
          "; under bubblewrap, safesh-confine also sets RLIMIT_NPROC to the cap inside the "
          "command's own user namespace, where the kernel counts the command's processes alone: "
          "a hard cap there, which the user's other processes neither use up nor share";
    exec::CgroupParent parent = exec::FindCgroupParent(true, true);
    std::string v2 = parent.why_not;
    if (parent.version == 0) {
      // "cgroup v2: WHY; cgroup v1: WHY": the first part.
      v2 = v2.substr(0, v2.find("; cgroup v1: "));
      if (v2.starts_with("cgroup v2: ")) v2 = v2.substr(11);
    }
    d.layers.push_back(
        {"cgroup v2", parent.version == 2,
         parent.version == 2 ? "a command's cgroup can have the pids and memory controllers" : v2});
    d.layers.push_back({"resource limits", limits.via == "cgroup2" || limits.via == "cgroup1",
                        limits.via + ": " + d.limits_reason});
  }

  if (!seccomp_ok) {
    // Every launcher applies the filter: without it nothing safesh builds is a sandbox.
    d.state = "unsupported";
    d.landlock_abi = 0;
    d.fix =
        "this kernel cannot load seccomp filters (CONFIG_SECCOMP_FILTER), which every safesh "
        "sandbox needs; use a kernel that has them";
  } else if (bwrap.empty()) {
    d.state = "no_bwrap";
    d.fix = "install bubblewrap: sudo apt install bubblewrap";
  } else if (why.empty()) {
    d.state = "ready";
  } else {
    d.reason = why;
    if (restrict_userns == "1" && access("/sbin/apparmor_parser", X_OK) == 0) {
      d.state = "restricted";
      d.fix =
          "allow bubblewrap to create user namespaces with an AppArmor profile: "
          "safesh doctor --fix-apparmor";
    } else {
      d.state = "broken";
      d.fix =
          "bubblewrap cannot create its namespaces here (in a container, allow user "
          "namespaces or run with a seccomp profile that permits them); meanwhile "
          "[sandbox] shell = \"auto\" runs commands without the sandbox and says so";
    }
  }
  const char* kSeccomp =
      "seccomp refusing ptrace, TIOCSTI, io_uring, mounts, keyrings, user namespaces, setuid and "
      "setgid bits, and "
      "AF_UNIX sockets unless [sandbox] allow_unix_sockets names some (then the host's sockets "
      "found are masked instead), and more";
  if (d.state == "ready") {
    d.strength = std::string(
                     "bubblewrap: a read-only system with a writable workspace, its own /tmp, "
                     "/var/tmp and sized /dev/shm, keys and credentials hidden, no network unless "
                     "allowed, its own PID, IPC and UTS namespaces, /proc/sys read-only, mounts "
                     "bound from descriptors, no capabilities, as root an unprivileged uid on "
                     "the host with the workspace idmapped, Landlock inside where the kernel "
                     "has it; ") +
                 kSeccomp;
  } else if (d.landlock_abi > 0) {
    d.strength =
        std::string(
            "Landlock only, where [sandbox] shell = \"landlock\" or \"auto\" (\"required\" "
            "refuses: bubblewrap cannot run): writes only to the workspace and its own "
            "temporary folder, no capabilities") +
        (d.landlock_abi >= 4 ? ", no TCP unless allowed" : "") +
        (d.landlock_abi >= 6 ? ", no signals to processes outside" : "") + "; " + kSeccomp +
        ". Not enforced: hiding keys and credentials, read-only .git/hooks, .git/config and "
        "start-up files inside writable folders, a /tmp, /dev/shm and IPC of its own, a PID "
        "namespace";
  } else {
    d.strength =
        "none: commands would run unsandboxed (with \"auto\") or be refused (with \"required\")";
  }
  return d;
}

std::string DiagnosisJson(const Diagnosis& d) {
  std::string out;
  util::JsonWriter w(&out);
  w.BeginObject();
  w.Key("state");
  w.String(d.state);
  w.Key("reason");
  if (d.reason.empty()) {
    w.Null();
  } else {
    w.String(d.reason);
  }
  w.Key("strength");
  w.String(d.strength);
  w.Key("layers");
  w.BeginArray();
  for (const Layer& l : d.layers) {
    w.BeginObject();
    w.Key("name");
    w.String(l.name);
    w.Key("ok");
    w.Bool(l.ok);
    w.Key("detail");
    w.String(l.detail);
    w.EndObject();
  }
  w.EndArray();
  w.Key("fix");
  if (d.fix.empty()) {
    w.Null();
  } else {
    w.String(d.fix);
  }
  w.Key("limits");
  w.BeginObject();
  w.Key("via");
  w.String(d.limits_via);
  w.Key("reason");
  w.String(d.limits_reason);
  w.EndObject();
  w.EndObject();
  return out;
}

std::string DiagnosisText(const Diagnosis& d) {
  std::string out = "sandbox: " + d.state + "\n";
  for (const Layer& l : d.layers) {
    out += std::string("  ") + (l.ok ? "ok  " : "--  ") + l.name + ": " + l.detail + "\n";
  }
  out += "strength: " + d.strength + "\n";

  if (!d.reason.empty()) out += "problem: " + d.reason + "\n";
  if (!d.fix.empty()) out += "fix: " + d.fix + "\n";
  return out;
}

}  // namespace safesh::sandbox
