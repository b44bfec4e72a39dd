#include "sandbox/root_map.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/mount.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <mutex>

#include "util/file.h"

namespace safesh::sandbox {

namespace {

bool Fail(std::string* error, const std::string& what, int err) {
  *error = what + ": " + strerror(err);
  return false;
}

bool WriteFile(const std::string& path, const std::string& text) {
  util::UniqueFd fd(open(path.c_str(), O_WRONLY | O_CLOEXEC));
  return fd.valid() && util::WriteAll(fd.get(), text);
}

// Makes the namespace: a child unshares a user namespace and waits; root, outside it, writes
// its maps (a range needs CAP_SETUID and CAP_SETGID over the parent namespace, which only root
// has) and opens it; the namespace lives on through the descriptor once the child is gone.
bool MakeNamespace(util::UniqueFd* out, std::string* error) {
  int ready[2], release[2];
  if (pipe2(ready, O_CLOEXEC) != 0) return Fail(error, "cannot make a pipe", errno);
  util::UniqueFd ready_r(ready[0]), ready_w(ready[1]);
  if (pipe2(release, O_CLOEXEC) != 0) return Fail(error, "cannot make a pipe", errno);
  util::UniqueFd release_r(release[0]), release_w(release[1]);
  pid_t pid = fork();
  if (pid < 0) return Fail(error, "cannot fork", errno);
  if (pid == 0) {
    // Only system calls here: the parent may have threads. This copy of the parent's ends is
    // closed, or the release below would never read end-of-file.
    close(ready_r.get());
    close(release_w.get());
    char ok = unshare(CLONE_NEWUSER) == 0 ? '1' : '0';
    if (write(ready_w.get(), &ok, 1) != 1) _exit(1);
    char c;
    (void)!read(release_r.get(), &c, 1);
    _exit(0);
  }
  ready_w.Reset();
  release_r.Reset();
  char ok = 0;
  ssize_t n;
  do {
    n = read(ready_r.get(), &ok, 1);
  } while (n < 0 && errno == EINTR);
  std::string proc = "/proc/" + std::to_string(pid);
  std::string map =
      "0 " + std::to_string(kRootMapFirstId) + " " + std::to_string(kRootMapCount) + "\n";
  bool made = n == 1 && ok == '1';
  int err = made ? 0 : EPERM;
  if (made && (!WriteFile(proc + "/uid_map", map) || !WriteFile(proc + "/gid_map", map))) {
    made = false;
    err = errno;
  }
  if (made) {
    out->Reset(open((proc + "/ns/user").c_str(), O_RDONLY | O_CLOEXEC));
    if (!out->valid()) {
      made = false;
      err = errno;
    }
  }
  release_w.Reset();  // the child reads end-of-file and exits
  int status;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!made)
    return Fail(error,
                "cannot make the user namespace for root's sandbox (uids 0-65535 as " +
                    std::to_string(kRootMapFirstId) + "...)",
                err);
  return true;
}

}  // namespace

bool WantsRootMap(bool keep_owner) {
  return geteuid() == 0 && !keep_owner;
}

bool RootMapNamespace(util::UniqueFd* out, std::string* error) {
  static std::mutex mu;
  static util::UniqueFd ns;
  std::lock_guard<std::mutex> lock(mu);
  if (!ns.valid() && !MakeNamespace(&ns, error)) return false;
  out->Reset(fcntl(ns.get(), F_DUPFD_CLOEXEC, 3));
  if (!out->valid()) return Fail(error, "cannot duplicate a descriptor", errno);
  return true;
}

bool IdmapTree(int source_fd, int userns_fd, const std::string& what, util::UniqueFd* out,
               std::string* error) {
  util::UniqueFd tree(static_cast<int>(syscall(
      SYS_open_tree, source_fd, "",
      static_cast<unsigned>(OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH | AT_RECURSIVE))));
  if (!tree.valid()) return Fail(error, "cannot copy the mount of " + what, errno);
  mount_attr attr{};
  attr.attr_set = MOUNT_ATTR_IDMAP;
  attr.userns_fd = static_cast<uint64_t>(userns_fd);
  if (syscall(SYS_mount_setattr, tree.get(), "", AT_EMPTY_PATH | AT_RECURSIVE, &attr,
              sizeof attr) != 0) {
    int err = errno;
    struct statfs fs;
    std::string type;
    if (fstatfs(source_fd, &fs) == 0) {
      char hex[32];
      snprintf(hex, sizeof hex, "0x%lx", static_cast<unsigned long>(fs.f_type));
      type = std::string(" (file system type ") + hex + ")";
    }
    *error = "cannot give root's sandbox its own view of " + what + type + ": " + strerror(err) +
             ". As root, commands run as an unprivileged uid and reach the workspace through an "
             "idmapped mount, which this file system does not allow. Run safesh as a normal "
             "user, or set [sandbox] root_keeps_owner_rights = true to let commands keep root's "
             "owner rights on host files";
    return false;
  }
  *out = std::move(tree);
  return true;
}

bool PrepareRootMapStage(std::string* error) {
  if (mkdir(kRootMapStage, 0755) != 0 && errno != EEXIST)
    return Fail(error, std::string("cannot make ") + kRootMapStage, errno);
  util::UniqueFd fd(util::OpenNoLinks(kRootMapStage));
  struct stat st;
  if (!fd.valid() || fstat(fd.get(), &st) != 0)
    return Fail(error, std::string("cannot open ") + kRootMapStage, errno);
  // Only root may change it or what lies in it: the mounts are attached there by path.
  if (!S_ISDIR(st.st_mode) || st.st_uid != 0 || (st.st_mode & 022) != 0) {
    *error = std::string(kRootMapStage) +
             " is not a folder that only root may change; remove it and run again";
    return false;
  }
  // bubblewrap, as the mapped root, walks to it: every folder on the way must let it through.
  if (std::string closed = FirstClosedAncestor(std::string(kRootMapStage) + "/", {});
      !closed.empty()) {
    *error = "root's sandbox attaches its mounts under " + std::string(kRootMapStage) + ", but " +
             closed +
             " does not let other users through (chmod o+x it), or set [sandbox] "
             "root_keeps_owner_rights = true";
    return false;
  }
  return true;
}

std::string FirstClosedAncestor(const std::string& path, const std::vector<std::string>& mapped) {
  // Walk from / down to path's parent; stop at a mapped root (its inside is the command's).
  size_t pos = 1;
  for (;;) {
    size_t slash = path.find('/', pos);
    if (slash == std::string::npos) return "";
    std::string at = path.substr(0, slash);
    pos = slash + 1;
    for (const std::string& m : mapped) {
      if (util::IsPathInside(at, m)) return "";
    }
    struct stat st;
    if (stat(at.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return "";
    bool ours = st.st_uid >= kRootMapFirstId && st.st_uid - kRootMapFirstId < kRootMapCount;
    if ((st.st_mode & S_IXOTH) == 0 && !ours) return at;
  }
}

std::vector<std::string> ClosedAncestors(const std::vector<std::string>& dests,
                                         const std::vector<std::string>& mapped) {
  std::vector<std::string> out;
  for (const std::string& dest : dests) {
    std::string at = FirstClosedAncestor(dest, mapped);
    if (at.empty()) continue;
    bool known = false;
    for (const std::string& o : out)
      known = known || util::IsPathInside(at, o);
    if (known) continue;
    // An outer one replaces any listed inside it.
    std::erase_if(out, [&](const std::string& o) { return util::IsPathInside(o, at); });
    out.push_back(at);
  }
  return out;
}

}  // namespace safesh::sandbox
