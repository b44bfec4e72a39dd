#include "util/json_writer.h"

#include "util/utf8.h"

namespace safesh::util {
void AppendJsonString(std::string_view s, std::string* out) {
  static const char kHex[] = "0123456789abcdef";
  out->push_back('"');
  size_t run = 0;  // start of the bytes not yet copied
  for (size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
      ++i;
      continue;
    }
    size_t len = c < 0x80 ? 1 : Utf8SequenceLength(s, i);
    if (len > 1) {
      i += len;
      continue;
    }
    out->append(s.data() + run, i - run);
    switch (c) {
      case '"':
        out->append("\\\"");
        break;
      case '\\':
        out->append("\\\\");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\t':
        out->append("\\t");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '\b':
        out->append("\\b");
        break;
      case '\f':
        out->append("\\f");
        break;
      default:
        if (c < 0x20) {
          out->append("\\u00");
          out->push_back(kHex[c >> 4]);
          out->push_back(kHex[c & 15]);
        } else {
          out->append("\xEF\xBF\xBD");  // U+FFFD for a byte that is not valid UTF-8
        }
    }
    ++i;
    run = i;
  }
  out->append(s.data() + run, s.size() - run);
  out->push_back('"');
}

void JsonWriter::Key(std::string_view name) {
  Separate();
  AppendJsonString(name, out_);
  out_->push_back(':');
  need_comma_ = false;
}

void JsonWriter::String(std::string_view s) {
  Separate();
  AppendJsonString(s, out_);
  need_comma_ = true;
}

void JsonWriter::Int(int64_t n) {
  Separate();
  out_->append(std::to_string(n));
  need_comma_ = true;
}

void JsonWriter::Bool(bool b) {
  Separate();
  out_->append(b ? "true" : "false");
  need_comma_ = true;
}

void JsonWriter::Null() {
  Separate();
  out_->append("null");
  need_comma_ = true;
}

}  // namespace safesh::util
