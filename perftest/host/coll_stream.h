// SPDX-License-Identifier: BSD-3-Clause
// On-stream collectives side by side with NCCL (broadcast_on_stream.cpp, ...):
// every PE enqueues the gshmem on-stream collective `iters` times per repetition
// on ctx.stream (events around the batch; --graph: the batch captured once into a
// CUDA graph and replayed), checks the result, then does the same with the NCCL
// call on the same buffers, sizes and stream, and checks that too.
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <string>

#include "../common/bench.h"
#include "../common/coll.h"
#include "../common/nccl.h"

namespace perf {

struct Ctx;

// Enqueue one operation; return 0 or an error code (gshmem) / 0 or -1 with *err (NCCL).
using GshmemCall = std::function<int(void* dst, const void* src, size_t count, cudaStream_t s)>;
using NcclCall =
    std::function<int(nccl::Comm* comm, void* dst, const void* src, size_t count, cudaStream_t s, std::string* err)>;

// `nccl` may be empty (no NCCL counterpart for this case; `why_no_nccl` says why).
void run_stream_coll(Ctx& ctx, const Case& c, Result& r, Coll k, const char* bench, const GshmemCall& gshmem,
                     const NcclCall& nccl, const char* why_no_nccl = nullptr);

// Descriptor defaults of the on-stream collectives.
Bench stream_coll_bench(const char* name, const char* what, Bus bus);

}  // namespace perf
