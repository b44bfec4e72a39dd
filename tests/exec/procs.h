// Looking for processes by a marker in their command line, from /proc: how the tests prove that
// nothing a command started is still alive (not just that safesh said so).
#pragma once

#include <dirent.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace safesh::testing {

// Live (not zombie) processes whose command line is `marker` (its words joined by spaces):
// the processes a test started, not safesh or bash, whose command lines merely mention it.
inline std::vector<int> ProcessesWith(const std::string& marker) {
  std::vector<int> out;
  DIR* d = opendir("/proc");
  if (d == nullptr) return out;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
    std::string base = std::string("/proc/") + e->d_name;
    std::ifstream cmd(base + "/cmdline", std::ios::binary);
    std::stringstream ss;
    ss << cmd.rdbuf();
    std::string line = ss.str();
    for (char& c : line) {
      if (c == '\0') c = ' ';
    }
    while (!line.empty() && line.back() == ' ')
      line.pop_back();
    if (line != marker) continue;
    std::ifstream stat(base + "/stat");
    std::string st;
    std::getline(stat, st);
    size_t paren = st.rfind(')');
    if (paren != std::string::npos && paren + 2 < st.size() && st[paren + 2] == 'Z') continue;
    out.push_back(std::stoi(e->d_name));
  }
  closedir(d);
  return out;
}

// Waits (up to `limit`) until no live process is `marker`; returns those still alive.
inline std::vector<int> WaitUntilGone(const std::string& marker,
                                      std::chrono::milliseconds limit = std::chrono::seconds(5)) {
  auto end = std::chrono::steady_clock::now() + limit;
  std::vector<int> left = ProcessesWith(marker);
  while (!left.empty() && std::chrono::steady_clock::now() < end) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    left = ProcessesWith(marker);
  }
  return left;
}

// Waits (up to `limit`) until at least `n` live processes are `marker`.
inline bool WaitForCount(const std::string& marker, size_t n,
                         std::chrono::milliseconds limit = std::chrono::seconds(10)) {
  auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (ProcessesWith(marker).size() >= n) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

// A marker unique to this test process and call: a sleep duration no one else uses.
inline std::string UniqueSleep() {
  static int n = 0;
  return "sleep 9" + std::to_string(getpid() % 100000) + "." + std::to_string(++n) + "7";
}

}  // namespace safesh::testing
