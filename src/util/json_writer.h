// JsonWriter: writes JSON text straight into a string, one value at a time.
//
// For large outputs (a syntax tree is ~15 times the size of its script) building a DOM first
// costs far more than the parse; this writes as it goes. Strings are escaped, and bytes that are
// not valid UTF-8 become U+FFFD, so the output is always valid JSON in valid UTF-8.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace safesh::util {

class JsonWriter {
 public:
  explicit JsonWriter(std::string* out) : out_(out) {}

  void BeginObject() { Open('{'); }
  void EndObject() { Close('}'); }
  void BeginArray() { Open('['); }
  void EndArray() { Close(']'); }

  // The name of the next member of the current object.
  void Key(std::string_view name);

  void String(std::string_view s);
  void Int(int64_t n);
  void Bool(bool b);
  void Null();
  // A value that is already JSON (e.g. another writer's output), inserted as it is.
  void Raw(std::string_view json) {
    Separate();
    out_->append(json);
    need_comma_ = true;
  }

 private:
  void Separate() {
    if (need_comma_) out_->push_back(',');
  }
  void Open(char c) {
    Separate();
    out_->push_back(c);
    need_comma_ = false;
  }
  void Close(char c) {
    out_->push_back(c);
    need_comma_ = true;
  }

  std::string* out_;
  bool need_comma_ = false;
};

// Appends `s` to `out` as a quoted JSON string (see JsonWriter).
void AppendJsonString(std::string_view s, std::string* out);

}  // namespace safesh::util
