// Reading whole files, with errors as values.
#pragma once

#include <string>
#include <string_view>

namespace safesh::util {

// Reads the file at `path` into `*text`: a regular file, or a pipe until its writer closes it
// (so `/dev/stdin` works when input is piped). On failure returns false and sets `*error` to
// what went wrong ("PATH: No such file or directory", "PATH: is a directory", ...).
bool ReadWholeFile(const std::string& path, std::string* text, std::string* error);

// The first line of the file at `path` (without its newline); empty when it cannot be read.
// For one-line kernel files such as /proc/sys/kernel/random/boot_id.
std::string ReadFirstLine(const std::string& path);

// Reads `fd` to its end into `*text`. `name` is used in the error message.
bool ReadToEnd(int fd, const std::string& name, std::string* text, std::string* error);

// Writes all of `data` to `fd`, going on after short writes and EINTR. False when a write
// failed (errno says why).
bool WriteAll(int fd, std::string_view data);

// `path` with every link resolved (realpath(3)); empty when it does not exist.
std::string RealPath(const std::string& path);

// Opens `path` (absolute, normalised: no "." or ".." components) with O_PATH, walking it one
// component at a time from / and refusing any link on the way, the last component included:
// what it returns is what lies at exactly that path now. -1 with errno (ELOOP for a link) when
// it cannot. For mount sources and Landlock rules, which must be the thing that was checked,
// not what a link swapped in since points to.
int OpenNoLinks(const std::string& path);

// Whether `path` is `dir` or lies below it (both absolute and normalised; "/" holds everything).
bool IsPathInside(const std::string& path, const std::string& dir);

// Removes `name` in the folder `parent_fd` and, when it is a folder, everything in it, never
// following a link: each folder is opened without following one, relative to its parent's
// descriptor, and given owner rights (0700) through that descriptor so that what a command left
// unreadable can go. A tree that another process changes meanwhile cannot make it act outside
// the tree. At most `max_depth` levels are entered; what lies deeper is left. True when nothing
// is left.
bool RemoveTreeNoLinks(int parent_fd, const std::string& name, int max_depth = 256);

}  // namespace safesh::util
