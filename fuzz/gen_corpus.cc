// Writes a seed corpus for the parser fuzzer: generated and mutated scripts
// (tests/shell/script_generator.h) of at most 1,500 bytes. Small seeds keep the fuzzer fast; it
// grows larger inputs from them where they find new paths.
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
  for (int i = 0, tries = 0; i < n && tries < 100 * n; ++tries) {
    std::string s = tries % 2 ? gen.Mutate(gen.Generate()) : gen.Generate();
    if (s.size() > 1500) continue;
    std::string path = std::string(argv[1]) + "/gen-" + std::to_string(i++);
    std::ofstream out(path);
    out << s;
    if (!out) {
      std::fprintf(stderr, "gen_corpus: cannot write %s\n", path.c_str());
      return 1;
    }
  }
  return 0;
}
