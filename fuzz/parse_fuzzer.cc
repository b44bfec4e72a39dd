// libFuzzer target: any bytes through the parser, the JSON writer and the text tree. Beyond the
// sanitizers, it checks what must hold for every input: a result or a positioned error, and
// every position inside the text.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "shell/ast_json.h"
#include "shell/parser.h"

namespace {

void Check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  for (bool extglob : {false, true}) {
    safesh::shell::ParseOptions opt;
    opt.extglob = extglob;
    safesh::shell::ParseResult r = safesh::shell::Parse(text, opt);
    if (!r.ok()) {
      Check(r.error->offset <= size);
      Check(!r.error->message.empty());
      continue;
    }
    // Positions in the tree are checked by the writers, which slice the text with them.
    nlohmann::ordered_json j = safesh::shell::ToJson(r.script, text);
    (void)j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
    (void)safesh::shell::ToTree(r.script, text);
  }
  (void)safesh::shell::ParseArithmetic(text);
  return 0;
}
