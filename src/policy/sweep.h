// SH-14a: a recursive search of the whole disk or of the home folder is refused, whatever the
// rules say. Agents run `find / -name tool` to look for programs; on a real machine that reads
// every private folder and can take minutes. `command -v NAME` answers the same question.
#pragma once

#include <optional>
#include <string>

#include "policy/extract.h"

namespace safesh::policy {

// If `use` searches the disk or the home folder recursively, says which root, e.g. "/" or
// "$HOME". `home` is the user's home folder path (it counts as the home folder too).
std::optional<std::string> DiskSweepRoot(const CommandUse& use, const std::string& home);

// The guidance given with a refused sweep.
std::string DiskSweepReason(const CommandUse& use, const std::string& root);

}  // namespace safesh::policy
