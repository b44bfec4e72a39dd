// libFuzzer target: any bytes through the parser, the streaming check, the JSON writer and the
// text tree. Beyond the sanitizers, it checks what must hold for every input: a tree or a
// positioned error, the same answer from Parse and Check, valid JSON, and every position inside
// the text.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

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
    // The streaming check must agree with the full parse, error for error.
    std::optional<safesh::shell::SyntaxError> checked = safesh::shell::Check(text, opt);
    Check(checked.has_value() == !r.ok());
    if (checked) {
      Check(checked->offset == r.error->offset && checked->message == r.error->message &&
            checked->kind == r.error->kind);
    }
    if (!r.ok()) {
      Check(r.error->offset <= size);
      Check(!r.error->message.empty());
      continue;
    }
    // Positions in the tree are checked by the writers, which slice the text with them.
    // Whatever the bytes, the JSON must be valid.
    Check(nlohmann::json::accept(safesh::shell::ToJson(r.script, text)));
    (void)safesh::shell::ToTree(r.script, text);
  }
  (void)safesh::shell::ParseArithmetic(text);
  return 0;
}
