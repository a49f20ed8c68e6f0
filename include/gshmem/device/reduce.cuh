// SPDX-License-Identifier: BSD-3-Clause
// Team reductions on the device: declarations and contract. Bodies: impl/reduce*.cuh.
// C names (gshmem_int_sum_reduce, gshmemx_float_max_reducescatter_block, ...): c_api.cuh.
//
//   gshmem::reduce<Op, Scope>(team, dest, source, nreduce)
//       All-reduce (OpenSHMEM 1.5 team reduction): dest[i] = source_0[i] Op ... Op
//       source_{N-1}[i] on every member, for i < nreduce (source_p: team PE p's array).
//   gshmem::reducescatter<Op, Scope>(team, dest, source, nreduce)
//       Reduce-scatter (NVSHMEM's reducescatter): source holds N * nreduce elements;
//       team PE p receives dest[i] = reduction over all members of source[p * nreduce + i].
//
// Op is one of the types in gshmem::op: sum, prod, min, max (ordered types) and the
// bitwise and_, or_, xor_ (integer types). T: the integer and floating types of the
// specification plus __half and __nv_bfloat16 (min/max/sum/prod; computed in float and
// rounded once). Integer sums and products wrap (two's complement).
//
// Arguments (every member passes the same team, nreduce, Op and T):
//   dest, source   symmetric. Either the same address (in place) or disjoint ranges.
//                  In-place reducescatter (dest == source): dest gets the result and the
//                  caller's own chunk (source + team_my_pe * nreduce) may be overwritten
//                  with partial results; the other chunks are left as they were.
//   Before the call: the caller's source is ready; dest on every member may be written
//   (the specification's precondition). On return: dest holds the result and source may
//   be reused. No other synchronisation is implied (use a barrier for that).
//
// Results are identical on every member, bit for bit, and from run to run: each element
// is combined by one member and copied to the others (large arrays), or by every member in
// team PE order (small arrays). The order of a floating-point combination therefore
// depends on nreduce, the team and the element, never on timing.
//
// Scope: one thread, warp or block per member calls (see scope.cuh); every thread of the
// scope passes the same arguments; the call begins and ends with Scope::sync(). Calls on
// one team must not overlap and must come in the same order on every member; host,
// on-stream and device calls of a team share one sequence.
//
// Cost: small arrays travel through the team's scratch in one signalled round (one
// NVLink one-way latency); large ones are reduce-scattered in place from the members'
// sources and all-gathered into their dests (2(N-1)/N of the data over NVLink per
// member). Both keep their state in the team's collective scratch
// (GSHMEM_TEAM_SCRATCH_SIZE), whose size bounds the small arrays' path (with the default
// 1 MiB, arrays of up to about 1 MiB / (2 N) per member); see impl/reduce_layout.cuh.
// A team with members on other nodes (reached through the proxy) reduces in rounds that
// push every member's contribution to every other, one one-way latency each, with no
// entry or exit synchronisation either (impl/reduce_span.cuh).
//
// Returns 0. With GSHMEM_DEBUG_CHECKS defined, an invalid team, arrays outside the
// symmetric heap, overlapping-but-different dest/source and members that disagree on
// nreduce/Op/T are reported (naming the call, the PE and the cause) and trap.
#pragma once

#include <cstddef>

#include "gshmem/types.h"
#include "scope.cuh"

namespace gshmem {

// Reduction operators (tags). and_/or_/xor_ carry a trailing underscore because
// `and`, `or`, `xor` are C++ keywords.
namespace op {
struct sum {};
struct prod {};
struct min {};
struct max {};
struct and_ {};
struct or_ {};
struct xor_ {};
}  // namespace op

template <class Op, class Scope = thread_scope, class T>
__device__ int reduce(gshmem_team_t team, T* dest, const T* source, size_t nreduce);

template <class Op, class Scope = thread_scope, class T>
__device__ int reducescatter(gshmem_team_t team, T* dest, const T* source, size_t nreduce);

}  // namespace gshmem
