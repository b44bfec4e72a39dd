// The walker behind ExtractScript (policy/extract.h), shared by the files that implement it:
//   extract.cc   the syntax tree: lists, compound commands, words, redirections, arithmetic
//   commands.cc  the command dispatcher, shells, and bash builtins that run code
//   wrappers.cc  commands that run other commands (timeout, env, sudo, xargs, ...)
//   tools.cc     ordinary tools with exec-capable or write-capable options (find, sed, git, ...)
// Not part of the policy's interface: include "policy/extract.h".
#pragma once

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "policy/extract.h"

namespace safesh::policy::internal {

// Where the walk is: which text offsets point into, how deep in nested scripts, how it got here.
struct Frame {
  const shell::Script* script = nullptr;  // for line:col; null when anchored
  std::string_view source;                // the text the tree's offsets point into
  // Nested code (a -c script, eval's text, arithmetic given as a string) has its own text: its
  // findings are reported at the position of the command that holds it.
  bool anchored = false;
  shell::Position anchor;
  shell::Position here;  // the command being walked
  int depth = 0;
  std::string via;
  bool in_unverified = false;
  // The code is run by a POSIX sh (/bin/sh is dash on Debian and Ubuntu), not by bash: whatever
  // the two read differently makes it unverified (see Extractor::NotPosix).
  bool posix_sh = false;

  shell::Position Pos(uint32_t offset) const {
    return anchored || script == nullptr ? anchor : script->At(offset);
  }
  // A frame for code held in a word of the current command.
  Frame Nested(const std::string& via_text, bool unverified) const {
    Frame n;
    n.anchored = true;
    n.anchor = anchored ? anchor : here;
    n.here = n.anchor;
    n.depth = depth + 1;
    n.via = via.empty() ? via_text : via + ", " + via_text;
    n.in_unverified = in_unverified || unverified;
    return n;
  }
};

class Extractor {
 public:
  explicit Extractor(const ExtractOptions& options) : options_(options) {}

  Extraction out;

  // Parses `text` and walks it. At depth 0 a parse error is the result's parse_error; deeper it
  // makes `subject` unverified.
  void Script(std::string_view text, const Frame& frame, const std::string& subject);
  void List(const shell::List* list, const Frame& f);
  void Command(const shell::Command& c, const Frame& f);
  void Word(const shell::Word& w, const Frame& f);
  void Words(const shell::ArenaVec<shell::Word>& words, const Frame& f);
  void Parts(const shell::ArenaVec<shell::Part>& parts, const Frame& f);
  void Arith(const shell::Arith* a, const Frame& f);
  void ArithExpr(const shell::ArithExpr* e, const Frame& f);
  // Arithmetic given as text that bash evaluates (let's arguments, a subscript in a name).
  void ArithText(const std::string& text, const Frame& f, const std::string& subject);
  void Redirect(const shell::Redirect& r, const Frame& f);
  void Assignment(const shell::Assignment& a, const Frame& f, bool persists);
  void Cond(const shell::CondExpr* c, const Frame& f);

  // A command about to run with these arguments: records it and follows what it runs.
  // Returns the index of its CommandUse, or -1 when nothing was recorded.
  int Run(const Argv& argv, const Frame& f, shell::Position pos);
  // After the walk: assignments to names declared integer are evaluated as arithmetic.
  void Finish();

  // Findings.
  void Unverified(const Frame& f, std::string subject, std::string reason);
  void Runtime(const Frame& f, std::string subject, std::string reason);
  void AddWrite(const Frame& f, std::string target, bool is_static, std::string how);
  // A file opened for writing by name (a redirection, tee, dd of=). /dev/null and /dev/tty are
  // harmless. /dev/stdout and /dev/stderr (and /dev/fd/1, /dev/fd/2) reopen whatever the
  // descriptor points to: harmless unless the line points descriptor 1 or 2 at a file of its own
  // (`2<victim >/dev/stderr' overwrites victim), which Finish decides. Other /dev/fd/N and
  // /proc/.../fd/N are writes to a file the policy cannot name.
  void OutputFile(const Frame& f, const std::string& target, bool is_static,
                  const std::string& how);
  // Descriptor 1 or 2 is made to point at something other than the output it was given.
  void StdStreamRedirected() { std_streams_redirected_ = true; }
  void Network(const Frame& f, std::string subject, std::string reason);

