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
  EXPECT_EQ(s->sandbox.max_processes, 4096);
  EXPECT_FALSE(s->sandbox.memory_limit.has_value());  // half of the physical memory
  EXPECT_EQ(s->background.max_running, 8);
  EXPECT_EQ(s->background.max_lifetime_seconds, 3600);
  EXPECT_EQ(s->background.output_limit_bytes, 256 * 1024);
  EXPECT_EQ(s->background.retain_finished, 16);
}

TEST(RunSettings, BackgroundValuesAreReadWithinTheirBounds) {
  std::string error;
  auto s = ParseSettings(
      "[background]\nmax_running = 2\nmax_lifetime_seconds = 60\noutput_limit_bytes = 4096\n"
      "retain_finished = 0\n",
      "t.toml", &error);
  ASSERT_TRUE(s) << error;
  EXPECT_EQ(s->background.max_running, 2);
  EXPECT_EQ(s->background.max_lifetime_seconds, 60);
  EXPECT_EQ(s->background.output_limit_bytes, 4096);
  EXPECT_EQ(s->background.retain_finished, 0);
  for (const auto& [toml, message] : std::vector<std::pair<std::string, std::string>>{
           {"max_running = 0",
            "t.toml:2:1: [background] max_running must be from 1 to 32 (it is 0)"},
           {"max_running = 33", "must be from 1 to 32 (it is 33)"},
           {"max_lifetime_seconds = 0", "must be from 1 to 86400 seconds (a day) (it is 0)"},
           {"max_lifetime_seconds = 86401", "(it is 86401)"},
           {"output_limit_bytes = 100", "must be from 1024 to 67108864 bytes (it is 100)"},
           {"retain_finished = -1", "must be from 0 to 256 (it is -1)"},
           {"retain_finished = 257", "(it is 257)"},
           {"max_running = \"8\"", "max_running must be a whole number"},
       }) {
    std::string e;
    EXPECT_FALSE(ParseSettings("[background]\n" + toml + "\n", "t.toml", &e)) << toml;
    EXPECT_NE(e.find(message), std::string::npos) << toml << ": " << e;
  }
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
            "t.toml:2:1: [sandbox] shell must be \"auto\", \"required\", \"landlock\" or \"off\""},
           {"[tools]\nshell_timeout_seconds = 0\n", "must be from 1 to 1800"},
           {"[tools]\nshell_timeout_seconds = 99999999999999\n", "must be from 1 to 1800"},
           {"[tools]\noutput_limit_bytes = 10\n", "must be from 1024 to"},
           {"[approvals]\nheadless = \"ask\"\n", "must be \"deny\" or \"allow\""},
           {"[sandbox]\nwritable_paths = [\"\"]\n", "has an empty path"},
           {"[sandbox]\nmax_processes = 3\n",
            "t.toml:2:1: [sandbox] max_processes must be 0 (no cap) or from 8 to 4194304 (it is "
            "3)"},
           {"[sandbox]\nmax_processes = -1\n", "must be 0 (no cap) or from 8"},
           {"[sandbox]\nmax_processes = 5000000\n", "must be 0 (no cap) or from 8"},
           {"[sandbox]\nmax_processes = \"off\"\n", "max_processes must be a whole number"},
           {"[sandbox]\n\nmemory_limit = \"4GB\"\n",
            "t.toml:3:1: [sandbox] memory_limit must be \"off\" (or 0) or at least 16 MiB, in "
            "bytes or written like \"512MiB\" or \"4GiB\" (units K, M, G, T or KiB, MiB, GiB, "
            "TiB: powers of 1024) (it is \"4GB\")"},
           {"[sandbox]\nmemory_limit = \"1MiB\"\n", "at least 16 MiB"},
           {"[sandbox]\nmemory_limit = 1000\n", "(it is 1000)"},
           {"[sandbox]\nmemory_limit = -5\n", "(it is -5)"},
           {"[sandbox]\nmemory_limit = \"lots\"\n", "(it is \"lots\")"},
           {"[sandbox]\nmemory_limit = \"GiB\"\n", "(it is \"GiB\")"},
           {"[sandbox]\nmemory_limit = \"99999999999999999999GiB\"\n", "at least 16 MiB"},
           {"[sandbox]\nmemory_limit = \"2000000000TiB\"\n", "at least 16 MiB"},
           {"[sandbox]\nmemory_limit = 1.5\n",
            "memory_limit must be a number of bytes or a string such as \"4GiB\" or \"off\""},
       }) {
    std::string error;
    EXPECT_FALSE(ParseSettings(b.toml, "t.toml", &error)) << b.toml;
    EXPECT_NE(error.find(b.message), std::string::npos) << b.toml << " -> " << error;
  }
}

TEST(RunSettings, ResourceLimits) {
  struct Case {
    const char* toml;
    int64_t processes;
    std::optional<uint64_t> memory;
  };
  for (const Case& c : std::vector<Case>{
           {"max_processes = 64\nmemory_limit = 268435456\n", 64, 256ull << 20},
           {"max_processes = 0\nmemory_limit = \"off\"\n", 0, 0},
           {"memory_limit = 0\n", 4096, 0},
           {"memory_limit = \"4GiB\"\n", 4096, 4ull << 30},
           {"memory_limit = \"4G\"\n", 4096, 4ull << 30},
           {"memory_limit = \"512 MiB\"\n", 4096, 512ull << 20},
           {"memory_limit = \"16M\"\n", 4096, 16ull << 20},
           {"memory_limit = \"1T\"\n", 4096, 1ull << 40},
           {"memory_limit = \"20000000B\"\n", 4096, 20000000},
           {"memory_limit = \"20000000\"\n", 4096, 20000000},
           {"max_processes = 8\n", 8, std::nullopt},
           {"max_processes = 4194304\n", 4194304, std::nullopt},
       }) {
    std::string error;
    auto s = ParseSettings(std::string("[sandbox]\n") + c.toml, "t.toml", &error);
    ASSERT_TRUE(s) << c.toml << error;
    EXPECT_EQ(s->sandbox.max_processes, c.processes) << c.toml;
    EXPECT_EQ(s->sandbox.memory_limit, c.memory) << c.toml;
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
