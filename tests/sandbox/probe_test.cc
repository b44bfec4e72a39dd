// Finding out whether bubblewrap works here, and remembering it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "exec/cgroup.h"
#include "sandbox/bwrap.h"
#include "sandbox/doctor.h"
#include "support/requires.h"

namespace safesh::sandbox {
namespace {

std::string Read(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

TEST(Probe, AWorkingSandboxIsRememberedAndAFailureIsNot) {
  std::string bwrap = FindBwrap();
  if (!ProbeBwrap(bwrap, false).empty()) {
    SAFESH_SKIP_MISSING("bubblewrap does not work here");
  }
  char t[] = "/tmp/safesh-probe-XXXXXX";
  std::string dir = mkdtemp(t);
  std::string cache = dir + "/bwrap-probe";
  EXPECT_EQ(ProbeBwrapCached(bwrap, cache), "");
  std::string remembered = Read(cache);
  EXPECT_TRUE(remembered.starts_with(bwrap + " ")) << remembered;
  EXPECT_TRUE(remembered.ends_with("\nok\n")) << remembered;
  // An answer recorded under other conditions (another boot, another bwrap) is not trusted.
  std::ofstream(cache) << "/usr/bin/bwrap 1:2:3:4 uid 0 boot other - - 1\nok\n";
  EXPECT_EQ(ProbeBwrapCached(bwrap, cache), "");
  EXPECT_EQ(Read(cache), remembered);
  // A bubblewrap that cannot run is reported, and nothing is remembered for it.
  std::string fake = dir + "/bwrap";
  std::ofstream(fake) << "#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\n"
                         "exit 1\n";
  std::filesystem::permissions(fake, std::filesystem::perms::owner_all);
  std::string why = ProbeBwrapCached(fake, dir + "/fake-probe");
  EXPECT_NE(why.find("setting up uid map: Permission denied"), std::string::npos) << why;
  EXPECT_FALSE(std::filesystem::exists(dir + "/fake-probe"));
  ForgetProbe(cache);
  EXPECT_FALSE(std::filesystem::exists(cache));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace safesh::sandbox

namespace safesh::sandbox {
namespace {

TEST(Doctor, NamesEachLayerAndTheStrength) {
  Diagnosis d = Diagnose(FindBwrap());
  std::vector<std::string> names;
  for (const Layer& l : d.layers)
    names.push_back(l.name);
  for (const char* want : {"user namespaces", "AppArmor", "bubblewrap", "seccomp",
                           "network namespace", "Landlock", "cgroup v2", "resource limits"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;
  }
  // The way limits are enforced is the one a run gets.
  int version = exec::FindCgroupParent(true, true).version;
  EXPECT_EQ(d.limits_via, version == 2 ? "cgroup2" : version == 1 ? "cgroup1" : "rlimit");
  EXPECT_NE(DiagnosisText(d).find("resource limits: " + d.limits_via + ": "), std::string::npos);
  EXPECT_NE(DiagnosisJson(d).find("\"limits\":{\"via\":\"" + d.limits_via + "\""),
            std::string::npos);
  EXPECT_FALSE(d.strength.empty());
  // Its verdict agrees with the probe's.
  EXPECT_EQ(d.state == "ready", ProbeBwrap(FindBwrap(), false).empty()) << d.state;
  Diagnosis none = Diagnose("");
  EXPECT_EQ(none.state, "no_bwrap");
  EXPECT_NE(none.fix.find("apt install bubblewrap"), std::string::npos);
  EXPECT_TRUE(DiagnosisJson(none).starts_with("{\"state\":\"no_bwrap\""));
}

TEST(Doctor, AppArmorProfileLetsBwrapCreateUserNamespaces) {
  std::string p = AppArmorProfile("/usr/bin/bwrap");
  EXPECT_NE(p.find("profile safesh-bwrap /usr/bin/bwrap flags=(unconfined) {"), std::string::npos)
      << p;
  EXPECT_NE(p.find("  userns,\n"), std::string::npos);
  std::vector<std::string> steps =
      AppArmorInstallCommands("/etc/apparmor.d/safesh-bwrap", "/tmp/profile");
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0], "install -m 0644 -o root -g root /tmp/profile /etc/apparmor.d/safesh-bwrap");
  EXPECT_EQ(steps[1], "apparmor_parser -r /etc/apparmor.d/safesh-bwrap");
}

}  // namespace
}  // namespace safesh::sandbox
