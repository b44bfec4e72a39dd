// The output spool: every byte a command prints, kept whole in a private file, and the capped
// view of it that a result carries.
//
// Layout: <state>/safesh/spool/run-XXXXXX/output, the directories 0700 and the file 0600, where
// <state> is $XDG_STATE_HOME or ~/.local/state. The spool lives on disk rather than in the
// runtime directory (a RAM-backed tmpfs), because a command may print gigabytes.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "util/unique_fd.h"

namespace safesh::exec {

// When a new run starts, run directories older than this are removed, and then the oldest
// ones while all of them together hold more than kSpoolMaxTotalBytes.
inline constexpr int64_t kSpoolMaxAgeSeconds = 24 * 60 * 60;
inline constexpr int64_t kSpoolMaxTotalBytes = int64_t{4} << 30;
// The most one command's spool keeps. A command that prints more (`yes`, `cat /dev/urandom`)
// is not allowed to fill the disk: the rest is read and dropped, and its last bytes are kept in
// memory for the view.
inline constexpr uint64_t kSpoolMaxRunBytes = uint64_t{2} << 30;

// The default spool base directory: $XDG_STATE_HOME/safesh/spool or $HOME/.local/state/...;
// empty when neither is known.
std::string DefaultSpoolBase();

struct Spool {
  std::string base;   // the spool base directory
  std::string dir;    // the run directory, once the spool has a name
  std::string path;   // dir + "/output", once the spool has a name
  util::UniqueFd fd;  // open for reading and writing
};

// Checks the base (0700, owned by this user, not a symbolic link; missing parts are created, an
// existing one with other permissions is refused) and opens the spool in it: an unnamed file
// (O_TMPFILE), which vanishes with its descriptor, so a short output leaves nothing on disk, even
// if safesh is killed. Where the file system cannot make unnamed files the spool is named at
// once. False with a message on error.
bool CreateSpool(const std::string& base, Spool* spool, std::string* error);

// Gives the spool its name, run-XXXXXX/output under the base, so that the whole output can be
// read after safesh returns. Old run directories are cleaned first.
bool KeepSpool(Spool* spool, std::string* error);

// Removes a spool: its run directory when it has a name; an unnamed one just closes.
void RemoveSpool(Spool* spool);

// Removes run directories under `base` last modified more than `max_age_seconds` ago, then the
// oldest while the outputs kept add up to more than `max_total_bytes`, without following
// symbolic links. Returns how many were removed.
int CleanOldSpools(const std::string& base, int64_t max_age_seconds, int64_t max_total_bytes);

// The capped view of a spooled output of `size` bytes.
struct OutputView {
  std::string text;
  bool truncated = false;
};

// Reads the view of an output of `size` bytes, of which the spool `fd` holds the first `kept`
// and `unkept` (in memory) holds the last ones that the spool does not (at most the last
// `limit` of them): the whole output when it fits in `limit` bytes; otherwise its head and its
// tail with a one-line notice between them naming how many bytes were left out and `path`.
// Never longer than `limit`, never splits a UTF-8 sequence. False on a read error.
bool ReadView(int fd, uint64_t size, uint64_t kept, const std::string& unkept, uint64_t limit,
              const std::string& path, OutputView* view, std::string* error);

}  // namespace safesh::exec
