// SPDX-License-Identifier: BSD-3-Clause
#include "status.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>

namespace gshmem {

const char* status_name(Status s) {
  switch (s) {
    case GSHMEM_SUCCESS:
      return "GSHMEM_SUCCESS";
    case GSHMEM_ERROR_INVALID_VALUE:
      return "GSHMEM_ERROR_INVALID_VALUE";
    case GSHMEM_ERROR_NOT_INITIALIZED:
      return "GSHMEM_ERROR_NOT_INITIALIZED";
    case GSHMEM_ERROR_OUT_OF_MEMORY:
      return "GSHMEM_ERROR_OUT_OF_MEMORY";
    case GSHMEM_ERROR_CUDA:
      return "GSHMEM_ERROR_CUDA";
    case GSHMEM_ERROR_BOOTSTRAP:
      return "GSHMEM_ERROR_BOOTSTRAP";
    case GSHMEM_ERROR_PEER_FAILURE:
      return "GSHMEM_ERROR_PEER_FAILURE";
    case GSHMEM_ERROR_TIMEOUT:
      return "GSHMEM_ERROR_TIMEOUT";
    case GSHMEM_ERROR_UNSUPPORTED:
      return "GSHMEM_ERROR_UNSUPPORTED";
    case GSHMEM_ERROR_SYSTEM:
      return "GSHMEM_ERROR_SYSTEM";
    case GSHMEM_ERROR_MISMATCH:
      return "GSHMEM_ERROR_MISMATCH";
    case GSHMEM_ERROR_LAUNCH:
      return "GSHMEM_ERROR_LAUNCH";
    case GSHMEM_ERROR_AUTH:
      return "GSHMEM_ERROR_AUTH";
    case GSHMEM_ERROR_INTERNAL:
      return "GSHMEM_ERROR_INTERNAL";
    case GSHMEM_ERROR_ABORTED:
      return "GSHMEM_ERROR_ABORTED";
  }
  return "GSHMEM_ERROR_UNKNOWN";
}

const char* status_message(Status s) {
  switch (s) {
    case GSHMEM_SUCCESS:
      return "success";
    case GSHMEM_ERROR_INVALID_VALUE:
      return "an argument is invalid (see the log line above)";
    case GSHMEM_ERROR_NOT_INITIALIZED:
      return "gshmem is not initialized: call gshmem_init() first";
    case GSHMEM_ERROR_OUT_OF_MEMORY:
      return "out of memory (symmetric heap or host); see GSHMEM_SYMMETRIC_SIZE";
    case GSHMEM_ERROR_CUDA:
      return "a CUDA call failed (see the log line above)";
    case GSHMEM_ERROR_BOOTSTRAP:
      return "bootstrap rendezvous failed (check address, port and that every PE started)";
    case GSHMEM_ERROR_PEER_FAILURE:
      return "another PE died or disconnected";
    case GSHMEM_ERROR_TIMEOUT:
      return "a bounded wait timed out";
    case GSHMEM_ERROR_UNSUPPORTED:
      return "not supported on this platform";
    case GSHMEM_ERROR_SYSTEM:
      return "an operating-system call failed (see the log line above)";
    case GSHMEM_ERROR_MISMATCH:
      return "arguments of a collective call differ between PEs";
    case GSHMEM_ERROR_LAUNCH:
      return "the kernel cannot be launched collectively (grid not co-resident)";
    case GSHMEM_ERROR_AUTH:
      return "a bootstrap peer presented the wrong job secret";
    case GSHMEM_ERROR_INTERNAL:
      return "internal error in gshmem (please report)";
    case GSHMEM_ERROR_ABORTED:
      return "gshmemx_abort was called on this PE: call gshmem_finalize, then gshmem_init to start again";
  }
  return "unknown status code";
}

void fatal(const char* fmt, ...) {
  char msg[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  log::write(log::Level::error, "FATAL: %s", msg);
  const char* a = getenv("GSHMEM_ABORT_ON_FATAL");
  if (a && a[0] == '1') abort();
  fflush(nullptr);
  _Exit(1);
}

}  // namespace gshmem
