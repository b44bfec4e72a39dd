// What a project's settings file (.safesh/settings.toml, which comes with the code) may set.
//
// A repository is written by whoever wrote the code, not by the person running the agent, so
// its settings may only tighten until that person trusts the file's exact content
// (config/trust.h): add deny and ask rules, blocked and read-only paths, scrub patterns, turn
// the network or git config writes off, turn strict mode on. Anything that lets more happen
// (auto_approve or allow rules, writable paths, the network, sockets, passed-through
// variables, a headless "allow", strict mode off) needs trust. A few things a project file can
// never set, trusted or not: the sandbox mode below "required", and (when such keys exist)
// credentials and endpoints.
//
// Each key is judged by the value the file writes, never by comparing it with the person's
// own settings: a value is accepted only when it cannot loosen whatever those say (so
// `strict = false` needs trust even where strict is off anyway), and a project file is
// acceptable or not the same way on every machine. A key this table does not know is refused
// (fail closed): a key added to settings.cc must be classified here (a test checks that every
// known key is).
#pragma once

#include <string>
#include <vector>

#include "config/settings.h"

namespace safesh::config {

enum class ProjectKey {
  kTightens,    // may be set by any project file (it only tightens, or only bounds resources)
  kNeedsTrust,  // loosens: only once the person trusts the file
  kNever,       // a project file may never set this, trusted or not
};

// A key, as written in a project file, that tightening alone does not allow.
struct Loosening {
  WrittenKey key;
  ProjectKey kind = ProjectKey::kNeedsTrust;
  std::string what;  // the key and value, e.g. "[sandbox] allow_network = true"
  std::string why;   // what it would let happen, e.g. "commands could reach the network"
};

// The keys of `file` that need trust (or are never allowed), in the file's order.
std::vector<Loosening> FindLoosening(const SettingsFile& file);

// Whether the table has a rule for the key (an unknown one is refused in every project file).
bool IsClassified(const std::string& section, const std::string& key);

}  // namespace safesh::config
