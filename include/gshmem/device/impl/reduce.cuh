// SPDX-License-Identifier: BSD-3-Clause
// Bodies of device/reduce.cuh. Files:
//   reduce_ops.cuh     operators, accumulators, canonical types, 16-byte vectors
//   reduce_layout.cuh  scratch layout and the slot plan (shared with the host launcher)
//   reduce_proto.cuh   per-slot epochs, signals and waits
//   reduce_loop.cuh    the element loop
//   reduce_ll.cuh      small arrays (<= GSHMEM_LL_MAX_BYTES, 64): data and tag in one word, no fence
//   reduce_push.cuh    small arrays: one signalled round through the push buffers
//   reduce_pull.cuh    large arrays: reduce-scatter from the sources, all-gather to the dests
//   reduce_check.cuh   GSHMEM_DEBUG_CHECKS argument checks
//   reduce_span.cuh    teams with members on other nodes (through the proxy)
//
// Everything is written once, over (Op, T, Scope); the C names and the templates below
// call reduce_call, the library's kernel (host and on-stream forms) calls reduce_run with
// one participant per CTA.
#pragma once

#include <cstdint>
#include <cstdio>

#include "../reduce.cuh"
#include "copy.cuh"
#include "reduce_check.cuh"
#include "reduce_layout.cuh"
#include "reduce_ll.cuh"
#include "reduce_ops.cuh"
#include "reduce_proto.cuh"
#include "reduce_pull.cuh"
#include "reduce_push.cuh"
#include "reduce_span.cuh"
#include "state.cuh"

namespace gshmem {
namespace detail {

[[noreturn]] static __device__ __noinline__ inline void reduce_report_scratch(const char* call, uint64_t scratch_bytes,
                                                                              int n) {
  report_printf(
      "gshmem ERROR [PE %lld]: %s: the team's collective scratch (%llu bytes for %lld members) is too small for "
      "reductions; raise GSHMEM_TEAM_SCRATCH_SIZE. Trapping.\n",
      state().my_pe, call, static_cast<unsigned long long>(scratch_bytes), n);
  __trap();
}

// One participant's share (slots reduce_part_slots(slots, part, nparts)) of a call on a
// team of >= 2 members; T is the canonical element type (reduce_canon). Every participant
// of every member must run, each with its own slots; none waits for another of the same
// PE, and they need not run at once (reduce_pull.cuh: progress).
template <class Op, class T, class Scope>
__device__ __forceinline__ void reduce_run(const char* call, const gshmemi_team& t, T* dest, const T* source,
                                           uint64_t n, bool scatter, int part, int nparts) {
  reduce_ctx<T> c;
  c.t = t;
  c.r = reduce_region_of(t);
  if (c.r.nslots == 0) reduce_report_scratch(call, t.scratch_bytes, t.size);
  c.plan = reduce_plan_of(n, sizeof(T), scatter, c.r);
  c.dest = dest;
  c.source = source;
  c.n = n;
  c.scatter = scatter;
  c.staging = scatter && t.my_pe != 0 && static_cast<const void*>(dest) == static_cast<const void*>(source);
  c.call = call;
  c.record = reduce_record(n, reduce_op_id<Op>::value, sizeof(T), scatter);
  if constexpr (sizeof(T) == 4 || sizeof(T) == 8) {  // the only sizes the plan gives the LL path
    if (c.plan.ll) {
      reduce_ll<Op, T, Scope>(c, part);
      return;
    }
  }
  reduce_begin_slots(c, reduce_part_slots(c.plan.slots, part, nparts));
  if (c.plan.push)
    reduce_push<Op, T, Scope>(c);
  else
    reduce_pull<Op, T, Scope>(c);
}

// The device forms: one thread / warp / block per member.
template <class Op, class Scope, class T>
__device__ __forceinline__ int reduce_call(const char* call, gshmem_team_t team, T* dest, const T* source,
                                           size_t nreduce, bool scatter) {
  static_assert(reduce_supported_v<Op, T>,
                "gshmem reduction: operator not defined for this type (bitwise operators need integers, "
                "min/max ordered types, sum/prod arithmetic ones)");
  using C = typename reduce_canon<Op, T>::type;
  Scope::sync();
  GSHMEMI_REDUCE_CHECK_ARGS(Scope, call, team, dest, source, nreduce, sizeof(T), scatter);
  gshmemi_team t;
  if (!team_entry(team, &t)) return -1;  // not a team of this PE (debug builds reported it above)
  if (spans_nodes<Scope>(call, t)) {
    if constexpr (kProxyPath) {
      reduce_spanning<Op, C, Scope>(call, team, reinterpret_cast<C*>(dest), reinterpret_cast<const C*>(source), nreduce,
                                    scatter);
      return 0;
    }
  }
  if (nreduce == 0) return 0;
  if (t.size == 1) {  // the result is the source (reducescatter: its only chunk)
    if (static_cast<const void*>(dest) != static_cast<const void*>(source))
      scoped_copy<Scope>(dest, source, nreduce * sizeof(T));
    Scope::sync();
    return 0;
  }
  reduce_run<Op, C, Scope>(call, t, reinterpret_cast<C*>(dest), reinterpret_cast<const C*>(source), nreduce, scatter, 0,
                           1);
  return 0;
}

}  // namespace detail

template <class Op, class Scope, class T>
__device__ inline int reduce(gshmem_team_t team, T* dest, const T* source, size_t nreduce) {
  return detail::reduce_call<Op, Scope>("gshmem::reduce", team, dest, source, nreduce, false);
}

template <class Op, class Scope, class T>
__device__ inline int reducescatter(gshmem_team_t team, T* dest, const T* source, size_t nreduce) {
  return detail::reduce_call<Op, Scope>("gshmem::reducescatter", team, dest, source, nreduce, true);
}

}  // namespace gshmem
