// Masking scrubbed values in what safesh says about a command.
//
// The command's output is masked as it streams (exec/redact.h); the result's other texts
// (the verdict, which quotes the command's words, the error, a dry run's plan) can hold the same
// values when the command itself was written with one, and are masked here the same way.
#pragma once

#include <vector>

#include "exec/env.h"
#include "pipeline/run_shell_command.h"
#include "policy/verdict.h"

namespace safesh::pipeline {

// Every text of the verdict: reason, argv, matched rules, write targets, findings, parse error.
void MaskSecrets(policy::Verdict* verdict, const std::vector<exec::Secret>& secrets);

// Any other text about the command (its text as a host lists it).
void MaskSecrets(std::string* text, const std::vector<exec::Secret>& secrets);

// The result's error, advice, sandbox reason, spool path, plan and verdict (not its output,
// which was masked as it streamed).
void MaskSecrets(RunResult* result, const std::vector<exec::Secret>& secrets);

}  // namespace safesh::pipeline
