// What the blocked-name scan's tests share: the patterns they look for, a cancel that never
// says stop, and a file made in one call.
#ifndef SAFESH_TESTS_SANDBOX_SCAN_HELPERS_H_
#define SAFESH_TESTS_SANDBOX_SCAN_HELPERS_H_

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "sandbox/blocked_names.h"
#include "sandbox/blocked_scan.h"

namespace safesh::sandbox::scan_test {

// The default blocked names, and a directory name to hide whole.
inline const std::vector<std::string>& Patterns() {
  static const std::vector<std::string> p = [] {
    std::vector<std::string> v = DefaultBlockedNames();
    v.push_back("secret-dir");
    return v;
  }();
  return p;
}

inline ScanCancel Never() {
  return [] { return false; };
}

inline void Write(const std::string& path, const std::string& text = "x") {
  std::ofstream f(path);
  f << text;
  ASSERT_TRUE(f.good()) << path;
}

}  // namespace safesh::sandbox::scan_test

#endif  // SAFESH_TESTS_SANDBOX_SCAN_HELPERS_H_
