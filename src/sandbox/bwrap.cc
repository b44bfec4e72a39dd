#include "sandbox/bwrap.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "sandbox/landlock.h"
#include "sandbox/root_map.h"
#include "sandbox/seccomp.h"
#include "util/file.h"

namespace safesh::sandbox {

namespace {

// Where each bind source comes from, in the order OpenBindSources opens them and BwrapArgs
// binds them: the private temporary folders, the writable roots, the read-only paths, the
// allowed sockets.
struct Bind {
  const std::string* source;
  std::string dest;
  bool read_only;
  bool socket = false;  // an allowed socket, or a folder of them
};

std::vector<Bind> Binds(const SandboxSpec& spec) {
  std::vector<Bind> out;
  if (!spec.private_tmp.empty()) out.push_back({&spec.private_tmp, "/tmp", false});
  if (!spec.private_var_tmp.empty()) out.push_back({&spec.private_var_tmp, "/var/tmp", false});
  for (const std::string& w : spec.writable)
    out.push_back({&w, w, false});
  for (const std::string& r : spec.read_only)
    out.push_back({&r, r, true});
  for (const std::string& s : spec.socket_binds)
    out.push_back({&s, s, true, true});
  return out;
}

// Root's sandbox (root_map.h): each bind source becomes an idmapped copy of its mount, which the
// command's process attaches before it joins the namespace.
bool MapRoot(const SandboxSpec& spec, SandboxFds* fds, exec::LaunchPlan* plan,
             std::vector<size_t>* mapped, std::string* error) {
  if (!PrepareRootMapStage(error) || !RootMapNamespace(&fds->userns, error)) return false;
  std::vector<Bind> all = Binds(spec);
  plan->root_map.stage = kRootMapStage;
  plan->root_map.tree_dirs.clear();
  for (size_t i = 0; i < all.size(); ++i) {
    struct stat st;
    if (fstat(fds->binds.fds[i].get(), &st) != 0) {
      *error = "cannot stat " + *all[i].source + ": " + strerror(errno);
      return false;
    }
    // A folder of allowed sockets is bound as it is: mapped, every file in it would be root's
    // to read. Its sockets are reached as "other" may (name a socket itself to connect as root).
    if (all[i].socket && S_ISDIR(st.st_mode)) continue;
    util::UniqueFd tree;
    if (!IdmapTree(fds->binds.fds[i].get(), fds->userns.get(), *all[i].source, &tree, error))
      return false;
    fds->binds.fds[i] = std::move(tree);
    mapped->push_back(i);
    plan->root_map.tree_dirs.push_back(S_ISDIR(st.st_mode) ? 1 : 0);
  }
  return true;
}

}  // namespace

bool OpenBindSources(const SandboxSpec& spec, BindSources* out, std::string* error) {
  out->fds.clear();
  for (const Bind& b : Binds(spec)) {
    util::UniqueFd fd(util::OpenNoLinks(*b.source));
    struct stat st;
    if (!fd.valid() || fstat(fd.get(), &st) != 0) {
      *error = "cannot open " + *b.source + " to bind it into the sandbox (" + strerror(errno) +
               (errno == ELOOP ? "; it became a link while the sandbox was being built" : "") +
               "); not running";
      return false;
    }
    // A writable root or temporary folder is a folder; a read-only path a folder or a file; an
    // allowed socket a socket or a folder. Anything else was swapped in since it was checked.
    bool fits = S_ISDIR(st.st_mode) ||
                (b.socket ? S_ISSOCK(st.st_mode) : b.read_only && S_ISREG(st.st_mode));
    if (!fits) {
      *error = *b.source + " changed while the sandbox was being built (it is no longer a " +
               (b.socket      ? "socket or folder"
                : b.read_only ? "file or folder"
                              : "folder") +
               "); not running";
      return false;
    }
    out->fds.push_back(std::move(fd));
  }
  return true;
}

std::vector<std::string> BwrapArgs(const SandboxSpec& spec, const std::string& cwd, int seccomp_fd,
                                   int first_bind_fd, const std::vector<std::string>& inner) {
  // As root bwrap keeps every capability unless told otherwise: mknod of a disk device or a
  // kernel module would then be an escape. The command gets none.
  std::vector<std::string> a = {
      "--die-with-parent",    "--unshare-pid", "--unshare-ipc", "--unshare-uts",
      "--unshare-cgroup-try", "--new-session", "--cap-drop",    "ALL"};
  if (!spec.network) a.push_back("--unshare-net");
  // /proc/sys read-only: bubblewrap leaves it writable when it runs as root, and root's owner
  // rights would then reach the host's kernel settings (kernel.core_pattern runs a program as
  // root on the host). The kernel looks its entries up in the caller's namespaces, so the bind
  // shows the sandbox's own host name and network settings, read-only.
  a.insert(a.end(), {"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--ro-bind",
                     "/proc/sys", "/proc/sys"});
  a.insert(a.end(),
           {"--perms", "1777", "--size", std::to_string(spec.shm_bytes), "--tmpfs", "/dev/shm"});
  // The temporary folders before the roots: a root may lie inside the host's /tmp, and is then
  // bound into the sandbox's own.
  if (spec.private_tmp.empty())
    a.insert(a.end(),
             {"--perms", "1777", "--size", std::to_string(spec.tmp_bytes), "--tmpfs", "/tmp"});
  if (spec.private_var_tmp.empty())
    a.insert(a.end(),
             {"--perms", "1777", "--size", std::to_string(spec.tmp_bytes), "--tmpfs", "/var/tmp"});
  int next_fd = first_bind_fd;
  bool closed = false;
  for (const Bind& b : Binds(spec)) {
    // Root's sandbox: the folders its uid may not enter on the way to a bind, emptied before
    // the first bind that is not a temporary folder (one may lie in the sandbox's /tmp).
    if (!closed && b.dest != "/tmp" && b.dest != "/var/tmp") {
      closed = true;
      for (const std::string& d : spec.closed_dirs)
        a.insert(a.end(), {"--tmpfs", d});
    }
    if (first_bind_fd >= 0) {
      a.insert(a.end(),
               {b.read_only ? "--ro-bind-fd" : "--bind-fd", std::to_string(next_fd++), b.dest});
    } else {
      a.insert(a.end(), {b.read_only ? "--ro-bind" : "--bind", *b.source, b.dest});
    }
  }
  // Before the blocked directories: a socket inside one is hidden with it, and once its tmpfs is
  // read-only no mount point could be made there.
  for (const std::string& s : spec.sockets)
    a.insert(a.end(), {"--ro-bind", "/dev/null", s});
  for (const std::string& f : spec.missing_files)
    a.insert(a.end(), {"--ro-bind", "/dev/null", f});
  for (const std::string& d : spec.missing_dirs) {
    a.insert(a.end(), {"--tmpfs", d, "--remount-ro", d});
  }
  for (const std::string& f : spec.blocked_files)
    a.insert(a.end(), {"--ro-bind", "/dev/null", f});
  for (const std::string& d : spec.blocked_dirs) {
    a.insert(a.end(), {"--tmpfs", d, "--remount-ro", d});
  }
  if (spec.map_root) {
    // Where the idmapped mounts were attached (root_map.h): another view of every bind, under
    // none of the masks above. Hidden, and the closed folders made read-only once filled.
    a.insert(a.end(), {"--tmpfs", kRootMapStage, "--remount-ro", kRootMapStage});
    for (const std::string& d : spec.closed_dirs)
      a.insert(a.end(), {"--remount-ro", d});
  }
  a.insert(a.end(), {"--chdir", cwd});
  if (seccomp_fd >= 0) a.insert(a.end(), {"--seccomp", std::to_string(seccomp_fd)});
  a.push_back("--");
  a.insert(a.end(), inner.begin(), inner.end());
  return a;
}

std::string FindBwrap() {
  for (const char* p : {"/usr/bin/bwrap", "/bin/bwrap"}) {
    if (access(p, X_OK) == 0) return p;
  }
  const char* path = std::getenv("PATH");
  std::string rest = path != nullptr ? path : "";
  size_t start = 0;
  while (start <= rest.size()) {
    size_t end = rest.find(':', start);
    if (end == std::string::npos) end = rest.size();
    std::string dir = rest.substr(start, end - start);
    if (!dir.empty() && dir[0] == '/' && access((dir + "/bwrap").c_str(), X_OK) == 0)
      return dir + "/bwrap";
    start = end + 1;
  }
  return "";
}

std::string ProbeBwrap(const std::string& bwrap, bool network) {
  if (bwrap.empty()) return "bubblewrap (bwrap) is not installed: apt install bubblewrap";
  SandboxSpec spec;
  spec.network = network;
  std::vector<std::string> args = BwrapArgs(spec, "/", -1, -1, {"/bin/true"});
  args.insert(args.begin(), bwrap);
  std::vector<char*> argv;
  for (std::string& s : args)
    argv.push_back(s.data());
  argv.push_back(nullptr);
  int err[2];
  if (pipe2(err, O_CLOEXEC) != 0) return "cannot create a pipe to probe bwrap";
  util::UniqueFd r(err[0]), w(err[1]);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, w.get(), 2);
  pid_t pid;
  char* envp[] = {nullptr};
  int rc = posix_spawn(&pid, bwrap.c_str(), &fa, nullptr, argv.data(), envp);
  posix_spawn_file_actions_destroy(&fa);
  w.Reset();
  if (rc != 0) return "cannot run " + bwrap;
  std::string message, ignored;
  util::ReadToEnd(r.get(), "bwrap", &message, &ignored);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return "";
  while (!message.empty() && (message.back() == '\n' || message.back() == ' '))
    message.pop_back();
  return "bubblewrap cannot build a sandbox here" +
         (message.empty() ? std::string() : ": " + message) +
         " (user namespaces may be disabled or restricted)";
}