  // A variable assignment seen anywhere: NAME=VALUE, export NAME=VALUE, env NAME=VALUE.
  // `value` is the static value, when there is one.
  void Variable(const Frame& f, std::string_view name, const std::string* value,
                const std::string& subject);
  // A variable is given a value, or unset, at run time: setting a dangerous one (PATH, ...)
  // is unverified, like an assignment.
  void Assigned(const Frame& f, std::string_view name, const std::string& subject);
  // What a command does with a name operand.
  enum class NameUse : uint8_t {
    kAssigns,   // gives it a value read when it runs (read, printf -v, mapfile, {NAME}>, ...)
    kDeclares,  // unsets or declares it (unset, local, declare): its value changes too
    kTests,     // only looks at it (test -v, [[ -v ]])
  };
  // A name operand that bash may evaluate (read NAME, printf -v NAME, unset NAME, test -v NAME,
  // declare NAME=...): a subscript in it is evaluated as arithmetic.
  void NameOperand(const Frame& f, const Arg& arg, const std::string& subject, NameUse use);

  // Which shell reads a command line given as text. Texts handed to system(), popen() or
  // `sh -c' by other programs are read by /bin/sh, which may be dash: when in doubt, kPosixSh.
  enum class Dialect : uint8_t { kBash, kPosixSh };
  // A shell command line given as text to something that runs it (sh -c, su -c, watch, env -S
  // parts, git's command options): parsed and walked one level deeper.
  void ShellText(const std::string& text, const Frame& f, const std::string& via,
                 const std::string& subject, Dialect dialect, bool unverified = false);
  // `what` appears in code run by a POSIX sh: bash's reading of it, which the walk follows, may
  // not be the one that runs, so the code is unverified.
  void NotPosix(const Frame& f, std::string_view what);
  // The same for one part of a word.
  void PosixPart(const shell::Part& p, const Frame& f);

  const ExtractOptions& options() const { return options_; }
  std::set<std::string> integer_names;  // declared with declare -i (and friends)
  struct PendingAssign {
    std::string name;
    std::string value;
    bool is_static;
    Frame frame;
  };
  std::vector<PendingAssign> assigns;  // checked against integer_names at the end

 private:
  ExtractOptions options_;
  // Keep nested trees and texts alive while findings point into them.
  std::vector<std::shared_ptr<shell::Script>> nested_;
  std::vector<std::shared_ptr<shell::Arena>> arith_arenas_;
  std::vector<std::unique_ptr<std::string>> texts_;
  int arith_depth_ = 0;  // how deep ArithExpr is in one expression
  bool std_streams_redirected_ = false;
  std::vector<Write> std_stream_writes_;  // writes to /dev/stdout and the like, see OutputFile
};

// Handlers for commands by name; each returns true when it recognised the command.
// `index` is the command's CommandUse (Extractor::out.commands[index]).
using Handler = bool (*)(Extractor& x, const Argv& argv, const Frame& f, int index);
Handler FindBuiltinHandler(std::string_view name);  // commands.cc
Handler FindWrapperHandler(std::string_view name);  // wrappers.cc
Handler FindToolHandler(std::string_view name);     // tools.cc

// Helpers shared by the handler files.
std::string BaseName(const std::string& path);
bool IsName(std::string_view s);  // a valid shell variable name
// Variables whose value makes bash or other programs run code or find programs elsewhere.
bool IsDangerousVariable(std::string_view name);
// Runs argv[from..] as a command reached through `via` (the wrapper's name).
void RunInner(Extractor& x, const Argv& argv, size_t from, const Frame& f, const std::string& via,
              bool takes_input_args = false);
// The whole command as written, for messages.
std::string Shown(const Argv& argv);

}  // namespace safesh::policy::internal
