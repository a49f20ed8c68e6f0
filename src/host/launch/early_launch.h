// SPDX-License-Identifier: BSD-3-Clause
// Plain launches of the library's own kernels that may start early: with programmatic
// stream serialisation a kernel may begin while the kernel ahead of it on the stream is
// still ending, and its first statement, wait_for_stream_predecessors()
// (stream_order.cuh), holds it until that kernel has completed and its memory operations
// are visible, as a kernel boundary would. What overlaps is the launch itself, which
// shortens back-to-back barriers on a stream (perftest/probe/stream_barrier_probe.cu).
//
// Only outside stream capture (in a CUDA graph a barrier after a user kernel is slower
// started early), only where the kernels were compiled for compute_90 or later (else the
// wait is not in them), and only with GSHMEM_EARLY_LAUNCH=1 (the default). Cooperative
// grids do not start early: it did not make them cheaper (perftest/probe/launch_probe.cu).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace gshmem {

// Whether `stream` is being captured into a graph (false if the query fails).
bool stream_captured(cudaStream_t stream);

// Launches `kernel`, a __global__ function of libgshmem whose first statement is
// wait_for_stream_predecessors(), plainly on `stream`; early unless `captured` or the
// conditions above say otherwise. cudaLaunchKernel's errors.
cudaError_t launch_plain(const void* kernel, dim3 grid, dim3 block, void** args, size_t smem, cudaStream_t stream,
                         bool captured);

}  // namespace gshmem
