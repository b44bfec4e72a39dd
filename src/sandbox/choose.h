// ChooseSandbox: which sandbox a command runs in (SH-20), decided before anyone is asked to
// approve it (no approval for what cannot run), as data the pipeline follows.
//
//   [sandbox] shell = "required": bubblewrap (with Landlock inside where the kernel has it and
//       safesh-confine is installed), or refuse. Landlock alone cannot hide a path inside a
//       readable tree nor keep .git/hooks unwritable, so "required" never falls back to it.
//   "auto": bubblewrap; otherwise Landlock and seccomp when the kernel has Landlock; otherwise
//       none. Each fallback is said in the reason, which reaches the text the model and the
//       person read (SandboxNotice), not only the JSON.
//   "landlock": Landlock and seccomp, as a person chose.
//   "off": none.
// SAFESH_SANDBOX_LAUNCHER=landlock picks Landlock even where bubblewrap works; =bwrap allows
// bubblewrap only.
#pragma once

#include <string>

#include "sandbox/caches.h"

namespace safesh::sandbox {

struct SandboxRequest {
  std::string shell;     // "auto", "required", "landlock" or "off" (setting or override)
  std::string launcher;  // "", "bwrap" or "landlock" (SAFESH_SANDBOX_LAUNCHER)
  std::string bwrap;     // bubblewrap's path (empty: look for it)
  std::string confine;   // safesh-confine's path (empty: look next to this program)
  bool allow_network = false;
  std::string probe_cache_file;  // where the probe's answer is kept between runs (may be empty)
};

struct SandboxChoice {
  enum Kind { kOff, kBwrap, kLandlock };
  Kind kind = kOff;
  std::string bwrap;    // kBwrap: bubblewrap's path
  std::string confine;  // kBwrap: safesh-confine's path; empty: no Landlock layer inside
  std::string reason;   // which sandbox and why (for the result, the model and the person)
  // Non-empty: no command may run. `invalid`: the request named a mode or launcher that does
  // not exist; otherwise the sandbox asked for cannot be built here (`unavailable`) or its
  // launcher is missing.
  std::string error;
  bool invalid = false;
  bool unavailable = false;

  const char* mode() const {  // as RunResult::sandbox_mode gives it
    return kind == kBwrap ? "bwrap" : kind == kLandlock ? "landlock" : "off";
  }
};

SandboxChoice ChooseSandbox(const SandboxRequest& request, SandboxCaches* caches);

// The reason given when bubblewrap runs without the Landlock layer inside, and why.
std::string NoLandlockLayer(const std::string& why, bool network);

}  // namespace safesh::sandbox
