// Host UNIX sockets: the listening sockets of programs outside the sandbox (tmux, screen, the
// user's D-Bus and systemd managers, docker, ssh-agent, X11) that a sandboxed command could
// otherwise connect to and ask to run something for it.
//
// By default the sandbox needs none of this: seccomp refuses socket(AF_UNIX) (seccomp.h), so no
// socket is reachable whatever its path. This search is the fallback for a person who names
// sockets in [sandbox] allow_unix_sockets, which lets commands make AF_UNIX sockets: every other
// socket found is then masked. It is only as good as the places it looks in and its limit, and
// the result says when it stopped short.
//
// A read-only mount does not stop connect(2): the kernel refuses writes to regular files,
// directories and links on a read-only file system, not to sockets. Landlock (up to ABI 7) does
// not cover connecting to a socket by path either. So the sandbox masks each socket it finds
// with /dev/null (connect then fails with "Connection refused") in the places where such
// sockets live. Abstract sockets have no path: the network namespace separates them, and
// Landlock's scope (ABI 6) when the network is allowed.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace safesh::sandbox {

struct SocketScan {
  std::vector<std::string> sockets;  // absolute paths, sorted
  // The walk stopped at its entry limit: sockets deeper or later were not found.
  bool truncated = false;
  size_t folders_listed = 0;  // folders read this time; the others' last listing was reused
};

// Where host sockets are looked for: /run (every depth, as /var/run is usually a link to it),
// $TMPDIR two levels down when it is not in the host's temporary folders (the sandbox has its
// own /tmp, /var/tmp and /dev/shm, so the host's are out of sight), and the
// places in `home` where container engines and agents keep theirs (~/.docker, ~/.colima, ~/.lima,
// ~/.orbstack, ~/.rd, ~/.1password, ~/.local/share/containers).
struct SocketPlace {
  std::string path;
  int max_depth;  // 1: only the entries of `path` itself
};
std::vector<SocketPlace> HostSocketPlaces(const std::string& home);

// Every UNIX socket under `places` (never following links), except those named in `allowed`
// (a socket path, or a directory whose sockets stay reachable). At most `max_entries` entries are
// read in all, so that a huge /tmp cannot make every command slow.
SocketScan FindHostSockets(const std::vector<SocketPlace>& places,
                           const std::vector<std::string>& allowed, size_t max_entries = 20000);

// What FindHostSocketsCached remembers between searches: each folder's last listing, per set of
// places. Owned by the host that runs the commands (SandboxCaches in caches.h), so that two
// hosts in one process (two sessions, a test beside them) keep their own. Its searches are made
// one at a time: a search updates what it read.
struct SocketListings;  // host_sockets.cc
struct HostSocketMemory {
  std::mutex mu;
  std::map<std::string, std::shared_ptr<SocketListings>> by_places;
};

// FindHostSockets with a cache, folder by folder: each folder's listing (its sockets and
// subfolders) with its one stat (device, inode, mtime and ctime to the nanosecond; a socket
// made, removed or renamed changes its folder's). A folder whose stat is unchanged is not read
// again, only its subfolders are looked at; one that changed is listed again, and so is one
// that had changed within 2 s of being listed (file systems keep coarse times). So a busy /tmp
// costs one listing of /tmp and a stat per subfolder, not a walk of everything. Kept in `memory`
// (null: none) and in `cache_file` (safesh's private state folder; empty: none) between runs of
// the CLI; a file that is not this user's private regular file, or is damaged, or was made for
// other places, is ignored. A search that stopped at its limit is never reused.
SocketScan FindHostSocketsCached(HostSocketMemory* memory, const std::vector<SocketPlace>& places,
                                 const std::vector<std::string>& allowed,
                                 const std::string& cache_file, size_t max_entries = 20000);

}  // namespace safesh::sandbox
