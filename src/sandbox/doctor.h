// The doctor: what this machine offers for the sandbox, layer by layer, and the effective
// strength (SH-20b). `safesh doctor` prints it; a refused `required` run points to it.
#pragma once

#include <string>
#include <vector>

namespace safesh::sandbox {

struct Layer {
  std::string name;    // "user namespaces", "bubblewrap", "seccomp", ...
  bool ok = false;     // usable (for the layers safesh does not use yet: present)
  std::string detail;  // what was found
};

struct Diagnosis {
  // "ready" (sandboxed commands work), "no_bwrap", "restricted" (AppArmor refuses user
  // namespaces to bwrap: fixable with a profile), "broken" (bwrap fails for another reason),
  // "unsupported" (the kernel cannot load seccomp filters, which every launcher needs).
  std::string state;
  std::string reason;    // bubblewrap's own complaint when it fails
  std::string strength;  // what a command is confined by, in a sentence
  std::vector<Layer> layers;
  std::string fix;       // what to do, when not ready
  int landlock_abi = 0;  // the fallback launcher's kernel ABI (0: none)
  // How a command's resource limits are enforced here (exec/limits.h), found by preparing the
  // default ones: "cgroup2", "cgroup1" or "rlimit", and why.
  std::string limits_via;
  std::string limits_reason;
};

Diagnosis Diagnose(const std::string& bwrap);

std::string DiagnosisJson(const Diagnosis& d);
std::string DiagnosisText(const Diagnosis& d);

// The AppArmor profile that lets `bwrap` (its real path) create user namespaces, as Ubuntu
// ships for programs that need them, and the commands that install it.
std::string AppArmorProfile(const std::string& bwrap_real_path);
std::vector<std::string> AppArmorInstallCommands(const std::string& profile_path,
                                                 const std::string& temp_copy);

// The kernel's Landlock ABI version, or 0 (with `why`) when it is missing or disabled.
int LandlockAbi(std::string* why);

}  // namespace safesh::sandbox