namespace {

// A kernel setting's value, "-" when the kernel has no such file (so absent and empty differ).
std::string FirstLine(const char* path) {
  std::string line = util::ReadFirstLine(path);
  return line.empty() ? "-" : line;
}

// What the probe's answer depends on, as one line.
std::string ProbeKey(const std::string& bwrap) {
  struct stat st {};
  if (stat(bwrap.c_str(), &st) != 0) return "";
  std::string key = bwrap + " " + std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino) +
                    ":" + std::to_string(st.st_size) + ":" + std::to_string(st.st_mtime) + " uid " +
                    std::to_string(geteuid()) + " boot " +
                    FirstLine("/proc/sys/kernel/random/boot_id");
  for (const char* knob : {"/proc/sys/kernel/unprivileged_userns_clone",
                           "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
                           "/proc/sys/user/max_user_namespaces"}) {
    key += " ";
    key += FirstLine(knob);
  }
  return key;
}

}  // namespace

std::string ProbeBwrapCached(const std::string& bwrap, const std::string& cache_file) {
  if (bwrap.empty() || cache_file.empty()) return ProbeBwrap(bwrap, false);
  std::string key = ProbeKey(bwrap);
  std::string cached, ignored;
  // Only a "works" answer is remembered: a failure is probed again, and says why, every time.
  if (!key.empty() && util::ReadWholeFile(cache_file, &cached, &ignored) &&
      cached == key + "\nok\n") {
    return "";
  }
  std::string why = ProbeBwrap(bwrap, false);
  if (why.empty() && !key.empty()) {
    // Written whole, then renamed into place: a reader sees the old answer or the new one.
    std::string tmp = cache_file + ".tmp" + std::to_string(getpid());
    int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0) {
      std::string text = key + "\nok\n";
      bool ok = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
      close(fd);
      if (!ok || rename(tmp.c_str(), cache_file.c_str()) != 0) unlink(tmp.c_str());
    }
  }
  return why;
}

