// What a person is shown when asked, and the terminal prompter's answers, through a real
// pseudo-terminal.
#include "approval/prompt.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <string>

namespace safesh::approval {
namespace {

ApprovalRequest Request(const std::string& command, const std::string& cwd,
                        const std::string& reason = "") {
  ApprovalRequest r;
  r.command = command;
  r.cwd = cwd;
  r.reason = reason;
  return r;
}

TEST(ApprovalText, ShowsTheCommandCwdBackgroundAndReason) {
  ApprovalRequest r =
      Request("make test\nmake install", "/home/me/proj/sub", "`make' is not auto-approved");
  r.background = true;
  std::string text = ApprovalText(r);
  EXPECT_NE(text.find("[background]"), std::string::npos) << text;
  // Each line of the command indented: its second line cannot pass for safesh's own text.
  EXPECT_NE(text.find("\n  make test\n  make install\n"), std::string::npos) << text;
  EXPECT_NE(text.find("in /home/me/proj/sub\n"), std::string::npos) << text;
  EXPECT_NE(text.find("why asked: `make' is not auto-approved\n"), std::string::npos) << text;
  r.background = false;
  EXPECT_EQ(ApprovalText(r).find("[background]"), std::string::npos);
}

TEST(ApprovalText, HiddenCharactersAreSpelledOut) {
  struct Case {
    std::string command;
    std::string raw;    // must not be shown as it is
    std::string shown;  // how it is shown instead
  };
  const Case cases[] = {
      {"echo safe\x1b[2K\x1b[1Arm -rf ~", "\x1b", "\\x1b[2K"},          // terminal escapes
      {"echo ok \xe2\x80\xae; rm -rf ~ #", "\xe2\x80\xae", "\\u202e"},  // bidi override
      {"ls\xe2\x80\x8b -la", "\xe2\x80\x8b", "\\u200b"},                // zero-width space
      {"ls\xef\xbb\xbf", "\xef\xbb\xbf", "\\ufeff"},                    // byte order mark
      {"echo a\rrm -rf ~", "\r", "\\r"},                                // carriage return
      {"echo \x07\x08", "\x07", "\\x07"},                               // bell, backspace
      {"echo \xff", "\xff", "\\xff"},                                   // not UTF-8
  };
  for (const Case& c : cases) {
    std::string text = ApprovalText(Request(c.command, "/w"));
    EXPECT_EQ(text.find(c.raw), std::string::npos) << text;
    EXPECT_NE(text.find("$'"), std::string::npos) << text;
    EXPECT_NE(text.find(c.shown), std::string::npos) << text;
    EXPECT_NE(text.find("invisible or control characters"), std::string::npos) << text;
  }
  // The cwd and the reason (which may quote the command) are escaped too.
  std::string text = ApprovalText(
      Request("ls", "/w/\x1b]0;owned\x07", "`x\xe2\x80\xae' is not auto-approved\nFAKE: approved"));
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
  EXPECT_EQ(text.find("\xe2\x80\xae"), std::string::npos) << text;
  EXPECT_EQ(text.find("\nFAKE"), std::string::npos) << text;
  EXPECT_NE(text.find("\\u202e"), std::string::npos) << text;
}

// Runs AskAtTerminal in a child whose controlling terminal is a new pseudo-terminal, types
// `typed` into it, and returns the answer with what the prompt printed.
struct Asked {
  Answer answer = Answer::kDeny;
  std::string shown;
};

Asked AskThroughPty(const ApprovalRequest& request, const std::string& typed) {
  Asked out;
  int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
  EXPECT_GE(master, 0);
  EXPECT_EQ(grantpt(master), 0);
  EXPECT_EQ(unlockpt(master), 0);
  std::string slave_name = ptsname(master);
  pid_t pid = fork();
  if (pid == 0) {
    // A session of its own, with the pty as its controlling terminal: what /dev/tty opens.
    if (setsid() < 0) _exit(100);
    int slave = open(slave_name.c_str(), O_RDWR);
    if (slave < 0 || ioctl(slave, TIOCSCTTY, 0) != 0) _exit(101);
    _exit(static_cast<int>(AskAtTerminal(request)));
  }
  EXPECT_GT(pid, 0);
  // Read the prompt up to its question (which ends in a space), then answer. What is typed
  // early would wait in the terminal's buffer anyway; waiting shows the whole prompt.
  std::string shown;
  char buf[4096];
  while (shown.find("Run it?") == std::string::npos || shown.back() != ' ') {
    ssize_t n = read(master, buf, sizeof buf);
    if (n <= 0) break;
    shown.append(buf, static_cast<size_t>(n));
  }
  EXPECT_EQ(write(master, typed.data(), typed.size()), static_cast<ssize_t>(typed.size()));
  int status = 0;
  EXPECT_EQ(waitpid(pid, &status, 0), pid);
  close(master);
  EXPECT_TRUE(WIFEXITED(status)) << status;
  out.answer = static_cast<Answer>(WEXITSTATUS(status));
  out.shown = shown;
  return out;
}

TEST(AskAtTerminal, OnceAlwaysOrNo) {
  ApprovalRequest r = Request("npm test", "/w", "not auto-approved");
  r.workspace = "/w";
  r.can_remember = true;
  Asked a = AskThroughPty(r, "a\n");
  EXPECT_EQ(a.answer, Answer::kApproveAlways);
  EXPECT_NE(a.shown.find("[a]lways"), std::string::npos) << a.shown;
  EXPECT_NE(a.shown.find("this exact command, in /w"), std::string::npos) << a.shown;
  EXPECT_NE(a.shown.find("npm test"), std::string::npos) << a.shown;
  EXPECT_EQ(AskThroughPty(r, "always\n").answer, Answer::kApproveAlways);
  EXPECT_EQ(AskThroughPty(r, "y\n").answer, Answer::kApprove);
  EXPECT_EQ(AskThroughPty(r, "ONCE\n").answer, Answer::kApprove);
  EXPECT_EQ(AskThroughPty(r, "n\n").answer, Answer::kDeny);
  EXPECT_EQ(AskThroughPty(r, "\n").answer, Answer::kDeny);  // the default is no
  EXPECT_EQ(AskThroughPty(r, "yes please\n").answer, Answer::kDeny);
  // Where the answer cannot be remembered, "always" is not offered, and means once.
  r.can_remember = false;
  Asked once = AskThroughPty(r, "a\n");
  EXPECT_EQ(once.answer, Answer::kApprove);
  EXPECT_EQ(once.shown.find("[a]lways"), std::string::npos) << once.shown;
  EXPECT_NE(once.shown.find("[y/N]"), std::string::npos) << once.shown;
}

TEST(AskAtTerminal, NoTerminalMeansNoOneToAsk) {
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    setsid();  // no controlling terminal
    _exit(static_cast<int>(AskAtTerminal(Request("ls", "/w"))));
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(static_cast<Answer>(WEXITSTATUS(status)), Answer::kNoOneToAsk);
}

TEST(Answer, Names) {
  EXPECT_STREQ(AnswerName(Answer::kApprove), "once");
  EXPECT_STREQ(AnswerName(Answer::kApproveAlways), "always");
  EXPECT_STREQ(AnswerName(Answer::kDeny), "no");
}

}  // namespace
}  // namespace safesh::approval
