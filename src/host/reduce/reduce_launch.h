// SPDX-License-Identifier: BSD-3-Clause
// Internal interface of the reduction launcher (src/host/reduce/): the library's own
// kernels for the host and on-stream forms, one per (operator, canonical element type).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "host/launch/done_word.h"

namespace gshmem::reductions {

// One launch: reduce_run over `ctas` CTAs of `threads` (at most detail::kReduceThreads)
// threads, one participant each, on `stream`; it may start early (host/launch/early_launch.h).
struct Launch {
  int team;
  void* dest;
  const void* source;
  uint64_t n;
  bool scatter;
  int ctas;
  int threads;
  cudaStream_t stream;
  bool captured;           // the stream is being captured into a graph
  DoneWord done;           // blocking forms: stored by the last CTA (host/launch/done_word.h)
  bool load_only = false;  // load the kernel instead (host/launch/preload.h)
};

// Integer elements (GSHMEMI_RK_SINT / _UINT) of `size` bytes; cudaErrorInvalidValue for
// an operator the type does not have. reduce_int.cu.
cudaError_t launch_int(int op, bool is_signed, int size, const Launch& l);
// float, double, __half, __nv_bfloat16, the complex types (kind GSHMEMI_RK_*). reduce_float.cu.
cudaError_t launch_float(int op, int kind, int size, const Launch& l);

}  // namespace gshmem::reductions
