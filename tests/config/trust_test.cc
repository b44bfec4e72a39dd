// Trust: a project file's exact content pinned by SHA-256 in the person's state; a change makes
// it untrusted again; the store is private, written atomically, and refused when forgeable.
#include "config/trust.h"

#include <sys/stat.h>
#include <unistd.h>

#include <thread>

#include <gtest/gtest.h>

#include "config/layers.h"
#include "config/temp_dir.h"
#include "util/sha256.h"

namespace safesh::config {
namespace {

using testing::TempDir;

const char kLoose[] = "[commands]\nauto_approve = [\"ls *\"]\nstrict = false\n";

struct Workspace {
  TempDir dir;
  LayerSources sources;
  Workspace() {
    sources.project_file = ProjectSettingsPath(dir.path() + "/ws");
    sources.trust_file = dir.path() + "/state/safesh/trust.json";
  }
  void WriteProject(const std::string& text) { dir.Write("ws/.safesh/settings.toml", text); }
  // What `safesh trust` does, without the terminal.
  void Trust() {
    std::string error;
    std::optional<ProjectFile> p = ReadProjectFile(sources.project_file, &error);
    ASSERT_TRUE(p) << error;
    ASSERT_TRUE(UpdateTrustStore(
        sources.trust_file,
        [&](TrustStore* s) {
          std::erase_if(s->files, [&](const TrustedFile& f) { return f.path == p->trust_key; });
          s->files.push_back({p->trust_key, p->sha256, UtcNow()});
        },
        &error))
        << error;
  }
  void Revoke() {
    std::string error;
    ASSERT_TRUE(UpdateTrustStore(
        sources.trust_file, [&](TrustStore* s) { s->files.clear(); }, &error))
        << error;
  }
};

TEST(Trust, APinnedFileLoosensUntilItChanges) {
  Workspace w;
  w.WriteProject(kLoose);
  std::string error;
  EXPECT_FALSE(LoadLayered(w.sources, &error));
  EXPECT_NE(error.find("you have not trusted it"), std::string::npos) << error;

  w.Trust();
  std::optional<LayeredSettings> l = LoadLayered(w.sources, &error);
  ASSERT_TRUE(l) << error;
  EXPECT_EQ(l->project, ProjectTrust::kTrusted);
  EXPECT_FALSE(l->settings.commands.strict);
  EXPECT_EQ(l->settings.commands.auto_approve, std::vector<std::string>{"ls *"});

  // One byte more, even a comment: untrusted again, and the message says it changed.
  w.WriteProject(std::string(kLoose) + "# one more line\n");
  EXPECT_FALSE(LoadLayered(w.sources, &error));
  EXPECT_NE(error.find("it changed since you trusted it"), std::string::npos) << error;
  EXPECT_NE(error.find("safesh trust --workspace"), std::string::npos) << error;

  w.Trust();
  ASSERT_TRUE(LoadLayered(w.sources, &error)) << error;

  w.Revoke();
  EXPECT_FALSE(LoadLayered(w.sources, &error));
  EXPECT_NE(error.find("you have not trusted it"), std::string::npos) << error;
}

TEST(Trust, AChangedFileThatOnlyTightensStillApplies) {
  Workspace w;
  w.WriteProject(kLoose);
  w.Trust();
  w.WriteProject("[commands]\ndeny = [\"rm\"]\n");
  std::string error;
  std::optional<LayeredSettings> l = LoadLayered(w.sources, &error);
  ASSERT_TRUE(l) << error;
  EXPECT_EQ(l->project, ProjectTrust::kChanged);
  EXPECT_EQ(l->settings.commands.deny, std::vector<std::string>{"rm"});
}

TEST(Trust, TheStoreIsPrivateAndReplacedWhole) {
  Workspace w;
  w.WriteProject(kLoose);
  w.Trust();
  struct stat st;
  ASSERT_EQ(stat(w.sources.trust_file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  std::string folder = w.dir.path() + "/state/safesh";
  ASSERT_EQ(stat(folder.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  // Written through a temporary file that was renamed: none is left behind.
  int entries = 0;
  for (const auto& e : std::filesystem::directory_iterator(folder)) {
    EXPECT_EQ(e.path().filename(), "trust.json");
    ++entries;
  }
  EXPECT_EQ(entries, 1);
  std::string error;
  std::optional<TrustStore> s = LoadTrustStore(w.sources.trust_file, &error);
  ASSERT_TRUE(s) << error;
  ASSERT_EQ(s->files.size(), 1u);
  EXPECT_EQ(s->files[0].sha256, util::Sha256Hex(kLoose));
  EXPECT_EQ(s->files[0].path, ProjectTrustKey(w.sources.project_file));
  EXPECT_EQ(s->files[0].trusted_at.size(), 20u);  // 2025-01-31T12:00:00Z
}

TEST(Trust, AStoreOthersCouldChangeOrThatIsNotOursIsRefused) {
  Workspace w;
  w.WriteProject(kLoose);
  w.Trust();
  ASSERT_EQ(chmod(w.sources.trust_file.c_str(), 0666), 0);
  std::string error;
  EXPECT_FALSE(LoadTrustStore(w.sources.trust_file, &error));
  EXPECT_NE(error.find("could have been changed by another user"), std::string::npos) << error;
  // Then the project file cannot loosen: safesh cannot tell whether it is trusted.
  EXPECT_FALSE(LoadLayered(w.sources, &error));
  EXPECT_NE(error.find("safesh cannot tell whether you trust it"), std::string::npos) << error;
  // A project file that only tightens does not need the store.
  w.WriteProject("[commands]\ndeny = [\"rm\"]\n");
  EXPECT_TRUE(LoadLayered(w.sources, &error)) << error;

  ASSERT_EQ(chmod(w.sources.trust_file.c_str(), 0600), 0);
  w.dir.Write("state/safesh/trust.json", "{\"version\": 1, \"files\": [");
  EXPECT_FALSE(LoadTrustStore(w.sources.trust_file, &error));
  EXPECT_NE(error.find("trust.json: not valid JSON"), std::string::npos) << error;
  EXPECT_NE(error.find("remove the file"), std::string::npos) << error;
  w.dir.Write("state/safesh/trust.json", "{\"version\": 1, \"files\": [{\"path\": \"/x\"}]}");
  EXPECT_FALSE(LoadTrustStore(w.sources.trust_file, &error));
  EXPECT_NE(error.find("lacks its path or sha256"), std::string::npos) << error;

  // A symbolic link in the store's place is not followed.
  ASSERT_EQ(unlink(w.sources.trust_file.c_str()), 0);
  std::string elsewhere = w.dir.Write("elsewhere.json", "{\"version\": 1, \"files\": []}");
  ASSERT_EQ(symlink(elsewhere.c_str(), w.sources.trust_file.c_str()), 0);
  EXPECT_FALSE(LoadTrustStore(w.sources.trust_file, &error));
  // And a store folder others may enter is refused before anything is written.
  ASSERT_EQ(unlink(w.sources.trust_file.c_str()), 0);
  ASSERT_EQ(chmod((w.dir.path() + "/state/safesh").c_str(), 0755), 0);
  EXPECT_FALSE(UpdateTrustStore(
      w.sources.trust_file, [](TrustStore*) {}, &error));
  EXPECT_NE(error.find("run chmod 700 on it"), std::string::npos) << error;
}

TEST(Trust, AWorkspaceWhoseSettingsLinkToATrustedOnesIsNotTrusted) {
  Workspace w;
  w.WriteProject(kLoose);
  w.Trust();
  // Another workspace whose .safesh is a link to the trusted one's: the same bytes, but its
  // relative paths would mean other places, so it is a file of its own.
  std::filesystem::create_directories(w.dir.path() + "/other");
  ASSERT_EQ(
      symlink((w.dir.path() + "/ws/.safesh").c_str(), (w.dir.path() + "/other/.safesh").c_str()),
      0);
  LayerSources other = w.sources;
  other.project_file = ProjectSettingsPath(w.dir.path() + "/other");
  std::string error;
  EXPECT_FALSE(LoadLayered(other, &error));
  EXPECT_NE(error.find("you have not trusted it"), std::string::npos) << error;
}

TEST(Trust, ConcurrentUpdatesAreNotLost) {
  TempDir dir;
  std::string store = dir.path() + "/state/safesh/trust.json";
  std::vector<std::thread> threads;
  std::vector<std::string> errors(8);
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&, i] {
      for (int k = 0; k < 10; ++k) {
        std::string path = "/p" + std::to_string(i) + "-" + std::to_string(k);
        if (!UpdateTrustStore(
                store,
                [&](TrustStore* s) {
                  s->files.push_back({path, std::string(64, 'a'), ""});
                },
                &errors[i]))
          return;
      }
    });
  }
  for (std::thread& t : threads)
    t.join();
  for (const std::string& e : errors)
    EXPECT_EQ(e, "");
  std::string error;
  std::optional<TrustStore> s = LoadTrustStore(store, &error);
  ASSERT_TRUE(s) << error;
  EXPECT_EQ(s->files.size(), 80u);
}

}  // namespace
}  // namespace safesh::config
