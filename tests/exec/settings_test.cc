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

TEST(RunSettings, EachWrittenKeyAndItemIsPlaced) {
  std::string error;
  auto f = ParseSettingsFile(
      "[commands]\ndeny = [\"rm\",\n  \"curl\"]\n[tools]\n"
      "  shell_timeout_seconds = 5\n",
      "t.toml", &error);
  ASSERT_TRUE(f) << error;
  ASSERT_EQ(f->written.size(), 2u);
  EXPECT_EQ(f->written[0].section, "commands");
  EXPECT_EQ(f->written[0].key, "deny");
  EXPECT_EQ(f->written[0].at.line, 2);
  EXPECT_EQ(f->written[0].at.column, 1);
  ASSERT_EQ(f->written[0].items.size(), 2u);
  EXPECT_EQ(f->written[0].items[1].line, 3);
  EXPECT_EQ(f->written[0].items[1].column, 3);
  EXPECT_EQ(f->written[1].key, "shell_timeout_seconds");
  EXPECT_EQ(f->written[1].at.column, 3);
  EXPECT_EQ(f->settings.tools.shell_timeout_seconds, 5);
  // A bad pattern is reported where it is, not only by the file's name.
  EXPECT_FALSE(ParseSettingsFile("[commands]\nask = [\"ls\",\n \"re:[\"]\n", "t.toml", &error));
  EXPECT_EQ(error.rfind("t.toml:3:2: [commands] ask: pattern `re:['", 0), 0u) << error;
}

}  // namespace
}  // namespace safesh::config
