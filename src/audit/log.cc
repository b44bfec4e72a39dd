#include "audit/log.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>

#include "util/state_dir.h"
#include "util/utc_time.h"

namespace safesh::audit {

std::string DefaultAuditDir() {
  std::string state = util::StateDir();
  return state.empty() ? "" : state + "/audit";
}

bool Log::Open(const std::string& day, std::string* error) {
  fd_.Reset();
  day_.clear();
  if (dir_.empty() || dir_[0] != '/') {
    *error = "no place for the audit log: set HOME or XDG_STATE_HOME to an absolute path";
    return false;
  }
  // The state folder and the audit folder are both private: the log holds every command run.
  std::string parent = dir_.substr(0, dir_.rfind('/'));
  if (!parent.empty() && !util::MakePrivateDir(parent, error)) return false;
  if (!util::MakePrivateDir(dir_, error)) return false;
  std::string path = dir_ + "/" + day + ".jsonl";
  // Read and write: the last byte is read when it is opened (see log.h).
  util::UniqueFd fd(open(path.c_str(), O_RDWR | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd.valid()) {
    *error = "cannot open the audit log " + path + ": " + strerror(errno);
    return false;
  }
  if (!util::CheckPrivateFile(fd.get(), "the audit log " + path, error)) return false;
  struct stat st;
  if (fstat(fd.get(), &st) != 0) {
    *error = "cannot inspect the audit log " + path + ": " + strerror(errno);
    return false;
  }
  // A file that does not end in a newline ends in a torn record (a writer killed in the middle
  // of its write, or a full disk): the next record starts on a line of its own.
  char last = '\n';
  if (st.st_size > 0 && pread(fd.get(), &last, 1, st.st_size - 1) != 1) {
    *error = "cannot read the end of the audit log " + path + ": " + strerror(errno);
    return false;
  }
  torn_ = last != '\n';
  fd_ = std::move(fd);
  day_ = day;
  return true;
}

bool Log::Append(const Record& record, std::string* error) {
  std::string line = record.Line();
  std::string day = util::UtcDay(record.unix_ms());
  std::lock_guard<std::mutex> lock(mu_);
  if ((!fd_.valid() || day != day_) && !Open(day, error)) return false;
  if (torn_) {
    line.insert(line.begin(), '\n');
    torn_ = false;
  }
  for (;;) {
    ssize_t n = write(fd_.get(), line.data(), line.size());
    if (n < 0 && errno == EINTR) continue;  // nothing was written: try again
    if (n < 0) {
      *error = "cannot write the audit log " + dir_ + "/" + day_ + ".jsonl: " + strerror(errno);
      return false;
    }
    if (static_cast<size_t>(n) != line.size()) {
      torn_ = true;  // this process's next record must not join the torn line
      *error = "the audit log " + dir_ + "/" + day_ + ".jsonl took only " + std::to_string(n) +
               " of " + std::to_string(line.size()) + " bytes of a record (is the disk full?)";
      return false;
    }
    return true;
  }
}

}  // namespace safesh::audit
