// SPDX-License-Identifier: BSD-3-Clause
// Multi-CTA driver of a data-movement collective (the host and on-stream forms).
// Each CTA works at block scope, and the flags it sets and awaits are the ones a
// caller of the device API sets and awaits (device/impl/coll_common.cuh:
// run_collective), so both forms of one collective interoperate and the CTA
// count is a local choice.
//
// Split ops (Op::kSplit; every collective but the broadcast relay): the call's
// lanes x `parts` pieces are spread over the CTAs round robin (CTA b: pieces b,
// b + G, ...), so a lane of a mid-size message is pushed by several SMs at once.
// Each CTA fences its stores (fence.acq_rel.sys) and counts itself in; the last
// CTA to arrive then signals every lane and waits for the others' signals. A CTA
// that is not last exits as soon as its stores are out.
// Other ops: the CTAs take the call's lanes round robin, each lane from start to
// end (its own signals and waits).
//
// LL calls (tiny messages, impl/coll_ll.cuh) are run by CTA 0 alone.
//
// Sequence number: every CTA reads the team's base before its first piece or
// lane; the last CTA to arrive (lanes[1][me] counts arrivals, and is reset by
// it) stores base + span when it is done, so no CTA can read an updated base.
// collect reads the byte counts of the other members before it pushes, in every
// CTA; it signals only once every CTA has arrived, that is, has read them (the
// condition of impl/coll_collect.cuh).
#pragma once

#include <gshmem/gshmem.h>

namespace gshmem {
namespace detail {

// Whether this CTA is the last of the grid to arrive; every CTA calls it once,
// after its work and a __syncthreads. The count resets itself. `publish`: the
// CTA's stores (to peers too) are made visible at system scope before it counts
// itself in, so the last CTA's signals carry them (coll_common.cuh: ordering).
__device__ inline bool last_cta_to_arrive(const gshmemi_team& t, bool publish) {
  if (gridDim.x == 1) return true;
  __shared__ bool last;
  if (threadIdx.x == 0) {
    if (publish) fence_acq_rel_sys();
    cuda::atomic_ref<uint64_t, cuda::thread_scope_device> arrived(*arrival_counter(t));
    last = arrived.fetch_add(1, cuda::memory_order_acq_rel) == gridDim.x - 1;
    if (last) arrived.store(0, cuda::memory_order_relaxed);
  }
  __syncthreads();
  return last;
}

template <class Op>
__device__ void run_grid(const gshmemi_team& t, Op& op, int parts) {
  if constexpr (Op::kLL) {
    if (op.ll.count != nullptr) {  // LL calls are one lane: one CTA, no sequence number
      if (blockIdx.x == 0) ll_exchange<block_scope>(t, op.ll, op, op.nbytes, op.call);
      return;
    }
  }
  const uint64_t base = ld_volatile(move_counter(t));
  op.template prepare<block_scope>(t, base, blockIdx.x == 0);
  if constexpr (Op::kSplit) {
    const int pieces = op.lanes * parts;
    for (int b = static_cast<int>(blockIdx.x); b < pieces; b += static_cast<int>(gridDim.x))
      op.template push<block_scope>(t, b / parts, b % parts, parts);
    __syncthreads();
    if (!last_cta_to_arrive(t, true)) return;
    op.template finish<block_scope>(t, base);
  } else {
    for (int s = static_cast<int>(blockIdx.x); s < op.lanes; s += static_cast<int>(gridDim.x))
      op.template lane<block_scope>(t, base, s);
    __syncthreads();
    if (!last_cta_to_arrive(t, false)) return;
  }
  __syncthreads();
  if (threadIdx.x == 0) st_volatile(move_counter(t), base + op.span);
}

}  // namespace detail
}  // namespace gshmem
