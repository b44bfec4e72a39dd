// `safesh trust`: accept the exact content of a workspace's .safesh/settings.toml, so that it
// may loosen as well as tighten; list and revoke what was accepted.
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <iostream>

#include "cli/verbs.h"
#include "config/layers.h"
#include "config/toml_text.h"
#include "util/file.h"
#include "util/sha256.h"
#include "util/shell_quote.h"
#include "util/unique_fd.h"

namespace safesh::cli {

void AddTrustCommand(CLI::App& app, TrustArgs& args) {
  CLI::App* cmd = app.add_subcommand(
      "trust",
      "Show the workspace's .safesh/settings.toml and trust its exact content (pinned by its "
      "SHA-256), so that it may loosen settings as well as tighten them");
  cmd->add_option("--workspace", args.workspace, "The workspace (default: the current directory)")
      ->type_name("DIR");
  cmd->add_flag("--yes", args.yes, "Trust without asking at the terminal (review the file first)");
  cmd->add_flag("--revoke", args.revoke, "Stop trusting the workspace's settings file");
  cmd->add_flag("--list", args.list, "List the trusted files and whether each is unchanged");
  cmd->footer(
      "Until trusted, a project's settings may only tighten (deny and ask rules, blocked and\n"
      "read-only paths, scrub_env, network and git config off, strict on). Trusted, it may also\n"
      "loosen the command rules (allow, auto_approve, strict off, headless allow), never the\n"
      "sandbox. A trusted file that changes is untrusted again. The list is in\n"
      "$XDG_STATE_HOME/safesh/trust.json (else\n"
      "~/.local/state/safesh/trust.json).\n"
      "Exit status: 0 done; 1 not trusted (declined, or no terminal and no --yes); 64 usage\n"
      "error; 66 no project settings file; 73 the list cannot be written; 78 bad settings or\n"
      "an unreadable list.");
}

namespace {

// The file as the person reviews it: each line indented, and a line holding control, invisible
// or direction-changing characters written as a bash $'...' string, so that what they read is
// what safesh reads.
std::string ShowContent(const std::string& text) {
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + start, end - start);
    out += util::HasHiddenCharacters(line)
               ? "  ! " + util::ShellQuote(line) + "   (hidden characters spelled out)\n"
               : "  | " + std::string(line) + "\n";
    start = end + 1;
  }
  return out;
}

bool AskAtTerminal(const std::string& question) {
  util::UniqueFd tty(open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC));
  if (!tty.valid()) return false;
  if (write(tty.get(), question.data(), question.size()) != static_cast<ssize_t>(question.size()))
    return false;
  std::string line;
  char c;
  while (line.size() < 64) {
    ssize_t n = read(tty.get(), &c, 1);
    if (n <= 0 || c == '\n') break;
    line += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back())))
    line.pop_back();
  return line == "y" || line == "yes";
}

bool HasTerminal() {
  util::UniqueFd tty(open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC));
  return tty.valid();
}

int List() {
  std::string error;
  std::optional<config::TrustStore> store = config::LoadTrustStore(TrustFile(), &error);
  if (!store) {
    std::cerr << "safesh trust: " << error << "\n";
    return kExitConfig;
  }
  if (store->files.empty()) std::cerr << "safesh trust: no project settings are trusted\n";
  for (const config::TrustedFile& f : store->files) {
    std::string text, why;
    const char* state = "unchanged";
    if (!util::ReadWholeFile(f.path, &text, &why)) {
      state = "missing";
    } else if (util::Sha256Hex(text) != f.sha256) {
      state = "changed";
    }
    std::cout << state << "  " << f.sha256.substr(0, 12) << "  " << f.trusted_at << "  "
              << config::CommentText(f.path) << "\n";
  }
  return 0;
}

