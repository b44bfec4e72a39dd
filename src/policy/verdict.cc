#include "policy/verdict.h"

#include "policy/strict.h"
#include "policy/sweep.h"
#include "util/json_writer.h"

namespace safesh::policy {
namespace {

bool Transparent(const CommandUse& u) {
  return u.role == Role::kWrapper || u.role == Role::kShell;
}

std::string Quote(const std::string& s) {
  return "`" + s + "'";
}

std::string Where(const CommandUse& u) {
  return u.via.empty() ? std::string() : " (run by " + u.via + ")";
}

// The first pattern `argv` matches for certain, and whether any might match.
struct RuleMatch {
  const Pattern* yes = nullptr;
  const Pattern* maybe = nullptr;
};

RuleMatch MatchAny(const std::vector<Pattern>& patterns, const Argv& argv, bool by_base_name) {
  RuleMatch m;
  for (const Pattern& p : patterns) {
    MatchResult r = Match(p, argv, by_base_name);
    if (r == MatchResult::kYes) {
      m.yes = &p;
      return m;
    }
    if (r == MatchResult::kMaybe && m.maybe == nullptr) m.maybe = &p;
  }
  return m;
}

// Text that does not parse may still run: bash accepts some of what safesh refuses (extglob
// patterns, for one). Its words are split roughly at blanks and operators, quotes dropped, and
// every run of words after each word is matched against the deny rules. This can only turn a
// verdict into a denial, never allow anything.
const Pattern* DeniedInUnparsed(const std::vector<Pattern>& deny, const std::string& text) {
  std::vector<std::vector<std::string>> segments(1);
  std::string word;
  auto end_word = [&]() {
    if (!word.empty()) segments.back().push_back(word);
    word.clear();
  };
  for (char c : text) {
    if (std::string_view(" \t").find(c) != std::string_view::npos) {
      end_word();
    } else if (std::string_view(";&|()<>{}`$\n").find(c) != std::string_view::npos) {
      end_word();
      segments.emplace_back();
    } else if (c != '\'' && c != '"' && c != '\\') {
      word += c;
    }
  }
  end_word();
  for (const std::vector<std::string>& seg : segments) {
    for (size_t i = 0; i < seg.size(); ++i) {
      Argv argv;
      for (size_t k = i; k < seg.size(); ++k)
        argv.push_back(Arg{seg[k], true, {}});
      for (const Pattern& p : deny) {
        if (Match(p, argv, /*by_base_name=*/true) == MatchResult::kYes) return &p;
      }
    }
  }
  return nullptr;
}

Verdict FromExtraction(const Policy* policy, Extraction ex, std::string_view strict_text,
                       bool check_strict, const JudgeOptions& options) {
  Verdict v;
  for (CommandUse& u : ex.commands)
    v.commands.push_back({std::move(u), {}});
  v.writes = std::move(ex.writes);
  v.unverified = std::move(ex.unverified);
  v.network = std::move(ex.network);
  v.runtime = std::move(ex.runtime);
  if (ex.parse_error) v.parse_error = ex.parse_error->ToString();

  auto decide = [&](Decision d, std::string reason) {
    v.decision = d;
    v.reason = std::move(reason);
    return v;
  };

  // 1. Disk sweeps, whatever the rules.
  for (const JudgedCommand& c : v.commands) {
    if (auto root = DiskSweepRoot(c.use, options.home)) {
      return decide(Decision::kDeny, DiskSweepReason(c.use, *root));
    }
  }
  // 2. Strict mode.
  if (policy != nullptr && policy->rules().strict && check_strict) {
    if (auto problem = StrictModeProblem(strict_text)) return decide(Decision::kDeny, *problem);
  }
  // 3. Deny rules, which also apply to wrappers and to code found inside unverified code.
  std::vector<std::string> asks;
  if (policy != nullptr) {
    for (JudgedCommand& c : v.commands) {
      if (c.use.role == Role::kLookup) continue;
      RuleMatch m = MatchAny(policy->deny(), c.use.argv, /*by_base_name=*/true);
      if (m.yes != nullptr) {
        c.matched = "deny: " + m.yes->text;
        return decide(Decision::kDeny, Quote(ShowArgv(c.use.argv)) + Where(c.use) +
                                           " matches the deny rule " + Quote(m.yes->text));
      }
      if (m.maybe != nullptr) {
        asks.push_back(Quote(ShowArgv(c.use.argv)) + Where(c.use) + " may match the deny rule " +
                       Quote(m.maybe->text) + " depending on values computed when it runs");
      }
    }
  }
  if (policy != nullptr) {
    for (const std::string& text : ex.unparsed) {
      if (const Pattern* p = DeniedInUnparsed(policy->deny(), text)) {
        return decide(Decision::kDeny, "text that safesh cannot parse, but bash may run, names " +
                                           Quote(p->text) + ", which a deny rule forbids");
      }
    }
  }
  if (v.parse_error) {
    if (policy != nullptr && policy->rules().allow_list) {
      return decide(Decision::kDeny, "the command does not parse as bash (" + *v.parse_error +
                                         "), and an allow list is set");
    }
    return decide(Decision::kAsk, "the command does not parse as bash: " + *v.parse_error);
  }
  if (policy == nullptr) {
    return decide(Decision::kAsk, "no command policy is configured: every command needs approval");
  }
  // 4. The allow list.
  if (policy->rules().allow_list) {
    if (!v.unverified.empty()) {
      const Finding& f = v.unverified.front();
      return decide(Decision::kDeny, Quote(f.subject) + " cannot be verified (" + f.reason +
                                         "), and an allow list is set");
    }
    for (JudgedCommand& c : v.commands) {
      if (Transparent(c.use)) continue;
      RuleMatch m = MatchAny(policy->allow(), c.use.argv, /*by_base_name=*/false);
      if (m.yes == nullptr) {
        return decide(
            Decision::kDeny,
            Quote(ShowArgv(c.use.argv)) + Where(c.use) + " is not on the allow list" +
                (c.use.IsStatic() ? "" : " (or depends on values computed when it runs)"));
      }
      c.matched = "allow: " + m.yes->text;
    }
  }
  // 5. Ask rules.
  for (JudgedCommand& c : v.commands) {
    if (c.use.role == Role::kLookup) continue;
    RuleMatch m = MatchAny(policy->ask(), c.use.argv, /*by_base_name=*/true);
    const Pattern* p = m.yes != nullptr ? m.yes : m.maybe;
    if (p != nullptr) {
      c.matched = "ask: " + p->text;
      asks.push_back(Quote(ShowArgv(c.use.argv)) + Where(c.use) + " matches the ask rule " +
                     Quote(p->text));
    }
  }
  // 6. Auto-approval: everything must be known and approved.
  for (const Write& w : v.writes) {
    asks.push_back(
        "it writes " +
        (w.is_static ? Quote(w.target) : "a file computed when it runs (" + w.target + ")") + " (" +
        w.how + ")");
  }
  for (const Finding& f : v.network)
    asks.push_back(Quote(f.subject) + " " + f.reason);
  for (const Finding& f : v.unverified)
    asks.push_back(Quote(f.subject) + " cannot be verified: " + f.reason);
  for (const Finding& f : v.runtime)
    asks.push_back(Quote(f.subject) + ": " + f.reason);
  for (JudgedCommand& c : v.commands) {
    // A wrapper or shell run by xargs receives words read from its input, which could be the
    // command it runs or its options (`xargs timeout 5 rg x' gives rg file names that could
    // be --pre=...): the words are not known, transparent or not.
    if (Transparent(c.use) && c.use.takes_input_args && !c.use.in_unverified) {
      asks.push_back(Quote(ShowArgv(c.use.argv)) + Where(c.use) +
                     " receives more arguments read from its input");
      continue;
    }
    if (Transparent(c.use)) continue;
    RuleMatch m = MatchAny(policy->auto_approve(), c.use.argv, /*by_base_name=*/false);
    if (m.yes != nullptr && c.matched.empty()) c.matched = "auto_approve: " + m.yes->text;
    // Already reported through an unverified finding.
    if (c.use.in_unverified || c.use.argv.empty() || !c.use.argv[0].is_static) continue;
    if (m.yes == nullptr) {
      asks.push_back(Quote(ShowArgv(c.use.argv)) + Where(c.use) + " is not in auto_approve");
    } else if (c.use.UsesExpansion()) {
      std::string why;
      for (const Arg& a : c.use.argv) {
        if (!a.is_static) {
          why = a.why.empty() ? a.text : a.why;
          break;
        }
      }
      if (why.empty()) why = "arguments read from its input";
      asks.push_back(Quote(ShowArgv(c.use.argv)) + Where(c.use) +
                     " uses a value computed when it runs (" + why + ")");
    }
  }
  if (asks.empty()) {
    return decide(Decision::kAllow, v.commands.empty() ? "nothing in it runs a command"
                                                       : "every command matches auto_approve");
  }
  std::string reason = "needs approval: " + asks[0];
  for (size_t i = 1; i < asks.size() && i < 4; ++i)
    reason += "; " + asks[i];
  if (asks.size() > 4) reason += "; and " + std::to_string(asks.size() - 4) + " more";
  return decide(Decision::kAsk, reason);
}

void WriteFindings(util::JsonWriter& w, const char* key, const std::vector<Finding>& list) {
  w.Key(key);
  w.BeginArray();
  for (const Finding& f : list) {
    w.BeginObject();
    w.Key("subject");
    w.String(f.subject);
    w.Key("reason");
    w.String(f.reason);
    if (f.pos.line > 0) {
      w.Key("pos");
      w.String(shell::FormatPosition(f.pos));
    }
    w.EndObject();
  }
  w.EndArray();
}

}  // namespace

const char* DecisionName(Decision d) {
  switch (d) {
    case Decision::kAllow:
      return "allow";
    case Decision::kAsk:
      return "ask";
    case Decision::kDeny:
      return "deny";
  }
  return "ask";
}

std::optional<Policy> Policy::Compile(const CommandRules& rules, std::string* error) {
  Policy p;
  p.rules_ = rules;
  struct List {
    const char* key;
    const std::vector<std::string>* from;
    std::vector<Pattern>* to;
  };
  for (const List& l : {List{"deny", &rules.deny, &p.deny_}, List{"ask", &rules.ask, &p.ask_},
                        List{"allow", &rules.allow, &p.allow_},
                        List{"auto_approve", &rules.auto_approve, &p.auto_}}) {
    for (const std::string& text : *l.from) {
      std::string why;
      std::optional<Pattern> pattern = ParsePattern(text, &why);
      if (!pattern) {
        *error = std::string("[commands] ") + l.key + ": " + why;
        return std::nullopt;
      }
      l.to->push_back(std::move(*pattern));
    }
  }
  return p;
}

Verdict Judge(const Policy* policy, std::string_view command, const JudgeOptions& options) {
  if (command.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    Verdict v;
    v.decision = Decision::kDeny;
    v.reason = "the command is empty";
    return v;
  }
  return FromExtraction(policy, ExtractScript(command), command, /*check_strict=*/true, options);
}

Verdict JudgeArgv(const Policy* policy, const std::vector<std::string>& argv,
                  const JudgeOptions& options) {
  if (argv.empty() || argv[0].empty()) {
    Verdict v;
    v.decision = Decision::kDeny;
    v.reason = argv.empty() ? "the argv is empty" : "the program name is empty";
    return v;
  }
  // No shell reads an argv: strict mode's character rules do not apply.
  return FromExtraction(policy, ExtractArgv(argv), {}, /*check_strict=*/false, options);
}

std::string VerdictJson(const Verdict& v) {
  std::string out;
  util::JsonWriter w(&out);
  w.BeginObject();
  w.Key("verdict");
  w.String(DecisionName(v.decision));
  w.Key("reason");
  w.String(v.reason);
  w.Key("commands");
  w.BeginArray();
  for (const JudgedCommand& c : v.commands) {
    w.BeginObject();
    w.Key("argv");
    w.BeginArray();
    for (const Arg& a : c.use.argv)
      w.String(a.text);
    w.EndArray();
    w.Key("static");
    w.Bool(c.use.IsStatic());
    w.Key("matched");
    if (c.matched.empty()) {
      w.Null();
    } else {
      w.String(c.matched);
    }
    w.Key("role");
    w.String(RoleName(c.use.role));
    if (c.use.pos.line > 0) {
      w.Key("pos");
      w.String(shell::FormatPosition(c.use.pos));
    }
    if (!c.use.via.empty()) {
      w.Key("via");
      w.String(c.use.via);
    }
    if (c.use.in_unverified) {
      w.Key("in_unverified_code");
      w.Bool(true);
    }
    w.EndObject();
  }
  w.EndArray();
  w.Key("writes");
  w.BeginArray();
  for (const Write& wr : v.writes) {
    w.BeginObject();
    w.Key("target");
    w.String(wr.target);
    w.Key("static");
    w.Bool(wr.is_static);
    w.Key("by");
    w.String(wr.how);
    if (wr.pos.line > 0) {
      w.Key("pos");
      w.String(shell::FormatPosition(wr.pos));
    }
    w.EndObject();
  }
  w.EndArray();
  WriteFindings(w, "unverified", v.unverified);
  WriteFindings(w, "network", v.network);
  WriteFindings(w, "runtime", v.runtime);
  w.Key("parse_error");
  if (v.parse_error) {
    w.String(*v.parse_error);
  } else {
    w.Null();
  }
  w.EndObject();
  return out;
}

}  // namespace safesh::policy
