// Writes a seed corpus for the fuzzers: generated and mutated scripts
// (tests/shell/script_generator.h) of at most 1,500 bytes, and the command column of any
// corpus TSV files given (tests/data/corpus). Small seeds keep the fuzzer fast; it grows larger
// inputs from them where they find new paths.
//   gen_corpus DIR COUNT [FILE.tsv...]
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "script_generator.h"

namespace {

bool Write(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) std::fprintf(stderr, "gen_corpus: cannot write %s\n", path.c_str());
  return static_cast<bool>(out);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: gen_corpus DIR COUNT [FILE.tsv...]\n");
    return 64;
  }
  std::string dir = argv[1];
  safesh::testing::ScriptGenerator gen(42);
  int n = std::atoi(argv[2]);
  for (int i = 0, tries = 0; i < n && tries < 100 * n; ++tries) {
    std::string s = tries % 2 ? gen.Mutate(gen.Generate()) : gen.Generate();
    if (s.size() > 1500) continue;
    if (!Write(dir + "/gen-" + std::to_string(i++), s)) return 1;
  }
  for (int f = 3; f < argc; ++f) {
    std::ifstream in(argv[f]);
    if (!in) {
      std::fprintf(stderr, "gen_corpus: cannot read %s\n", argv[f]);
      return 1;
    }
    std::string line;
    std::getline(in, line);
    // The column named "command" holds a JSON string.
    size_t column = 0;
    {
      std::stringstream header(line);
      std::string name;
      for (size_t c = 0; std::getline(header, name, '\t'); ++c) {
        if (name == "command") column = c;
      }
    }
    for (int row = 0; std::getline(in, line); ++row) {
      std::stringstream ss(line);
      std::string cell;
      for (size_t c = 0; c <= column && std::getline(ss, cell, '\t'); ++c) {
      }
      nlohmann::json j = nlohmann::json::parse(cell, nullptr, false);
      if (!j.is_string()) continue;
      if (!Write(dir + "/corpus-" + std::to_string(f) + "-" + std::to_string(row),
                 j.get<std::string>())) {
        return 1;
      }
    }
  }
  return 0;
}
