#include "approval/prompt.h"

#include <fcntl.h>
#include <unistd.h>

#include <cctype>

#include "util/shell_quote.h"
#include "util/unique_fd.h"

namespace safesh::approval {

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
  text += "\n  in " + (util::HasHiddenCharacters(r.cwd) ? util::ShellQuote(r.cwd) : r.cwd) + "\n";
  if (!r.reason.empty()) text += "  why asked: " + r.reason + "\n";
  return text;
}

Answer AskAtTerminal(const ApprovalRequest& request) {
  util::UniqueFd tty(open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC));
  if (!tty.valid()) return Answer::kNoOneToAsk;
  std::string text = ApprovalText(request) + "\nRun it? [y/N] ";
  if (write(tty.get(), text.data(), text.size()) != static_cast<ssize_t>(text.size()))
    return Answer::kNoOneToAsk;
  std::string line;
  char c;
  while (line.size() < 64) {
    ssize_t n = read(tty.get(), &c, 1);
    if (n <= 0 || c == '\n') break;
    line += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back())))
    line.pop_back();
  return line == "y" || line == "yes" ? Answer::kApprove : Answer::kDeny;
}

}  // namespace safesh::approval
