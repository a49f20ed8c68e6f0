// SPDX-License-Identifier: BSD-3-Clause
// The waits and tests over sets of variables (_all, _any, _some and their _vector forms) as one
// warp does them: the kernel behind their host and on-stream forms (host_wait.cu).
//
// Why a warp: the device API's scans are one thread's (device/impl/wait.cuh) - relaxed loads,
// 8 in flight - and in that kernel the comparison and the arrays are known only at run time:
// one thread's pass over hundreds of variables with a status mask and comparison values is
// slow. Here lane l takes scan positions l, l + 32, ..., 8 loads in flight each: one round
// reads 256 variables at once (coalesced), and the lanes agree by ballots.
//
// Same contract as the device calls (device/wait.cuh, docs/memory-model.md), by the same
// means: relaxed loads at system scope, and a scan that succeeds acquires what it read by a
// fence.acq_rel.sys that every lane executes after its own loads (strong reads followed in
// program order by that fence: the acquire pattern of wait.cuh's scans); a scan that fails
// promises nothing. The comparison is wait.cuh's (detail::compare), the set its
// (detail::in_set), and so are the timeout (GSHMEM_WAIT_TIMEOUT) and its report. _any starts
// at a varying position (detail::scan_start) and returns the first element met from there;
// _some returns the elements met in ascending order.
//
// Launch with exactly one warp (every lane takes part in the ballots); the result is the same
// on every lane.
#pragma once

#include <gshmem/detail/host_entry_amo.h>
#include <gshmem/device/impl/wait.cuh>

#include <cstddef>
#include <cstdint>

