// safesh's settings: a TOML file (see docs/architecture.md, "Settings").
//
// Only what is written is set; everything else keeps its safe default. A key safesh does not
// know, or a value of the wrong type, is an error that names the file, the line and the key:
// a misspelt rule must not silently stop protecting anyone.
#pragma once

#include <optional>
#include <string>

#include "policy/verdict.h"

namespace safesh::config {

struct Settings {
  policy::CommandRules commands;
  // Sections and keys read by other parts of safesh, kept as written for them.
  // (They are validated here so that a typo is caught whichever command reads the file.)
};

// Reads settings from TOML text. `name` (the file's path) is used in error messages.
std::optional<Settings> ParseSettings(std::string_view text, const std::string& name,
                                      std::string* error);

// Reads the settings file at `path`.
std::optional<Settings> LoadSettings(const std::string& path, std::string* error);

}  // namespace safesh::config
