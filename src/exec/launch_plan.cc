#include "exec/launch_plan.h"

#include <unistd.h>

namespace safesh::exec {

LaunchPlan BashPlan(const std::string& bash, const std::string& command,
                    std::vector<std::string> env, int cwd_fd) {
  LaunchPlan plan;
  plan.program = bash;
  // `--` ends bash's options, so a command that starts with '-' or '+' is still the script.
  plan.argv = {"bash", "-c", "--", command};
  plan.env = std::move(env);
  plan.cwd_fd = cwd_fd;
  return plan;
}

std::string FindBash() {
  for (const char* candidate : {"/bin/bash", "/usr/bin/bash"}) {
    if (access(candidate, X_OK) == 0) return candidate;
  }
  return "";
}

}  // namespace safesh::exec
