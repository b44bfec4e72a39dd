// A long-lived host for the session tests: starts each command given as a background process
// of one Session and waits, so a test can kill it (SIGKILL) and check what it leaves.
//
//   session_host DIR off|bwrap COMMAND...
//
// DIR/ws is the workspace; DIR the home folder. Prints "started ID" per command, then
// "ready", and waits for a signal.
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "exec/env.h"
#include "sandbox/bwrap.h"
#include "session/session.h"

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: session_host DIR off|bwrap COMMAND...\n");
    return 64;
  }
  std::string dir = argv[1], mode = argv[2];
  safesh::pipeline::RunContext context;
  context.workspace = dir + "/ws";
  context.home = dir;
  context.spool_base = dir + "/state/safesh/spool";
  context.environment = safesh::exec::CurrentEnvironment();
  context.settings.sandbox.shell = mode == "bwrap" ? "required" : "off";
  if (mode == "bwrap") {
    context.bwrap = safesh::sandbox::FindBwrap();
    context.launcher = "bwrap";
  }
  context.prompter = [](const safesh::approval::ApprovalRequest&) {
    return safesh::approval::Answer::kApprove;
  };
  prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  safesh::session::Session session(context);
  for (int i = 3; i < argc; ++i) {
    safesh::pipeline::RunRequest r;
    r.command = argv[i];
    r.background = true;
    safesh::pipeline::RunResult res = session.Run(r);
    if (res.background_id.empty()) {
      fprintf(stderr, "session_host: %s: %s\n", argv[i], res.error.c_str());
      return 1;
    }
    printf("started %s\n", res.background_id.c_str());
  }
  printf("ready\n");
  fflush(stdout);
  for (;;)
    pause();
}