namespace gshmem::amo::warp_wait {

constexpr unsigned kFull = 0xffffffffu;
constexpr size_t kLanes = 32;
constexpr size_t kLoads = 8;  // in flight per lane
constexpr size_t kRound = kLanes * kLoads;

__device__ __forceinline__ unsigned lane() { return threadIdx.x % kLanes; }

// Scan position j (0 <= j < n) to element: from `start` on, wrapping at n.
struct Order {
  size_t n, start;
  __device__ __forceinline__ size_t at(size_t j) const {
    const size_t i = start + j;
    return i >= n ? i - n : i;
  }
};

// One round: positions jb + k * kLanes + lane(), k < kLoads. Bit l of live[k]: that position of
// lane l is in the set; of met[k]: and its variable meets the comparison.
struct Round {
  unsigned live[kLoads], met[kLoads];
  // The position of the first lane set in `mask` of load k.
  static __device__ __forceinline__ size_t position(size_t jb, size_t k, unsigned mask) {
    return jb + k * kLanes + static_cast<size_t>(__ffs(mask) - 1);
  }
};

template <class T, class V>
__device__ __forceinline__ Round read_round(const T* ivars, Order o, size_t jb, const int* status, cmp c, V vals) {
  T x[kLoads], want[kLoads];
  bool in[kLoads];
  const size_t j0 = jb + lane();
#pragma unroll
  for (size_t k = 0; k < kLoads; ++k) {
    const size_t j = j0 + k * kLanes;
    x[k] = j < o.n ? detail::ld_relaxed_sys(ivars + o.at(j)) : T();
  }
#pragma unroll
  for (size_t k = 0; k < kLoads; ++k) {
    const size_t j = j0 + k * kLanes;
    in[k] = j < o.n && detail::in_set(status, o.at(j));
    want[k] = j < o.n ? vals[o.at(j)] : T();
  }
  Round r;
#pragma unroll
  for (size_t k = 0; k < kLoads; ++k) {
    r.live[k] = __ballot_sync(kFull, in[k]);
    r.met[k] = __ballot_sync(kFull, in[k] && detail::compare(x[k], c, want[k]));
  }
  return r;
}

// What a successful scan owes: every lane's relaxed loads acquired.
__device__ __forceinline__ void acquire() { detail::fence_acq_rel_sys(); }

// The first element of the set, or n when the set is empty (status only, no variable read).
__device__ inline size_t first_in_set(const int* status, size_t n) {
  if (status == nullptr) return 0;  // n == 0 answers 0 == n
  for (size_t jb = 0; jb < n; jb += kLanes) {
    const size_t j = jb + lane();
    if (const unsigned m = __ballot_sync(kFull, j < n && detail::in_set(status, j)))
      return jb + static_cast<size_t>(__ffs(m) - 1);
  }
  return n;
}

// The first element of the set at or after `from` whose variable does not meet the comparison, or n.
template <class T, class V>
__device__ inline size_t first_unmet(const T* ivars, size_t n, size_t from, const int* status, cmp c, V vals) {
  for (size_t jb = from; jb < n; jb += kRound) {
    const Round r = read_round(ivars, Order{n, 0}, jb, status, c, vals);
#pragma unroll
    for (size_t k = 0; k < kLoads; ++k)
      if (const unsigned m = r.live[k] & ~r.met[k]) return Round::position(jb, k, m);
  }
  return n;
}

// The first element met in the order o, or SIZE_MAX.
template <class T, class V>
__device__ inline size_t first_met(const T* ivars, Order o, const int* status, cmp c, V vals) {
  for (size_t jb = 0; jb < o.n; jb += kRound) {
    const Round r = read_round(ivars, o, jb, status, c, vals);
#pragma unroll
    for (size_t k = 0; k < kLoads; ++k)
      if (r.met[k]) return o.at(Round::position(jb, k, r.met[k]));
  }
  return SIZE_MAX;
}

// Every element met, ascending, into indices; returns how many.
template <class T, class V>
__device__ inline size_t all_met(const T* ivars, size_t n, size_t* indices, const int* status, cmp c, V vals) {
  const unsigned below = (1u << lane()) - 1u;
  size_t count = 0;
  for (size_t jb = 0; jb < n; jb += kRound) {
    const Round r = read_round(ivars, Order{n, 0}, jb, status, c, vals);
#pragma unroll
    for (size_t k = 0; k < kLoads; ++k) {
      if (r.met[k] >> lane() & 1u) indices[count + __popc(r.met[k] & below)] = jb + k * kLanes + lane();
      count += __popc(r.met[k]);
    }
  }
  return count;
}

// Spins `pass` (warp-uniform result) until done(result); each spin may end in the timeout
// report, for element `blamed(result)` (lane 0 reports and traps), or, after gshmemx_abort,
// return unmet.
template <class T, class V, class Pass, class Done, class Blamed>
__device__ inline size_t spin(const char* call, const T* ivars, size_t n, cmp c, V vals, size_t r, Pass pass, Done done,
                              Blamed blamed) {
  if (done(r)) return r;
  detail::wait_deadline d;
  do {
    if (__any_sync(kFull, d.expired())) {
      if (detail::released()) return r;  // gshmemx_abort: the call returns unmet
      const size_t i = blamed(r);
      if (lane() == 0) detail::report_timeout(call, ivars + i, i, n, detail::ld_volatile(ivars + i), vals[i], c);
      __syncwarp();  // lane 0's trap ends the kernel
    }
    r = pass(r);
  } while (!done(r));
  return r;
}

template <class T, class V>
__device__ inline void wait_all(const char* call, const T* ivars, size_t n, const int* status, cmp c, V vals) {
  // Each pass starts at the first element the last one found unmet: those before it were met.
  spin(
      call, ivars, n, c, vals, first_unmet(ivars, n, 0, status, c, vals),
      [&](size_t i) { return first_unmet(ivars, n, i, status, c, vals); }, [&](size_t i) { return i == n; },
      [](size_t i) { return i; });
  acquire();
}

template <class T, class V>
__device__ inline size_t wait_any(const char* call, const T* ivars, size_t n, const int* status, cmp c, V vals) {
  const size_t first = first_in_set(status, n);
  if (first == n) return SIZE_MAX;
  const Order o{n, __shfl_sync(kFull, detail::scan_start(n), 0)};
  const auto pass = [&](size_t) { return first_met(ivars, o, status, c, vals); };
  const size_t i = spin(
      call, ivars, n, c, vals, pass(0), pass, [](size_t r) { return r != SIZE_MAX; }, [&](size_t) { return first; });
  acquire();
  return i;
}

template <class T, class V>
__device__ inline size_t wait_some(const char* call, const T* ivars, size_t n, size_t* indices, const int* status,
                                   cmp c, V vals) {
  const size_t first = first_in_set(status, n);
  if (first == n) return 0;
  const auto pass = [&](size_t) { return all_met(ivars, n, indices, status, c, vals); };
  const size_t count = spin(
      call, ivars, n, c, vals, pass(0), pass, [](size_t r) { return r != 0; }, [&](size_t) { return first; });
  acquire();
  return count;
}

// The set operations of host_wait.cu's kernel (op: GSHMEMI_WAIT_UNTIL_ALL ... GSHMEMI_TEST_SOME,
// not the single-variable ones); returns what the host call returns (test_all: 1 or 0).
template <class T, class V>
__device__ inline size_t run(int op, const T* ivars, size_t n, size_t* indices, const int* status, cmp c, V vals,
                             bool vector) {
  switch (op) {
    case GSHMEMI_WAIT_UNTIL_ALL:
      wait_all(vector ? "gshmem_wait_until_all_vector" : "gshmem_wait_until_all", ivars, n, status, c, vals);
      return 0;
    case GSHMEMI_WAIT_UNTIL_ANY:
      return wait_any(vector ? "gshmem_wait_until_any_vector" : "gshmem_wait_until_any", ivars, n, status, c, vals);
    case GSHMEMI_WAIT_UNTIL_SOME:
      return wait_some(vector ? "gshmem_wait_until_some_vector" : "gshmem_wait_until_some", ivars, n, indices, status,
                       c, vals);
    case GSHMEMI_TEST_ALL: {
      const bool all = first_unmet(ivars, n, 0, status, c, vals) == n;
      if (all) acquire();
      return all ? 1 : 0;
    }
    case GSHMEMI_TEST_ANY: {
      const size_t i = first_met(ivars, Order{n, __shfl_sync(kFull, detail::scan_start(n), 0)}, status, c, vals);
      if (i != SIZE_MAX) acquire();
      return i;
    }
    case GSHMEMI_TEST_SOME: {
      const size_t count = all_met(ivars, n, indices, status, c, vals);
      if (count) acquire();
      return count;
    }
    default:
      return 0;
  }
}

}  // namespace gshmem::amo::warp_wait
