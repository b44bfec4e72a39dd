#include "sandbox/private_tmp.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "util/file.h"
#include "util/sha256.h"
#include "util/state_dir.h"
#include "util/unique_fd.h"

namespace safesh::sandbox {
namespace {

// A folder the sandbox binds at /tmp: 1777 as /tmp is, since a command may run programs that
// check (its privacy comes from the 0700 folder around it). Made if missing; an existing one
// must be a real folder of this user's, not a link or a file left there.
bool MakeSharedLeaf(const std::string& path, std::string* error) {
  if (mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) {
    *error = "cannot create the sandbox's temporary folder " + path + ": " + strerror(errno);
    return false;
  }
  util::UniqueFd fd(open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  struct stat st;
  if (!fd.valid() || fstat(fd.get(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid()) {
    *error = "the sandbox's temporary folder " + path +
             " is not a folder of this user's; remove it and run again";
    return false;
  }
  if ((st.st_mode & 07777) != 01777 && fchmod(fd.get(), 01777) != 0) {
    *error = "cannot set the mode of " + path + ": " + strerror(errno);
    return false;
  }
  return true;
}

}  // namespace

bool MakePrivateTemp(const std::string& state_dir, const std::string& workspace, PrivateTemp* out,
                     std::string* error) {
  std::string base = state_dir + "/tmp";
  if (!util::MakePrivateDir(base, error)) return false;
  // One folder per workspace, named by a hash of its path (a path may be longer than a name).
  std::string dir = base + "/" + util::Sha256Hex(workspace).substr(0, 24);
  struct stat st;
  bool fresh = lstat(dir.c_str(), &st) != 0;
  if (!util::MakePrivateDir(dir, error)) return false;
  if (fresh) {
    // Which workspace it serves, for a person who looks; and a moment to clear old ones.
    util::UniqueFd f(open((dir + "/workspace").c_str(),
                          O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (f.valid()) {
      std::string line = workspace + "\n";
      if (write(f.get(), line.data(), line.size()) < 0) {
        // Only a note for people: the folder works without it.
      }
    }
    RemoveOldPrivateTemps(state_dir, 30LL * 24 * 60 * 60);
  } else {
    utimensat(AT_FDCWD, dir.c_str(), nullptr, AT_SYMLINK_NOFOLLOW);  // in use: keep it
  }
  if (!MakeSharedLeaf(dir + "/tmp", error) || !MakeSharedLeaf(dir + "/var-tmp", error))
    return false;
  out->tmp = dir + "/tmp";
  out->var_tmp = dir + "/var-tmp";
  return true;
}

void RemoveOldPrivateTemps(const std::string& state_dir, int64_t max_age_seconds) {
  std::string base = state_dir + "/tmp";
  std::unique_ptr<DIR, int (*)(DIR*)> d(opendir(base.c_str()), closedir);
  if (!d) return;
  time_t now = time(nullptr);
  std::vector<std::string> old;
  while (dirent* e = readdir(d.get())) {
    std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    struct stat st;
    if (fstatat(dirfd(d.get()), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 ||
        !S_ISDIR(st.st_mode))
      continue;
    if (now - st.st_mtime >= max_age_seconds) old.push_back(name);
  }
  // What a command left there is its own tree: a folder it made unreadable is given back owner
  // rights, and a link (even one swapped in while this runs) is removed, never followed.
  for (const std::string& name : old)
    util::RemoveTreeNoLinks(dirfd(d.get()), name);
}

}  // namespace safesh::sandbox
