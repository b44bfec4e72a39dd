#include "sandbox/spec.h"

#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>

#include "sandbox/host_sockets.h"

namespace safesh::sandbox {
namespace {

std::string Real(const std::string& p) {
  char* r = realpath(p.c_str(), nullptr);
  if (r == nullptr) return "";
  std::string out(r);
  free(r);
  return out;
}

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

bool Inside(const std::string& path, const std::string& root) {
  return path == root || root == "/" ||
         (path.size() > root.size() && path.compare(0, root.size(), root) == 0 &&
          path[root.size()] == '/');
}

void AddUnique(std::vector<std::string>* v, const std::string& p) {
  if (!p.empty() && std::find(v->begin(), v->end(), p) == v->end()) v->push_back(p);
}

}  // namespace

bool InsideAny(const std::string& path, const std::vector<std::string>& roots) {
  std::string real = Real(path);
  if (real.empty()) real = path;
  for (const std::string& r : roots) {
    if (Inside(real, r)) return true;
  }
  return false;
}

std::vector<std::string> DefaultBlockedPaths(const std::string& home) {
  std::vector<std::string> out;
  if (home.empty()) return out;
  for (const char* rel : {".ssh",
                          ".aws",
                          ".gnupg",
                          ".config/gcloud",
                          ".azure",
                          ".kube",
                          ".netrc",
                          ".docker/config.json",
                          ".npmrc",
                          ".pypirc",
                          ".git-credentials",
                          ".config/gh",
                          ".config/hub",
                          ".password-store",
                          ".local/share/keyrings",
                          ".mozilla",
                          ".config/google-chrome",
                          ".config/chromium",
                          ".terraform.d/credentials.tfrc.json",
                          ".cargo/credentials",
                          ".cargo/credentials.toml",
                          ".gem/credentials",
                          ".config/anthropic",
                          ".claude/.credentials.json",
                          ".codex/auth.json",
                          ".config/safesh",
                          ".local/state/safesh"}) {
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
                      const std::vector<std::string>& roots, const std::string& home) {
  SandboxSpec spec;
  spec.network = settings.allow_network;
  std::string base = roots.empty() ? std::string("/") : roots[0];

  std::vector<std::string> writable = roots;
  for (const std::string& p : settings.writable_paths)
    writable.push_back(Expand(p, home, base));
  writable.push_back("/tmp");
  writable.push_back("/var/tmp");
  if (const char* t = getenv("TMPDIR"); t != nullptr && t[0] == '/') writable.push_back(t);
  if (!home.empty()) writable.push_back(home + "/.cache");
  for (const std::string& w : writable) {
    std::string r = Real(w);
    if (!r.empty() && IsDir(r)) AddUnique(&spec.writable, r);
  }
  auto in_writable = [&](const std::string& p) {
    for (const std::string& w : spec.writable) {
      if (Inside(p, w)) return true;
    }
    return false;
  };

  // Only inside a writable root: everything else is read-only already, and a read-only bind
  // of the host's /proc or /dev (or a link to them) over the sandbox's own would show the
  // host's processes and devices. A project file may add read_only_paths (config/project_rules.h).
  for (const std::string& p : settings.read_only_paths) {
    std::string r = Real(Expand(p, home, base));
    if (!r.empty() && in_writable(r)) AddUnique(&spec.read_only, r);
  }

  // Each root's git repository: hooks are never writable; config only when allowed. A name
  // that does not exist yet is masked so that it cannot be created.
  for (const std::string& root : roots) {
    std::string git = Real(root) + "/.git";
    if (!IsDir(git)) continue;
    std::string hooks = git + "/hooks";
    if (IsDir(hooks)) {
      AddUnique(&spec.read_only, hooks);
    } else if (!Exists(hooks)) {
      AddUnique(&spec.missing_dirs, hooks);
    }
    if (!settings.allow_git_config) {
      std::string cfg = git + "/config";
      if (Exists(cfg)) {
        AddUnique(&spec.read_only, cfg);
      } else {
        AddUnique(&spec.missing_files, cfg);
      }
    }
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
  std::vector<std::string> allowed;
  for (const std::string& p : settings.allow_unix_sockets)
    allowed.push_back(Expand(p, home, base));
  SocketScan sockets = FindHostSockets(HostSocketPlaces(home), allowed);
  spec.sockets = std::move(sockets.sockets);
  spec.sockets_truncated = sockets.truncated;

  std::vector<std::string> blocked = DefaultBlockedPaths(home);
  // safesh's own settings and state (the trust list among them) where the XDG variables move
  // them: a command must not change its settings or trust a project's file for the person.
  for (const char* var : {"XDG_CONFIG_HOME", "XDG_STATE_HOME"}) {
    const char* v = getenv(var);
    if (v != nullptr && v[0] == '/') blocked.push_back(std::string(v) + "/safesh");
  }
  for (const std::string& p : settings.blocked_paths)
    blocked.push_back(Expand(p, home, base));
  for (const std::string& b : blocked) {
    struct stat st;
    // The path itself, not what a link there points to: a link is masked where it is, and what
    // it points to is masked too when it is itself a blocked path.
    if (lstat(b.c_str(), &st) != 0) continue;
    std::string r = Real(b);
    if (r.empty()) continue;
    if (IsDir(r)) {
      AddUnique(&spec.blocked_dirs, r);
    } else {
      AddUnique(&spec.blocked_files, r);
    }
  }
  return spec;
}

}  // namespace safesh::sandbox
