// SPDX-License-Identifier: BSD-3-Clause
// The library's reduction kernel: every CTA is one participant of reduce_run (it takes
// slots blockIdx.x, blockIdx.x + gridDim.x, ...). CTAs of one PE never wait for each
// other, only for their peers' CTAs of the same slots; the grid is at most one CTA per
// SM (reduce_host.cu), so all of it is resident and every slot makes progress.
#pragma once

#include <gshmem/gshmem.h>
#include <gshmem/device/impl/reduce.cuh>

#include "reduce_launch.h"

namespace gshmem::reductions {

template <class Op, class T>
__global__ void __launch_bounds__(detail::kReduceThreads)
    reduce_kernel(int team, T* dest, const T* source, uint64_t n, int scatter) {
  detail::reduce_run<Op, T, block_scope>("gshmem reduction (host or on-stream form)", detail::team_entry(team),
                                         dest, source, n, scatter != 0, static_cast<int>(blockIdx.x),
                                         static_cast<int>(gridDim.x));
}

template <class Op, class T>
cudaError_t launch(const Launch& l) {
  reduce_kernel<Op, T><<<l.ctas, l.threads, 0, l.stream>>>(
      l.team, static_cast<T*>(l.dest), static_cast<const T*>(l.source), l.n, l.scatter ? 1 : 0);
  return cudaGetLastError();
}

}  // namespace gshmem::reductions