int Revoke(const std::string& workspace) {
  std::string path = config::ProjectTrustKey(config::ProjectSettingsPath(workspace)), error;
  bool removed = false;
  if (!config::UpdateTrustStore(
          TrustFile(),
          [&](config::TrustStore* store) {
            auto& files = store->files;
            for (auto it = files.begin(); it != files.end();) {
              if (it->path == path) {
                it = files.erase(it);
                removed = true;
              } else {
                ++it;
              }
            }
          },
          &error)) {
    std::cerr << "safesh trust: " << error << "\n";
    return kExitCantCreate;
  }
  std::cerr << "safesh trust: " << (removed ? "no longer trusted: " : "was not trusted: ")
            << config::CommentText(path) << "\n";
  return 0;
}

}  // namespace

int RunTrust(const TrustArgs& args) {
  if (args.list + args.revoke > 1 || (args.list && (!args.workspace.empty() || args.yes)) ||
      (args.revoke && args.yes)) {
    std::cerr << "safesh trust: give one of --list, --revoke, or neither (to trust)\n";
    return kExitUsage;
  }
  if (args.list) return List();
  std::string workspace = WorkspaceDir(args.workspace);
  if (args.revoke) return Revoke(workspace);

  std::string path = config::ProjectSettingsPath(workspace), error;
  std::optional<config::ProjectFile> project = config::ReadProjectFile(path, &error);
  if (!project && error.empty()) {
    std::cerr << "safesh trust: there is no project settings file " << config::CommentText(path)
              << " to trust\n";
    return kExitNoInput;
  }
  if (!project) {
    std::cerr << "safesh trust: bad settings: " << error << "\n";
    return kExitConfig;
  }
  std::string never;
  for (const config::Loosening& l : project->loosening) {
    if (l.kind == config::ProjectKey::kNever)
      never += "  " + std::to_string(l.key.at.line) + ":" + std::to_string(l.key.at.column) + ": " +
               l.what + " " + l.why + "\n";
  }
  if (!never.empty()) {
    std::cerr << "safesh trust: " << config::CommentText(path)
              << " sets what a project file can never set, trusted or not:\n"
              << never << "Remove these keys first; nothing was trusted.\n";
    return kExitConfig;
  }
  std::optional<config::TrustStore> store = config::LoadTrustStore(TrustFile(), &error);
  if (!store) {
    std::cerr << "safesh trust: " << error << "\n";
    return kExitConfig;
  }
  if (config::JudgeTrust(*project, *store) == config::ProjectTrust::kTrusted) {
    std::cerr << "safesh trust: already trusted, unchanged: " << config::CommentText(path)
              << " (sha256 " << project->sha256 << ")\n";
    return 0;
  }

  std::string shown = "Project settings " + config::CommentText(project->trust_key) + "\nsha256 " +
                      project->sha256 + "\n\n" + ShowContent(project->text) + "\n";
  if (project->loosening.empty()) {
    shown += "It only tightens what your own settings allow; trusted or not, it applies.\n";
  } else {
    shown += "Trusted, it loosens what safesh allows:\n";
    for (const config::Loosening& l : project->loosening)
      shown += "  " + std::to_string(l.key.at.line) + ":" + std::to_string(l.key.at.column) + ": " +
               l.what + " " + l.why + "\n";
  }
  std::cout << shown;
  std::cout.flush();
  if (!args.yes) {
    if (!HasTerminal()) {
      std::cerr << "safesh trust: not trusted: no terminal to ask; after reviewing the file, run "
                   "`safesh trust --yes`\n";
      return 1;
    }
    if (!AskAtTerminal("\nTrust this exact content? [y/N] ")) {
      std::cerr << "safesh trust: not trusted\n";
      return 1;
    }
  }
  config::TrustedFile entry{project->trust_key, project->sha256, config::UtcNow()};
  if (!config::UpdateTrustStore(
          TrustFile(),
          [&](config::TrustStore* s) {
            std::erase_if(s->files,
                          [&](const config::TrustedFile& f) { return f.path == entry.path; });
            s->files.push_back(entry);
          },
          &error)) {
    std::cerr << "safesh trust: " << error << "\n";
    return kExitCantCreate;
  }
  std::cerr << "safesh trust: trusted " << config::CommentText(project->trust_key) << " (sha256 "
            << project->sha256.substr(0, 12) << "...); any change to it makes it untrusted again\n";
  return 0;
}

}  // namespace safesh::cli
