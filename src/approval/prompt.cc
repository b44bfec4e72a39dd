#include "approval/prompt.h"

#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>

#include "util/file.h"
#include "util/shell_quote.h"
#include "util/unique_fd.h"

namespace safesh::approval {
namespace {

// A line of safesh's own text that names something outside its control (a path, the policy's
// reason, which can quote the command): escaped when it holds anything a terminal would not
// show as written, and then also when it holds a line break, so it cannot pass for two lines.
std::string Shown(const std::string& text) {
  if (util::HasHiddenCharacters(text) || text.find('\n') != std::string::npos)
    return util::ShellQuote(text);
  return text;
}

}  // namespace

std::string ApprovalText(const ApprovalRequest& r) {
  std::string text = "safesh: the command policy asks before running this command";
  if (r.background) text += " [background]";
  text += ":\n\n";
  if (util::HasHiddenCharacters(r.command)) {
    text += "  " + util::ShellQuote(r.command) + "\n";
    text += "  (shown as a bash $'...' string: it holds invisible or control characters)\n";
  } else {
    // Each line indented, so a command's own text cannot pass for safesh's.
    text += "  ";
    for (char c : r.command) {
      text += c;
      if (c == '\n') text += "  ";
    }
    text += "\n";
  }
  text += "\n  in " + Shown(r.cwd) + "\n";
  if (!r.reason.empty()) text += "  why asked: " + Shown(r.reason) + "\n";
  return text;
}

Answer AskAtTerminal(const ApprovalRequest& request) {
  util::UniqueFd tty(open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC));
  if (!tty.valid()) return Answer::kNoOneToAsk;
  std::string text = ApprovalText(request);
  if (request.can_remember) {
    text += "\n  always = this exact command, in " + Shown(request.workspace) +
            " (undo with `safesh approvals revoke`)\nRun it? [y]es once, [a]lways, [N]o: ";
  } else {
    text += "\nRun it? [y/N] ";
  }
  if (!util::WriteAll(tty.get(), text)) return Answer::kNoOneToAsk;
  std::string line;
  char c;
  while (line.size() < 64) {
    ssize_t n = read(tty.get(), &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0 || c == '\n') break;
    line += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back())))
    line.pop_back();
  if (line == "y" || line == "yes" || line == "o" || line == "once") return Answer::kApprove;
  if (line == "a" || line == "always")
    return request.can_remember ? Answer::kApproveAlways : Answer::kApprove;
  return Answer::kDeny;
}

const char* AnswerName(Answer answer) {
  switch (answer) {
    case Answer::kApprove:
      return "once";
    case Answer::kApproveAlways:
      return "always";
    case Answer::kDeny:
      return "no";
    case Answer::kNoOneToAsk:
      return "no one";
  }
  return "no";
}

}  // namespace safesh::approval
