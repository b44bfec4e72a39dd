// The project settings files a person has accepted (`safesh trust`), each pinned to the SHA-256
// of the exact content they reviewed. A file whose content changes is untrusted again, and its
// settings may only tighten (config/project_rules.h) until it is trusted anew.
//
// The list lives in the person's state folder: $XDG_STATE_HOME/safesh/trust.json, else
// ~/.local/state/safesh/trust.json. Sandboxed commands cannot see or change it (the default
// blocked paths of sandbox/spec.h): a command must never be able to trust a file for the
// person. The file is 0600 in a 0700 folder of this user's; a store that another user could
// change is refused, not repaired. It is replaced atomically (a temporary file, synced, then
// renamed over it) under an flock of its folder, so a crash leaves the old or the new list, and
// two `safesh trust` at once do not lose one's change.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace safesh::config {

struct TrustedFile {
  std::string path;        // the project file (config/layers.h, ProjectTrustKey)
  std::string sha256;      // of the content trusted (64 lowercase hex digits)
  std::string trusted_at;  // when, UTC, "2025-01-31T12:00:00Z"
};

struct TrustStore {
  std::vector<TrustedFile> files;
};

// Where the store is: under `xdg_state_home` when it is an absolute path, else under `home`.
// Empty when neither is usable.
std::string TrustStorePath(const std::string& home, const std::string& xdg_state_home);

// Reads the store; a missing file is an empty store. A store that is not a regular file of this
// user's, can be changed by others, or is not the JSON safesh writes is an error (naming the
// file and what to do), so that no one relies on a list that may have been forged.
std::optional<TrustStore> LoadTrustStore(const std::string& path, std::string* error);

// Under the lock: loads the store, lets `change` edit it, writes it back. Creates the folders
// (0700) as needed.
bool UpdateTrustStore(const std::string& path, const std::function<void(TrustStore*)>& change,
                      std::string* error);

// The entry for the project file named `key` (config/layers.h, ProjectTrustKey), or null.
const TrustedFile* FindTrusted(const TrustStore& store, const std::string& key);

// The current time as TrustedFile::trusted_at writes it.
std::string UtcNow();

}  // namespace safesh::config
