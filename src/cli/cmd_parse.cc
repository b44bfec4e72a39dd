// `safesh parse`: shows how safesh (and bash) reads a script.
#include <iostream>

#include "cli/verbs.h"
#include "shell/ast_json.h"
#include "shell/parser.h"
#include "util/file.h"

namespace safesh::cli {

void AddParseCommand(CLI::App& app, ParseArgs& args) {
  CLI::App* cmd = app.add_subcommand(
      "parse", "Parse SCRIPT as bash and print its syntax tree, or the syntax error");
  cmd->add_flag("--json", args.json, "Print the tree as JSON");
  cmd->add_flag("--check", args.check, "Print nothing: only the exit status (and any error)");
  cmd->add_option("-f,--file", args.file,
                  "Read the script from FILE instead of the argument (- for standard input)")
      ->type_name("FILE");
  cmd->add_option("script", args.script, "The script text (use -- before it if it starts with -)")
      ->type_name("SCRIPT");
  cmd->footer(
      "Exit status: 0 and the tree when the script parses; 1 and `line:col: message' on stderr "
      "when it does not; 64 for a usage error.");
}

namespace {

// The error as `line:col: message', and for a script bash would accept, why safesh does not.
void PrintError(const shell::SyntaxError& error) {
  std::cerr << error.ToString() << "\n";
  if (error.kind == shell::ErrorKind::kDeferred) {
    std::cerr << "note: bash itself reports this only when it runs that part of the script\n";
  } else if (error.kind == shell::ErrorKind::kUnsupported) {
    std::cerr << "note: bash accepts this, but safesh does not interpret it\n";
  }
}

}  // namespace

int RunParse(const ParseArgs& args) {
  std::string text;
  if (!args.file.empty()) {
    if (!args.script.empty()) {
      std::cerr << "safesh parse: give either a script or --file, not both\n";
      return kExitUsage;
    }
    std::string error;
    bool read = args.file == "-" ? util::ReadToEnd(0, "standard input", &text, &error)
                                 : util::ReadWholeFile(args.file, &text, &error);
    if (!read) {
      std::cerr << "safesh parse: cannot read " << error << "\n";
      return kExitUsage;
    }
  } else {
    text = args.script;
  }
  if (args.check) {
    std::optional<shell::SyntaxError> error = shell::Check(text);
    if (error) {
      PrintError(*error);
      return 1;
    }
    return 0;
  }
  shell::ParseResult r = shell::Parse(text);
  if (!r.ok()) {
    PrintError(*r.error);
    return 1;
  }
  if (args.json) {
    std::cout << shell::ToJson(r.script, text) << "\n";
  } else {
    std::cout << shell::ToTree(r.script, text);
  }
  return 0;
}

}  // namespace safesh::cli
