#include "sandbox/advice.h"

#include <gtest/gtest.h>

namespace safesh::sandbox {
namespace {

SandboxSpec Spec() {
  SandboxSpec s;
  s.writable = {"/work/ws", "/tmp"};
  s.blocked_dirs = {"/home/u/.ssh"};
  s.blocked_files = {"/home/u/.netrc"};
  return s;
}

TEST(Advice, WritingOutsideTheRootsNamesThePathAndTheSetting) {
  std::string a =
      PermissionAdvice("touch: cannot touch '/etc/motd': Read-only file system\n", Spec(), "bwrap");
  EXPECT_NE(a.find("`/etc/motd` read-only"), std::string::npos) << a;
  EXPECT_NE(a.find("[sandbox] writable_paths"), std::string::npos) << a;
  // Landlock says "Permission denied" where bubblewrap says "Read-only file system".
  a = PermissionAdvice("bash: line 1: /usr/x: Permission denied\n", Spec(), "landlock");
  EXPECT_NE(a.find("`/usr/x` read-only"), std::string::npos) << a;
  // Under bubblewrap a plain permission error is the file's own, not the sandbox's.
  EXPECT_EQ(PermissionAdvice("cat: /root/x: Permission denied\n", Spec(), "bwrap"), "");
}

TEST(Advice, HiddenPathsNetworkAndRefusedOperations) {
  std::string a = PermissionAdvice("cat: /home/u/.ssh/id_ed25519: No such file or directory\n",
                                   Spec(), "bwrap");
  EXPECT_NE(a.find("`/home/u/.ssh/id_ed25519` is hidden"), std::string::npos) << a;
  a = PermissionAdvice("curl: (6) Could not resolve host: example.com\n", Spec(), "bwrap");
  EXPECT_NE(a.find("allow_network = true"), std::string::npos) << a;
  SandboxSpec with_network = Spec();
  with_network.network = true;
  EXPECT_EQ(PermissionAdvice("curl: (6) Could not resolve host: x\n", with_network, "bwrap"), "");
  a = PermissionAdvice("unshare: unshare failed: Operation not permitted\n", Spec(), "bwrap");
  EXPECT_NE(a.find("without capabilities"), std::string::npos) << a;
  EXPECT_EQ(PermissionAdvice("make: *** [all] Error 2\n", Spec(), "bwrap"), "");
}

}  // namespace
}  // namespace safesh::sandbox
