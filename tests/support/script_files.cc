#include "script_files.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace safesh::testing {
namespace {

void Walk(const std::string& dir, int depth, const std::function<void(const std::string&)>& fn) {
  if (depth > 12) return;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return;
  std::vector<std::string> entries;
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") entries.push_back(n);
  }
  closedir(d);
  // Sorted, so that every run visits the same files in the same order.
  std::sort(entries.begin(), entries.end());
  for (const std::string& n : entries) {
    std::string path = dir + "/" + n;
    struct stat st;
    if (lstat(path.c_str(), &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      Walk(path, depth + 1, fn);
    } else if (S_ISREG(st.st_mode) && st.st_size > 0 && st.st_size < (1 << 20)) {
      fn(path);
    }
  }
}

}  // namespace

bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return true;
}

void WalkFiles(const std::string& dir, const std::function<void(const std::string&)>& fn) {
  Walk(dir, 0, fn);
}

bool IsShellScript(const std::string& text) {
  if (text.compare(0, 2, "#!") != 0) return false;
  std::string first = text.substr(0, text.find('\n'));
  for (const char* shell : {"/sh", "/bash", " sh", " bash", "/dash"}) {
    size_t at = first.find(shell);
    if (at == std::string::npos) continue;
    size_t end = at + std::string(shell).size();
    if (end == first.size() || first[end] == ' ' || first[end] == '\t' || first[end] == '\r') {
      return true;
    }
  }
  return false;
}

std::vector<ScriptFile> ShellScriptsOnThisMachine() {
  std::vector<ScriptFile> out;
  for (const char* root : {"/usr/bin", "/usr/sbin", "/etc", "/usr/share", "/usr/lib"}) {
    WalkFiles(root, [&](const std::string& path) {
      ScriptFile f{path, {}};
      if (!ReadFile(path, &f.text) || !IsShellScript(f.text)) return;
      if (f.text.find('\0') != std::string::npos) return;
      out.push_back(std::move(f));
    });
  }
  return out;
}

}  // namespace safesh::testing
