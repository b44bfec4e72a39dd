// The blocked-name scan's cache on disk (declared in blocked_scan.h).
//
// Binary, in this machine's byte order (the file never leaves it): a magic word and version,
// the key (roots, patterns, limits), the directories in walk order, and an FNV-1a checksum of
// all that. Every count, offset and path is checked when read back: a damaged file is refused
// whole, never half used.
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <string_view>

#include "sandbox/blocked_scan.h"
#include "util/unique_fd.h"

namespace safesh::sandbox {
namespace {

constexpr char kMagic[8] = {'S', 'F', 'S', 'H', 'B', 'S', 'C', 'N'};
constexpr uint32_t kVersion = 2;  // 2: ScanItem::repo
// Far more than a cache within the default limits needs (a few hundred KiB).
constexpr int64_t kMaxFileBytes = int64_t{256} << 20;

uint64_t Fnv1a(std::string_view bytes, uint64_t h = 0xcbf29ce484222325ULL) {
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

template <typename T>
void Put(std::string* out, T v) {
  out->append(reinterpret_cast<const char*>(&v), sizeof v);
}

void PutString(std::string* out, std::string_view s) {
  Put<uint32_t>(out, static_cast<uint32_t>(s.size()));
  out->append(s);
}

void PutKey(std::string* out, const std::vector<std::string>& roots,
            const std::vector<std::string>& patterns, const ScanLimits& limits) {
  Put<uint32_t>(out, static_cast<uint32_t>(roots.size()));
  for (const std::string& r : roots)
    PutString(out, r);
  Put<uint32_t>(out, static_cast<uint32_t>(patterns.size()));
  for (const std::string& p : patterns)
    PutString(out, p);
  Put<uint64_t>(out, limits.max_entries);
  Put<int64_t>(out, limits.max_depth);
}

// Reads what Put wrote; any read past the end makes `ok` false for good.
struct Reader {
  std::string_view data;
  size_t pos = 0;
  bool ok = true;

  template <typename T>
  T Get() {
    T v{};
    if (!ok || data.size() - pos < sizeof v) {
      ok = false;
      return v;
    }
    memcpy(&v, data.data() + pos, sizeof v);
    pos += sizeof v;
    return v;
  }
  std::string GetString() {
    uint32_t n = Get<uint32_t>();
    if (!ok || data.size() - pos < n) {
      ok = false;
      return "";
    }
    std::string s(data.substr(pos, n));
    pos += n;
    return s;
  }
};

bool IsName(std::string_view n) {
  return !n.empty() && n != "." && n != ".." && n.find('/') == std::string_view::npos &&
         n.find('\0') == std::string_view::npos;
}

// A relative path of `depth` names, each a real name ("" for depth 0).
bool IsRelativePath(std::string_view p, uint32_t depth) {
  if (p.empty()) return depth == 0;
  uint32_t names = 0;
  size_t start = 0;
  while (start <= p.size()) {
    size_t end = p.find('/', start);
    if (end == std::string_view::npos) end = p.size();
    if (!IsName(p.substr(start, end - start))) return false;
    ++names;
    start = end + 1;
  }
  return names == depth;
}

bool Refuse(BlockedScan* scan, std::string* why, const std::string& what) {
  *scan = BlockedScan();
  *why = what;
  return false;
}

}  // namespace

std::string BlockedScanFileName(const std::vector<std::string>& roots,
                                const std::vector<std::string>& patterns,
                                const ScanLimits& limits) {
  std::string key;
  PutKey(&key, roots, patterns, limits);
  char hex[17];
  snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(Fnv1a(key)));
  return std::string("blocked-scan-") + hex;
}

bool SaveBlockedScan(const BlockedScan& scan, const std::string& path, std::string* error) {
  std::string out(kMagic, sizeof kMagic);
  Put<uint32_t>(&out, kVersion);
  PutKey(&out, scan.roots, scan.patterns, scan.limits);
  Put<uint32_t>(&out, static_cast<uint32_t>(scan.dirs.size()));
  for (const ScanDir& d : scan.dirs) {
    Put<uint32_t>(&out, d.root);
    Put<uint32_t>(&out, d.depth);
    PutString(&out, d.path);
    Put<uint64_t>(&out, d.key.dev);
    Put<uint64_t>(&out, d.key.ino);
    Put<int64_t>(&out, d.key.size);
    Put<int64_t>(&out, d.key.mtime_ns);
    Put<int64_t>(&out, d.key.ctime_ns);
    Put<uint8_t>(&out, d.state);
    Put<uint8_t>(&out, d.racy);
    Put<uint32_t>(&out, d.entries);
    PutString(&out, d.names);
    Put<uint32_t>(&out, static_cast<uint32_t>(d.items.size()));
    for (const ScanItem& i : d.items) {
      Put<uint32_t>(&out, i.index);
      Put<uint32_t>(&out, i.name_offset);
      Put<uint32_t>(&out, i.name_size);
      Put<uint8_t>(&out, i.kind);
      Put<uint8_t>(&out, i.matched);
      Put<uint8_t>(&out, i.descend);
      Put<uint8_t>(&out, i.repo);
    }
  }
  Put<uint64_t>(&out, Fnv1a(out));

  // A new file beside the old one, then renamed over it: a reader sees one or the other.
  std::string tmp = path + ".tmp" + std::to_string(getpid());
  unlink(tmp.c_str());  // left by a safesh of the same pid that was killed while writing
  util::UniqueFd fd(open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd.valid()) {
    *error = tmp + ": " + strerror(errno);
    return false;
  }
  size_t done = 0;
  while (done < out.size()) {
    ssize_t n = write(fd.get(), out.data() + done, out.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      *error = tmp + ": " + (n < 0 ? strerror(errno) : "nothing written");
      unlink(tmp.c_str());
      return false;
    }
    done += static_cast<size_t>(n);
  }
  if (close(fd.Release()) != 0 || rename(tmp.c_str(), path.c_str()) != 0) {
    *error = path + ": " + strerror(errno);
    unlink(tmp.c_str());
    return false;
  }
  return true;
}

bool LoadBlockedScan(const std::string& path, BlockedScan* scan, std::string* why) {
  *scan = BlockedScan();
  util::UniqueFd fd(open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) return Refuse(scan, why, path + ": " + strerror(errno));
  struct stat st;
  if (fstat(fd.get(), &st) != 0) return Refuse(scan, why, path + ": " + strerror(errno));
  // Written by this user for this user only: anything else may have been put there to be read.
  if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077) != 0)
    return Refuse(scan, why, path + ": not a private file of this user");
  if (st.st_size > kMaxFileBytes) return Refuse(scan, why, path + ": too large");
  std::string data(static_cast<size_t>(st.st_size), '\0');
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = read(fd.get(), data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Refuse(scan, why, path + ": short read");
    done += static_cast<size_t>(n);
  }
  if (data.size() < sizeof kMagic + sizeof(uint64_t) ||
      memcmp(data.data(), kMagic, sizeof kMagic) != 0)
    return Refuse(scan, why, path + ": not a blocked-name scan cache");
  uint64_t sum;
  memcpy(&sum, data.data() + data.size() - sizeof sum, sizeof sum);
  std::string_view body(data.data(), data.size() - sizeof sum);
  if (Fnv1a(body) != sum) return Refuse(scan, why, path + ": damaged (checksum)");

  Reader r{body, sizeof kMagic};
  if (r.Get<uint32_t>() != kVersion) return Refuse(scan, why, path + ": another version");
  BlockedScan s;
  uint32_t roots = r.Get<uint32_t>();
  for (uint32_t i = 0; r.ok && i < roots; ++i) {
    s.roots.push_back(r.GetString());
    if (!s.roots.back().starts_with('/')) r.ok = false;
  }
  uint32_t patterns = r.Get<uint32_t>();
  for (uint32_t i = 0; r.ok && i < patterns; ++i)
    s.patterns.push_back(r.GetString());
  s.limits.max_entries = r.Get<uint64_t>();
  int64_t depth = r.Get<int64_t>();
  if (depth < 0 || depth > 1 << 20) r.ok = false;
  s.limits.max_depth = static_cast<int>(depth);
  uint32_t dirs = r.Get<uint32_t>();
  // Each directory takes more than 32 bytes: a count the file cannot hold is damage.
  if (dirs > body.size() / 32) r.ok = false;
  if (r.ok) s.dirs.reserve(dirs);
  for (uint32_t n = 0; r.ok && n < dirs; ++n) {
    ScanDir d;
    d.root = r.Get<uint32_t>();
    d.depth = r.Get<uint32_t>();
    d.path = r.GetString();
    d.key.dev = r.Get<uint64_t>();
    d.key.ino = r.Get<uint64_t>();
    d.key.size = r.Get<int64_t>();
    d.key.mtime_ns = r.Get<int64_t>();
    d.key.ctime_ns = r.Get<int64_t>();
    uint8_t state = r.Get<uint8_t>();
    uint8_t racy = r.Get<uint8_t>();
    d.entries = r.Get<uint32_t>();
    d.names = r.GetString();
    uint32_t items = r.Get<uint32_t>();
    if (!r.ok || d.root >= s.roots.size() || !IsRelativePath(d.path, d.depth) ||
        static_cast<int64_t>(d.depth) >= depth || racy > 1 ||
        (state != ScanDir::kRead && state != ScanDir::kPartial && state != ScanDir::kGone &&
         state != ScanDir::kUnreadable) ||
        items > d.entries || items > body.size() - r.pos) {
      r.ok = false;
      break;
    }
    d.state = static_cast<ScanDir::State>(state);
    d.racy = racy == 1;
    d.items.reserve(items);
    for (uint32_t k = 0; r.ok && k < items; ++k) {
      ScanItem i;
      i.index = r.Get<uint32_t>();
      i.name_offset = r.Get<uint32_t>();
      i.name_size = r.Get<uint32_t>();
      uint8_t kind = r.Get<uint8_t>();
      uint8_t matched = r.Get<uint8_t>();
      uint8_t descend = r.Get<uint8_t>();
      uint8_t repo = r.Get<uint8_t>();
      bool in_order = d.items.empty() || d.items.back().index < i.index;
      if (!r.ok || !in_order || i.index >= d.entries || kind > ScanItem::kLink || matched > 1 ||
          descend > 1 || i.name_offset > d.names.size() ||
          i.name_size > d.names.size() - i.name_offset ||
          !IsName(std::string_view(d.names).substr(i.name_offset, i.name_size)) ||
          (descend == 1 && (kind != ScanItem::kDir || matched == 1)) || repo > 1 ||
          (repo == 1 && (matched == 1 || descend == 1 ||
                         std::string_view(d.names).substr(i.name_offset, i.name_size) != ".git")) ||
          (matched == 0 && descend == 0 && repo == 0)) {
        r.ok = false;
        break;
      }
      i.kind = static_cast<ScanItem::Kind>(kind);
      i.matched = matched == 1;
      i.descend = descend == 1;
      i.repo = repo == 1;
      d.items.push_back(i);
    }
    s.dirs.push_back(std::move(d));
  }
  if (!r.ok || r.pos != body.size()) return Refuse(scan, why, path + ": damaged (contents)");
  *scan = std::move(s);
  return true;
}

int RemoveOldBlockedScans(const std::string& dir, int64_t max_age_seconds) {
  util::UniqueFd fd(open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) return 0;
  int for_dir = dup(fd.get());
  if (for_dir < 0) return 0;
  DIR* d = fdopendir(for_dir);
  if (d == nullptr) {
    close(for_dir);
    return 0;
  }
  time_t now = time(nullptr);
  int removed = 0;
  while (dirent* e = readdir(d)) {
    if (!std::string_view(e->d_name).starts_with("blocked-scan-")) continue;
    struct stat st;
    if (fstatat(fd.get(), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
        st.st_uid != geteuid() || now - st.st_mtime <= max_age_seconds) {
      continue;
    }
    if (unlinkat(fd.get(), e->d_name, 0) == 0) ++removed;
  }
  closedir(d);
  return removed;
}

}  // namespace safesh::sandbox
