#include "sandbox/choose.h"

#include <unistd.h>

#include "sandbox/bwrap.h"
#include "sandbox/doctor.h"
#include "sandbox/landlock.h"

namespace safesh::sandbox {
namespace {

std::string Network(bool allowed) {
  return std::string("network ") + (allowed ? "allowed" : "off");
}

SandboxChoice Invalid(std::string error) {
  SandboxChoice c;
  c.error = std::move(error);
  c.invalid = true;
  return c;
}

}  // namespace

std::string NoLandlockLayer(const std::string& why, bool network) {
  return "bubblewrap and seccomp (no Landlock layer: " + why +
         "; so the mounts' places are not checked either); " + Network(network);
}

SandboxChoice ChooseSandbox(const SandboxRequest& r, SandboxCaches* caches) {
  const std::string& mode = r.shell;
  if (mode != "auto" && mode != "required" && mode != "landlock" && mode != "off")
    return Invalid("SAFESH_SANDBOX_SHELL must be auto, required, landlock or off (it is \"" + mode +
                   "\")");
  if (!r.launcher.empty() && r.launcher != "bwrap" && r.launcher != "landlock")
    return Invalid("SAFESH_SANDBOX_LAUNCHER must be bwrap or landlock (it is \"" + r.launcher +
                   "\")");
  SandboxChoice c;
  if (mode == "off") {
    c.reason = "[sandbox] shell = \"off\"";
    return c;
  }
  std::string network = Network(r.allow_network);
  std::string why;
  // [sandbox] shell = "landlock": the person chose the Landlock sandbox over bubblewrap.
  std::string launcher = mode == "landlock" && r.launcher.empty() ? "landlock" : r.launcher;
  if (launcher != "landlock") {
    std::string bwrap = r.bwrap.empty() ? FindBwrap() : r.bwrap;
    why = bwrap.empty()       ? sandbox::ProbeBwrap("", false)
          : caches != nullptr ? caches->ProbeBwrap(bwrap, r.probe_cache_file)
                              : ProbeBwrapCached(bwrap, r.probe_cache_file);
    if (why.empty()) {
      c.kind = SandboxChoice::kBwrap;
      c.bwrap = bwrap;
      // Landlock inside, as a second layer, wherever the kernel and the launcher allow it; its
      // absence is said, not hidden.
      std::string no_layer;
      int abi = LandlockAbi(&no_layer);
      if (!r.confine.empty() && access(r.confine.c_str(), X_OK) != 0) {
        c.error = "safesh-confine (the Landlock layer inside bubblewrap) is not at " + r.confine;
        return c;
      }
      c.confine = r.confine.empty() ? FindConfineLauncher() : r.confine;
      if (abi > 0 && !c.confine.empty()) {
        c.reason =
            "bubblewrap, seccomp and Landlock (ABI " + std::to_string(abi) + ") inside; " + network;
      } else {
        if (abi > 0) no_layer = "safesh-confine is not installed next to safesh";
        c.confine.clear();
        c.reason = NoLandlockLayer(no_layer, r.allow_network);
      }
      return c;
    }
  } else {
    why =
        mode == "landlock" ? "[sandbox] shell = \"landlock\"" : "SAFESH_SANDBOX_LAUNCHER=landlock";
  }
  // "required" means the strong sandbox: bubblewrap, or refuse.
  if (mode == "required" && launcher != "landlock") {
    c.reason = why;
    c.error = "sandbox required but unavailable: " + why +
              " (run `safesh doctor`; [sandbox] shell = \"landlock\" runs commands in the "
              "weaker Landlock sandbox instead, \"auto\" without one where none can be built)";
    c.unavailable = true;
    return c;
  }
  std::string landlock_why = "SAFESH_SANDBOX_LAUNCHER=bwrap";
  if (launcher != "bwrap" && LandlockAbi(&landlock_why) > 0) {
    c.kind = SandboxChoice::kLandlock;
    c.reason = "Landlock and seccomp, because " + why + "; " + network +
               " (weaker than bubblewrap: blocked paths stay readable, .git/hooks and shell "
               "start-up files inside writable roots stay writable, the host's UNIX sockets "
               "stay reachable, host processes stay visible; see safesh doctor)";
    return c;
  }
  why += "; " + landlock_why;
  if (mode != "auto") {
    c.reason = why;
    c.error = "sandbox required but unavailable: " + why +
              " (run `safesh doctor`, or set [sandbox] shell = \"auto\" to run without it)";
    c.unavailable = true;
    return c;
  }
  c.reason = "auto: running without a sandbox, because " + why;
  return c;
}

}  // namespace safesh::sandbox
