#include "sandbox/spec.h"

#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <unordered_map>

#include "sandbox/blocked_names.h"
#include "sandbox/host_sockets.h"
#include "sandbox/root_map.h"
#include "util/file.h"
#include "util/state_dir.h"
#include "util/unique_fd.h"

namespace safesh::sandbox {
namespace {

bool IsDir(const std::string& p) {
  struct stat st;
  return lstat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool Exists(const std::string& p) {
  struct stat st;
  return lstat(p.c_str(), &st) == 0;
}

std::string Expand(const std::string& p, const std::string& home, const std::string& base) {
  if (p == "~") return home;
  if (p.starts_with("~/")) return home.empty() ? "" : home + p.substr(1);
  if (!p.empty() && p[0] != '/') return base + "/" + p;
  return p;
}

// Whether resolving `path` (absolute, as written) goes through a link that lies inside one of
// `roots` (real paths): a link a command may have planted there, so that a later run binds what
// it points to (/etc, a host socket) as a root of its own.
bool ThroughPlantedLink(const std::string& path, const std::vector<std::string>& roots) {
  // The walk the kernel makes: each link's target walked in turn, component by component (a link
  // outside the roots may point into one, where another link was planted), ".." taken from the
  // folder actually reached.
  std::string cur = "/";
  std::string rest = path;
  for (int links = 0;;) {
    size_t start = rest.find_first_not_of('/');
    if (start == std::string::npos) return false;
    size_t end = rest.find('/', start);
    std::string part = rest.substr(start, end == std::string::npos ? end : end - start);
    rest = end == std::string::npos ? "" : rest.substr(end);
    if (part == ".") continue;
    if (part == "..") {
      cur = cur == "/" ? "/" : cur.substr(0, std::max<size_t>(1, cur.rfind('/')));
      continue;
    }
    std::string next = (cur == "/" ? "" : cur) + "/" + part;
    struct stat st;
    if (lstat(next.c_str(), &st) != 0) return false;  // nothing there: nothing to bind
    if (!S_ISLNK(st.st_mode)) {
      cur = next;
      continue;
    }
    for (const std::string& r : roots) {
      if (util::IsPathInside(cur, r)) return true;
    }
    // As many links as the kernel follows; more cannot be walked, so the path is not trusted.
    if (++links > 40) return true;
    char target[PATH_MAX];
    ssize_t n = readlink(next.c_str(), target, sizeof target - 1);
    if (n <= 0) return true;
    target[n] = '\0';
    if (target[0] == '/') cur = "/";
    rest = std::string(target) + (rest.empty() || rest[0] == '/' ? "" : "/") + rest;
  }
}

void AddUnique(std::vector<std::string>* v, const std::string& p) {
  if (!p.empty() && std::find(v->begin(), v->end(), p) == v->end()) v->push_back(p);
}

// Hides `path` (as written: a link there is masked at its real path, which is what bubblewrap
// would mount over anyway). A path that does not exist, or a link that points nowhere, is left
// alone: there is nothing to read, and bubblewrap would create the missing target on the host.
// Whether a blocked path that does not exist names a file (masked with /dev/null) rather than a
// folder: the default files, and a name with an extension (`secrets.txt`).
bool IsBlockedFile(const std::string& path) {
  std::string name = path.substr(path.rfind('/') + 1);
  for (const char* f : {".netrc",          ".npmrc",
                        ".pypirc",         ".git-credentials",
                        "credentials",     ".credentials",
                        "token",           ".pgpass",
                        ".vault-token",    ".s3cfg",
                        ".boto",           ".terraformrc",
                        ".databrickscfg",  ".bash_history",
                        ".zsh_history",    "fish_history",
                        ".python_history", ".node_repl_history",
                        ".psql_history",   ".mysql_history",
                        ".sqlite_history", ".rediscli_history"}) {
    if (name == f) return true;
  }
  size_t dot = name.rfind('.');
  return dot != std::string::npos && dot > 0;
}

void AddBlocked(const std::string& path, SandboxSpec* spec) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) return;
  std::string r = util::RealPath(path);
  if (r.empty()) return;
  if (IsDir(r)) {
    AddUnique(&spec->blocked_dirs, r);
  } else {
    AddUnique(&spec->blocked_files, r);
  }
}

// What glob(3) finds for `pattern`, without `.` and `..` (`.*` matches them, and hiding a
// parent would hide far more than was meant).
std::vector<std::string> Glob(const std::string& pattern) {
  std::vector<std::string> out;
  glob_t g;
  if (glob(pattern.c_str(), GLOB_NOSORT, nullptr, &g) == 0) {
    for (size_t i = 0; i < g.gl_pathc; ++i) {
      std::string p = g.gl_pathv[i];
      if (p.find("/./") != std::string::npos || p.find("/../") != std::string::npos ||
          p.ends_with("/.") || p.ends_with("/..")) {
        continue;
      }
      out.push_back(std::move(p));
    }
  }
  globfree(&g);
  return out;
}

// Makes `path` (hooks: a folder; config: a file) read-only inside the sandbox, or, missing, not
// creatable. A link is followed to its real path, which is bound only when it is of the right
// kind and inside a writable root: a read-only bind is `--ro-bind P P`, and a link a command
// made to /proc would otherwise bind the host's /proc over the sandbox's (elsewhere everything
// is read-only already).
void ProtectGitName(const std::string& path, bool dir, const std::vector<std::string>& writable,
                    SandboxSpec* spec) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) {
    AddUnique(dir ? &spec->missing_dirs : &spec->missing_files, path);
    return;
  }
  std::string real = S_ISLNK(st.st_mode) ? util::RealPath(path) : path;
  if (real.empty() || stat(real.c_str(), &st) != 0 ||
      (dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode)))
    return;
  if (InsideAny(real, writable)) AddUnique(&spec->read_only, real);
}

