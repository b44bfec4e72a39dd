// The verdict on a command line: allow, ask (a person approves) or deny, with the reason.
//
// The rules (SH-14), in order:
//   1. A recursive search of the disk or the home folder is denied (SH-14a), with or without
//      a policy.
//   2. In strict mode, anything but one plain command is denied.
//   3. Any command matching a deny rule is denied; deny always wins. Wrappers are checked too.
//   4. With an allow list, a command that does not match it, a computed command, unverified
//      code or a parse error is denied.
//   5. A command matching an ask rule needs approval.
//   6. The line is allowed only when every command that is not a transparent wrapper matches
//      auto_approve, none uses a value computed when it runs, nothing is unverified, and
//      nothing writes a file or opens a network connection.
//   7. Otherwise it needs approval; a parse error needs approval with the error as reason,
//      and with no policy at all every command needs approval.
// The policy is a guardrail, not a boundary: an approved interpreter can do anything. The
// sandbox is what confines it.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "policy/extract.h"
#include "policy/pattern.h"

namespace safesh::policy {

// The `[commands]` settings.
struct CommandRules {
  std::vector<std::string> deny;
  std::vector<std::string> ask;
  std::vector<std::string> allow;
  std::vector<std::string> auto_approve;
  bool allow_list = false;  // `allow` was given (even empty): only what it names may run
  bool strict = false;
};

// Rules with their patterns compiled once.
class Policy {
 public:
  // Nothing and `*error` naming the bad pattern when a pattern is invalid.
  static std::optional<Policy> Compile(const CommandRules& rules, std::string* error);

  const CommandRules& rules() const { return rules_; }
  const std::vector<Pattern>& deny() const { return deny_; }
  const std::vector<Pattern>& ask() const { return ask_; }
  const std::vector<Pattern>& allow() const { return allow_; }
  const std::vector<Pattern>& auto_approve() const { return auto_; }

 private:
  CommandRules rules_;
  std::vector<Pattern> deny_, ask_, allow_, auto_;
};

enum class Decision : uint8_t { kAllow, kAsk, kDeny };
const char* DecisionName(Decision d);

struct JudgedCommand {
  CommandUse use;
  std::string matched;  // "deny: rm", "auto_approve: ls *", ... or empty
};

struct Verdict {
  Decision decision = Decision::kAsk;
  std::string reason;
  std::vector<JudgedCommand> commands;
  std::vector<Write> writes;
  std::vector<Finding> unverified;
  std::vector<Finding> network;
  std::vector<Finding> runtime;
  std::optional<std::string> parse_error;  // "line:col: message"
};

struct JudgeOptions {
  std::string home;  // the user's home folder, for SH-14a (empty: $HOME is still recognised)
};

// Judges a bash command line. `policy` may be null: no policy, everything needs approval.
Verdict Judge(const Policy* policy, std::string_view command, const JudgeOptions& options = {});

// Judges an argv run without a shell (each element one literal word).
Verdict JudgeArgv(const Policy* policy, const std::vector<std::string>& argv,
                  const JudgeOptions& options = {});

// The verdict as one line of JSON: verdict, reason, commands (argv, static, matched, role, pos,
// via), writes, unverified, network, runtime, parse_error.
std::string VerdictJson(const Verdict& v);

}  // namespace safesh::policy
