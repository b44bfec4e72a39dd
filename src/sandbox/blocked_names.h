// Blocked names: file name patterns (`.env`, `*.pem`, `id_rsa`) that are hidden from sandboxed
// commands wherever they appear in the roots. bubblewrap masks paths, not patterns, so the roots
// are scanned for them before each command (blocked_scan.h); this file says what a name pattern
// is, which entries of `[sandbox] blocked_paths` are one, and how a name is matched.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace safesh::sandbox {

// The name patterns every sandbox hides (keys, certificates, credential files), in order. An
// entry starting with `!` is an exception: templates such as `.env.example` are meant to be read.
const std::vector<std::string>& DefaultBlockedNames();

// What a `[sandbox] blocked_paths` entry is:
//   kName  no `/` and no leading `~`: a name pattern, matched in every directory scanned;
//   kGlob  a path (with `/`, or `~/...`) holding `*`, `?` or `[`: expanded with glob(3);
//   kPath  any other path: hidden as written (the behaviour before patterns existed).
enum class BlockedEntryKind { kName, kGlob, kPath };
BlockedEntryKind ClassifyBlockedEntry(std::string_view entry);

// Whether a `[sandbox] blocked_paths` entry is usable; false with why not. Refused: an empty
// entry, a NUL byte, a name pattern that matches every name (`*`) or is `.` or `..`, a leading
// `!` (exceptions are only for the built-in list, so that settings can only hide more), an
// unclosed `[` and a trailing `\`.
bool CheckBlockedEntry(std::string_view entry, std::string* why);

// Compiled name patterns. A name is blocked when the last pattern it matches is not an
// exception (`!pattern`), so later patterns (the settings') override earlier ones (the
// defaults). Matching is fnmatch(3) on the base name without FNM_PERIOD (`*.pem` matches
// `.x.pem`), and ASCII case-insensitive: pattern and name are compared in lower case, because
// keys copied from case-insensitive file systems keep their capitals (`ID_RSA`, `Server.PEM`),
// and hiding a few extra files costs less than showing one key.
class NameMatcher {
 public:
  explicit NameMatcher(const std::vector<std::string>& patterns);
  bool Matches(std::string_view name) const;

 private:
  struct Pattern {
    enum Kind { kExact, kSuffix, kPrefix, kGlob } kind;
    bool exception;
    std::string text;  // lower case; for kSuffix/kPrefix without the `*`
  };
  std::vector<Pattern> patterns_;
};

}  // namespace safesh::sandbox
