// The settings that drive a run: [sandbox], [tools], [approvals].
#include <gtest/gtest.h>

#include "config/settings.h"

namespace safesh::config {
namespace {

TEST(RunSettings, DefaultsAreSafe) {
  std::string error;
  auto s = ParseSettings("", "t.toml", &error);
  ASSERT_TRUE(s) << error;
  EXPECT_EQ(s->sandbox.shell, "required");
  EXPECT_FALSE(s->sandbox.allow_network);
  EXPECT_FALSE(s->sandbox.scrub_env.has_value());  // the built-in list applies
  EXPECT_FALSE(s->sandbox.env_allow.has_value());
  EXPECT_EQ(s->tools.shell_timeout_seconds, 120);
  EXPECT_EQ(s->tools.output_limit_bytes, 100 * 1024);
  EXPECT_EQ(s->approvals.headless, "deny");
}

TEST(RunSettings, ValuesAreRead) {
  std::string error;
  auto s = ParseSettings(
      "[sandbox]\nshell = \"off\"\nscrub_env = [\"X_*\"]\nenv_allow = [\"CARGO_HOME\"]\n"
      "writable_paths = [\"~/cache\"]\n[tools]\nshell_timeout_seconds = 30\n"
      "output_limit_bytes = 4096\n[approvals]\nheadless = \"allow\"\n",
      "t.toml", &error);
  ASSERT_TRUE(s) << error;
  EXPECT_EQ(s->sandbox.shell, "off");
  EXPECT_EQ(*s->sandbox.scrub_env, std::vector<std::string>{"X_*"});
  EXPECT_EQ(*s->sandbox.env_allow, std::vector<std::string>{"CARGO_HOME"});
  EXPECT_EQ(s->sandbox.writable_paths, std::vector<std::string>{"~/cache"});
  EXPECT_EQ(s->tools.shell_timeout_seconds, 30);
  EXPECT_EQ(s->tools.output_limit_bytes, 4096);
  EXPECT_EQ(s->approvals.headless, "allow");
}

TEST(RunSettings, BadValuesAreErrorsThatSayWhatIsAllowed) {
  struct Bad {
    const char* toml;
    const char* message;
  };
  for (const Bad& b : std::vector<Bad>{
           {"[sandbox]\nshell = \"on\"\n",
            "t.toml:2:1: [sandbox] shell must be \"auto\", \"required\" or \"off\""},
           {"[tools]\nshell_timeout_seconds = 0\n", "must be from 1 to 1800"},
           {"[tools]\nshell_timeout_seconds = 99999999999999\n", "must be from 1 to 1800"},
           {"[tools]\noutput_limit_bytes = 10\n", "must be from 1024 to"},
           {"[approvals]\nheadless = \"ask\"\n", "must be \"deny\" or \"allow\""},
           {"[sandbox]\nwritable_paths = [\"\"]\n", "has an empty path"},
       }) {
    std::string error;
    EXPECT_FALSE(ParseSettings(b.toml, "t.toml", &error)) << b.toml;
    EXPECT_NE(error.find(b.message), std::string::npos) << b.toml << " -> " << error;
  }
}

}  // namespace
}  // namespace safesh::config
