// SandboxCaches: a host's memory between commands. Scans of other roots walk at the same time
// (no lock is held across another set of roots' walk), and what a host remembers only saves
// work.
#include "sandbox/caches.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "sandbox/scan_helpers.h"
#include "support/temp_dir.h"

namespace safesh::sandbox {
namespace {

namespace fs = std::filesystem;
using scan_test::Patterns;

class SandboxCachesTest : public ::testing::Test {
 protected:
  // A folder of `files` plain files and one blocked name (.env).
  std::string Tree(const std::string& name, int files) {
    std::string root = tmp_.path + "/" + name;
    fs::create_directories(root);
    for (int i = 0; i < files; ++i)
      std::ofstream(root + "/f" + std::to_string(i)) << "x";
    std::ofstream(root + "/.env") << "KEY=1";
    return root;
  }
  ::safesh::testing::TempDir tmp_;
};

// Thread A's walk stops in its cancel callback (asked every 256 entries) until thread B's walk
// of other roots is done. With one lock over every scan, B would wait for A and A for B: A gives
// up after 20 s and the test fails.
TEST_F(SandboxCachesTest, ScansOfOtherRootsWalkAtTheSameTime) {
  std::string a = Tree("a", 600), b = Tree("b", 10);
  SandboxCaches caches;
  std::atomic<bool> a_waiting{false}, b_done{false}, a_gave_up{false};
  std::thread first([&] {
    bool once = false;
    ScanResult r = caches.ScanBlockedNames({a}, Patterns(), "", false, [&] {
      if (once) return false;
      once = true;
      a_waiting = true;
      auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
      while (!b_done && std::chrono::steady_clock::now() < until)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      a_gave_up = !b_done;
      return false;
    });
    EXPECT_EQ(r.files, std::vector<std::string>{a + "/.env"});
  });
  while (!a_waiting)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ScanResult r = caches.ScanBlockedNames({b}, Patterns(), "", false, [] { return false; });
  b_done = true;
  first.join();
  EXPECT_FALSE(a_gave_up) << "the scan of " << b << " waited for the scan of " << a;
  EXPECT_EQ(r.files, std::vector<std::string>{b + "/.env"});
}

// A host's later scans start from what it read before (the folder is old enough to be trusted
// when unchanged); a file made since is still found, as a host that remembers nothing finds it.
TEST_F(SandboxCachesTest, WhatAHostRemembersNeverChangesTheAnswer) {
  std::string a = Tree("a", 20);
  SandboxCaches host, other;
  ScanResult first = host.ScanBlockedNames({a}, Patterns(), "", false, [] { return false; });
  ASSERT_EQ(first.files, std::vector<std::string>{a + "/.env"});
  // Past the 2 s within which a directory read just after a change is read again.
  fs::last_write_time(a, fs::file_time_type::clock::now() - std::chrono::seconds(10));
  host.ScanBlockedNames({a}, Patterns(), "", false, [] { return false; });
  // A new file is seen by both hosts: what one remembers only saves work.
  std::ofstream(a + "/id_rsa") << "k";
  std::vector<std::string> both = {a + "/.env", a + "/id_rsa"};
  EXPECT_EQ(host.ScanBlockedNames({a}, Patterns(), "", false, [] { return false; }).files, both);
  EXPECT_EQ(other.ScanBlockedNames({a}, Patterns(), "", false, [] { return false; }).files, both);
}

}  // namespace
}  // namespace safesh::sandbox
