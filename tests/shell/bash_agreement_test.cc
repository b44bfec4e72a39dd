// Agreement with bash: `bash -n` and safesh's parser side by side over the machine's shell
// scripts, the snippets of bash's own documentation, and thousands of generated and mutated
// scripts.
//
// A script must be accepted by both or rejected by both. The one allowed difference is a
// script bash accepts because it checks that part only when the command runs (the inside of
// backquotes, here-document bodies, arithmetic, ${...} operators, subscripts, pattern groups):
// the parser rejects those and marks the error kDeferred. A few constructs bash accepts but whose
// meaning depends on its implementation are refused too (kUnsupported). Both are counted and
// shown by kind. When bash itself crashes or loops on an input, the case is shown and skipped.
//
// SAFESH_AGREEMENT_CASES scales the number of generated scripts (default 2500 + 2500 mutations).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "bash_oracle.h"
#include "script_generator.h"
#include "shell/parser.h"
#include "support/script_files.h"

namespace safesh::testing {
namespace {

struct Tally {
  int both_accept = 0;
  int both_reject = 0;
  int same_line = 0;    // both reject and report the same line
  int deferred = 0;     // bash accepts, safesh refuses with a deferred or unsupported error
  int bash_broken = 0;  // bash crashed or did not finish: nothing to compare
  std::vector<std::string> mismatches;
  std::vector<std::string> deferred_examples;

  void Report(const char* what) const {
    std::printf(
        "[agreement] %s: %d cases; both accept %d, both reject %d (same line %d), "
        "bash accepts and safesh refuses on purpose %d, bash crashes or hangs %d, "
        "mismatches %zu\n",
        what,
        both_accept + both_reject + deferred + bash_broken + static_cast<int>(mismatches.size()),
        both_accept, both_reject, same_line, deferred, bash_broken, mismatches.size());
    // What bash left for run time, by kind of error (the message without its position).
    std::map<std::string, int> kinds;
    for (const std::string& d : deferred_examples) {
      // "NAME: KIND: line:col: message"
      size_t colon = d.find(": ");
      std::string kind = d.substr(colon + 2, d.find(": ", colon + 2) - colon - 2);
      std::string msg = d.substr(d.find(": ", colon + 2) + 2);
      msg = kind + ": " + msg.substr(msg.find(": ") + 2);
      size_t near = msg.find(" near ");
      if (near != std::string::npos) msg = msg.substr(0, near);
      ++kinds[msg];
    }
    for (const auto& [msg, count] : kinds) {
      std::printf("[agreement]   %5d x %s\n", count, msg.c_str());
    }
  }
};

std::string Shorten(const std::string& s, size_t n = 160) {
  std::string out;
  for (char c : s.substr(0, n)) {
    if (c == '\n') {
      out += "\\n";
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(c));
      out += buf;
    } else {
      out += c;
    }
  }
  if (s.size() > n) out += "...";
  return out;
}

int BashLine(const std::string& message) {
  // "bash: -c: line 3: ..." or "FILE: line 3: ..."
  size_t at = message.find("line ");
  if (at == std::string::npos) return -1;
  return std::atoi(message.c_str() + at + 5);
}

void Compare(const std::string& name, const std::string& script, const BashVerdict& bash,
             Tally& tally) {
  shell::ParseResult ours = shell::Parse(script);
  // The streaming check (`safesh parse --check`) must give the same answer as the full parse.
  std::optional<shell::SyntaxError> checked = shell::Check(script);
  auto answer = [](const std::optional<shell::SyntaxError>& e) {
    return e ? e->ToString() + " (kind " + std::to_string(static_cast<int>(e->kind)) + ")"
             : std::string("accepts");
  };
  std::string full_answer = answer(ours.error);
  std::string check_answer = answer(checked);
  if (full_answer != check_answer) {
    tally.mismatches.push_back(name + ": Parse says " + full_answer + " but Check says " +
                               check_answer + "\n    script: " + Shorten(script));
    return;
  }
  if (bash.broken) {
    ++tally.bash_broken;
    std::printf("[agreement]   bash itself fails on %s (%s); safesh: %s\n", name.c_str(),
                bash.message.c_str(), ours.ok() ? "accepts" : ours.error->ToString().c_str());
    return;
  }
  if (bash.accepted && ours.ok()) {
    ++tally.both_accept;
  } else if (!bash.accepted && !ours.ok()) {
    ++tally.both_reject;
    if (BashLine(bash.message) == static_cast<int>(ours.error->pos.line)) ++tally.same_line;
  } else if (bash.accepted && ours.error->kind != shell::ErrorKind::kSyntax) {
    ++tally.deferred;
    tally.deferred_examples.push_back(
        name + ": " +
        (ours.error->kind == shell::ErrorKind::kDeferred ? "deferred" : "unsupported") + ": " +
        ours.error->ToString());
  } else if (bash.accepted) {
    tally.mismatches.push_back(name + ": bash accepts, safesh rejects: " + ours.error->ToString() +
                               "\n    script: " + Shorten(script));
  } else {
    tally.mismatches.push_back(name + ": bash rejects (" + bash.message +
                               "), safesh accepts\n    script: " + Shorten(script));
  }
}

void ExpectNoMismatch(const Tally& tally) {
  std::string all;
  for (const std::string& m : tally.mismatches)
    all += m + "\n";
  EXPECT_TRUE(tally.mismatches.empty()) << tally.mismatches.size() << " disagreements:\n" << all;
}

TEST(BashAgreement, ScriptsOnThisMachine) {
  Tally tally;
  for (const ScriptFile& f : ShellScriptsOnThisMachine()) {
    Compare(f.path, f.text, BashCheckFile(f.path, f.text), tally);
  }
  tally.Report("scripts on this machine");
  EXPECT_GT(tally.both_accept, 50) << "too few shell scripts found to compare";
  ExpectNoMismatch(tally);
}

// Decodes the few HTML entities of bash's manual.
std::string Unhtml(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '<') {
      size_t close = s.find('>', i);
      if (close == std::string::npos) break;
      i = close;
      continue;
    }
    if (s[i] == '&') {
      size_t semi = s.find(';', i);
      if (semi != std::string::npos && semi - i < 10) {
        std::string ent = s.substr(i + 1, semi - i - 1);
        const char* rep = ent == "lt"       ? "<"
                          : ent == "gt"     ? ">"
                          : ent == "amp"    ? "&"
                          : ent == "quot"   ? "\""
                          : ent == "rsquo"  ? "'"
                          : ent == "lsquo"  ? "`"
                          : ent == "#39"    ? "'"
                          : ent == "hellip" ? "..."
                          : ent == "nbsp"   ? " "
                                            : nullptr;
        if (rep != nullptr) {
          out += rep;
          i = semi;
          continue;
        }
      }
    }
    out += s[i];
  }
  return out;
}

