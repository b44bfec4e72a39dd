// Tests that need something of the machine (bubblewrap, Landlock, a cgroup) skip where it is
// missing, so that a developer's laptop can run the rest. CI must not: a sandbox test that
// quietly skips there would hide a sandbox that no longer works. `.ci/run` sets
// SAFESH_TESTS_REQUIRE_SANDBOX=1, which turns these skips into failures.
#ifndef SAFESH_TESTS_SUPPORT_REQUIRES_H_
#define SAFESH_TESTS_SUPPORT_REQUIRES_H_

#include <stdlib.h>

#include <cstring>

namespace safesh::testing {

// Whether missing sandbox parts are failures here (CI) rather than skips.
inline bool SandboxRequired() {
  const char* v = getenv("SAFESH_TESTS_REQUIRE_SANDBOX");
  return v != nullptr && std::strcmp(v, "1") == 0;
}

}  // namespace safesh::testing

// Skips the test (or fails it, where SandboxRequired()) because a part of the sandbox, a cgroup
// or Landlock cannot be had on this machine. Use it for those only: a test that does not apply
// (root-only, a HOME under /tmp) uses GTEST_SKIP as usual.
// Put it in braces under an `if`.
#define SAFESH_SKIP_MISSING(why)                                                                \
  if (::safesh::testing::SandboxRequired())                                                     \
    GTEST_FAIL() << "cannot run here, and SAFESH_TESTS_REQUIRE_SANDBOX=1 requires it: " << why; \
  else                                                                                          \
    GTEST_SKIP() << why

#endif  // SAFESH_TESTS_SUPPORT_REQUIRES_H_
