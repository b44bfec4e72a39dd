// What the audit log masks: scrubbed values, assignments to secret names, credential shapes.
#include "audit/redact.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace safesh::audit {
namespace {

TEST(Redact, ScrubbedValuesAreMaskedByName) {
  Redaction r({{"MY_TOKEN", "value-of-my-token"}, {"SHORT_KEY", "abc"}}, {});
  EXPECT_EQ(r.Apply("curl -u value-of-my-token x"), "curl -u [redacted MY_TOKEN] x");
  // Shorter than 8 bytes: not a credible secret, and masking it would mask every "abc".
  EXPECT_EQ(r.Apply("echo abc"), "echo abc");
}

TEST(Redact, AssignmentsToSecretNamesAreMasked) {
  Redaction r({}, {"*TOKEN*", "*_KEY"});
  EXPECT_EQ(r.Apply("GITHUB_TOKEN=abc123 make"), "GITHUB_TOKEN=[redacted] make");
  EXPECT_EQ(r.Apply("export deploy_key='a b c'; x"), "export deploy_key='[redacted]'; x");
  EXPECT_EQ(r.Apply("API_KEY=\"q\\\"uoted\" run"), "API_KEY=\"[redacted]\" run");
  EXPECT_EQ(r.Apply("a_token=x|y"), "a_token=[redacted]|y");
  // Names that match no glob, and `=` that is not an assignment, stay.
  EXPECT_EQ(r.Apply("FOO=bar make KEYS=1 x==y"), "FOO=bar make KEYS=1 x==y");
  EXPECT_EQ(r.Apply("TOKEN="), "TOKEN=");
}

TEST(Redact, ValuesMaskedFirstKeepTheirName) {
  Redaction r({{"GITHUB_TOKEN", "0123456789abcdef"}}, {"*TOKEN*"});
  EXPECT_EQ(r.Apply("GITHUB_TOKEN=0123456789abcdef git push"),
            "GITHUB_TOKEN=[redacted GITHUB_TOKEN] git push");
}

TEST(Redact, CredentialShapes) {
  struct Case {
    std::string text;
    std::string secret;  // must be gone
  };
  const std::vector<Case> cases = {
      {"git clone https://ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@github.com/x",
       "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"},
      {"echo github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
       "11ABCDEFG0123456789_abcdefghijklmnop"},
      {"OPENAI=sk-proj-abcdefghijklmnopqrstuvwxyz012345", "abcdefghijklmnopqrstuvwxyz012345"},
      {"x sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv-_0123 y", "AbCdEfGhIjKlMnOpQrStUv-_0123"},
      {"aws configure set aws_access_key_id AKIAIOSFODNN7EXAMPLE", "IOSFODNN7EXAMPLE"},
      {"ASIAY34FZKBOKMUTVV7A", "Y34FZKBOKMUTVV7A"},
      {"curl -d token=xoxb-123456789012-abcdefABCDEF slack", "123456789012-abcdefABCDEF"},
      {"glpat-abcdefghij0123456789", "abcdefghij0123456789"},
      {"key=AIzaSyA-abcdefghijklmnopqrstuvwxyz12345", "SyA-abcdefghijklmnopqrstuvwxyz12345"},
      {"jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk",
       "dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk"},
      {"psql postgres://admin:hunter2hunter2@db.internal/app", "hunter2hunter2"},
      {"curl -H 'Authorization: Bearer 4f9a8b7c6d5e4f3a2b1c' x", "4f9a8b7c6d5e4f3a2b1c"},
      {"curl -H 'Authorization: Basic dXNlcjpwYXNz' x", "dXNlcjpwYXNz"},
      {"http get x Bearer:abc bearer 0123456789abcdef0123", "0123456789abcdef0123"},
      {"mysql --password=correcthorse db", "correcthorse"},
      {"tool --api-key s3cr3tvalue", "s3cr3tvalue"},
      {"tool --auth-token s3cr3tvalue2", "s3cr3tvalue2"},
      {"curl 'https://x/?access_token=deadbeefdeadbeefdeadbeef&x=1'", "deadbeefdeadbeefdeadbeef"},
      {R"(echo '{"password": "p4ss w0rd", "user": "me"}')", "p4ss w0rd"},
      {"client_secret: 5ZCw9Q2bzT0", "5ZCw9Q2bzT0"},
      {"SECRET=abc; echo", "abc"},
      {"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA\n-----END OPENSSH PRIVATE "
       "KEY-----",
       "b3BlbnNzaC1rZXktdjEAAAA"},
      {"-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7 cut here", "MIIEpAIBAAKCAQEA7"},
      // The case-insensitive shapes in capitals and in mixed case: the patterns are compiled
      // only for a text holding one of their literals, whatever its case.
      {"CURL -H 'AUTHORIZATION: BEARER 4F9A8B7C6D5E4F3A2B1C' X", "4F9A8B7C6D5E4F3A2B1C"},
      {"BEARER 0123456789ABCDEF0123", "0123456789ABCDEF0123"},
      {"MYSQL --PASSWORD=CorrectHorse DB", "CorrectHorse"},
      {"tool --Api-Key S3cr3tValue", "S3cr3tValue"},
      {"PSQL POSTGRES://ADMIN:HUNTER2HUNTER2@DB/APP", "HUNTER2HUNTER2"},
      {"GPG_PASSPHRASE=correct-horse-battery", "correct-horse-battery"},
      {"Passphrase: 'open sesame'", "open sesame"},
      {"PRIVATE_KEY=abcdef0123456789", "abcdef0123456789"},
      {"AccessKey: AbCdEf012345", "AbCdEf012345"},
      {"Client-Secret=zz9plural", "zz9plural"},
      {"x_Token: Zm9vYmFyYmF6", "Zm9vYmFyYmF6"},
  };
  Redaction r;
  for (const Case& c : cases) {
    std::string masked = r.Apply(c.text);
    EXPECT_EQ(masked.find(c.secret), std::string::npos) << c.text << "\n -> " << masked;
    EXPECT_NE(masked.find("[redacted"), std::string::npos) << c.text << "\n -> " << masked;
  }
}

TEST(Redact, OrdinaryTextIsLeftAlone) {
  // Also proves every pattern compiled: a broken one masks the whole text.
  Redaction r;
  for (const char* text :
       {"ls -la", "git log --oneline -n 5", "npm run build && npm test",
        "disk-usage-report-generator-tool --verbose", "task-runner-configuration-file",
        "cat tokenizer.py", "grep -r password_reset src/", "echo the secret is out", "make -j2",
        "git config credential.helper store", "cd ~ && pwd", "find . -name '*.key'",
        "AKIA lowercase akiaiosfodnn7example"}) {
    EXPECT_EQ(r.Apply(text), text);
  }
}

TEST(Redact, BytesThatAreNotUtf8DoNotStopIt) {
  Redaction r({{"X_TOKEN", "\xff\xfe-binary-secret"}}, {});
  std::string masked = r.Apply(std::string("a \xff\xfe-binary-secret b ghp_") +
                               "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345 \xc3");
  EXPECT_EQ(masked, "a [redacted X_TOKEN] b ghp_[redacted] \xc3");
}

}  // namespace
}  // namespace safesh::audit
