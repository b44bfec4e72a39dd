// The CLI's verbs. Each lives in its own file (src/cli/cmd_<verb>.cc) and registers its options
// on the shared CLI11 app; Run functions return the process exit code.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace safesh::cli {

// Exit codes shared by every verb (see docs/architecture.md, "External contracts").
inline constexpr int kExitUsage = 64;
inline constexpr int kExitConfig = 78;

struct ParseArgs {
  bool json = false;
  bool check = false;
  std::string file;
  std::string script;
};

void AddParseCommand(CLI::App& app, ParseArgs& args);
int RunParse(const ParseArgs& args);

struct CheckArgs {
  std::string config;
  bool json = false;
  bool jsonl = false;
  bool argv_mode = false;
  std::vector<std::string> words;
};

void AddCheckCommand(CLI::App& app, CheckArgs& args);
int RunCheck(const CheckArgs& args);

struct RunArgs {
  std::string config;
  std::string workspace;
  std::string cwd;
  std::optional<double> timeout;
  bool json = false;
  std::string approve;
  std::vector<std::string> words;
};

void AddRunCommand(CLI::App& app, RunArgs& args);
int RunRun(const RunArgs& args);

struct DoctorArgs {
  bool json = false;
  bool fix_apparmor = false;
};

void AddDoctorCommand(CLI::App& app, DoctorArgs& args);
int RunDoctor(const DoctorArgs& args);

}  // namespace safesh::cli
