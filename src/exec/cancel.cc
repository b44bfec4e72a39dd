#include "exec/cancel.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdint>

namespace safesh::exec {

CancelToken::CancelToken() : fd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}

void CancelToken::Cancel() const {
  uint64_t one = 1;
  // Only fails when the counter would overflow, i.e. it is already set.
  if (fd_.valid()) (void)!write(fd_.get(), &one, sizeof one);
}

bool CancelToken::cancelled() const {
  if (!fd_.valid()) return false;
  pollfd p = {fd_.get(), POLLIN, 0};
  return poll(&p, 1, 0) > 0;
}

}  // namespace safesh::exec
