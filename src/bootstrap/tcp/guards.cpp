// SPDX-License-Identifier: BSD-3-Clause
#include "bootstrap/tcp/guards.h"

#include <unistd.h>

namespace gshmem::bootstrap::tcp {

Status refuse_in_forked_child(const char* what, pid_t owner, int rank) {
  if (getpid() == owner) return GSHMEM_SUCCESS;
  GSHMEM_LOG_ERROR(
      "bootstrap: %s called in process %d, which was fork()ed from PE %d (process %d) "
      "after gshmem_init: the PE's bootstrap connections were closed in this child. "
      "gshmem can only be used by the PE's own process; a child must exec a new program "
      "(e.g. Python multiprocessing with the \"spawn\" start method) to be a PE",
      what, static_cast<int>(getpid()), rank, static_cast<int>(owner));
  return GSHMEM_ERROR_NOT_INITIALIZED;
}

Status refuse_if_unusable(const char* what, bool closed, Status failed, const std::string& failed_msg) {
  if (closed) {
    GSHMEM_LOG_ERROR("bootstrap: %s called after finalize", what);
    return GSHMEM_ERROR_NOT_INITIALIZED;
  }
  if (failed != GSHMEM_SUCCESS) {
    const char* prior = failed_msg.c_str();
    if (failed_msg.rfind("bootstrap: ", 0) == 0) prior += 11;
    GSHMEM_LOG_ERROR("bootstrap: %s refused: an earlier operation failed: %s", what, prior);
    return failed;
  }
  return GSHMEM_SUCCESS;
}

}  // namespace gshmem::bootstrap::tcp
