// CancelToken: a way to stop a running command from another thread or a signal handler.
#pragma once

#include "util/unique_fd.h"

namespace safesh::exec {

class CancelToken {
 public:
  // An eventfd; invalid (and Cancel a no-op) only if the kernel refused one.
  CancelToken();

  // Asks the run watching this token to kill its command. Async-signal-safe and thread-safe;
  // a second call changes nothing.
  void Cancel() const;

  // Readable once Cancel has been called (for poll).
  int fd() const { return fd_.get(); }
  bool cancelled() const;

 private:
  util::UniqueFd fd_;
};

}  // namespace safesh::exec