TEST(BashAgreement, BashDocumentationSnippets) {
  Tally tally;
  int snippets = 0;
  for (const char* doc : {"/usr/share/doc/bash/bashref.html", "/usr/share/doc/bash/bash.html"}) {
    std::string html;
    ASSERT_TRUE(ReadFile(doc, &html)) << doc << " is missing: install bash-doc (scripts/bootstrap)";
    size_t at = 0;
    while ((at = html.find("<pre class=\"example", at)) != std::string::npos) {
      size_t start = html.find('>', at) + 1;
      size_t end = html.find("</pre>", start);
      std::string snippet = Unhtml(html.substr(start, end - start));
      at = end;
      ++snippets;
      Compare(std::string(doc) + " example " + std::to_string(snippets) + " `" +
                  Shorten(snippet, 40) + "'",
              snippet, BashCheckString(snippet), tally);
    }
  }
  // The example scripts that ship with the documentation.
  WalkFiles("/usr/share/doc/bash/examples", [&](const std::string& path) {
    std::string text;
    if (!ReadFile(path, &text) || text.find('\0') != std::string::npos) return;
    if (path.find(".tar") != std::string::npos || path.find(".gz") != std::string::npos) return;
    Compare(path, text, BashCheckFile(path, text), tally);
  });
  tally.Report("bash documentation");
  EXPECT_GT(snippets, 100);
  ExpectNoMismatch(tally);
}

int CaseCount() {
  const char* env = std::getenv("SAFESH_AGREEMENT_CASES");
  if (env != nullptr && std::atoi(env) > 0) return std::atoi(env);
  return 2500;
}

TEST(BashAgreement, GeneratedScripts) {
  Tally tally;
  ScriptGenerator gen(20261129);
  int n = CaseCount();
  for (int i = 0; i < n; ++i) {
    std::string script = gen.Generate();
    Compare("generated #" + std::to_string(i), script, BashCheckString(script), tally);
  }
  tally.Report("generated scripts");
  EXPECT_GT(tally.both_accept, n / 2) << "the generator should mostly make valid scripts";
  ExpectNoMismatch(tally);
}

TEST(BashAgreement, MutatedScripts) {
  Tally tally;
  ScriptGenerator gen(7);
  int n = CaseCount();
  for (int i = 0; i < n; ++i) {
    std::string script = gen.Mutate(gen.Generate());
    Compare("mutated #" + std::to_string(i), script, BashCheckString(script), tally);
  }
  tally.Report("mutated scripts");
  EXPECT_GT(tally.both_reject, n / 10) << "mutations should break many scripts";
  ExpectNoMismatch(tally);
}

}  // namespace
}  // namespace safesh::testing
