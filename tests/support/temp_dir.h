// A fresh directory under /tmp for one test, removed with everything in it afterwards.
#ifndef SAFESH_TESTS_SUPPORT_TEMP_DIR_H_
#define SAFESH_TESTS_SUPPORT_TEMP_DIR_H_

#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>

namespace safesh::testing {

struct TempDir {
  std::string path;
  explicit TempDir(const std::string& base = "/tmp") {
    std::string t = base + "/safesh-test-XXXXXX";
    if (mkdtemp(t.data()) == nullptr) throw std::runtime_error("mkdtemp failed in " + base);
    path = t;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

// A base for folders that must lie outside every folder a sandboxed command may write (/tmp,
// /var/tmp, $TMPDIR, ~/.cache): safesh refuses to trust remembered approvals kept in one.
inline std::string OutsideWritableBase() {
  std::error_code ec;
  if (std::filesystem::is_directory("/dev/shm", ec)) return "/dev/shm";
  return std::filesystem::current_path().string();
}

}  // namespace safesh::testing

#endif  // SAFESH_TESTS_SUPPORT_TEMP_DIR_H_
