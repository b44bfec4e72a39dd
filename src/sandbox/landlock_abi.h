// The Landlock kernel interface safesh uses, in one header that needs no library: both the
// ruleset builder (landlock.cc) and the in-sandbox launcher (src/launcher/safesh_confine.cc, a
// small program with no dependencies) include it, so the rights they grant cannot drift apart.
//
// Debian 12's headers stop at ABI 2: the later rights and the ruleset attribute's later fields
// are defined here, and used only when the running kernel's ABI has them.
#pragma once

#include <linux/landlock.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>

namespace safesh::sandbox::landlock_abi {

constexpr uint64_t kTruncate = 1ULL << 14;   // ABI 3
constexpr uint64_t kIoctlDev = 1ULL << 15;   // ABI 5
constexpr uint64_t kNetBindTcp = 1ULL << 0;  // ABI 4
constexpr uint64_t kNetConnectTcp = 1ULL << 1;
constexpr uint64_t kScopeAbstractUnix = 1ULL << 0;  // ABI 6
constexpr uint64_t kScopeSignal = 1ULL << 1;

struct RulesetAttr {
  uint64_t handled_access_fs;
  uint64_t handled_access_net;  // ABI 4
  uint64_t scoped;              // ABI 6
};

constexpr uint64_t kRead =
    LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;

// The kernel's ABI version; 0 or less when it has no Landlock (errno says why).
inline int Version() {
  return static_cast<int>(
      syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION));
}

// Every file-system right the ABI knows: all of them are handled, so none is left unchecked.
inline uint64_t AllFs(int abi) {
  uint64_t all = kRead | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |
                 LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |
                 LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
                 LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |
                 LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM;
  if (abi >= 2) all |= LANDLOCK_ACCESS_FS_REFER;
  if (abi >= 3) all |= kTruncate;
  if (abi >= 5) all |= kIoctlDev;
  return all;
}

// A writable tree: everything but making device nodes (with one, root could open a disk).
inline uint64_t WritableTree(int abi) {
  return AllFs(abi) & ~(LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_BLOCK);
}

// A harmless device (/dev/null, a terminal): read, write, truncate, its ioctls.
inline uint64_t DeviceFile(int abi) {
  return LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE | (abi >= 3 ? kTruncate : 0) |
         (abi >= 5 ? kIoctlDev : 0);
}

}  // namespace safesh::sandbox::landlock_abi
