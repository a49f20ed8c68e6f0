// SPDX-License-Identifier: BSD-3-Clause
#include "bootstrap/tcp/guards.h"

#include <unistd.h>

#include <cstdint>

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

Status check_allgather_args(const void* mine, const void* all, size_t bytes, int size) {
  if (bytes > 0 && (!mine || !all)) {
    GSHMEM_LOG_ERROR("bootstrap: allgather of %zu bytes with a NULL %s buffer", bytes, mine ? "output" : "input");
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  if (bytes > SIZE_MAX / static_cast<size_t>(size)) {
    GSHMEM_LOG_ERROR("bootstrap: allgather of %zu bytes per PE overflows", bytes);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  return GSHMEM_SUCCESS;
}

Status check_broadcast_args(const void* buf, size_t bytes, int root, int size) {
  if (root < 0 || root >= size) {
    GSHMEM_LOG_ERROR("bootstrap: broadcast root %d is not a PE (0..%d)", root, size - 1);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  if (bytes > 0 && !buf) {
    GSHMEM_LOG_ERROR("bootstrap: broadcast of %zu bytes with a NULL buffer", bytes);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  return GSHMEM_SUCCESS;
}

}  // namespace gshmem::bootstrap::tcp
