// Redaction: what is masked in every string safesh writes to the audit log.
//
// Three rules, applied in this order to each string value of a record:
//   1. The values of the environment variables that were scrubbed from the command's
//      environment ([sandbox] scrub_env), wherever they appear, as "[redacted NAME]" (the same
//      masking as the command's output, exec/redact.h; values shorter than 8 bytes are left).
//   2. Assignments to a variable whose name matches a scrub_env glob: in `NAME=value` the value
//      becomes "[redacted]", whatever it is (`GITHUB_TOKEN=ghp_... make`).
//   3. Text shaped like a credential, whatever it is called: GitHub tokens (ghp_, gho_, ghu_,
//      ghs_, ghr_, github_pat_), sk-... API keys (OpenAI, Anthropic), AWS access key ids
//      (AKIA..., ASIA...), Slack tokens (xoxb-, xoxp-, ...), GitLab tokens (glpat-), Google API
//      keys (AIza...), JSON web tokens, private key blocks, the password in a URL
//      (scheme://user:PASSWORD@host), the value after `Authorization:` and after `Bearer`,
//      and the value of any key whose name holds token, password, passwd, secret, api_key,
//      apikey, access_key or client_secret, followed by `=` or `:` (`--api-key=...`,
//      `"password": "..."`, `token: ...`).
// A false positive costs a masked word in a record; a false negative puts a credential in a
// file that is kept for good. The rules lean towards masking.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "exec/env.h"
#include "exec/redact.h"

namespace safesh::audit {

class Redaction {
 public:
  // Only the credential shapes (rule 3).
  Redaction();
  // `values`: the scrubbed variables (exec::ChildEnv::secrets); `key_globs`: the scrub_env
  // globs (exec::EnvRules::scrub), matched case-insensitively against names.
  Redaction(const std::vector<exec::Secret>& values, std::vector<std::string> key_globs);

  std::string Apply(std::string_view text) const;

 private:
  exec::Redactor values_;
  std::vector<std::string> key_globs_;
};

// Rule 3 alone: text shaped like a credential masked.
std::string RedactCredentialShapes(std::string_view text);

}  // namespace safesh::audit
