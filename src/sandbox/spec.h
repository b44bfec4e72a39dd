// SandboxSpec: what a sandboxed command may see and change, as plain data. Built from the
// settings and the workspace (BuildSpec), turned into a bubblewrap command line (bwrap.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/settings.h"
#include "sandbox/blocked_scan.h"
#include "sandbox/host_sockets.h"

namespace safesh::sandbox {

struct SandboxSpec {
  // Non-empty: no sandbox can be built for this request, and why (the workspace reached
  // through a link a command could have planted). Nothing runs.
  std::string refused;
  // Bound read-write, in this order. Everything else of / is read-only.
  std::vector<std::string> writable;
  // Re-bound read-only after the writable ones, so they stay read-only inside them.
  std::vector<std::string> read_only;
  // Hidden: files replaced by /dev/null, directories by an empty read-only tmpfs.
  std::vector<std::string> blocked_files;
  std::vector<std::string> blocked_dirs;
  // Protected names that do not exist (.git/hooks, ~/.bashrc ...): an empty read-only mount is
  // put in their place so that the command cannot create them.
  std::vector<std::string> missing_dirs;
  std::vector<std::string> missing_files;
  // The sandbox's own /tmp and /var/tmp (private_tmp.h): host folders that only this user can
  // reach, bound over the host's. Empty: a fresh tmpfs of `tmp_bytes` for this command alone.
  std::string private_tmp, private_var_tmp;
  uint64_t tmp_bytes = 256ULL << 20;
  // /dev/shm is always a tmpfs of its own, of this size: what a command writes there is memory,
  // and must not escape the command's memory limit through the host's /dev/shm.
  uint64_t shm_bytes = 256ULL << 20;
  // Whether the command may make AF_UNIX sockets of its own. Off (the default, when
  // [sandbox] allow_unix_sockets names nothing), seccomp refuses socket(AF_UNIX): no host
  // socket is reachable, wherever it lies, without searching for any (socketpair still works).
  // On, the host sockets the search finds are masked (below), which is only as good as the
  // search.
  bool unix_sockets = false;
  // The allowed sockets (or their folders) that lie in the host's /tmp or /var/tmp, which the
  // sandbox does not see: bound at their own paths.
  std::vector<std::string> socket_binds;
  // Host UNIX sockets (host_sockets.h), masked like blocked files so that connect() is refused.
  // Searched for only when unix_sockets is on.
  std::vector<std::string> sockets;
  // The socket search stopped at its limit: say so in the result's reason.
  bool sockets_truncated = false;
  bool network = false;
  // Root's sandbox (root_map.h): the command's root is an unprivileged uid on the host, and
  // every bind above is an idmapped mount, so that the command owns them as root owns them.
  bool map_root = false;
  // With map_root: the folders that uid may not enter on the way to a bind (/root), each
  // replaced by a read-only tmpfs that holds only the binds inside it.
  std::vector<std::string> closed_dirs;
  // The command's process cap inside its user namespace (0: none), which safesh-confine sets as
  // RLIMIT_NPROC there: the kernel counts it against that namespace's tasks alone. Only for an
  // ordinary user, whose bubblewrap makes a namespace per command (root's is shared).
  uint64_t nproc = 0;
};

// Whether `path` (made real) is `root` or inside one of `roots` (real paths, as in a spec).
bool InsideAny(const std::string& path, const std::vector<std::string>& roots);

// The blocked paths every sandbox has (keys and credentials), under `home`.
std::vector<std::string> DefaultBlockedPaths(const std::string& home);

// The shell start-up files in `home` that a command must not change.
std::vector<std::string> ShellStartupFiles(const std::string& home);

// Builds the spec for commands in `roots` (the workspace first; absolute, existing):
//   writable: the roots, [sandbox] writable_paths, ~/.cache (and the private temporary
//     folders, which the caller sets: private_tmp.h);
//   read-only: [sandbox] read_only_paths, .git/config of each root (unless allow_git_config),
//     the shell start-up files in the home folder;
//   blocked: the defaults and the [sandbox] blocked_paths that are paths (those that exist) or
//     path globs (what glob(3) finds; as in the shell, `*` does not match a leading dot);
//     the blocked names are added by the scan (AddBlockedMatches);
//   sockets: none can be made unless [sandbox] allow_unix_sockets names some; then the host's
//     UNIX sockets (host_sockets.h) but those are masked;
//   missing: .git/hooks (and .git/config) of each root that has a .git directory (those of the
//     repositories below the roots: ProtectRepositories), and start-up files that do not exist
//     yet, wherever they lie inside a writable root.
// Paths are made absolute and real; ones that do not exist are left out (except "missing").
// `socket_memory` and `socket_cache` (both optional) are where the host-socket search keeps
// what it listed, in the host's memory and between runs (FindHostSocketsCached).
SandboxSpec BuildSpec(const config::SandboxSettings& settings,
                      const std::vector<std::string>& roots, const std::string& home,
                      HostSocketMemory* socket_memory = nullptr,
                      const std::string& socket_cache = "");

// The directories the blocked-name scan walks (blocked_scan.h): `roots` (the workspace and
// [sandbox] writable_paths) and [sandbox] read_only_paths, as real paths, those that are
// directories, each once; no read-only path in /proc, /dev or /sys (the sandbox has its own
// there), while a root is scanned wherever it lies. Not /tmp, /var/tmp, $TMPDIR or ~/.cache,
// although commands may write there: they are shared with every other program and often large, so
// they would use up the entry limit and make every command slower, and what other programs leave
// there is not the workspace's to hide.
std::vector<std::string> BlockedScanRoots(const config::SandboxSettings& settings,
                                          const std::vector<std::string>& roots,
                                          const std::string& home);

// The name patterns the scan matches: DefaultBlockedNames(), then the [sandbox] blocked_paths
// entries that are names.
std::vector<std::string> BlockedNamePatterns(const config::SandboxSettings& settings);

// Adds what the scan found to the spec's blocked files and directories, as BuildSpec adds a
// blocked path: at its real path, so a matched link is masked where it points (bubblewrap
// mounts over a link's target in any case) and a link that points nowhere is left alone. A
// match whose real path is or holds one of `scan_roots` (a link `x.pem -> /`, an unreadable
// root) is left alone: masking it would hide the workspace itself, not a secret.
// The scan walked folders without following links, so each match's folder is a real path,
// and a match that is not a link is masked at exactly its path. A folder that is no longer
// real (a command running beside swapped a folder on it for a link since the scan) is
// returned, and the caller scans again or refuses; empty when all were added.
std::string AddBlockedMatches(const ScanResult& scan, const std::vector<std::string>& scan_roots,
                              SandboxSpec* spec);

// Protects the hooks of the repositories the scan found (ScanResult::repos): a commit in a
// nested repository, a vendored one or a submodule runs its hooks outside the sandbox as surely
// as the workspace's own. Each entry is a .git folder, a link to one, or a submodule's or
// worktree's .git file ("gitdir: PATH"; a worktree's folder names, in `commondir`, the
// repository whose hooks it uses). Only a folder with a HEAD counts (git needs one), and only
// inside a writable root. The hooks are hidden (an empty read-only mount; masked when missing)
// rather than bound read-only, as a command may have made the repository and could turn its
// hooks into a link before bubblewrap mounts; so inside the sandbox those hooks do not run.
// Their config is not protected (binding it read-only has the same race; a copy through
// bubblewrap's --ro-bind-data would not), so `core.hooksPath` there stays a way in.
void ProtectRepositories(const std::vector<std::string>& repos, SandboxSpec* spec);

}  // namespace safesh::sandbox
