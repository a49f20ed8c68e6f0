// SPDX-License-Identifier: BSD-3-Clause
// Host RMA data movement for a resolved request (rma_args.h), enqueued on a
// stream. Picks, in this order:
//   contiguous on both sides    one cudaMemcpyAsync (copy engines);
//   strided, pitches allowed    cudaMemcpy2DAsync: one "row" per element, the
//                               pitches being the strides in bytes;
//   pitch beyond the device's   a strided-copy kernel when the local buffer is
//   cudaDevAttrMaxPitch         device-accessible, else one cudaMemcpyAsync per
//                               element.
// The copy engines and the kernel address the peer's heap through this
// process's mapping of it (NVLink / PCIe P2P).
#pragma once

#include <cuda_runtime.h>

#include "rma_args.h"

namespace gshmem::rma {

// Enqueues the transfer on `stream`; with `wait` also waits for it. Logs and
// returns false on a CUDA error.
bool transfer(const char* call, const Transfer& t, cudaStream_t stream, bool wait);

// Enqueues a 1-thread kernel on `stream` storing `bytes` (1..16) bytes of
// `value` (captured now) at `dst` (an address in this process).
bool store_on_stream(const char* call, void* dst, const void* value, size_t bytes, cudaStream_t stream);

}  // namespace gshmem::rma
