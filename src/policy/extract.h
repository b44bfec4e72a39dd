// Every command a script can run, found by walking its syntax tree the way bash would run it.
//
// The walk visits every node that executes or evaluates: simple commands, substitutions in any
// position (words, redirection targets, assignment values, subscripts, here-document bodies,
// parameter operands), arithmetic, function bodies and compound commands. It then follows the
// commands that run other commands: wrappers (timeout, env, sudo, xargs, ...), shells with a
// literal -c script, find -exec, and the exec-capable options of ordinary tools (sort
// --compress-program, git -c, sed's e, awk's system(), ...). What cannot be followed with
// certainty is reported as unverified, never guessed.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "policy/words.h"
#include "shell/parser.h"

namespace safesh::policy {

// How a command takes part in the line. Wrappers and shells that only pass a literal command on
// are transparent: rules judge the command they run (deny rules also judge the wrapper).
enum class Role : uint8_t {
  kCommand,  // a program or builtin that runs with these arguments
  kWrapper,  // runs another command found in its arguments (timeout, env, xargs, ...)
  kShell,    // a shell running a literal -c script, judged command by command
  kLookup,   // names a command without running it (X --help)
};
const char* RoleName(Role role);

struct CommandUse {
  Argv argv;
  Role role = Role::kCommand;
  shell::Position pos;
  // How the walk reached it, empty at the top level: "bash -c", "find -exec", "xargs", ...
  std::string via;
  // It receives more arguments when it runs (xargs appends words read from its input).
  bool takes_input_args = false;
  // Found inside code that is unverified as a whole (eval's text, a trap's code): deny rules
  // apply to it, but nothing in it can be approved automatically.
  bool in_unverified = false;

  bool IsStatic() const;
  // Any word computed when it runs, or arguments added at run time.
  bool UsesExpansion() const { return takes_input_args || !IsStatic(); }
};

struct Write {
  std::string target;  // the file, or its text as written when computed
  bool is_static = true;
  std::string how;  // "redirection >>", "tee", "sort --output", ...
  shell::Position pos;
};

struct Finding {
  std::string subject;  // the command or construct concerned, as written
  std::string reason;   // what a person or a model can act on
  shell::Position pos;
};

struct Extraction {
  std::vector<CommandUse> commands;
  std::vector<Write> writes;
  std::vector<Finding> unverified;  // code the policy cannot check
  std::vector<Finding> network;     // /dev/tcp and /dev/udp
  std::vector<Finding> runtime;     // evaluation at run time outside a command's words
  std::optional<shell::SyntaxError> parse_error;
  // Texts that were to run as scripts but do not parse (the line itself when parse_error is
  // set, and nested -c scripts, eval and trap texts): bash may still run them, so deny rules
  // are matched against their words (see Judge).
  std::vector<std::string> unparsed;
};

struct ExtractOptions {
  // How deep nested scripts are followed (bash -c 'bash -c ...'); deeper is unverified.
  int max_depth = 3;
};

// The commands of a bash command line or script.
Extraction ExtractScript(std::string_view script, const ExtractOptions& options = {});

// The commands of an argv run without a shell: every element is one literal word.
Extraction ExtractArgv(const std::vector<std::string>& argv, const ExtractOptions& options = {});

}  // namespace safesh::policy
