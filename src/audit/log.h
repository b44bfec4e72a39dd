// Log: the audit log, an append-only record of every request, verdict, approval and run.
//
// Layout: <state>/safesh/audit/YYYY-MM-DD.jsonl (the UTC day of the record), the folders 0700
// and the files 0600, one JSON object per line (audit/record.h).
//
// Why a crash loses at most one record, and writers never interleave: each record is one
// write(2) of a whole line to a descriptor opened with O_APPEND. For a regular file on a local
// file system Linux does the append as one step under the file's lock, so records of
// concurrent writers (threads or processes) land whole, one after the other; a writer killed
// in the middle of its write leaves at most that one line torn. A torn line has no newline: a
// writer that opens the file looks at its last byte and, when it is not a newline, starts its
// first record with one. A record appended by a writer that opened the file earlier can still
// land right after a torn one, on the same line; the reader finds it there, since every record
// starts with the same bytes (audit/record.h, audit/read.h). Writers take no lock: none can
// stop another, or safesh, from recording.
#pragma once

#include <mutex>
#include <string>

#include "audit/record.h"
#include "util/unique_fd.h"

namespace safesh::audit {

// <state>/safesh/audit (util/state_dir.h); empty when there is no state folder.
std::string DefaultAuditDir();

class Log {
 public:
  // Records go to files in `dir` (absolute; created 0700 with its parents on the first append).
  explicit Log(std::string dir) : dir_(std::move(dir)) {}

  // Appends the record to the file of its day. False with `*error` when it was not written
  // whole: the folder or file cannot be made or is not private, or the write failed or was
  // short (a full disk). Safe to call from several threads.
  bool Append(const Record& record, std::string* error);

  const std::string& dir() const { return dir_; }

 private:
  bool Open(const std::string& day, std::string* error);

  std::string dir_;
  std::mutex mu_;
  std::string day_;  // the day whose file fd_ is
  util::UniqueFd fd_;
  bool torn_ = false;  // the file ended in a torn line when it was opened
};

}  // namespace safesh::audit
