#include "session/notices.h"

#include <re2/re2.h>

#include <cstdio>

#include "util/utf8.h"

namespace safesh::session {
namespace {

// The length of the character at text[i]: its valid UTF-8 sequence, or one byte.
size_t CharLength(std::string_view text, size_t i) {
  size_t n = util::Utf8SequenceLength(text, i);
  return n == 0 ? 1 : n;
}

}  // namespace

std::string_view FirstChars(std::string_view text, size_t n) {
  size_t i = 0;
  for (size_t chars = 0; i < text.size() && chars < n; ++chars)
    i += CharLength(text, i);
  return text.substr(0, i);
}

std::string_view LastChars(std::string_view text, size_t n) {
  // Walk back over continuation bytes to each character's start; a sequence cut at the front
  // of `text` counts its stray bytes one by one.
  size_t i = text.size();
  for (size_t chars = 0; i > 0 && chars < n; ++chars) {
    size_t start = i - 1;
    while (start > 0 && i - start < 4 && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80)
      --start;
    if (util::Utf8SequenceLength(text, start) == i - start) {
      i = start;
    } else {
      i -= 1;
    }
  }
  return text.substr(i);
}

std::string NoticeCommand(std::string_view command) {
  std::string one_line;
  bool space = false;
  for (char c : command) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f || c == ' ') {
      space = !one_line.empty();
      continue;
    }
    if (space) one_line += ' ';
    space = false;
    one_line += c;
  }
  std::string_view cut = FirstChars(one_line, kNoticeCommandChars);
  if (cut.size() == one_line.size()) return one_line;
  return std::string(cut) + "…";
}

std::string FormatDuration(int64_t ms) {
  char buf[64];
  if (ms < 1000) {
    snprintf(buf, sizeof buf, "%lldms", static_cast<long long>(ms));
  } else if (ms < 10000) {
    snprintf(buf, sizeof buf, "%.1fs", static_cast<double>(ms) / 1000.0);
  } else if (ms < 60000) {
    snprintf(buf, sizeof buf, "%llds", static_cast<long long>(ms / 1000));
  } else if (ms < 3600000) {
    snprintf(buf, sizeof buf, "%lldm %llds", static_cast<long long>(ms / 60000),
             static_cast<long long>(ms / 1000 % 60));
  } else {
    snprintf(buf, sizeof buf, "%lldh %lldm", static_cast<long long>(ms / 3600000),
             static_cast<long long>(ms / 60000 % 60));
  }
  return buf;
}

std::string ExitNoticeText(std::string_view command, int exit_code, std::string_view why,
                           int64_t runtime_ms, std::string_view last_output) {
  std::string text = "Background process (" + NoticeCommand(command) + ") ";
  if (why.empty()) {
    text += "exited with code " + std::to_string(exit_code) + " after " +
            FormatDuration(runtime_ms) + ".";
  } else {
    text += "was killed after " + FormatDuration(runtime_ms) + ": " + std::string(why) + ".";
  }
  std::string_view tail = LastChars(last_output, kExitTailChars);
  if (tail.empty()) return text + " It printed nothing.";
  return text + " Its last output: " + std::string(tail);
}

std::string PatternNoticeText(std::string_view command, std::string_view line) {
  return "Background process (" + NoticeCommand(command) +
         ") printed: " + std::string(FirstChars(line, kPatternLineChars));
}

void LineMatcher::Line(const std::function<void(std::string_view)>& on_match) {
  std::string_view line = partial_;
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (pattern_ != nullptr && matched_ < kMaxPatternNotices && RE2::PartialMatch(line, *pattern_)) {
    ++matched_;
    on_match(line);
  }
  partial_.clear();
}

void LineMatcher::Feed(std::string_view data,
                       const std::function<void(std::string_view)>& on_match) {
  // Nothing more can match: the pieces need not be cut at all.
  if (pattern_ == nullptr || matched_ >= kMaxPatternNotices) return;
  while (!data.empty()) {
    size_t nl = data.find('\n');
    std::string_view piece = data.substr(0, nl);
    if (partial_.size() < kMaxLineBytes)
      partial_.append(piece.substr(0, kMaxLineBytes - partial_.size()));
    if (nl == std::string_view::npos) return;
    Line(on_match);
    data.remove_prefix(nl + 1);
  }
}

void LineMatcher::End(const std::function<void(std::string_view)>& on_match) {
  if (!partial_.empty()) Line(on_match);
}

void NoticeQueue::Add(Notice notice) {
  if (pending_.size() < kMaxPendingNotices) {
    pending_.push_back(std::move(notice));
    return;
  }
  ++dropped_;
  if (notice.kind != Notice::Kind::kExit) return;
  for (auto it = pending_.begin(); it != pending_.end(); ++it) {
    if (it->kind == Notice::Kind::kPattern) {
      pending_.erase(it);
      pending_.push_back(std::move(notice));
      return;
    }
  }
}

std::vector<Notice> NoticeQueue::Take() {
  std::vector<Notice> out(std::make_move_iterator(pending_.begin()),
                          std::make_move_iterator(pending_.end()));
  pending_.clear();
  if (dropped_ > 0) {
    Notice n;
    n.kind = Notice::Kind::kPattern;
    n.text = std::to_string(dropped_) + " more background process notice" +
             (dropped_ == 1 ? " was" : "s were") + " dropped (at most " +
             std::to_string(kMaxPendingNotices) +
             " wait at once); use manage_background_process to see their output";
    out.push_back(std::move(n));
    dropped_ = 0;
  }
  return out;
}

}  // namespace safesh::session
