// `safesh doctor`: can commands be sandboxed here, how strongly, and if not, how to fix it.
#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <iostream>

#include "cli/verbs.h"
#include "sandbox/bwrap.h"
#include "sandbox/doctor.h"

namespace safesh::cli {

void AddDoctorCommand(CLI::App& app, DoctorArgs& args) {
  CLI::App* cmd = app.add_subcommand(
      "doctor", "Check the OS sandbox on this machine: each layer, and the strength it gives");
  cmd->add_flag("--json", args.json, "Print the diagnosis as a JSON object");
  cmd->add_flag("--fix-apparmor", args.fix_apparmor,
                "Where AppArmor keeps bubblewrap from creating user namespaces (Ubuntu 24.04 and "
                "later), install a profile that allows it (needs root; prints the commands "
                "otherwise)");
  cmd->footer(
      "Exit status: 0 commands can be sandboxed (by bubblewrap, or by Landlock where it cannot "
      "run), 69 they cannot, 1 a fix could not be applied.");
}

namespace {

constexpr char kProfilePath[] = "/etc/apparmor.d/safesh-bwrap";

int FixAppArmor(const std::string& bwrap, const sandbox::Diagnosis& d) {
  if (d.state != "restricted") {
    std::cout << "nothing for --fix-apparmor to do: the sandbox is " << d.state
              << (d.fix.empty() ? "" : " (" + d.fix + ")") << "\n";
    return d.state == "ready" ? 0 : 69;
  }
  char real[4096];
  std::string target = realpath(bwrap.c_str(), real) != nullptr ? real : bwrap;
  char tmpl[] = "/tmp/safesh-bwrap-profile-XXXXXX";
  int fd = mkstemp(tmpl);
  if (fd < 0) {
    std::cerr << "safesh doctor: cannot write a temporary file\n";
    return 1;
  }
  std::string profile = sandbox::AppArmorProfile(target);
  bool written = write(fd, profile.data(), profile.size()) == static_cast<ssize_t>(profile.size());
  close(fd);
  if (!written) {
    std::cerr << "safesh doctor: cannot write " << tmpl << "\n";
    return 1;
  }
  std::vector<std::string> steps = sandbox::AppArmorInstallCommands(kProfilePath, tmpl);
  if (geteuid() != 0) {
    std::cout << "Run these as root (the profile is in " << tmpl << "):\n";
    for (const std::string& s : steps)
      std::cout << "  sudo " << s << "\n";
    return 1;
  }
  for (const std::string& s : steps) {
    std::cout << "+ " << s << "\n";
    if (std::system(s.c_str()) != 0) {
      std::cerr << "safesh doctor: failed: " << s << "\n";
      unlink(tmpl);
      return 1;
    }
  }
  unlink(tmpl);
  sandbox::Diagnosis after = sandbox::Diagnose(bwrap);
  std::cout << sandbox::DiagnosisText(after);
  return after.state == "ready" ? 0 : 1;
}

}  // namespace

int RunDoctor(const DoctorArgs& args) {
  const char* override_path = std::getenv("SAFESH_BWRAP");
  std::string bwrap = override_path != nullptr ? override_path : sandbox::FindBwrap();
  if (!bwrap.empty() && access(bwrap.c_str(), X_OK) != 0) bwrap.clear();
  sandbox::Diagnosis d = sandbox::Diagnose(bwrap);
  if (args.fix_apparmor) return FixAppArmor(bwrap, d);
  std::cout << (args.json ? sandbox::DiagnosisJson(d) + "\n" : sandbox::DiagnosisText(d));
  // Commands can be sandboxed: by bubblewrap, or (weaker, as the strength says) by Landlock.
  return d.state == "ready" || d.landlock_abi > 0 ? 0 : 69;
}

}  // namespace safesh::cli
