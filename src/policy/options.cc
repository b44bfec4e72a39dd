#include "policy/options.h"

namespace safesh::policy {
namespace {

enum class ArgKind { kNone, kRequired, kOptional };

struct LongMatch {
  std::string name;
  ArgKind arg = ArgKind::kNone;
  std::string error;
};

LongMatch FindLong(const OptionSpec& spec, std::string_view given) {
  std::vector<LongMatch> candidates;
  for (std::string_view l : spec.longs) {
    ArgKind kind = ArgKind::kNone;
    if (!l.empty() && l.back() == '=') {
      kind = ArgKind::kRequired;
      l.remove_suffix(1);
    } else if (!l.empty() && l.back() == '?') {
      kind = ArgKind::kOptional;
      l.remove_suffix(1);
    }
    LongMatch m{"--" + std::string(l), kind, {}};
    if (l == given) return m;
    // getopt_long accepts any prefix that names one option only.
    if (!given.empty() && l.substr(0, given.size()) == given) candidates.push_back(std::move(m));
  }
  if (candidates.size() == 1) return candidates[0];
  LongMatch bad;
  bad.error = candidates.empty() ? "unknown option --" + std::string(given)
                                 : "ambiguous option --" + std::string(given);
  return bad;
}

}  // namespace

bool ParsedOptions::Has(std::string_view name) const {
  return Find(name) != nullptr;
}

const ParsedOption* ParsedOptions::Find(std::string_view name) const {
  for (const ParsedOption& o : options) {
    if (o.name == name) return &o;
  }
  return nullptr;
}

ParsedOptions ParseOptions(const Argv& argv, size_t start, const OptionSpec& spec) {
  ParsedOptions out;
  out.first_operand = argv.size();
  bool options_done = false;
  for (size_t i = start; i < argv.size(); ++i) {
    const Arg& a = argv[i];
    if (options_done) {
      out.operands.push_back(i);
      continue;
    }
    if (!a.is_static) {
      // It could be an option, or several words: what follows cannot be read with certainty.
      out.error = "`" + a.text + "' is computed when the command runs and could be an option";
      return out;
    }
    const std::string& w = a.text;
    if (w == "--") {
      options_done = true;
      if (spec.stop_at_operand) out.first_operand = i + 1;
      continue;
    }
    if (w.size() < 2 || w[0] != '-') {
      out.operands.push_back(i);
      if (spec.stop_at_operand) {
        out.first_operand = i;
        for (size_t k = i + 1; k < argv.size(); ++k)
          out.operands.push_back(k);
        return out;
      }
      continue;
    }
    if (w[1] == '-') {
      size_t eq = w.find('=');
      std::string given = w.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
      LongMatch m = FindLong(spec, given);
      if (!m.error.empty()) {
        out.error = m.error;
        return out;
      }
      ParsedOption o{m.name, {}, false, true, i};
      if (eq != std::string::npos) {
        if (m.arg == ArgKind::kNone) {
          out.error = "option " + m.name + " takes no value";
          return out;
        }
        o.value = w.substr(eq + 1);
        o.has_value = true;
      } else if (m.arg == ArgKind::kRequired) {
        if (i + 1 >= argv.size()) {
          out.error = "option " + m.name + " needs a value";
          return out;
        }
        ++i;
        o.value = argv[i].text;
        o.value_static = argv[i].is_static;
        o.has_value = true;
      }
      out.options.push_back(std::move(o));
      continue;
    }
    // A cluster of short options: -abc, -k5, -k 5.
    for (size_t k = 1; k < w.size(); ++k) {
      char c = w[k];
      std::string name = std::string("-") + c;
      if (spec.flags.find(c) != std::string_view::npos) {
        out.options.push_back({name, {}, false, true, i});
      } else if (spec.with_arg.find(c) != std::string_view::npos) {
        ParsedOption o{name, {}, true, true, i};
        if (k + 1 < w.size()) {
          o.value = w.substr(k + 1);
        } else if (i + 1 < argv.size()) {
          ++i;
          o.value = argv[i].text;
          o.value_static = argv[i].is_static;
        } else {
          out.error = "option " + name + " needs a value";
          return out;
        }
        out.options.push_back(std::move(o));
        break;
      } else if (spec.optional_arg.find(c) != std::string_view::npos) {
        ParsedOption o{name, w.substr(k + 1), k + 1 < w.size(), true, i};
        out.options.push_back(std::move(o));
        break;
      } else {
        out.error = "unknown option " + name;
        return out;
      }
    }
  }
  return out;
}

}  // namespace safesh::policy
