// SPDX-License-Identifier: BSD-3-Clause
// gshmemx_abort: ends the job on this PE without ending the process, so that a watchdog thread
// can release a hung job and the program can start again (gshmem_finalize, gshmem_init).
//
// It sets the abort word (host/core/abort.h): every thread spinning in a device wait of the
// library on this PE exits within milliseconds (its kernel ends without an error), or, in a wait
// for the proxy, traps; host calls then fail with GSHMEM_ERROR_ABORTED until gshmem_finalize.
// Local: the other PEs are not told; their waits on this PE end by their own abort, by the
// heartbeat bound once this PE's finalize closed its connections, or by GSHMEM_WAIT_TIMEOUT.
#include "host/core/abort.h"
#include "host/core/log.h"
#include "host/core/runtime.h"

using namespace gshmem;

extern "C" GSHMEM_API int gshmemx_abort(int code) {
  const Runtime& r = rt();
  if (!r.initialized) {
    GSHMEM_LOG_ERROR("gshmemx_abort(%d): gshmem is not initialized; nothing to abort", code);
    return GSHMEM_ERROR_NOT_INITIALIZED;
  }
  if (!abort_word::raise(GSHMEMI_ABORT_USER, code)) {
    char why[96];
    GSHMEM_LOG_WARN("gshmemx_abort(%d): already ending (%s)", code, abort_word::reason(why, sizeof(why)));
    return GSHMEM_SUCCESS;
  }
  GSHMEM_LOG_WARN(
      "gshmemx_abort(%d) on PE %d: this PE's device waits end now; host calls fail with "
      "GSHMEM_ERROR_ABORTED until gshmem_finalize",
      code, r.my_pe);
  return GSHMEM_SUCCESS;
}
