// `safesh parse`: shows how safesh (and bash) reads a script.
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/verbs.h"
#include "shell/ast_json.h"
#include "shell/parser.h"

namespace safesh::cli {

void AddParseCommand(CLI::App& app, ParseArgs& args) {
  CLI::App* cmd = app.add_subcommand(
      "parse", "Parse SCRIPT as bash and print its syntax tree, or the syntax error");
  cmd->add_flag("--json", args.json, "Print the tree as JSON");
  cmd->add_option("-f,--file", args.file, "Read the script from FILE instead of the argument");
  cmd->add_option("script", args.script, "The script text (use -- before it if it starts with -)");
  cmd->footer(
      "Exit status: 0 and the tree when the script parses; 1 and `line:col: message' on stderr "
      "when it does not; 64 for a usage error.");
}

int RunParse(const ParseArgs& args) {
  std::string text;
  if (!args.file.empty()) {
    if (!args.script.empty()) {
      std::cerr << "safesh parse: give either a script or --file, not both\n";
      return kExitUsage;
    }
    std::ifstream in(args.file, std::ios::binary);
    if (!in) {
      std::cerr << "safesh parse: cannot read " << args.file << "\n";
      return kExitUsage;
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    text = ss.str();
  } else {
    text = args.script;
  }
  shell::ParseResult r = shell::Parse(text);
  if (!r.ok()) {
    std::cerr << r.error->ToString() << "\n";
    if (r.error->kind == shell::ErrorKind::kDeferred) {
      std::cerr << "note: bash itself reports this only when it runs that part of the script\n";
    } else if (r.error->kind == shell::ErrorKind::kUnsupported) {
      std::cerr << "note: bash accepts this, but safesh does not interpret it\n";
    }
    return 1;
  }
  if (args.json) {
    std::cout << shell::ToJson(r.script, text)
                     .dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace)
              << "\n";
  } else {
    std::cout << shell::ToTree(r.script, text);
  }
  return 0;
}

}  // namespace safesh::cli
