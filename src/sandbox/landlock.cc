#include "sandbox/landlock.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>

#include "sandbox/doctor.h"
#include "sandbox/landlock_abi.h"
#include "sandbox/seccomp.h"
#include "util/file.h"

namespace safesh::sandbox {
namespace {

using namespace landlock_abi;

// A rule for `path`. A writable root (`checked`) is opened without following any link, as a
// bind source is (bwrap.h): a command could have swapped it for a link to /etc since it was
// checked, and the rule would then grant writes there. A path that does not exist needs no rule.
bool AddPath(int ruleset, const std::string& path, uint64_t access, std::string* error,
             bool checked = false) {
  util::UniqueFd fd(checked ? util::OpenNoLinks(path) : open(path.c_str(), O_PATH | O_CLOEXEC));
  if (!fd.valid() && checked && errno != ENOENT) {
    *error = "cannot open " + path + " for its Landlock rule (" + strerror(errno) +
             (errno == ELOOP ? "; it became a link while the sandbox was being built" : "") +
             "); not running";
    return false;
  }
  if (!fd.valid()) return true;
  landlock_path_beneath_attr rule{};
  rule.allowed_access = access;
  rule.parent_fd = fd.get();
  if (syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) != 0) {
    *error = "cannot add a Landlock rule for " + path + ": " + strerror(errno);
    return false;
  }
  return true;
}

}  // namespace

bool BuildLandlockRuleset(const SandboxSpec& spec, util::UniqueFd* ruleset, std::string* error) {
  std::string why;
  int abi = LandlockAbi(&why);
  if (abi < 1) {
    *error = why;
    return false;
  }
  uint64_t all = AllFs(abi);
  RulesetAttr attr{all, 0, 0};
  size_t size = sizeof(uint64_t);
  if (abi >= 4) {
    size = 2 * sizeof(uint64_t);
    if (!spec.network) attr.handled_access_net = kNetBindTcp | kNetConnectTcp;
  }
  if (abi >= 6) {
    size = sizeof attr;
    attr.scoped = kScopeAbstractUnix | kScopeSignal;
  }
  util::UniqueFd fd(static_cast<int>(syscall(SYS_landlock_create_ruleset, &attr, size, 0)));
  if (!fd.valid()) {
    *error = std::string("cannot create a Landlock ruleset: ") + strerror(errno);
    return false;
  }
  // Everything may be read and executed; writing is for the roots and harmless devices only.
  uint64_t files = DeviceFile(abi);
  if (!AddPath(fd.get(), "/", kRead, error)) return false;
  uint64_t writable = WritableTree(abi);
  for (const std::string& w : spec.writable) {
    if (!AddPath(fd.get(), w, writable, error, true)) return false;
  }
  for (const std::string* t : {&spec.private_tmp, &spec.private_var_tmp}) {
    if (!t->empty() && !AddPath(fd.get(), *t, writable, error, true)) return false;
  }
  for (const char* dev :
       {"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx", "/dev/pts"}) {
    if (!AddPath(fd.get(), dev, std::string(dev) == "/dev/pts" ? files | kRead : files, error))
      return false;
  }
  *ruleset = std::move(fd);
  return true;
}

std::string FindConfineLauncher() {
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return "";
  std::string dir(self, static_cast<size_t>(n));
  dir.resize(dir.rfind('/'));
  for (const std::string& p :
       {dir + "/safesh-confine", dir + "/../libexec/safesh/safesh-confine"}) {
    if (access(p.c_str(), X_OK) == 0) return p;
  }
  return "";
}

bool LandlockPlan(const SandboxSpec& spec, exec::LaunchPlan* plan, util::UniqueFd* ruleset,
                  std::string* error) {
  if (!BuildLandlockRuleset(spec, ruleset, error)) return false;
  util::UniqueFd filter;
  if (!BuildSeccompFilter({spec.network, spec.unix_sockets}, &filter, error)) return false;
  std::string bpf, ignored;
  if (!util::ReadToEnd(filter.get(), "the seccomp filter", &bpf, &ignored) || bpf.empty()) {
    *error = "cannot read the seccomp filter back: " + ignored;
    return false;
  }
  plan->pass_fds = {ruleset->get()};
  plan->self_confine = true;
  plan->seccomp_bpf = std::move(bpf);
  return true;
}

}  // namespace safesh::sandbox