// A repository's folder (real path): its hooks are never writable, and its config only when
// allowed (ProtectGitName).
void ProtectGitDir(const std::string& git, bool allow_git_config, SandboxSpec* spec) {
  ProtectGitName(git + "/hooks", true, spec->writable, spec);
  if (!allow_git_config) ProtectGitName(git + "/config", false, spec->writable, spec);
}

// The first line of a small regular file that starts with `key`, without it; empty if none.
// Not util::ReadFirstLine: a command may have made the file a link or a FIFO (which would block).
std::string LineAfter(const std::string& file, const std::string& key) {
  util::UniqueFd fd(open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  struct stat st;
  if (!fd.valid() || fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return "";
  char buf[4096];
  ssize_t n = read(fd.get(), buf, sizeof buf);
  if (n <= 0) return "";
  std::string_view text(buf, static_cast<size_t>(n));
  if (!text.starts_with(key)) return "";
  text.remove_prefix(key.size());
  text = text.substr(0, text.find_first_of("\r\n"));
  return std::string(text);
}

// A relative `path` taken from a file in `dir`, made absolute.
std::string Beside(const std::string& dir, const std::string& path) {
  return path.starts_with("/") ? path : dir + "/" + path;
}

}  // namespace

bool InsideAny(const std::string& path, const std::vector<std::string>& roots) {
  std::string real = util::RealPath(path);
  if (real.empty()) real = path;
  for (const std::string& r : roots) {
    if (util::IsPathInside(real, r)) return true;
  }
  return false;
}

std::vector<std::string> DefaultBlockedPaths(const std::string& home) {
  std::vector<std::string> out;
  if (home.empty()) return out;
  for (const char* rel :
       {".ssh", ".aws", ".gnupg", ".config/gcloud", ".azure", ".kube", ".netrc",
        ".docker/config.json", ".npmrc", ".pypirc", ".git-credentials", ".config/gh", ".config/hub",
        ".password-store", ".local/share/keyrings", ".mozilla", ".config/google-chrome",
        ".config/chromium", ".terraform.d/credentials.tfrc.json", ".cargo/credentials",
        ".cargo/credentials.toml", ".gem/credentials", ".config/anthropic",
        ".claude/.credentials.json", ".claude.json", ".codex/auth.json", ".gemini/oauth_creds.json",
        // Credentials of git, databases, clouds, registries and data tools,
        // where gitleaks and trufflehog look for them.
        ".config/git/credentials", ".pgpass", ".my.cnf", ".vault-token", ".kaggle/kaggle.json",
        ".huggingface/token", ".config/containers/auth.json", ".m2/settings.xml",
        ".m2/settings-security.xml", ".gradle/gradle.properties", ".ivy2/.credentials",
        ".nuget/NuGet/NuGet.Config", ".composer/auth.json", ".config/composer/auth.json", ".s3cfg",
        ".boto", ".config/rclone/rclone.conf", ".databrickscfg", ".snowflake", ".oci",
        ".terraformrc", ".config/doctl", ".config/glab-cli", ".config/op", ".config/configstore",
        ".subversion/auth",
        // Shell and REPL histories: passwords typed on command lines.
        ".bash_history", ".zsh_history", ".local/share/fish/fish_history", ".python_history",
        ".node_repl_history", ".psql_history", ".mysql_history", ".sqlite_history",
        ".rediscli_history", ".config/safesh", ".local/state/safesh"}) {
    out.push_back(home + "/" + rel);
  }
  return out;
}

std::vector<std::string> ShellStartupFiles(const std::string& home) {
  std::vector<std::string> out;
  if (home.empty()) return out;
  for (const char* rel : {".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile",
                          ".zshrc", ".zshenv", ".zprofile", ".zlogin", ".config/fish"}) {
    out.push_back(home + "/" + rel);
  }
  return out;
}

SandboxSpec BuildSpec(const config::SandboxSettings& settings,
                      const std::vector<std::string>& roots, const std::string& home,
                      HostSocketMemory* socket_memory, const std::string& socket_cache) {
  SandboxSpec spec;
  spec.network = settings.allow_network;
  std::string base = roots.empty() ? std::string("/") : roots[0];

  // The workspace as given; every other root (the caller passes [sandbox] writable_paths too),
  // and ~/.cache, only when the way to it passes no link inside any of them: a command could have
  // made such a link (~/.cache when the workspace holds the home folder, a writable path nested
  // in another, listed before or after it) point at /etc or /root, for the next run to bind as a
  // root of its own. Each is checked against all of them, whatever their order.
  // Not /tmp, /var/tmp or $TMPDIR: the sandbox has temporary folders of its own (private_tmp.h),
  // and the host's are where other programs keep their sockets and files.
  std::vector<std::string> wanted(roots.begin(), roots.end());
  for (const std::string& p : settings.writable_paths)
    wanted.push_back(Expand(p, home, base));
  if (!home.empty()) wanted.push_back(home + "/.cache");
  std::vector<std::string> reachable;  // every one as it resolves now
  for (const std::string& w : wanted) {
    std::string r = w.empty() || w[0] != '/' ? "" : util::RealPath(w);
    if (!r.empty() && IsDir(r)) AddUnique(&reachable, r);
  }
  for (size_t i = 0; i < wanted.size(); ++i) {
    const std::string& w = wanted[i];
    if (w.empty() || w[0] != '/') continue;
    if (ThroughPlantedLink(w, reachable)) {
      // The workspace cannot be left out: nothing runs (a folder above it renamed and a link
      // put in its place would make the next run's workspace any folder at all).
      if (i == 0)
        spec.refused = "the workspace " + w +
                       " is reached through a link inside a folder commands may write, which a "
                       "command could have made; give the workspace by its real path";
      continue;
    }
    std::string r = util::RealPath(w);
    if (!r.empty() && IsDir(r)) AddUnique(&spec.writable, r);
  }
  auto in_writable = [&](const std::string& p) {
    for (const std::string& w : spec.writable) {
      if (util::IsPathInside(p, w)) return true;
    }
    return false;
  };

  // Only inside a writable root: everything else is read-only already, and a read-only bind
  // of the host's /proc or /dev (or a link to them) over the sandbox's own would show the
  // host's processes and devices. A project file may add read_only_paths (config/project_rules.h).
  for (const std::string& p : settings.read_only_paths) {
    std::string r = util::RealPath(Expand(p, home, base));
    if (!r.empty() && in_writable(r)) AddUnique(&spec.read_only, r);
  }

  // Each root's git repository: hooks are never writable; config only when allowed. (Those
  // below the roots, and a root whose .git is a file, come from the scan: ProtectRepositories.)
  for (const std::string& root : roots) {
    std::string git = util::RealPath(root) + "/.git";
    if (IsDir(git)) ProtectGitDir(git, settings.allow_git_config, &spec);
  }

  // Shell start-up files run in the user's next shell: never writable from the sandbox.
  for (const std::string& f : ShellStartupFiles(home)) {
    if (!in_writable(f)) continue;  // read-only already
    if (Exists(f)) {
      AddUnique(&spec.read_only, f);
    } else if (IsDir(f.substr(0, f.rfind('/')))) {
      AddUnique(&spec.missing_files, f);
    }
  }

  // Sockets of the host: without the network namespace's help (it only separates abstract
  // ones), a read-only or writable bind leaves them connectable.
  // By default none is needed: socket(AF_UNIX) is refused (seccomp.h), so no host socket is
  // reachable, wherever it is. Naming one in allow_unix_sockets lets commands make sockets, and
  // then every other host socket found is masked.
  // Each a socket or a folder (of sockets), reached through no link a command could have
  // planted: a link in the workspace to /var/run/docker.sock would otherwise be allowed.
  std::vector<std::string> allowed;
  for (const std::string& p : settings.allow_unix_sockets) {
    std::string a = Expand(p, home, base);
    if (a.empty() || a[0] != '/' || ThroughPlantedLink(a, spec.writable)) continue;
    struct stat st;
    if (stat(a.c_str(), &st) == 0 && !S_ISSOCK(st.st_mode) && !S_ISDIR(st.st_mode)) continue;
    allowed.push_back(a);
  }
  spec.unix_sockets = !settings.allow_unix_sockets.empty();
  if (spec.unix_sockets) {
    SocketScan sockets =
        FindHostSocketsCached(socket_memory, HostSocketPlaces(home), allowed, socket_cache);
    spec.sockets = std::move(sockets.sockets);
    spec.sockets_truncated = sockets.truncated;
    // One in the host's temporary folders (ssh-agent's in a /tmp/ssh-* folder) is out of sight
    // behind the sandbox's own: bound in at its path.
    for (const std::string& a : allowed) {
      std::string r = util::RealPath(a);
      if (!r.empty() && (util::IsPathInside(r, "/tmp") || util::IsPathInside(r, "/var/tmp")) &&
          r != "/tmp" && r != "/var/tmp")
        AddUnique(&spec.socket_binds, r);
    }
  }

  // A blocked path that does not exist yet, where a command could create it (inside a writable
  // root: ~/.ssh when the home folder is writable), gets its first missing component masked, as
  // the protected git names do: a command must not plant ~/.ssh/authorized_keys for later.
  // bubblewrap leaves the empty mount point on the host (an empty folder, or an empty file).
  auto block_missing = [&](const std::string& path, bool file) {
    struct stat st;
    if (path.size() < 2 || path[0] != '/' || lstat(path.c_str(), &st) == 0) return;
    std::string first = path;
    for (;;) {
      std::string parent = first.substr(0, first.rfind('/'));
      if (parent.empty()) return;
      if (lstat(parent.c_str(), &st) == 0) {
        if (!S_ISDIR(st.st_mode)) return;  // nothing can be made below a file
        break;
      }
      first = parent;
    }
    std::string parent = util::RealPath(first.substr(0, first.rfind('/')));
    if (parent.empty()) return;
    std::string target = (parent == "/" ? "" : parent) + first.substr(first.rfind('/'));
    if (!in_writable(target)) return;  // read-only already: it cannot be created
    AddUnique(first == path && file ? &spec.missing_files : &spec.missing_dirs, target);
  };
  for (const std::string& b : DefaultBlockedPaths(home)) {
    AddBlocked(b, &spec);
    block_missing(b, IsBlockedFile(b));
  }
  // safesh's own settings and state (approvals, audit log, spool, the trust list) wherever the
  // XDG variables put them: a command must not read the record or change its settings or trust
  // a project's file for the person.
  if (std::string state = util::StateDir(); !state.empty()) AddBlocked(state, &spec);
  if (const char* v = getenv("XDG_CONFIG_HOME"); v != nullptr && v[0] == '/')
    AddBlocked(std::string(v) + "/safesh", &spec);
  for (const std::string& p : settings.blocked_paths) {
    switch (ClassifyBlockedEntry(p)) {
      case BlockedEntryKind::kName:
        break;  // matched by the scan
      case BlockedEntryKind::kGlob:
        for (const std::string& g : Glob(Expand(p, home, base)))
          AddBlocked(g, &spec);
        break;
      case BlockedEntryKind::kPath:
        AddBlocked(Expand(p, home, base), &spec);
        block_missing(Expand(p, home, base), IsBlockedFile(Expand(p, home, base)));
        break;
    }
  }
  spec.map_root = WantsRootMap(settings.root_keeps_owner_rights);
  if (spec.map_root) {
    // An allowed socket is bound wherever it lies: connecting needs write permission on it.
    // A socket itself is bound through an idmapped mount, so root's socket stays root's; a
    // folder is bound as it is (bwrap.cc), since idmapping it would give owner rights over
    // every file in it, not only its sockets.
    std::vector<std::string> mapped = spec.writable, plain;
    for (const std::string& a : allowed) {
      std::string r = util::RealPath(a);
      if (r.empty() || r == "/tmp" || r == "/var/tmp" || InsideAny(r, spec.writable)) continue;
      if (!IsDir(r)) {
        AddUnique(&spec.socket_binds, r);
        AddUnique(&mapped, r);
      } else if (FirstClosedAncestor(r, mapped).empty()) {
        // A folder behind one closed to others cannot be bound as it is (bubblewrap, as the
        // mapped root, could not reach it), and its sockets are closed to others anyway: left
        // out (name the socket itself).
        AddUnique(&spec.socket_binds, r);
        AddUnique(&plain, r);
      }
    }
    std::vector<std::string> dests = spec.writable;
    dests.insert(dests.end(), spec.read_only.begin(), spec.read_only.end());
    dests.insert(dests.end(), spec.socket_binds.begin(), spec.socket_binds.end());
    // The home folder too, when closed to others (/root): emptied, so that tools looking there
    // find nothing (ENOENT) instead of a refusal they warn about on every run (git does).
    if (!home.empty()) dests.push_back(home + "/");
    spec.closed_dirs = ClosedAncestors(dests, mapped);
    // A mask the command could not reach guards nothing, and bubblewrap, as the mapped root,
    // could not reach its place to mount it: one behind a folder closed to others, outside the
    // mapped binds (which the command owns) and with no folder bound as it is in between.
    auto unreachable = [&](const std::string& p) {
      std::string bind;  // the innermost bind that holds p
      bool owned = false;
      for (const std::vector<std::string>* v : {&mapped, &plain}) {
        for (const std::string& b : *v) {
          if (util::IsPathInside(p, b) && b.size() >= bind.size()) {
            owned = v == &mapped;
            bind = b;
          }
        }
      }
      if (owned) return false;
      if (bind.empty()) return !FirstClosedAncestor(p, {}).empty();
      // Inside a folder bound as it is: closed by it, or by a folder between it and p.
      for (std::string at = bind;;) {
        struct stat st;
        if (stat(at.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return false;
        if ((st.st_mode & S_IXOTH) == 0) return true;
        size_t next = p.find('/', at == "/" ? 1 : at.size() + 1);
        if (next == std::string::npos) return false;  // `at` is p's folder
        at = p.substr(0, next);
      }
    };
    for (std::vector<std::string>* v : {&spec.blocked_files, &spec.blocked_dirs,
                                        &spec.missing_files, &spec.missing_dirs, &spec.sockets})
      std::erase_if(*v, unreachable);
  }
  return spec;
}

std::vector<std::string> BlockedScanRoots(const config::SandboxSettings& settings,
                                          const std::vector<std::string>& roots,
                                          const std::string& home) {
  std::string base = roots.empty() ? std::string("/") : roots[0];
  std::vector<std::string> out;
  // The roots always: they are bound into the sandbox wherever they lie (a workspace in
  // /dev/shm included).
  for (const std::string& w : roots) {
    std::string r = util::RealPath(w);
    if (!r.empty() && IsDir(r)) AddUnique(&out, r);
  }
  for (const std::string& p : settings.read_only_paths) {
    std::string r = util::RealPath(Expand(p, home, base));
    // Not a read-only path in the host's /proc, /dev or /sys: the sandbox sees its own there,
    // not the host's, and /proc changes with every process (a scan of it never settles).
    if (r.empty() || !IsDir(r) || util::IsPathInside(r, "/proc") || util::IsPathInside(r, "/dev") ||
        util::IsPathInside(r, "/sys"))
      continue;
    AddUnique(&out, r);
  }
  return out;
}

std::vector<std::string> BlockedNamePatterns(const config::SandboxSettings& settings) {
  std::vector<std::string> out = DefaultBlockedNames();
  for (const std::string& p : settings.blocked_paths) {
    if (ClassifyBlockedEntry(p) == BlockedEntryKind::kName) out.push_back(p);
  }
  return out;
}

void ProtectRepositories(const std::vector<std::string>& repos, SandboxSpec* spec) {
  for (const std::string& entry : repos) {
    std::string dir = entry.substr(0, entry.rfind('/'));
    struct stat st;
    if (lstat(entry.c_str(), &st) != 0) continue;
    // A folder (or a link to one) is the repository; a file (a submodule's or a worktree's)
    // says where it is: "gitdir: PATH", relative to the file's folder.
    std::string git = entry;
    if (S_ISREG(st.st_mode)) {
      std::string named = LineAfter(entry, "gitdir: ");
      if (named.empty()) continue;  // not a .git file git would follow
      git = Beside(dir, named);
    }
    git = util::RealPath(git);
    if (git.empty() || !IsDir(git)) continue;
    // A worktree's folder names the repository that holds its hooks and config.
    if (std::string common = LineAfter(git + "/commondir", ""); !common.empty()) {
      git = util::RealPath(Beside(git, common));
      if (git.empty() || !IsDir(git)) continue;
    }
    // Only what git takes for a repository (it needs HEAD): masking the missing hooks of any
    // folder a .git file names would leave empty mount points in it. Outside the writable roots
    // everything is read-only already.
    if (!Exists(git + "/HEAD") || !InsideAny(git, spec->writable)) continue;
    // Hidden, not bound read-only: a command may have made this repository, and may swap its
    // hooks for a link to /proc between this look and bubblewrap's mount; `--ro-bind P P` would
    // then put the host's /proc over the sandbox's. A mask takes nothing from the host.
    std::string hooks = git + "/hooks";
    // A root's own repository: ProtectGitDir bound its hooks read-only already, from a
    // descriptor (bwrap.h), so that its hooks still run inside; a mask over that bind would fail
    // the mount check.
    auto has = [](const std::vector<std::string>& v, const std::string& p) {
      return std::find(v.begin(), v.end(), p) != v.end();
    };
    if (has(spec->read_only, hooks) || has(spec->missing_dirs, hooks)) continue;
    if (lstat(hooks.c_str(), &st) != 0) {
      AddUnique(&spec->missing_dirs, hooks);
    } else if (S_ISREG(st.st_mode)) {
      AddUnique(&spec->blocked_files, hooks);
    } else {
      AddUnique(&spec->blocked_dirs, hooks);
    }
  }
}

std::string AddBlockedMatches(const ScanResult& scan, const std::vector<std::string>& scan_roots,
                              SandboxSpec* spec) {
  // Each match's folder opened once, without following links: it is a real path now.
  std::unordered_map<std::string, util::UniqueFd> folders;
  for (const std::vector<std::string>* found : {&scan.files, &scan.dirs}) {
    for (const std::string& p : *found) {
      size_t slash = p.rfind('/');
      std::string folder = slash == 0 ? "/" : p.substr(0, slash);
      auto it = folders.find(folder);
      if (it == folders.end()) {
        util::UniqueFd fd(util::OpenNoLinks(folder));
        if (!fd.valid()) {
          if (errno == ENOENT) continue;  // gone: nothing left to hide
          return folder;
        }
        it = folders.emplace(folder, std::move(fd)).first;
      }
      struct stat st;
      if (fstatat(it->second.get(), p.c_str() + slash + 1, &st, AT_SYMLINK_NOFOLLOW) != 0)
        continue;  // gone since the scan
      if (S_ISLNK(st.st_mode)) {
        // A matched link is masked where it points (bubblewrap would mount over its target in
        // any case), unless that holds a root: the workspace itself, not a secret.
        std::string r = util::RealPath(p);
        bool holds_a_root = false;
        for (const std::string& root : scan_roots)
          holds_a_root = holds_a_root || util::IsPathInside(root, r);
        if (!r.empty() && !holds_a_root) AddBlocked(p, spec);
        continue;
      }
      // Anything else is masked at exactly this path, not at what a path resolves to later: a
      // folder on it swapped for a link since would take the mask elsewhere. Where bubblewrap
      // then puts it is checked inside (MountManifest).
      bool holds_a_root = false;
      for (const std::string& root : scan_roots)
        holds_a_root = holds_a_root || util::IsPathInside(root, p);
      if (!holds_a_root)
        AddUnique(S_ISDIR(st.st_mode) ? &spec->blocked_dirs : &spec->blocked_files, p);
    }
  }
  return "";
}

}  // namespace safesh::sandbox
