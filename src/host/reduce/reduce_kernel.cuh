// SPDX-License-Identifier: BSD-3-Clause
// The library's reduction kernel: every CTA is one participant of reduce_run (CTA b takes
// a contiguous range of the call's slots, reduce_part_slots). CTAs of one PE never wait
// for each other, only for their peers' participants of the same slots. The grid is at
// most one CTA per SM (reduce_host.cu), but it need not be resident at once: the slots
// finish in order whatever room the GPU has (reduce_pull.cuh: progress). It is launched
// plainly and may start early (host/launch/early_launch.h), so it first waits for the
// work ahead of it on the stream. The blocking forms' kernels end with their done word
// (host/launch/done_word.h), stored by the last CTA to finish.
#pragma once

#include <gshmem/gshmem.h>
#include <gshmem/device/impl/reduce.cuh>

#include "host/launch/early_launch.h"
#include "host/launch/preload.h"
#include "host/launch/stream_order.cuh"
#include "reduce_launch.h"

namespace gshmem::reductions {

template <class Op, class T>
__global__ void __launch_bounds__(detail::kReduceThreads)
    reduce_kernel(int team, T* dest, const T* source, uint64_t n, int scatter, DoneWord done) {
  wait_for_stream_predecessors();
  const gshmemi_team t = detail::team_entry(team);
  if (t.flags & GSHMEMI_TEAM_SPANS_NODES) {  // members on other nodes: CTA 0 (the only one) alone
    if (blockIdx.x == 0)
      detail::reduce_spanning<Op, T, block_scope>("gshmem reduction (host or on-stream form)", team, dest, source, n,
                                                  scatter != 0);
    grid_done(done);
    return;
  }
  detail::reduce_run<Op, T, block_scope>("gshmem reduction (host or on-stream form)", t, dest, source, n, scatter != 0,
                                         static_cast<int>(blockIdx.x), static_cast<int>(gridDim.x));
  grid_done(done);
}

template <class Op, class T>
cudaError_t launch(const Launch& l) {
  if (l.load_only) return preload::load({preload::K(reduce_kernel<Op, T>)});
  int team = l.team, scatter = l.scatter ? 1 : 0;
  T* dest = static_cast<T*>(l.dest);
  const T* source = static_cast<const T*>(l.source);
  uint64_t n = l.n;
  DoneWord done = l.done;
  void* args[] = {&team, &dest, &source, &n, &scatter, &done};
  return launch_plain(reinterpret_cast<const void*>(reduce_kernel<Op, T>), dim3(l.ctas), dim3(l.threads), args, 0,
                      l.stream, l.captured);
}

}  // namespace gshmem::reductions
