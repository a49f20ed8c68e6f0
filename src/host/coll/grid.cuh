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
// Each CTA counts itself in (a GPU-scope release); the last CTA to arrive then
// signals every lane (a system-scope release: its fence carries every CTA's
// stores, below) and waits for the others' signals. A CTA that is not last exits
// as soon as its stores are out.
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
// after its work and a __syncthreads. The count resets itself.
// Ordering of the CTAs' stores (to peers too) before the last CTA's signals: the
// __syncthreads orders the CTA's stores before thread 0's count, an acquire-release
// at GPU scope; the last CTA's count acquires every earlier one, and its signals'
// fence.acq_rel.sys then releases, cumulatively, all that it acquired. PTX's
// causality order chains synchronisations of different scopes (each pair morally
// strong: the counts within the GPU, the signal and its waiter at system scope), so
// a member that acquires the signal sees every CTA's data. Until 2026-11 each CTA
// also ran its own fence.acq_rel.sys first: two system fences in series on the
// critical path; without it, on 2 x H200 in a CUDA graph (gshmem-perf, 2 rounds
// alternated, every result verified), broadcast, fcollect and alltoall at 32 KiB-4 MiB
// took 0.3-0.6 us less (-3 to -8 %; broadcast 32 KiB 6.89 -> 6.58 us, alltoall
// 256 KiB 7.80 -> 7.14), and ctest coll_bcast/collect/alltoall/ll-2 passed.
__device__ inline bool last_cta_to_arrive(const gshmemi_team& t) {
  if (gridDim.x == 1) return true;
  __shared__ bool last;
  if (threadIdx.x == 0) {
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
    if (!last_cta_to_arrive(t)) return;
    op.template finish<block_scope>(t, base);
  } else {
    for (int s = static_cast<int>(blockIdx.x); s < op.lanes; s += static_cast<int>(gridDim.x))
      op.template lane<block_scope>(t, base, s);
    __syncthreads();
    if (!last_cta_to_arrive(t)) return;
  }
  __syncthreads();
  if (threadIdx.x == 0) st_volatile(move_counter(t), base + op.span);
}

}  // namespace detail
}  // namespace gshmem
