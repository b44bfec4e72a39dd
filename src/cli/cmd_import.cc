// `safesh import claude`: Claude Code's permission rules as safesh settings
// (config/claude_import.h).
#include <sys/stat.h>

#include <iostream>

#include "cli/verbs.h"
#include "config/claude_import.h"
#include "config/toml_text.h"
#include "util/file.h"

namespace safesh::cli {

void AddImportCommand(CLI::App& app, ImportArgs& args) {
  CLI::App* import = app.add_subcommand("import", "Translate another tool's rules into safesh's");
  import->require_subcommand(1);
  CLI::App* claude = import->add_subcommand(
      "claude", "Print Claude Code's permission rules (settings.json) as safesh settings (TOML)");
  claude
      ->add_option("path", args.path,
                   "Claude Code's settings.json (default: ./.claude/settings.json, else "
                   "~/.claude/settings.json)")
      ->type_name("PATH");
  claude->footer(
      "The TOML goes to standard output; the rules that could not be imported are listed in it\n"
      "as comments and on standard error, with why. Claude Code's allow rules become\n"
      "auto_approve.\n"
      "Exit status: 0 printed; 64 usage error; 66 no settings file found; 78 the file cannot be\n"
      "read or is not valid Claude Code settings JSON.");
}

int RunImportClaude(const ImportArgs& args) {
  std::string path = args.path;
  if (path.empty()) {
    std::string home = HomeFolder();
    for (const std::string& candidate :
         {std::string(".claude/settings.json"),
          home.empty() ? std::string() : home + "/.claude/settings.json"}) {
      struct stat st;
      if (!candidate.empty() && stat(candidate.c_str(), &st) == 0) {
        path = candidate;
        break;
      }
    }
    if (path.empty()) {
      std::cerr << "safesh import claude: no Claude Code settings found in "
                   "./.claude/settings.json or ~/.claude/settings.json; give the file's path\n";
      return kExitNoInput;
    }
  } else {
    struct stat st;
    if (stat(path.c_str(), &st) != 0 && errno == ENOENT) {
      std::cerr << "safesh import claude: " << config::CommentText(path)
                << ": No such file or directory\n";
      return kExitNoInput;
    }
  }
  std::string text, error;
  if (!util::ReadWholeFile(path, &text, &error)) {
    std::cerr << "safesh import claude: " << error << "\n";
    return kExitConfig;
  }
  std::optional<config::ClaudeImport> imported = config::ImportClaudeSettings(text, path, &error);
  if (!imported) {
    std::cerr << "safesh import claude: " << error << "\n";
    return kExitConfig;
  }
  std::cout << config::ClaudeImportToml(*imported, path);
  std::cout.flush();
  for (const config::SkippedRule& s : imported->skipped) {
    std::cerr << "safesh import claude: not imported: " << s.list << " "
              << config::CommentText(s.rule) << ": " << config::CommentText(s.why) << "\n";
  }
  return std::cout ? 0 : 1;
}

}  // namespace safesh::cli
