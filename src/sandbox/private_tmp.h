// The sandbox's own temporary folders. The host's /tmp, /var/tmp and /dev/shm are shared with
// every user and program: other programs keep their sockets there, a setuid file left there by
// a root command is another user's way to root, and what a command leaves there outlives it
// unseen. So the sandbox never sees them. In their place:
//
//   /tmp and /var/tmp  host folders under safesh's private state folder (0700, so invisible to
//                      other users), one pair per workspace: a background server and the later
//                      commands of the same workspace share files, as they would in /tmp, while
//                      other workspaces see none of them. On disk, like /var/tmp; folders not
//                      used for 30 days are removed.
//   /dev/shm           a tmpfs of its own for each command, sized (SandboxSpec::shm_bytes).
//
// Without a state folder (no HOME), /tmp and /var/tmp are a fresh tmpfs for the one command.
#pragma once

#include <string>

namespace safesh::sandbox {

struct PrivateTemp {
  std::string tmp;      // bound at /tmp
  std::string var_tmp;  // bound at /var/tmp
};

// Makes (or finds) the pair for `workspace` (a real path) under `state_dir`/tmp, each folder
// 1777 inside a 0700 folder of this user's. False with a message when they cannot be made or
// are not this user's private folders (util::MakePrivateDir's checks).
bool MakePrivateTemp(const std::string& state_dir, const std::string& workspace, PrivateTemp* out,
                     std::string* error);

// Removes the pairs under `state_dir`/tmp not used for `max_age_seconds`. Best effort.
void RemoveOldPrivateTemps(const std::string& state_dir, int64_t max_age_seconds);

}  // namespace safesh::sandbox
