// libFuzzer target: any bytes through the whole policy (parse, extract, match, verdict) under a
// policy that uses every kind of rule, as a command line and as an argv. Beyond the sanitizers
// it checks what must hold for every input: the JSON is valid, a verdict that allows has no
// finding that should have stopped it, and deny rules always win.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "policy/verdict.h"

namespace {

using namespace safesh::policy;

void Check(bool ok) {
  if (!ok) std::abort();
}

const Policy& TestPolicy() {
  static const Policy policy = [] {
    CommandRules rules;
    rules.deny = {"rm", "curl", "git push --force*", "re:sudo( .*)?"};
    rules.ask = {"git commit"};
    rules.auto_approve = {"ls *",      "cat *",   "echo *", "git *", "grep *", "find *", "bash *",
                          "timeout *", "xargs *", "sed *",  "awk *", "sort *", "env *"};
    std::string error;
    return *Policy::Compile(rules, &error);
  }();
  return policy;
}

void CheckVerdict(const Verdict& v, bool with_policy) {
  Check(nlohmann::json::accept(VerdictJson(v)));
  if (v.decision == Decision::kAllow) {
    Check(v.writes.empty() && v.unverified.empty() && v.network.empty() && v.runtime.empty());
    Check(!v.parse_error.has_value());
    for (const JudgedCommand& c : v.commands) {
      Check(c.use.role == Role::kWrapper || c.use.role == Role::kShell ||
            (!c.use.UsesExpansion() && !c.use.in_unverified));
    }
  }
  for (const JudgedCommand& c : v.commands) {
    if (!with_policy) break;
    // Under a policy that denies rm, a command that plainly is rm means the line is denied.
    if (c.use.role != Role::kLookup && !c.use.argv.empty() && c.use.argv[0].is_static &&
        c.use.argv[0].text == "rm") {
      Check(v.decision == Decision::kDeny);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  JudgeOptions options;
  options.home = "/home/user";
  CheckVerdict(Judge(&TestPolicy(), text, options), true);
  CheckVerdict(Judge(nullptr, text, options), false);
  // The same bytes as an argv: split at NUL bytes.
  std::vector<std::string> argv;
  size_t start = 0;
  for (size_t i = 0; i <= size; ++i) {
    if (i == size || data[i] == 0) {
      argv.emplace_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  CheckVerdict(JudgeArgv(&TestPolicy(), argv, options), true);
  return 0;
}
