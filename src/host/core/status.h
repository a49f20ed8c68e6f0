// SPDX-License-Identifier: BSD-3-Clause
// Status codes and the one checking-macro family used by the host library.
// Rule: log at the point of detection (with call, PE and cause), then return
// the code; callers only propagate.
#pragma once

#include "gshmem/types.h"
#include "log.h"

namespace gshmem {

using Status = int;

// Human-readable name of a status code ("GSHMEM_ERROR_OUT_OF_MEMORY").
const char* status_name(Status s);
// One-line explanation of a status code.
const char* status_message(Status s);

// The library's one fatal path: prints "gshmem ERROR [PE n/N host:pid]: FATAL: <message>" to
// stderr and terminates the process with exit code 1 (abort() instead when
// GSHMEM_ABORT_ON_FATAL=1, for a core dump). Used only where the OpenSHMEM API
// gives no way to return an error (gshmem_init, void calls).
[[noreturn]] void fatal(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

}  // namespace gshmem

// Propagate a non-success status.
#define GSHMEM_TRY(expr)                                       \
  do {                                                         \
    ::gshmem::Status gshmem_try_s_ = (expr);                   \
    if (gshmem_try_s_ != GSHMEM_SUCCESS) return gshmem_try_s_; \
  } while (0)

// Check a CUDA runtime call; on failure log "<where>: <call> failed: <error>" and return.
#define GSHMEM_CUDA_TRY(where, call)                                                                 \
  do {                                                                                               \
    cudaError_t gshmem_cuda_e_ = (call);                                                             \
    if (gshmem_cuda_e_ != cudaSuccess) {                                                             \
      GSHMEM_LOG_ERROR("%s: %s failed: %s (%s)", (where), #call, cudaGetErrorString(gshmem_cuda_e_), \
                       cudaGetErrorName(gshmem_cuda_e_));                                            \
      return GSHMEM_ERROR_CUDA;                                                                      \
    }                                                                                                \
  } while (0)

// Check a CUDA driver call (CUresult) made through gshmem::cu (host/core/driver.h).
#define GSHMEM_CU_TRY(where, call)                                                                                  \
  do {                                                                                                              \
    CUresult gshmem_cu_e_ = (call);                                                                                 \
    if (gshmem_cu_e_ != CUDA_SUCCESS) {                                                                             \
      GSHMEM_LOG_ERROR("%s: %s failed: %s (CUresult %d)", (where), #call, ::gshmem::cu::error_string(gshmem_cu_e_), \
                       (int)gshmem_cu_e_);                                                                          \
      return GSHMEM_ERROR_CUDA;                                                                                     \
    }                                                                                                               \
  } while (0)
