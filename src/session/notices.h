// Notices about background processes (SH-42): short texts a host hands to the agent with its
// next tool result, so that it learns a dev server is up or a long build has ended without
// asking.
//
//   exit     with notify: "Background process (CMD) exited with code N after T. Its last
//            output: …" (the last 1,500 characters); a process that did not exit by itself
//            (its lifetime ran out, a resource limit stopped it) "was killed after T: why.";
//            none after a kill asked for by the caller or the session's shutdown
//   pattern  with notify_pattern: "Background process (CMD) printed: LINE" for each output line
//            the RE2 pattern matches (anywhere in the line), at most 20 per process, each line
//            cut to 500 characters; the last line counts without its newline
//
// At most 50 wait to be taken; past that a new pattern notice is dropped, and an exit notice
// takes the place of the oldest pattern notice (an exit matters more), and the next Take says
// how many were dropped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace re2 {
class RE2;
}

namespace safesh::session {

inline constexpr size_t kExitTailChars = 1500;
inline constexpr size_t kPatternLineChars = 500;
inline constexpr int kMaxPatternNotices = 20;
inline constexpr size_t kMaxPendingNotices = 50;
// A longer line is matched on its first this many bytes (its end is still found).
inline constexpr size_t kMaxLineBytes = 64 * 1024;
// The command as a notice names it: one line, at most this many characters.
inline constexpr size_t kNoticeCommandChars = 200;

struct Notice {
  enum class Kind { kExit, kPattern };
  Kind kind = Kind::kExit;
  std::string process_id;  // "bg-1"
  std::string text;
};

// The first / last `n` characters (UTF-8 code points; a byte that is not part of a valid
// sequence counts as one) of `text`.
std::string_view FirstChars(std::string_view text, size_t n);
std::string_view LastChars(std::string_view text, size_t n);

// The command as notices show it: whitespace and control characters as single spaces, cut to
// kNoticeCommandChars with "…".
std::string NoticeCommand(std::string_view command);

// "850ms", "4.2s", "59s", "3m 5s", "2h 0m".
std::string FormatDuration(int64_t ms);

// How a process ended, for its exit notice: "exited with code N" when it exited (or died of a
// signal: 128+N), otherwise `why` (non-empty) says what ended it.
std::string ExitNoticeText(std::string_view command, int exit_code, std::string_view why,
                           int64_t runtime_ms, std::string_view last_output);

std::string PatternNoticeText(std::string_view command, std::string_view line);

// Cuts a process's output into lines and matches each against a pattern, as the output
// arrives in pieces of any size.
class LineMatcher {
 public:
  // `pattern` (not owned) may be null: nothing matches.
  explicit LineMatcher(const re2::RE2* pattern) : pattern_(pattern) {}

  // Calls on_match with each complete line (without its newline or a carriage return before
  // it) that matches, until kMaxPatternNotices lines have matched.
  void Feed(std::string_view data, const std::function<void(std::string_view)>& on_match);
  // The output ended: its last line counts even without a newline.
  void End(const std::function<void(std::string_view)>& on_match);

  int matched() const { return matched_; }

 private:
  void Line(const std::function<void(std::string_view)>& on_match);

  const re2::RE2* pattern_;
  std::string partial_;
  int matched_ = 0;
};

// The notices waiting for the host to take them.
class NoticeQueue {
 public:
  void Add(Notice notice);
  // All waiting notices, oldest first, and a last one naming how many were dropped, if any.
  std::vector<Notice> Take();
  size_t size() const { return pending_.size(); }

 private:
  std::deque<Notice> pending_;
  size_t dropped_ = 0;
};

}  // namespace safesh::session