void ForgetProbe(const std::string& cache_file) {
  if (!cache_file.empty()) unlink(cache_file.c_str());
}

bool MountManifest(const SandboxSpec& spec, const BindSources& binds, util::UniqueFd* out,
                   std::string* error) {
  std::string text;
  auto field = [&text](const std::string& f) {
    text += f;
    text.push_back('\0');
  };
  std::vector<Bind> all = Binds(spec);
  if (all.size() != binds.fds.size()) {
    *error = "the mount sources do not match the sandbox's description (" +
             std::to_string(binds.fds.size()) + " opened for " + std::to_string(all.size()) + ")";
    return false;
  }
  for (size_t i = 0; i < all.size(); ++i) {
    struct stat st;
    if (fstat(binds.fds[i].get(), &st) != 0) {
      *error = "cannot stat " + *all[i].source + ": " + strerror(errno);
      return false;
    }
    field("b");
    field(all[i].read_only ? "1" : "0");
    field(std::to_string(st.st_dev));
    field(std::to_string(st.st_ino));
    field(all[i].dest);
  }
  for (const std::vector<std::string>* v :
       {&spec.sockets, &spec.missing_files, &spec.blocked_files}) {
    for (const std::string& p : *v) {
      field("n");
      field(p);
    }
  }
  for (const std::vector<std::string>* v : {&spec.missing_dirs, &spec.blocked_dirs}) {
    for (const std::string& p : *v) {
      field("t");
      field(p);
    }
  }
  if (spec.map_root) {
    field("t");
    field(kRootMapStage);
    for (const std::string& p : spec.closed_dirs) {
      field("d");
      field(p);
    }
  }
  util::UniqueFd fd(memfd_create("safesh-mounts", MFD_CLOEXEC | MFD_ALLOW_SEALING));
  if (!fd.valid() || !util::WriteAll(fd.get(), text) ||
      fcntl(fd.get(), F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0 ||
      lseek(fd.get(), 0, SEEK_SET) != 0) {
    *error = std::string("cannot write the mount manifest: ") + strerror(errno);
    return false;
  }
  *out = std::move(fd);
  return true;
}

bool SandboxPlan(const std::string& bwrap, const SandboxSpec& spec, const std::string& cwd,
                 const std::string& confine, exec::LaunchPlan* plan, SandboxFds* fds,
                 std::string* error) {
  if (!BuildSeccompFilter({spec.network, spec.unix_sockets}, &fds->seccomp, error)) return false;
  // Descriptors as bwrap receives them: the filter 3, then (confined) the ruleset 4 and
  // safesh-confine 5, then the bind sources. bwrap leaves the ruleset and safesh-confine's
  // descriptor open for the command it starts, safesh-confine, which closes both.
  std::vector<std::string> inner = plan->argv;
  inner[0] = plan->program;
  plan->pass_fds = {fds->seccomp.get()};
  if (!OpenBindSources(spec, &fds->binds, error)) return false;
  if (!confine.empty()) {
    if (!BuildLandlockRuleset(spec, &fds->ruleset, error)) return false;
    fds->confine.Reset(open(confine.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fds->confine.valid()) {
      *error = "cannot open safesh-confine at " + confine + ": " + strerror(errno);
      return false;
    }
    if (!MountManifest(spec, fds->binds, &fds->manifest, error)) return false;
    std::string nproc = spec.nproc > 0 ? std::to_string(spec.nproc) : "-";
    inner.insert(inner.begin(), {"/proc/self/fd/5", "4", "6", nproc, "--"});
    plan->pass_fds.push_back(fds->ruleset.get());
    plan->pass_fds.push_back(fds->confine.get());
    plan->pass_fds.push_back(fds->manifest.get());
  }
  std::vector<size_t> mapped;  // which binds are idmapped trees, in order
  if (spec.map_root && !MapRoot(spec, fds, plan, &mapped, error)) return false;
  int first_bind_fd = 3 + static_cast<int>(plan->pass_fds.size());
  for (size_t i = 0; i < fds->binds.fds.size(); ++i) {
    if (std::find(mapped.begin(), mapped.end(), i) != mapped.end())
      plan->root_map.trees.push_back(static_cast<int>(plan->pass_fds.size()));
    plan->pass_fds.push_back(fds->binds.fds[i].get());
  }
  if (spec.map_root) {
    plan->root_map.userns = static_cast<int>(plan->pass_fds.size());
    plan->pass_fds.push_back(fds->userns.get());
  }
  std::vector<std::string> args = BwrapArgs(spec, cwd, 3, first_bind_fd, inner);
  args.insert(args.begin(), "bwrap");
  plan->program = bwrap;
  plan->argv = std::move(args);
  plan->pid_namespace = true;  // --unshare-pid --die-with-parent
  return true;
}

}  // namespace safesh::sandbox
