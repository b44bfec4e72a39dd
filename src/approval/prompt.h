// Asking a person whether a command may run, when the policy says "ask".
//
// What the person sees is what runs: a command holding control, zero-width or bidi characters is
// shown as a bash $'...' string with those characters spelled out.
#pragma once

#include <functional>
#include <string>

namespace safesh::approval {

struct ApprovalRequest {
  std::string command;  // the exact command text
  std::string cwd;      // where it would run
  bool background = false;
  std::string reason;  // the policy's reason for asking
};

enum class Answer {
  kApprove,
  kDeny,
  kNoOneToAsk,  // no person can be asked: the configured headless answer applies
};

// Something that can ask: a terminal, an MCP client, a library callback.
using Prompter = std::function<Answer(const ApprovalRequest&)>;

// The text shown to the person (several lines, ending in a newline).
std::string ApprovalText(const ApprovalRequest& request);

// Asks on the controlling terminal (/dev/tty): "y" or "yes" approves, anything else denies.
// kNoOneToAsk when there is no terminal.
Answer AskAtTerminal(const ApprovalRequest& request);

}  // namespace safesh::approval
