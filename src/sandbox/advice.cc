#include "sandbox/advice.h"

#include <vector>

namespace safesh::sandbox {
namespace {

// The first '...' or `...' quoted path on the line (coreutils and most tools quote them).
std::string QuotedPath(std::string_view line) {
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] != '\'' && line[i] != '`' && line[i] != '"') continue;
    char close = line[i] == '`' ? '\'' : line[i];
    size_t end = line.find(close, i + 1);
    if (end == std::string_view::npos) return "";
    std::string_view inside = line.substr(i + 1, end - i - 1);
    if (!inside.empty() && (inside[0] == '/' || inside[0] == '~' || inside[0] == '.'))
      return std::string(inside);
    i = end;
  }
  return "";
}

// The path a "tool: path: message" line names, when it is not quoted: the last part before the
// message that is an absolute path ("/bin/bash: line 1: /etc/x: Read-only file system" names
// /etc/x, not the shell).
std::string ColonPath(std::string_view line) {
  std::string found;
  for (size_t start = 0; start < line.size();) {
    size_t colon = line.find(": ", start);
    if (colon == std::string_view::npos) break;  // the rest is the message
    std::string_view part = line.substr(start, colon - start);
    if (!part.empty() && part[0] == '/') found = std::string(part);
    start = colon + 2;
  }
  return found;
}

bool Under(const std::string& path, const std::string& root) {
  return path == root || (path.size() > root.size() && path.compare(0, root.size(), root) == 0 &&
                          path[root.size()] == '/');
}

}  // namespace

std::string PermissionAdvice(std::string_view output, const SandboxSpec& spec,
                             const std::string& launcher) {
  std::vector<std::string> advice;
  auto add = [&](const std::string& a) {
    for (const std::string& have : advice) {
      if (have == a) return;
    }
    advice.push_back(a);
  };
  size_t start = 0;
  while (start < output.size() && advice.size() < 3) {
    size_t end = output.find('\n', start);
    std::string_view line =
        output.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    start = end == std::string_view::npos ? output.size() : end + 1;

    std::string path = QuotedPath(line);
    if (path.empty()) path = ColonPath(line);
    bool read_only = line.find("Read-only file system") != std::string_view::npos;
    bool denied = line.find("Permission denied") != std::string_view::npos;
    bool not_permitted = line.find("Operation not permitted") != std::string_view::npos;
    bool missing = line.find("No such file or directory") != std::string_view::npos;

    if (!path.empty() && (missing || denied)) {
      bool hidden = false;
      for (const std::string& b : spec.blocked_dirs)
        hidden = hidden || Under(path, b);
      for (const std::string& b : spec.blocked_files)
        hidden = hidden || path == b;
      if (hidden) {
        add("`" + path +
            "` is hidden from commands: it is a blocked path (keys and "
            "credentials). A command that needs one credential should be given that value "
            "alone, not the folder it lives in.");
        continue;
      }
    }
    if (denied && spec.map_root && !path.empty() && !InsideAny(path, spec.writable)) {
      add("`" + path +
          "` is out of reach: as root, commands run as an unprivileged uid "
          "(root_keeps_owner_rights "
          "is off) and reach host files only as any other user may; the workspace and [sandbox] "
          "writable_paths stay root's. Work inside the workspace, or add the folder to [sandbox] "
          "writable_paths.");
      continue;
    }
    if (read_only || (denied && launcher == "landlock" && !path.empty())) {
      std::string what = path.empty() ? "a path outside the writable folders" : "`" + path + "`";
      add("The sandbox keeps " + what +
          " read-only: commands may write only in the workspace, /tmp, /var/tmp, ~/.cache and "
          "[sandbox] writable_paths (.git/hooks, .git/config and shell start-up files never). "
          "Write inside the workspace, or add the folder to [sandbox] writable_paths.");
      continue;
    }
    if (line.find("Address family not supported by protocol") != std::string_view::npos ||
        line.find("Network is unreachable") != std::string_view::npos ||
        line.find("Temporary failure in name resolution") != std::string_view::npos ||
        line.find("Could not resolve host") != std::string_view::npos) {
      if (!spec.network)
        add("The sandbox has no network. If this command needs it, set [sandbox] allow_network "
            "= true in your own settings, or in a --config file for the runs that need it (a "
            "project's settings file cannot open the network).");
      continue;
    }
    if (not_permitted) {
      add("The sandbox refused an operation (commands run without capabilities, and a seccomp "
          "filter refuses ptrace, mounts, keyrings, io_uring and the like). Such tools (a "
          "debugger, a container runtime, mount) need to run outside safesh.");
    }
  }
  std::string out;
  for (const std::string& a : advice)
    out += (out.empty() ? "" : " ") + a;
  return out;
}

}  // namespace safesh::sandbox
