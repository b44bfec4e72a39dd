// Blocked names: which settings entries are names, globs or paths; which are refused; and how a
// name is matched (defaults, exceptions, case, fnmatch).
#include "sandbox/blocked_names.h"

#include <gtest/gtest.h>

#include "config/settings.h"

namespace safesh::sandbox {
namespace {

TEST(BlockedNames, DefaultsHideKeysAndCredentialFilesButNotTemplates) {
  NameMatcher m(DefaultBlockedNames());
  for (const char* name : {".env",
                           ".env.local",
                           ".env.production",
                           ".envrc",
                           "server.key",
                           "cert.pem",
                           "id_rsa",
                           "id_ed25519",
                           "id_ecdsa",
                           "client.p12",
                           "client.pfx",
                           ".npmrc",
                           ".pypirc",
                           ".netrc",
                           ".git-credentials",
                           "release.keystore",
                           "vault.kdbx",
                           ".x.pem",
                           "putty.ppk",
                           ".my.cnf",
                           ".vault-token",
                           "credentials.json",
                           "terraform.tfstate",
                           "terraform.tfstate.backup",
                           "kaggle.json"}) {
    EXPECT_TRUE(m.Matches(name)) << name;
  }
  for (const char* name :
       {".env.example", ".env.sample", ".env.template", ".env.dist", "README.md", "id_rsa.pub",
        "id_ed25519.pub", "key", "keys.txt", "environment", "env", "pem", "my.env", "main.c",
        ".gitignore", "terraform.tf", "credentials.md"}) {
    EXPECT_FALSE(m.Matches(name)) << name;
  }
}

TEST(BlockedNames, MatchingIgnoresAsciiCase) {
  NameMatcher m(DefaultBlockedNames());
  EXPECT_TRUE(m.Matches("ID_RSA"));
  EXPECT_TRUE(m.Matches("Server.PEM"));
  EXPECT_TRUE(m.Matches(".ENV"));
  EXPECT_FALSE(m.Matches(".ENV.Example"));
  NameMatcher glob({"Secret[0-9].TXT"});
  EXPECT_TRUE(glob.Matches("secret1.txt"));
  EXPECT_TRUE(glob.Matches("SECRET2.txt"));
  EXPECT_FALSE(glob.Matches("secretx.txt"));
}

TEST(BlockedNames, TheLastPatternThatMatchesDecides) {
  std::vector<std::string> patterns = DefaultBlockedNames();
  patterns.push_back(".env.example");  // a setting: hidden after all
  NameMatcher m(patterns);
  EXPECT_TRUE(m.Matches(".env.example"));
  EXPECT_FALSE(m.Matches(".env.sample"));
  NameMatcher only_exception({"!*.pem", "*.pem"});
  EXPECT_TRUE(only_exception.Matches("a.pem"));
  NameMatcher exception_last({"*.pem", "!a.pem"});
  EXPECT_FALSE(exception_last.Matches("a.pem"));
  EXPECT_TRUE(exception_last.Matches("b.pem"));
}

TEST(BlockedNames, EveryKindOfPattern) {
  NameMatcher m({"exact.txt", "*.suffix", "prefix.*", "mid*dle", "q?", "[ab]c", "\\*lit"});
  EXPECT_TRUE(m.Matches("exact.txt"));
  EXPECT_FALSE(m.Matches("exact.txt2"));
  EXPECT_TRUE(m.Matches("a.suffix"));
  EXPECT_TRUE(m.Matches(".suffix"));
  EXPECT_FALSE(m.Matches("a.suffix2"));
  EXPECT_TRUE(m.Matches("prefix."));
  EXPECT_TRUE(m.Matches("prefix.x"));
  EXPECT_TRUE(m.Matches("middle"));
  EXPECT_TRUE(m.Matches("mid-x-dle"));
  EXPECT_TRUE(m.Matches("q1"));
  EXPECT_FALSE(m.Matches("q12"));
  EXPECT_TRUE(m.Matches("bc"));
  EXPECT_FALSE(m.Matches("cc"));
  EXPECT_TRUE(m.Matches("*lit"));
  EXPECT_FALSE(m.Matches("xlit"));
  EXPECT_FALSE(NameMatcher({}).Matches("anything"));
}

TEST(BlockedNames, EntriesAreNamesGlobsOrPaths) {
  EXPECT_EQ(ClassifyBlockedEntry(".env"), BlockedEntryKind::kName);
  EXPECT_EQ(ClassifyBlockedEntry("*.tfvars"), BlockedEntryKind::kName);
  EXPECT_EQ(ClassifyBlockedEntry("secrets"), BlockedEntryKind::kName);
  EXPECT_EQ(ClassifyBlockedEntry("~/secrets"), BlockedEntryKind::kPath);
  EXPECT_EQ(ClassifyBlockedEntry("~"), BlockedEntryKind::kPath);
  EXPECT_EQ(ClassifyBlockedEntry("/etc/shadow"), BlockedEntryKind::kPath);
  EXPECT_EQ(ClassifyBlockedEntry("config/prod.json"), BlockedEntryKind::kPath);
  EXPECT_EQ(ClassifyBlockedEntry("~/.config/*/token"), BlockedEntryKind::kGlob);
  EXPECT_EQ(ClassifyBlockedEntry("/srv/keys/*.pem"), BlockedEntryKind::kGlob);
  EXPECT_EQ(ClassifyBlockedEntry("config/secret?.json"), BlockedEntryKind::kGlob);
}

TEST(BlockedNames, BadEntriesAreRefusedWithWhy) {
  struct Bad {
    const char* entry;
    const char* why;
  };
  for (const Bad& b : std::vector<Bad>{
           {"", "empty"},
           {"*", "matches every name"},
           {"**", "matches every name"},
           {"?*", "matches every name"},
           {".", "not a file name"},
           {"..", "not a file name"},
           {"!.env", "exceptions"},
           {"[abc", "not closed"},
           {"a[!]", "not closed"},
           {"/keys/[x", "not closed"},
           {"x\\", "escapes nothing"},
       }) {
    std::string why;
    EXPECT_FALSE(CheckBlockedEntry(b.entry, &why)) << b.entry;
    EXPECT_NE(why.find(b.why), std::string::npos) << b.entry << " -> " << why;
  }
  for (const char* good : {".env", "*.pem", "[ab]c", "[]]x", "[[:digit:]].key", "\\!bang",
                           "~/secrets", "a/b", "~/x/*.json", "/a/b\\"}) {
    std::string why;
    EXPECT_TRUE(CheckBlockedEntry(good, &why)) << good << ": " << why;
  }
}

TEST(BlockedNames, SettingsNameTheEntryThatIsWrong) {
  std::string error;
  auto s = config::ParseSettings("[sandbox]\nblocked_paths = [\n  \".env\",\n  \"*\",\n]\n",
                                 "t.toml", &error);
  EXPECT_FALSE(s);
  EXPECT_NE(error.find("t.toml:4:3: [sandbox] blocked_paths entry `*' matches every name"),
            std::string::npos)
      << error;
  s = config::ParseSettings("[sandbox]\nblocked_paths = [\"*.tfvars\", \"~/x/*\", \"~/y\"]\n",
                            "t.toml", &error);
  ASSERT_TRUE(s) << error;
  EXPECT_EQ(s->sandbox.blocked_paths.size(), 3u);
}

}  // namespace
}  // namespace safesh::sandbox
