// `safesh config show`: the effective settings, and which layer each value came from.
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli/verbs.h"
#include "config/layers.h"
#include "config/toml_text.h"

namespace safesh::cli {

void AddConfigCommand(CLI::App& app, ConfigArgs& args) {
  CLI::App* config = app.add_subcommand("config", "Show the settings safesh uses");
  config->require_subcommand(1);
  CLI::App* show = config->add_subcommand(
      "show", "Print the effective settings and the file (or default, or variable) of each value");
  show->add_option("--config", args.config, "Settings file (TOML) over the others")
      ->type_name("FILE");
  show->add_option("--workspace", args.workspace,
                   "The workspace whose .safesh/settings.toml applies (default: the current "
                   "directory)")
      ->type_name("DIR");
  show->add_flag("--json", args.json, "Print them as a JSON object");
  show->footer(
      "Layers, lowest first: defaults, ~/.config/safesh/settings.toml (XDG_CONFIG_HOME),\n"
      "<workspace>/.safesh/settings.toml (only tightens until `safesh trust`), --config,\n"
      "SAFESH_SANDBOX_SHELL. Lists accumulate; other values take the last layer's.\n"
      "The text output is valid TOML. Exit status: 0; 64 usage error; 78 bad settings.");
}

namespace {

const char* TrustName(config::ProjectTrust t) {
  switch (t) {
    case config::ProjectTrust::kNone:
      return "none";
    case config::ProjectTrust::kUntrusted:
      return "untrusted";
    case config::ProjectTrust::kChanged:
      return "changed";
    case config::ProjectTrust::kTrusted:
      return "trusted";
  }
  return "?";
}

std::string FileNote(const config::LayerFile& f, const config::LayeredSettings& l) {
  std::string note = config::LayerName(f.layer);
  if (f.layer == config::Layer::kProject) {
    note += l.project == config::ProjectTrust::kTrusted ? ", trusted"
            : l.project == config::ProjectTrust::kChanged
                ? ", changed since it was trusted: tightening only"
                : ", not trusted: tightening only";
  }
  return note;
}

std::string ScalarText(const config::EffectiveValue& v) {
  switch (v.kind) {
    case config::EffectiveValue::kBool:
      return v.b ? "true" : "false";
    case config::EffectiveValue::kInt:
      return std::to_string(v.i);
    case config::EffectiveValue::kString:
      return config::TomlString(v.s);
    case config::EffectiveValue::kList:
      break;
  }
  return "";
}

std::string From(const std::vector<config::Origin>& origins, size_t i) {
  return i < origins.size() ? config::CommentText(config::DescribeOrigin(origins[i])) : "default";
}

void PrintText(const std::string& workspace, const config::LayeredSettings& l) {
  std::string out = "# safesh's effective settings for " + config::CommentText(workspace) + "\n";
  out += "# layers, lowest first: defaults";
  for (const config::LayerFile& f : l.files)
    out += "\n#   < " + config::CommentText(f.path) + " (" + FileNote(f, l) + ")";
  if (l.origins.count("sandbox.shell") &&
      l.origins.at("sandbox.shell").front().layer == config::Layer::kEnv)
    out += "\n#   < SAFESH_SANDBOX_SHELL (env)";
  out += "\n";
  std::string section;
  for (const config::EffectiveValue& v : config::EffectiveValues(l)) {
    if (v.section != section) {
      section = v.section;
      out += "\n[" + section + "]\n";
    }
    if (v.kind != config::EffectiveValue::kList) {
      out += v.key + " = " + ScalarText(v) + "  # " + From(v.origins, 0) + "\n";
      continue;
    }
    // An allow list that no layer wrote is not an empty one: an empty one lets nothing run.
    if (v.unset ||
        (v.section == "commands" && v.key == "allow" && !l.settings.commands.allow_list)) {
      out += "# " + v.key + " is not set\n";
      continue;
    }
    if (v.list.empty()) {
      out += v.key + " = []\n";
      continue;
    }
    out += v.key + " = [\n";
    for (size_t i = 0; i < v.list.size(); ++i)
      out += "  " + config::TomlString(v.list[i]) + ",  # " + From(v.origins, i) + "\n";
    out += "]\n";
  }
  std::cout << out;
}

nlohmann::json OriginJson(const std::vector<config::Origin>& origins, size_t i) {
  return i < origins.size() ? config::DescribeOrigin(origins[i]) : "default";
}

void PrintJson(const std::string& workspace, const config::LayeredSettings& l) {
  nlohmann::json files = nlohmann::json::array();
  for (const config::LayerFile& f : l.files)
    files.push_back(
        {{"layer", config::LayerName(f.layer)}, {"path", f.path}, {"sha256", f.sha256}});
  nlohmann::json settings = nlohmann::json::object();
  for (const config::EffectiveValue& v : config::EffectiveValues(l)) {
    nlohmann::json entry;
    if (v.kind == config::EffectiveValue::kList) {
      bool unset = v.unset ||
                   (v.section == "commands" && v.key == "allow" && !l.settings.commands.allow_list);
      entry["value"] = unset ? nlohmann::json(nullptr) : nlohmann::json(v.list);
      nlohmann::json from = nlohmann::json::array();
      for (size_t i = 0; i < v.list.size() && !unset; ++i)
        from.push_back(OriginJson(v.origins, i));
      entry["from"] = from;
    } else {
      if (v.kind == config::EffectiveValue::kBool) entry["value"] = v.b;
      if (v.kind == config::EffectiveValue::kInt) entry["value"] = v.i;
      if (v.kind == config::EffectiveValue::kString) entry["value"] = v.s;
      entry["from"] = OriginJson(v.origins, 0);
    }
    settings[v.section][v.key] = entry;
  }
  nlohmann::json j = {
      {"workspace", workspace},
      {"files", files},
      {"project",
       {{"path", config::ProjectSettingsPath(workspace)}, {"trust", TrustName(l.project)}}},
      {"settings", settings}};
  std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

}  // namespace

int RunConfigShow(const ConfigArgs& args) {
  std::string workspace = WorkspaceDir(args.workspace);
  config::LayeredSettings layered;
  if (!LoadLayers("config show", workspace, args.config, &layered)) return kExitConfig;
  if (args.json) {
    PrintJson(workspace, layered);
  } else {
    PrintText(workspace, layered);
  }
  std::cout.flush();
  return std::cout ? 0 : 1;
}

}  // namespace safesh::cli
