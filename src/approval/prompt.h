// Asking a person whether a command may run, when the policy says "ask".
//
// What the person sees is what runs: a command holding control, zero-width or bidi characters is
// shown as a bash $'...' string with those characters spelled out; the cwd and the policy's
// reason are escaped the same way.
#pragma once

#include <functional>
#include <string>

namespace safesh::approval {

struct ApprovalRequest {
  std::string command;  // the exact command text
  std::string cwd;      // where it would run
  bool background = false;
  std::string reason;  // the policy's reason for asking
  // Set when an "always" answer can be remembered (approval/store.h): the workspace it would
  // be remembered for, and the prompt offers "always".
  std::string workspace;
  bool can_remember = false;
};

enum class Answer {
  kApprove,        // yes, this once
  kApproveAlways,  // yes, and remember it for this exact command in this workspace
  kDeny,
  kNoOneToAsk,  // no person can be asked: the configured headless answer applies
};

// Something that can ask: a terminal, an MCP client, a library callback. A prompter may answer
// kApproveAlways even when the request cannot be remembered: it then approves this once.
using Prompter = std::function<Answer(const ApprovalRequest&)>;

// The text shown to the person (several lines, ending in a newline).
std::string ApprovalText(const ApprovalRequest& request);

// Asks on the controlling terminal (/dev/tty): "y", "yes", "o" or "once" approves once; "a" or
// "always" approves and remembers (when the request can be remembered; otherwise it is read as
// once); anything else denies. kNoOneToAsk when there is no terminal.
Answer AskAtTerminal(const ApprovalRequest& request);

// The words the audit log and results use for an answer: "once", "always", "no", "no one".
const char* AnswerName(Answer answer);

}  // namespace safesh::approval
