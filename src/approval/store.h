// Remembered approvals: the "always" answers a person gave, so that the same command in the same
// workspace is not asked about again (SH-02).
//
// An approval is narrow on purpose: its key is the exact text of the command (byte for byte)
// and the workspace's real path; a command that differs by one byte, or the same command in
// another workspace, is asked about again. It only ever answers an ask: the policy's deny is
// never overridden.
//
// The file, <state>/safesh/approvals.json (0600, in the 0700 state folder):
//   {"version":1,"approvals":[
//   {"id":"3f9a1c2b7d4e","kind":"run_command","workspace":"/home/me/proj","key":"npm test",
//    "target":"npm test","created":"2026-11-30T01:56:28.123Z"}
//   ]}
// It is replaced whole (a temporary file, fsync, rename), so a reader sees the old list or the
// new one, never half of one, and needs no lock. Writers take an exclusive flock on
// approvals.lock beside it and read the list again under that lock, so two safesh processes
// adding or revoking at once do not lose each other's changes. A file that cannot be read, is
// malformed, or is open to other users is an error: no approval is taken from it and it is not
// overwritten (only `RevokeApprovals(..., all)` replaces it).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace safesh::approval {

inline constexpr char kRunCommand[] = "run_command";

struct Remembered {
  std::string id;         // 12 hex digits, what `safesh approvals revoke` takes
  std::string kind;       // kRunCommand
  std::string workspace;  // the workspace's real path
  std::string key;        // what must match exactly: the command text
  std::string target;     // what was approved, for people: the command
  std::string created;    // UTC, ISO 8601
};

// <state>/safesh/approvals.json (util/state_dir.h); empty when there is no state folder.
std::string DefaultApprovalsFile();

// Every remembered approval in `file`; none when it does not exist. False with `*error` when it
// cannot be read, is not this user's private regular file, or is not in the format above.
bool LoadApprovals(const std::string& file, std::vector<Remembered>* out, std::string* error);

// The approval in `list` for exactly this kind, workspace and key, if there is one.
std::optional<Remembered> FindApproval(const std::vector<Remembered>& list, std::string_view kind,
                                       std::string_view workspace, std::string_view key);

// Remembers `approval` (its kind, workspace, key and target), giving it an id and a time; when
// the same kind, workspace and key is already remembered, `*approval` becomes that one and the
// file is not changed. False with `*error` when the file cannot be read or written.
bool RememberApproval(const std::string& file, Remembered* approval, std::string* error);

// Removes the approvals whose id is in `ids` (every one when `all`), and returns those removed
// in `*removed`. Ids that name nothing are not an error here: the caller compares.
bool RevokeApprovals(const std::string& file, const std::vector<std::string>& ids, bool all,
                     std::vector<Remembered>* removed, std::string* error);

}  // namespace safesh::approval
