// SPDX-License-Identifier: BSD-3-Clause
// Launching the library's own multi-CTA collective kernels (reusable by any
// collective: data movement here, reductions elsewhere).
//
//   int ctas = 0;
//   GSHMEM_TRY(coll::grid_for(call, (const void*)my_kernel, wanted, coll::kThreads, 0, &ctas));
//   void* args[] = {&a, &b};
//   GSHMEM_TRY(coll::launch(call, (const void*)my_kernel, ctas, coll::kThreads, args, 0, stream));
//
// grid_for: the CTAs the caller wants (the data-movement collectives: lanes
// times pieces per lane, coll.cu), never more than fit on the GPU at once (than
// this PE's share, when PEs share the GPU).
// launch: a grid of several CTAs is launched cooperatively, so every CTA is
// resident together (CTAs spin on flags other PEs' CTAs set) and a grid that
// cannot be resident fails with a message instead of hanging; a single CTA is
// launched plainly (it is resident by itself, and that launch costs less), and may
// start early (host/launch/early_launch.h): the kernel's first statement must be
// wait_for_stream_predecessors() (host/launch/stream_order.cuh).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "host/core/status.h"

namespace gshmem::coll {

// Threads per CTA of the library's collective kernels, at most (their launch
// bounds); small calls launch fewer (coll.cu: kSmallThreads).
constexpr int kThreads = 1024;

// *ctas = min(wanted, CTAs of `kernel` co-resident on this GPU), >= 1.
Status grid_for(const char* call, const void* kernel, int wanted, int threads, size_t smem, int* ctas);

// Launch of `kernel` (a __global__ function of libgshmem) on `stream`: cooperative
// unless ctas == 1.
Status launch(const char* call, const void* kernel, int ctas, int threads, void** args, size_t smem,
              cudaStream_t stream);

}  // namespace gshmem::coll
