#include "config/trust.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>

#include <nlohmann/json.hpp>

#include "util/file.h"
#include "util/state_dir.h"
#include "util/unique_fd.h"

namespace safesh::config {
namespace {

std::string Errno(const std::string& what) {
  return what + ": " + std::strerror(errno);
}

std::string Mode(mode_t m) {
  char buf[8];
  snprintf(buf, sizeof buf, "%03o", static_cast<unsigned>(m & 0777));
  return buf;
}

std::string Folder(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == 0 ? "/" : path.substr(0, slash);
}

bool Parse(const std::string& text, const std::string& path, TrustStore* store,
           std::string* error) {
  auto bad = [&](const std::string& what) {
    *error = path + ": " + what +
             "; it is safesh's list of trusted project settings: remove the file and run "
             "`safesh trust` again in each project you trust";
    return false;
  };
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return bad("not valid JSON");
  if (!j.is_object() || j.value("version", 0) != 1 || !j.contains("files") ||
      !j["files"].is_array()) {
    return bad("not a trust list of version 1");
  }
  for (const nlohmann::json& f : j["files"]) {
    if (!f.is_object() || !f.contains("path") || !f["path"].is_string() || !f.contains("sha256") ||
        !f["sha256"].is_string() || f["sha256"].get<std::string>().size() != 64) {
      return bad("an entry lacks its path or sha256");
    }
    store->files.push_back({f["path"].get<std::string>(), f["sha256"].get<std::string>(),
                            f.value("trusted_at", std::string())});
  }
  return true;
}

std::string Serialize(const TrustStore& store) {
  nlohmann::json files = nlohmann::json::array();
  for (const TrustedFile& f : store.files)
    files.push_back({{"path", f.path}, {"sha256", f.sha256}, {"trusted_at", f.trusted_at}});
  nlohmann::json j = {{"version", 1}, {"files", files}};
  return j.dump(2) + "\n";
}

bool WriteAll(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

// Writes `text` to `path` atomically: a new private file next to it, synced, renamed over it,
// and the folder synced so that the rename itself survives a crash.
bool ReplaceFile(const std::string& path, const std::string& text, int folder_fd,
                 std::string* error) {
  std::string temp = path + ".XXXXXX";
  util::UniqueFd fd(mkostemp(temp.data(), O_CLOEXEC));
  if (!fd.valid()) {
    *error = Errno("cannot create " + temp);
    return false;
  }
  auto fail = [&](const std::string& what) {
    *error = Errno(what);
    unlink(temp.c_str());
    return false;
  };
  if (fchmod(fd.get(), 0600) != 0) return fail("cannot set the mode of " + temp);
  if (!WriteAll(fd.get(), text)) return fail("cannot write " + temp);
  if (fsync(fd.get()) != 0) return fail("cannot sync " + temp);
  if (rename(temp.c_str(), path.c_str()) != 0) return fail("cannot rename " + temp);
  if (fsync(folder_fd) != 0) {
    *error = Errno("cannot sync " + Folder(path));
    return false;
  }
  return true;
}

}  // namespace

std::string TrustStorePath(const std::string& home, const std::string& xdg_state_home) {
  if (!xdg_state_home.empty() && xdg_state_home[0] == '/')
    return xdg_state_home + "/safesh/trust.json";
  if (!home.empty() && home[0] == '/') return home + "/.local/state/safesh/trust.json";
  return "";
}

std::optional<TrustStore> LoadTrustStore(const std::string& path, std::string* error) {
  TrustStore store;
  if (path.empty()) {
    *error = "no place for the list of trusted project settings: set HOME or XDG_STATE_HOME";
    return std::nullopt;
  }
  util::UniqueFd fd(open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!fd.valid() && errno == ENOENT) return store;
  if (!fd.valid()) {
    *error = Errno("cannot open " + path) + " (remove it if it is a symbolic link)";
    return std::nullopt;
  }
  struct stat st;
  if (fstat(fd.get(), &st) != 0) {
    *error = Errno("cannot inspect " + path);
    return std::nullopt;
  }
  if (!S_ISREG(st.st_mode)) {
    *error = path + " is not a regular file: remove it";
    return std::nullopt;
  }
  if (st.st_uid != geteuid() || (st.st_mode & 022) != 0) {
    *error = path + " could have been changed by another user (owner " + std::to_string(st.st_uid) +
             ", mode " + Mode(st.st_mode) + "): remove it and trust your projects again";
    return std::nullopt;
  }
  std::string text;
  if (!util::ReadToEnd(fd.get(), path, &text, error)) return std::nullopt;
  if (!Parse(text, path, &store, error)) return std::nullopt;
  return store;
}

bool UpdateTrustStore(const std::string& path, const std::function<void(TrustStore*)>& change,
                      std::string* error) {
  if (path.empty()) {
    *error = "no place for the list of trusted project settings: set HOME or XDG_STATE_HOME";
    return false;
  }
  std::string folder = Folder(path);
  if (!util::MakePrivateDir(folder, error)) return false;
  util::UniqueFd dir(open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!dir.valid()) {
    *error = Errno("cannot open " + folder);
    return false;
  }
  int r;
  do {
    r = flock(dir.get(), LOCK_EX);
  } while (r != 0 && errno == EINTR);
  if (r != 0) {
    *error = Errno("cannot lock " + folder);
    return false;
  }
  // The lock is released when `dir` is closed.
  std::optional<TrustStore> store = LoadTrustStore(path, error);
  if (!store) return false;
  change(&*store);
  return ReplaceFile(path, Serialize(*store), dir.get(), error);
}

const TrustedFile* FindTrusted(const TrustStore& store, const std::string& key) {
  for (const TrustedFile& f : store.files) {
    if (f.path == key) return &f;
  }
  return nullptr;
}

std::string UtcNow() {
  time_t now = time(nullptr);
  struct tm tm;
  char buf[32];
  if (gmtime_r(&now, &tm) == nullptr || strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
    return "";
  return buf;
}

}  // namespace safesh::config
