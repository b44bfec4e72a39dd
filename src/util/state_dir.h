// The user's private state folder: $XDG_STATE_HOME/safesh, or ~/.local/state/safesh.
//
// It holds what safesh remembers between runs (approvals, the audit log, the output spool), so
// it must be this user's alone: a folder another user could enter or replace would let them
// read the audit trail or plant approvals. Folders are made 0700 and checked, never repaired:
// a shared or linked one is refused with what to do.
#pragma once

#include <string>

namespace safesh::util {

// $XDG_STATE_HOME/safesh when XDG_STATE_HOME is absolute, else $HOME/.local/state/safesh;
// empty when neither is known.
std::string StateDir();

// Makes `path` (absolute) a directory only this user can enter, or checks that it already is
// one: the parents are created like `mkdir -p` (0700), then `path` itself must be a directory
// (not a symbolic link), owned by this user, with no permissions for group or others.
// False with a message saying what is wrong and what to do.
bool MakePrivateDir(const std::string& path, std::string* error);

// Checks that `fd` (open on the file `what` names, e.g. "the audit log /x/y") is a regular file
// of this user that no one else may read or write. False with what is wrong and what to do.
bool CheckPrivateFile(int fd, const std::string& what, std::string* error);

}  // namespace safesh::util
