// Root's sandbox: when safesh runs as root, the command's root is an unprivileged uid on the host.
//
// Without this, uid 0 in the sandbox is uid 0 on the host: it keeps owner rights on every
// root-owned file (/etc/shadow is 0640 root:shadow, ssh host keys and /var/lib/* are 0600 root),
// whatever capabilities are dropped. So the command runs in a user namespace that maps its uids
// and gids 0-65535 to kRootMapFirstId... on the host, ids that should own nothing there. Host files
// are then reached as "other" reaches them, and capabilities (held only in that namespace) override
// nothing outside it.
//
// The workspace and the other writable binds must stay the command's own: each is bound through
// an idmapped mount (mount_setattr MOUNT_ATTR_IDMAP with the same namespace), so that a file
// owned by uid N on disk is uid N inside, and a file the command makes is owned by root on disk,
// as before. bubblewrap 0.8 binds a descriptor by resolving it to a path and walking that path,
// and cannot bind a mount that is not attached anywhere, so each idmapped mount is attached
// first, in the command's own mount namespace, under kRootMapStage (a tmpfs mounted there in
// that namespace only); the sandbox hides that folder again.
//
// A folder that "other" may not enter (/root, a 0700 home) on the way to a bound path would stop
// the command (and bubblewrap) from reaching it: it is replaced by an empty read-only tmpfs that
// holds only the paths bound inside it (SandboxSpec::closed_dirs). Nothing else of it is seen,
// as an unprivileged user sees nothing of it.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "util/unique_fd.h"

namespace safesh::sandbox {

// The host ids the sandbox's 0-65535 map to: the first 64 Ki block of 1879048192-2147352575,
// which systemd leaves unused (above the range it hands to containers, 524288-1879048191, which
// systemd-nspawn --private-users=pick may give out, and below its "foreign" range): no login
// user, system service or container should own files there. One that does is the sandbox
// root's own.
constexpr uint32_t kRootMapFirstId = 1879048192u;
constexpr uint32_t kRootMapCount = 65536u;

// Where the idmapped mounts are attached, in the command's mount namespace only. A folder every
// uid may enter (bubblewrap walks to it as the mapped root), made by root in root's /run.
constexpr const char* kRootMapStage = "/run/safesh";

// Whether commands started by this process get the mapped root: it runs as root and `keep_owner`
// ([sandbox] root_keeps_owner_rights) is off.
bool WantsRootMap(bool keep_owner);

// The user namespace that maps 0-65535 to kRootMapFirstId..., made once per process (a helper
// child unshares it; this process, root, writes its maps) and kept while the process lives.
// Returns a new descriptor of it, or false with what failed.
bool RootMapNamespace(util::UniqueFd* out, std::string* error);

// An idmapped copy (detached, not yet attached anywhere) of the mount at `source_fd` (an O_PATH
// descriptor, as OpenBindSources opens it), with every mount below it. False with a message
// naming `what` when the file system cannot be idmapped (NFS, most FUSE file systems).
bool IdmapTree(int source_fd, int userns_fd, const std::string& what, util::UniqueFd* out,
               std::string* error);

// Makes kRootMapStage (0755, root's) if it is missing, and checks that it is a folder of root's
// that no one else may change. False with a message otherwise.
bool PrepareRootMapStage(std::string* error);

// The outermost folder on the way to `path` (absolute, real; path itself not included) that
// "other" may not enter, outside the `mapped` roots (which the command owns); empty if none.
// What lies behind one is out of the mapped root's reach: it needs no mask.
std::string FirstClosedAncestor(const std::string& path, const std::vector<std::string>& mapped);

// The folders that "other" may not enter on the way to `dests` (absolute, real), outermost only:
// those the sandbox replaces with a read-only tmpfs. A folder inside one of `mapped` (the roots
// bound through an idmapped mount, which the command owns) is open to it and never listed.
std::vector<std::string> ClosedAncestors(const std::vector<std::string>& dests,
                                         const std::vector<std::string>& mapped);

}  // namespace safesh::sandbox
