// SPDX-License-Identifier: BSD-3-Clause
// Argument checks of the device-side team reductions, compiled in only with
// GSHMEM_DEBUG_CHECKS (the fast path has none). Each failure prints one line naming the
// call, the PE and the cause with its remedy, then traps:
//   - the team handle is not a valid team of this PE;
//   - dest / source are not inside the symmetric heap;
//   - dest and source overlap without being the same address;
//   - members disagree on nreduce, the operator or the element type: every member writes
//     a record of its arguments into the others' check area before its first signal and
//     compares what it received after its first wait (reduce_check_record / _compare).
#pragma once

#include <cstdint>
#include <cstdio>

#include "gshmem/detail/device_state.h"
#include "reduce_proto.cuh"
#include "state.cuh"

namespace gshmem {
namespace detail {

// (nreduce, op, element size, reducescatter) in one word.
__host__ __device__ constexpr uint64_t reduce_record(uint64_t n, int op_id, uint32_t esize, bool scatter) {
  return (n << 10) | (static_cast<uint64_t>(scatter) << 9) | (static_cast<uint64_t>(esize & 31) << 4) |
         static_cast<uint64_t>(op_id & 15);
}

#if defined(GSHMEM_DEBUG_CHECKS)

// Reports print from one thread of the scope (`loud`), which then traps.
[[noreturn]] static __device__ __noinline__ inline void reduce_report_team(const char* call, int team, bool loud) {
  if (loud)
    report_printf(
        "gshmem ERROR [PE %lld]: %s: team %lld is not a valid team on this PE (GSHMEM_TEAM_INVALID, destroyed, "
        "or this PE is not a member); pass the handle of a team this PE belongs to. Trapping.\n",
        state().my_pe, call, team);
  trap_after_report(loud);
}

[[noreturn]] static __device__ __noinline__ inline void reduce_report_range(const char* call, const char* what,
                                                                            const void* p, uint64_t bytes, bool loud) {
  const gshmemi_device_state& s = state();
  if (loud)
    report_printf(
        "gshmem ERROR [PE %lld]: %s: %s [%p, +%llu bytes) is not inside the symmetric heap [%p, %p); "
        "team reductions need symmetric arrays (gshmem_malloc & co.). Trapping.\n",
        s.my_pe, call, what, p, static_cast<unsigned long long>(bytes), s.heap_base, s.heap_base + s.heap_size);
  trap_after_report(loud);
}

[[noreturn]] static __device__ __noinline__ inline void reduce_report_live(const char* call, const char* what,
                                                                           const void* p, uint64_t bytes, int why,
                                                                           bool loud) {
  if (loud) report_not_live(call, what, p, bytes, why);
  trap_after_report(loud);
}

[[noreturn]] static __device__ __noinline__ inline void reduce_report_overlap(const char* call, const void* dest,
                                                                              uint64_t dbytes, const void* source,
                                                                              uint64_t sbytes, bool loud) {
  if (loud)
    report_printf(
        "gshmem ERROR [PE %lld]: %s: dest [%p, +%llu bytes) and source [%p, +%llu bytes) overlap but are not the "
        "same address; pass the same array (in-place) or disjoint arrays. Trapping.\n",
        state().my_pe, call, dest, static_cast<unsigned long long>(dbytes), source,
        static_cast<unsigned long long>(sbytes));
  trap_after_report(loud);
}

[[noreturn]] static __device__ __noinline__ inline void reduce_report_mismatch(const char* call, uint64_t mine,
                                                                               int team_pe, int world_pe,
                                                                               uint64_t theirs) {
  report_printf(
      "gshmem ERROR [PE %lld]: %s: the members disagree: this PE passed nreduce=%llu (op %lld, %llu-byte elements, "
      "%s) but team PE %lld (PE %lld) passed nreduce=%llu (op %lld, %llu-byte elements, %s); every member of the team "
      "must pass the same nreduce, operation and type. Trapping.\n",
      state().my_pe, call, static_cast<unsigned long long>(mine >> 10), static_cast<int>(mine & 15),
      static_cast<unsigned>((mine >> 4) & 31), (mine >> 9) & 1 ? "reducescatter" : "reduce", team_pe, world_pe,
      static_cast<unsigned long long>(theirs >> 10), static_cast<int>(theirs & 15),
      static_cast<unsigned>((theirs >> 4) & 31), (theirs >> 9) & 1 ? "reducescatter" : "reduce");
  __trap();
}

__device__ __forceinline__ bool reduce_in_heap(const void* p, uint64_t bytes) {
  const gshmemi_device_state& s = state();
  const char* a = static_cast<const char*>(p);
  return a >= s.heap_base && bytes <= s.heap_size && static_cast<uint64_t>(a - s.heap_base) <= s.heap_size - bytes;
}

// Team, heap ranges and overlap; every thread of the scope checks, the loud one reports.
__device__ __forceinline__ void reduce_check_args(const char* call, int team, const void* dest, const void* source,
                                                  uint64_t n, uint32_t esize, bool scatter, bool loud) {
  const gshmemi_device_state& s = state();
  if (s.version == 0 || team < 0 || team >= s.max_teams || s.teams[team].size <= 0 || s.teams[team].my_pe < 0)
    reduce_report_team(call, team, loud);
  const uint64_t dbytes = n * esize;
  const uint64_t sbytes = scatter ? dbytes * static_cast<uint64_t>(s.teams[team].size) : dbytes;
  if (n == 0) return;
  if (!reduce_in_heap(dest, dbytes)) reduce_report_range(call, "dest", dest, dbytes, loud);
  if (!reduce_in_heap(source, sbytes)) reduce_report_range(call, "source", source, sbytes, loud);
  // Inside one live allocation each (the out-of-line check of state.cuh).
  if (const int why = remote_check(dest, dbytes, s.my_pe); why >= 0)
    reduce_report_live(call, "dest", dest, dbytes, why, loud);
  if (const int why = remote_check(source, sbytes, s.my_pe); why >= 0)
    reduce_report_live(call, "source", source, sbytes, why, loud);
  const char* d = static_cast<const char*>(dest);
  const char* src = static_cast<const char*>(source);
  if (d != src && d < src + sbytes && src < d + dbytes) reduce_report_overlap(call, dest, dbytes, source, sbytes, loud);
}

// Before the first signal: this PE's record into every member's check[row][me]. Row:
// the parity of slot 0's epoch (push and pull paths) or 2 + that of the LL count (LL
// path), so that a member already in its next call never overwrites a record that is
// still to be compared. The fence comes after the scope barrier, so that whichever thread
// sends the first signal or LL word releases every thread's record (docs/memory-model.md).
template <class Scope, class T>
__device__ __forceinline__ void reduce_check_record(const reduce_ctx<T>& c, int row) {
  const int N = c.t.size, me = c.t.my_pe;
  for (int j = Scope::rank(); j < N; j += Scope::size())
    st_volatile(peer_address(c.r.check + row * N + me, team_world_pe(c.t, j)), c.record);
  Scope::sync();
  fence_acq_rel_sys();
}
// After the first wait (an acquire of each member's first signal or LL word, then the scope
// barrier): every member's record equals this PE's.
template <class Scope, class T>
__device__ __forceinline__ void reduce_check_compare(const reduce_ctx<T>& c, int row) {
  const int N = c.t.size;
  for (int j = Scope::rank(); j < N; j += Scope::size()) {
    const uint64_t theirs = ld_volatile(c.r.check + row * N + j);
    if (theirs != c.record) reduce_report_mismatch(c.call, c.record, j, team_world_pe(c.t, j), theirs);
  }
}

#define GSHMEMI_REDUCE_CHECK_ARGS(Scope, call, team, dest, source, n, esize, scatter) \
  ::gshmem::detail::reduce_check_args(call, team, dest, source, n, esize, scatter, Scope::rank() == 0)
#define GSHMEMI_REDUCE_CHECK_RECORD(Scope, c, row) ::gshmem::detail::reduce_check_record<Scope>(c, row)
#define GSHMEMI_REDUCE_CHECK_COMPARE(Scope, c, row) ::gshmem::detail::reduce_check_compare<Scope>(c, row)

#else

#define GSHMEMI_REDUCE_CHECK_ARGS(Scope, call, team, dest, source, n, esize, scatter) ((void)0)
#define GSHMEMI_REDUCE_CHECK_RECORD(Scope, c, row) ((void)0)
#define GSHMEMI_REDUCE_CHECK_COMPARE(Scope, c, row) ((void)0)

#endif

}  // namespace detail
}  // namespace gshmem
