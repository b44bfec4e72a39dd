#include "approval/store.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "util/file.h"
#include "util/json_writer.h"
#include "util/random_id.h"
#include "util/state_dir.h"
#include "util/unique_fd.h"
#include "util/utc_time.h"

namespace safesh::approval {
namespace {

std::string DirOf(const std::string& file) {
  return file.substr(0, file.rfind('/'));
}

std::string Errno(const std::string& what) {
  return what + ": " + strerror(errno);
}

bool CheckFile(const std::string& file, std::string* error) {
  if (file.empty() || file[0] != '/') {
    *error = "no place for remembered approvals: set HOME or XDG_STATE_HOME to an absolute path";
    return false;
  }
  return util::MakePrivateDir(DirOf(file), error);
}

std::string Malformed(const std::string& file, const std::string& why) {
  return "the approvals file " + file + " is malformed (" + why +
         "): fix it, or start again with `safesh approvals revoke --all`";
}

bool ReadList(const std::string& file, std::vector<Remembered>* out, std::string* error) {
  out->clear();
  util::UniqueFd fd(open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) {
    if (errno == ENOENT) return true;
    if (errno == ELOOP) {
      *error = "the approvals file " + file + " is a symbolic link: remove it";
    } else {
      *error = Errno("cannot open the approvals file " + file);
    }
    return false;
  }
  // Group or others able to write it could plant approvals; able to read it, see commands.
  if (!util::CheckPrivateFile(fd.get(), "the approvals file " + file, error)) return false;
  std::string text;
  if (!util::ReadToEnd(fd.get(), file, &text, error)) return false;
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return (*error = Malformed(file, "not a JSON object"), false);
  auto version = j.find("version");
  if (version == j.end() || !version->is_number_integer() || version->get<int64_t>() != 1)
    return (*error = Malformed(file, "\"version\" is not 1"), false);
  auto list = j.find("approvals");
  if (list == j.end() || !list->is_array())
    return (*error = Malformed(file, "no \"approvals\" array"), false);
  for (const nlohmann::json& e : *list) {
    Remembered r;
    std::pair<const char*, std::string*> fields[] = {
        {"id", &r.id},   {"kind", &r.kind},     {"workspace", &r.workspace},
        {"key", &r.key}, {"target", &r.target}, {"created", &r.created},
    };
    if (!e.is_object()) return (*error = Malformed(file, "an approval is not an object"), false);
    for (auto& [name, value] : fields) {
      auto f = e.find(name);
      if (f == e.end() || !f->is_string()) {
        *error = Malformed(file, std::string("an approval has no string \"") + name + "\"");
        return false;
      }
      *value = f->get<std::string>();
    }
    out->push_back(std::move(r));
  }
  return true;
}

std::string Serialize(const std::vector<Remembered>& list) {
  std::string out = "{\"version\":1,\"approvals\":[\n";
  for (size_t i = 0; i < list.size(); ++i) {
    const Remembered& r = list[i];
    util::JsonWriter w(&out);
    w.BeginObject();
    w.Key("id");
    w.String(r.id);
    w.Key("kind");
    w.String(r.kind);
    w.Key("workspace");
    w.String(r.workspace);
    w.Key("key");
    w.String(r.key);
    w.Key("target");
    w.String(r.target);
    w.Key("created");
    w.String(r.created);
    w.EndObject();
    out += i + 1 < list.size() ? ",\n" : "\n";
  }
  out += "]}\n";
  return out;
}

// A temporary file beside the target, removed unless it was renamed into place.
struct TempFile {
  std::string path;
  bool renamed = false;
  ~TempFile() {
    if (!path.empty() && !renamed) unlink(path.c_str());
  }
};

bool WriteList(const std::string& file, const std::vector<Remembered>& list, std::string* error) {
  std::string text = Serialize(list);
  TempFile tmp;
  std::string name = file + ".XXXXXX";
  util::UniqueFd fd(mkostemp(name.data(), O_CLOEXEC));  // 0600
  if (!fd.valid()) {
    *error = Errno("cannot create a temporary file beside " + file);
    return false;
  }
  tmp.path = name;
  for (size_t done = 0; done < text.size();) {
    ssize_t n = write(fd.get(), text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      *error = Errno("cannot write " + name);
      return false;
    }
    done += static_cast<size_t>(n);
  }
  // On disk before it takes the old file's place: a crash leaves the old list or the new one.
  if (fsync(fd.get()) != 0) {
    *error = Errno("cannot sync " + name);
    return false;
  }
  if (close(fd.Release()) != 0) {
    *error = Errno("cannot close " + name);
    return false;
  }
  if (rename(name.c_str(), file.c_str()) != 0) {
    *error = Errno("cannot replace " + file);
    return false;
  }
  tmp.renamed = true;
  util::UniqueFd dir(open(DirOf(file).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir.valid() || fsync(dir.get()) != 0) {
    *error = Errno("cannot sync the folder of " + file);
    return false;
  }
  return true;
}

// Held while a writer reads, changes and replaces the list.
bool Lock(const std::string& file, util::UniqueFd* lock, std::string* error) {
  std::string path = DirOf(file) + "/approvals.lock";
  lock->Reset(open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!lock->valid()) {
    *error = Errno("cannot open the lock file " + path);
    return false;
  }
  while (flock(lock->get(), LOCK_EX) != 0) {
    if (errno != EINTR) {
      *error = Errno("cannot lock " + path);
      return false;
    }
  }
  return true;
}

}  // namespace

std::string DefaultApprovalsFile() {
  std::string state = util::StateDir();
  return state.empty() ? "" : state + "/approvals.json";
}

bool LoadApprovals(const std::string& file, std::vector<Remembered>* out, std::string* error) {
  return CheckFile(file, error) && ReadList(file, out, error);
}

std::optional<Remembered> FindApproval(const std::vector<Remembered>& list, std::string_view kind,
                                       std::string_view workspace, std::string_view key) {
  for (const Remembered& r : list) {
    if (r.kind == kind && r.workspace == workspace && r.key == key) return r;
  }
  return std::nullopt;
}

bool RememberApproval(const std::string& file, Remembered* approval, std::string* error) {
  util::UniqueFd lock;
  std::vector<Remembered> list;
  if (!CheckFile(file, error) || !Lock(file, &lock, error) || !ReadList(file, &list, error))
    return false;
  if (std::optional<Remembered> had =
          FindApproval(list, approval->kind, approval->workspace, approval->key)) {
    *approval = *had;
    return true;
  }
  do {
    approval->id = util::RandomHex(6);
  } while (std::any_of(list.begin(), list.end(),
                       [&](const Remembered& r) { return r.id == approval->id; }));
  approval->created = util::FormatUtc(util::NowUnixMs());
  list.push_back(*approval);
  return WriteList(file, list, error);
}

bool RevokeApprovals(const std::string& file, const std::vector<std::string>& ids, bool all,
                     std::vector<Remembered>* removed, std::string* error) {
  removed->clear();
  util::UniqueFd lock;
  std::vector<Remembered> list, kept;
  if (!CheckFile(file, error) || !Lock(file, &lock, error)) return false;
  if (!ReadList(file, &list, error)) {
    // A broken file can still be replaced by an empty one: that is how to start again.
    if (!all) return false;
    list.clear();
  }
  for (Remembered& r : list) {
    if (all || std::find(ids.begin(), ids.end(), r.id) != ids.end()) {
      removed->push_back(std::move(r));
    } else {
      kept.push_back(std::move(r));
    }
  }
  if (removed->empty() && !all) return true;
  return WriteList(file, kept, error);
}

}  // namespace safesh::approval
