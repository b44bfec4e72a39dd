// A temporary folder for a test, removed with everything in it at the end.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace safesh::config::testing {

class TempDir {
 public:
  TempDir() {
    char t[] = "/tmp/safesh-config-test-XXXXXX";
    if (mkdtemp(t) != nullptr) path_ = t;
  }
  ~TempDir() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }

  // Writes `text` to `rel` (inside the folder, parents created) and returns the full path.
  std::string Write(const std::string& rel, const std::string& text) const {
    std::string full = path_ + "/" + rel;
    std::filesystem::create_directories(std::filesystem::path(full).parent_path());
    std::ofstream(full, std::ios::binary | std::ios::trunc) << text;
    return full;
  }

 private:
  std::string path_;
};

}  // namespace safesh::config::testing
