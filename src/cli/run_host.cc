// PrepareRunHost: the set-up shared by the verbs that run commands (run, mcp).
#include <sys/prctl.h>

#include <cstdlib>

#include "approval/store.h"
#include "cli/verbs.h"
#include "exec/env.h"
#include "exec/spool.h"

namespace safesh::cli {

int PrepareRunHost(const std::string& verb, const std::string& workspace_arg,
                   const std::string& config, RunHost* host) {
  pipeline::RunContext& context = host->context;
  context.workspace = WorkspaceDir(workspace_arg);
  if (!LoadRules(verb, context.workspace, config, &context.settings, &host->policy))
    return kExitConfig;
  context.policy = host->policy ? &*host->policy : nullptr;
  context.home = HomeFolder();
  context.spool_base = exec::DefaultSpoolBase();
  // The environment is copied, then the scrubbed values are wiped from safesh's own block.
  for (char** e = environ; e != nullptr && *e != nullptr; ++e)
    host->environment.emplace_back(*e);
  for (const std::string& e : host->environment)
    context.environment.emplace_back(e);
  // SAFESH_SANDBOX_SHELL is a settings layer: LoadRules applied it to [sandbox] shell.
  if (const char* b = std::getenv("SAFESH_BWRAP"); b != nullptr) context.bwrap = b;
  if (const char* l = std::getenv("SAFESH_SANDBOX_LAUNCHER"); l != nullptr) context.launcher = l;
  if (const char* l = std::getenv("SAFESH_LIMITS"); l != nullptr) context.limits_override = l;
  // Remembered approvals and the audit log, in the user's state folder.
  context.approvals_file = approval::DefaultApprovalsFile();
  host->audit = std::make_unique<audit::Log>(audit::DefaultAuditDir());
  context.audit = host->audit.get();

  // Not dumpable: a command running as the same user cannot open /proc/<safesh>/fd (the
  // guards' control and report pipes) or read /proc/<safesh>/environ (the scrubbed secrets).
  prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  exec::EnvRules scrub_rules;
  if (context.settings.sandbox.scrub_env) scrub_rules.scrub = *context.settings.sandbox.scrub_env;
  exec::WipeScrubbedFromEnviron(scrub_rules);
  return 0;
}

}  // namespace safesh::cli
