// Writes a seed corpus for the parser fuzzer: generated scripts (tests/shell/script_generator.h).
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "script_generator.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: gen_corpus DIR COUNT\n");
    return 64;
  }
  safesh::testing::ScriptGenerator gen(42);
  int n = std::atoi(argv[2]);
  for (int i = 0; i < n; ++i) {
    std::string s = i % 2 ? gen.Mutate(gen.Generate()) : gen.Generate();
    std::ofstream(std::string(argv[1]) + "/gen-" + std::to_string(i)) << s;
  }
  return 0;
}
