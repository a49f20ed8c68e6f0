// SPDX-License-Identifier: BSD-3-Clause
// Multi-CTA driver of a data-movement collective (the host and on-stream forms):
// the kernel's CTAs take the call's lanes round robin (CTA b: lanes b, b + G, ...),
// each lane at block scope, exactly as one caller of the device API would take
// them all in turn (device/impl/coll_common.cuh: run_collective), so both forms
// of one collective interoperate and the CTA count is a local choice.
//
// LL calls (tiny messages, impl/coll_ll.cuh) are run by CTA 0 alone.
//
// Sequence number: every CTA reads the team's base before its first lane; the
// last CTA to finish (lanes[1][me] counts arrivals) stores base + span and
// resets the count, so no CTA can read an updated base. collect needs a grid
// sync after reading the counts (all CTAs must have read them before any lane
// releases data, see impl/coll_collect.cuh): kernels are launched cooperatively.
#pragma once

#include <cooperative_groups.h>

#include <gshmem/gshmem.h>

namespace gshmem {
namespace detail {

template <class Op>
__device__ void run_grid(const gshmemi_team& t, Op& op, bool grid_sync_after_prepare) {
  if constexpr (Op::kLL) {
    if (op.ll.count != nullptr) {  // LL calls are one lane: one CTA, no sequence number
      if (blockIdx.x == 0) ll_exchange<block_scope>(t, op.ll, op, op.nbytes, op.call);
      return;
    }
  }
  const uint64_t base = ld_volatile(move_counter(t));
  op.template prepare<block_scope>(t, base, blockIdx.x == 0);
  if (grid_sync_after_prepare && gridDim.x > 1) cooperative_groups::this_grid().sync();
  for (int s = static_cast<int>(blockIdx.x); s < op.lanes; s += static_cast<int>(gridDim.x))
    op.template lane<block_scope>(t, base, s);
  __syncthreads();
  if (threadIdx.x == 0) {
    cuda::atomic_ref<uint64_t, cuda::thread_scope_device> arrived(*arrival_counter(t));
    if (arrived.fetch_add(1, cuda::memory_order_acq_rel) == gridDim.x - 1) {
      arrived.store(0, cuda::memory_order_relaxed);
      st_volatile(move_counter(t), base + op.span);
    }
  }
}

}  // namespace detail
}  // namespace gshmem
