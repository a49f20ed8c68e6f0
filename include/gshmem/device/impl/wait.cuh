// SPDX-License-Identifier: BSD-3-Clause
// Bodies of device/wait.cuh. Contract: device/wait.cuh, docs/memory-model.md.
// A wait or test of one variable polls with acquire loads at system scope (ld.acquire.sys):
// the read that satisfies it is itself the acquire, so nothing follows it. (A volatile poll
// ended by fence.acq_rel.sys is also an acquire pattern but adds a fence to every wait;
// see memops.cuh.) Scans of several variables take relaxed loads, many in flight at
// once, and acquire what they found by a fence or an acquire re-read (see "scans" below).
#pragma once

#include <cstdint>
#include <cstdio>
#include <type_traits>

#include "../wait.cuh"
#include "memops.cuh"
#include "state.cuh"

namespace gshmem {
namespace detail {

// Whether a c b, without a branch: c picks which of the outcomes a < b, a == b, a > b satisfy
// it (a switch, where c is known only at run time - the library's one-thread kernel behind the
// host and on-stream forms - became an indirect jump at every element of a scan;
// perftest/probe/wait_scan_probe.cu "cmp read"). Out-of-range c: false.
template <class T>
__device__ __forceinline__ bool compare(T a, cmp c, T b) {
  // Three bits per comparison (eq, ne, gt, ge, lt, le), bit k for the outcome k: 0 <, 1 ==, 2 >.
  constexpr unsigned kOutcomes = 02u | 05u << 3 | 04u << 6 | 06u << 9 | 01u << 12 | 03u << 15;
  const unsigned k = static_cast<unsigned>(c);
  const unsigned outcome = a < b ? 0u : a == b ? 1u : 2u;
  return k < 6u && (kOutcomes >> (3u * k + outcome) & 1u);
}

__device__ __forceinline__ bool valid_cmp(int c) { return c >= 0 && c <= 5; }

__device__ inline const char* cmp_name(int c) {
  switch (c) {
    case 0:
      return "EQ";
    case 1:
      return "NE";
    case 2:
      return "GT";
    case 3:
      return "GE";
    case 4:
      return "LT";
    case 5:
      return "LE";
  }
  return "(invalid)";
}

// ---- bounded waits (GSHMEM_WAIT_TIMEOUT) ----
[[noreturn]] static __device__ __noinline__ inline void report_p2p_wait_timeout(
    const char* call, const void* addr, unsigned long long index, unsigned long long count, unsigned long long now,
    unsigned long long target, int c, bool is_signed, unsigned long long seconds) {
  if (abort_word() != 0) report_aborted(call, -1);
  const int me = state().my_pe;
  if (count > 1 && is_signed)
    report_printf(
        "gshmem ERROR [PE %lld]: %s: still waiting after %llu s (GSHMEM_WAIT_TIMEOUT) for ivars[%llu] of %llu "
        "at %p, which holds %lld, to become %s %lld; no PE made that update. Trapping.\n",
        me, call, seconds, index, count, addr, (long long)now, cmp_name(c), (long long)target);
  else if (count > 1)
    report_printf(
        "gshmem ERROR [PE %lld]: %s: still waiting after %llu s (GSHMEM_WAIT_TIMEOUT) for ivars[%llu] of %llu "
        "at %p, which holds %llu, to become %s %llu; no PE made that update. Trapping.\n",
        me, call, seconds, index, count, addr, now, cmp_name(c), target);
  else if (is_signed)
    report_printf(
        "gshmem ERROR [PE %lld]: %s: still waiting after %llu s (GSHMEM_WAIT_TIMEOUT) for the variable at %p, "
        "which holds %lld, to become %s %lld; no PE made that update. Trapping.\n",
        me, call, seconds, addr, (long long)now, cmp_name(c), (long long)target);
  else
    report_printf(
        "gshmem ERROR [PE %lld]: %s: still waiting after %llu s (GSHMEM_WAIT_TIMEOUT) for the variable at %p, "
        "which holds %llu, to become %s %llu; no PE made that update. Trapping.\n",
        me, call, seconds, addr, now, cmp_name(c), target);
  __trap();
}

template <class T>
__device__ __forceinline__ unsigned long long printable(T v) {
  if constexpr (std::is_signed<T>::value)
    return static_cast<unsigned long long>(static_cast<long long>(v));
  else
    return static_cast<unsigned long long>(v);
}

template <class T>
[[noreturn]] static __device__ __noinline__ void report_timeout(const char* call, const T* addr, size_t index,
                                                                size_t count, T now, T target, cmp c) {
  report_p2p_wait_timeout(call, addr, index, count, printable(now), printable(target), static_cast<int>(c),
                          std::is_signed<T>::value, state().wait_timeout_ns / 1000000000ull);
}

// ---- debug checks (GSHMEM_DEBUG_CHECKS) ----
#if defined(GSHMEM_DEBUG_CHECKS)
[[noreturn]] static __device__ __noinline__ inline void report_bad_cmp(const char* call, int c) {
  report_printf(
      "gshmem ERROR [PE %lld]: %s: invalid comparison %lld; use GSHMEM_CMP_EQ, _NE, _GT, _GE, _LT or _LE "
      "(block %lld thread %lld)\n",
      state().my_pe, call, c, blockIdx.x, threadIdx.x);
  __trap();
}
// Waits work on local symmetric variables: `cmp` valid, [ivars, +bytes) symmetric.
__device__ __forceinline__ void check_wait(const char* call, const void* ivars, size_t bytes, cmp c) {
  if (!valid_cmp(static_cast<int>(c))) report_bad_cmp(call, static_cast<int>(c));
  if (bytes) check_remote(call, ivars, bytes, state().my_pe);
}
#define GSHMEMI_CHECK_WAIT(call, ivars, bytes, c) ::gshmem::detail::check_wait(call, ivars, bytes, c)
#else
#define GSHMEMI_CHECK_WAIT(call, ivars, bytes, c) ((void)0)
#endif

// ---- the loops ----
// How the polls after a wait's first one ended: the value last read, and whether the deadline
// (GSHMEM_WAIT_TIMEOUT) or the abort word ended them rather than the comparison. It also brings back the wait's
// arguments, for the report: then none of them has to stay live across the call.
template <class T>
struct spun {
  T* ivar;
  T x, v;
  cmp c;
  bool expired;
};

// The polls after the first, with the comparison a constant again: one loop per comparison,
// picked once, so that each poll compares as the inlined wait would.
template <class T, cmp C>
__device__ __forceinline__ spun<T> spin_loop(T* ivar, T v, T x) {
  wait_deadline d;
  do {
    if (d.expired()) return {ivar, x, v, C, true};
    x = ld_acquire(ivar);
  } while (!compare(x, C, v));
  return {ivar, x, v, C, false};
}

// Out of line: a wait that has to wait pays for one call, and the deadline and the loop take
// none of the caller's registers. It does not report a timeout itself: a printf below a call
// that returns costs the caller registers (impl/report.cuh). The caller reports, by a call that
// does not return.
template <class T>
static __device__ __noinline__ spun<T> spin_slow(T* ivar, cmp c, T v, T x) {
  switch (c) {
    case cmp::eq:
      return spin_loop<T, cmp::eq>(ivar, v, x);
    case cmp::ne:
      return spin_loop<T, cmp::ne>(ivar, v, x);
    case cmp::gt:
      return spin_loop<T, cmp::gt>(ivar, v, x);
    case cmp::ge:
      return spin_loop<T, cmp::ge>(ivar, v, x);
    case cmp::lt:
      return spin_loop<T, cmp::lt>(ivar, v, x);
    case cmp::le:
      return spin_loop<T, cmp::le>(ivar, v, x);
  }
  // An invalid comparison is never met: the wait ends only at its deadline.
  wait_deadline d;
  while (!d.expired()) x = ld_acquire(ivar);
  return {ivar, x, v, c, true};
}

// Spins until *ivar satisfies the comparison (acquire); returns the value that did. The first
// poll is inline; a wait that has to wait goes on out of line.
template <class T>
__device__ __forceinline__ T spin_until(T* ivar, cmp c, T v, const char* call) {
  const T x = ld_acquire(ivar);
  if (compare(x, c, v)) return x;
  const spun<T> r = spin_slow(ivar, c, v, x);
  if (r.expired) report_timeout(call, r.ivar, 0, 1, r.x, r.v, r.c);
  return r.x;
}

// wait_until with the satisfying value returned (signal_wait_until needs it).
template <class T>
__device__ __forceinline__ T wait_value(T* ivar, cmp c, T v, const char* call) {
  (void)call;
  GSHMEMI_CHECK_WAIT(call, ivar, sizeof(T), c);
  return spin_until(ivar, c, v, call);
}

// Comparison operand of element i: one value for all, or one per element.
template <class T>
struct cmp_scalar {
  T v;
  __device__ __forceinline__ T operator[](size_t) const { return v; }
};
template <class T>
struct cmp_vector {
  const T* v;
  __device__ __forceinline__ T operator[](size_t i) const { return v[i]; }
};

__device__ __forceinline__ bool in_set(const int* status, size_t i) { return status == nullptr || status[i] == 0; }

// First element of the set, or n when the set is empty.
__device__ __forceinline__ size_t first_in_set(const int* status, size_t n) {
  size_t i = 0;
  while (i < n && !in_set(status, i)) ++i;
  return i;
}

// A varying start for the _any scans (fairness across repeated calls). In 32 bits where n fits:
// a 64-bit remainder is a call to a division routine.
__device__ __forceinline__ size_t scan_start(size_t n) {
  if (n == 0) return 0;
  if (n <= UINT32_MAX) return static_cast<uint32_t>(clock()) % static_cast<uint32_t>(n);
  return static_cast<size_t>(clock64()) % n;
}

// ---- scans of several variables ----
// A thread's acquire loads are performed one after another, each waiting for the one before
// it to return. Scans of kRelaxedScanMin variables or more read
// them by relaxed loads at system scope instead, kScanBatch at a time with the batch's status
// entries and comparison values, all in flight together, then compare; when such a scan
// succeeds it acquires what it found:
// - _all and _some by one fence.acq_rel.sys after the scan: strong reads followed in program
//   order by that fence are an acquire pattern (PTX ISA, memory consistency model), so every
//   value the scan saw is acquired as if read by an acquire load;
// - _any by re-reading the variable it found with an acquire load, returned if that still
//   meets the comparison (the scan goes on if not): one load, cheaper than the fence.
// A scan that fails promises nothing and takes neither. Shorter scans take acquire loads one
// by one, cheaper for up to four variables. Measured by perftest/probe/wait_scan_probe.cu.
constexpr size_t kScanBatch = 8;
constexpr size_t kRelaxedScanMin = 5;

// Calls stop(i, ivars[i], vals[i]) for each i of the set (status) in lo, lo + 1, ... < hi,
// until it returns true; returns that i, or hi if it never did. Relaxed loads in batches.
template <class T, class V, class F>
__device__ __forceinline__ size_t scan_relaxed(const T* ivars, size_t lo, size_t hi, const int* status, V vals,
                                               F stop) {
  for (size_t i = lo; i < hi; i += kScanBatch) {
    const size_t m = hi - i < kScanBatch ? hi - i : kScanBatch;
    T x[kScanBatch], want[kScanBatch];
    bool in[kScanBatch];
#pragma unroll
    for (size_t k = 0; k < kScanBatch; ++k)
      if (k < m) x[k] = ld_relaxed_sys(ivars + i + k);
#pragma unroll
    for (size_t k = 0; k < kScanBatch; ++k)
      if (k < m) {
        in[k] = in_set(status, i + k);
        want[k] = vals[i + k];
      }
#pragma unroll
    for (size_t k = 0; k < kScanBatch; ++k)
      if (k < m && in[k] && stop(i + k, x[k], want[k])) return i + k;
  }
  return hi;
}

// The same over [lo, hi) within a set of n variables: relaxed loads if n >= kRelaxedScanMin,
// else acquire loads one by one.
__device__ __forceinline__ bool relaxed_scan(size_t n) { return n >= kRelaxedScanMin; }
template <class T, class V, class F>
__device__ __forceinline__ size_t scan(const T* ivars, size_t n, size_t lo, size_t hi, const int* status, V vals,
                                       F stop) {
  if (relaxed_scan(n)) return scan_relaxed(ivars, lo, hi, status, vals, stop);
  for (size_t i = lo; i < hi; ++i) {
    if (!in_set(status, i)) continue;
    const T want = vals[i];  // read before the acquire load, not after it
    if (stop(i, ld_acquire(ivars + i), want)) return i;
  }
  return hi;
}
// What a successful _all or _some scan of n variables owes: the fence after relaxed loads.
__device__ __forceinline__ void acquire_after_scan(size_t n) {
  if (relaxed_scan(n)) fence_acq_rel_sys();
}

template <class T, class V>
__device__ inline size_t scan_any(T* ivars, size_t n, const int* status, cmp c, V vals, size_t start) {
  const auto met = [&](size_t, T x, T want) { return compare(x, c, want); };
  size_t lo = start, hi = n;  // [start, n), then [0, start)
  for (int pass = 0; pass < 2; ++pass, lo = 0, hi = start)
    for (size_t i = lo; (i = scan(ivars, n, i, hi, status, vals, met)) != hi; ++i)
      if (!relaxed_scan(n) || compare(ld_acquire(ivars + i), c, vals[i])) return i;
  return SIZE_MAX;
}

template <class T, class V>
__device__ inline size_t scan_some(T* ivars, size_t n, size_t* indices, const int* status, cmp c, V vals) {
  size_t count = 0;
  scan(ivars, n, 0, n, status, vals, [&](size_t i, T x, T want) {
    if (compare(x, c, want)) indices[count++] = i;
    return false;
  });
  if (count) acquire_after_scan(n);
  return count;
}

// First element of the set at or after `from` not meeting the comparison, or n.
template <class T, class V>
__device__ __forceinline__ size_t first_unmet(T* ivars, size_t from, size_t n, const int* status, cmp c, V vals) {
  return scan(ivars, n, from, n, status, vals, [&](size_t, T x, T want) { return !compare(x, c, want); });
}

template <class T, class V>
__device__ inline void wait_all_impl(T* ivars, size_t n, const int* status, cmp c, V vals, const char* call) {
  (void)call;
  GSHMEMI_CHECK_WAIT(call, ivars, n * sizeof(T), c);
  // Each pass starts at the first element the last one found unmet: those before it were met.
  size_t i = first_unmet(ivars, 0, n, status, c, vals);
  if (i != n) {
    wait_deadline d;
    do {
      if (d.expired()) report_timeout(call, ivars + i, i, n, ld_volatile(ivars + i), vals[i], c);
      i = first_unmet(ivars, i, n, status, c, vals);
    } while (i != n);
  }
  acquire_after_scan(n);
}

template <class T, class V>
__device__ inline size_t wait_any_impl(T* ivars, size_t n, const int* status, cmp c, V vals, const char* call) {
  (void)call;
  GSHMEMI_CHECK_WAIT(call, ivars, n * sizeof(T), c);
  const size_t first = first_in_set(status, n);
  if (first == n) return SIZE_MAX;
  const size_t start = scan_start(n);
  size_t r = scan_any(ivars, n, status, c, vals, start);
  if (r == SIZE_MAX) {
    wait_deadline d;
    do {
      if (d.expired()) report_timeout(call, ivars + first, first, n, ld_volatile(ivars + first), vals[first], c);
      r = scan_any(ivars, n, status, c, vals, start);
    } while (r == SIZE_MAX);
  }
  return r;
}

template <class T, class V>
__device__ inline size_t wait_some_impl(T* ivars, size_t n, size_t* indices, const int* status, cmp c, V vals,
                                        const char* call) {
  (void)call;
  GSHMEMI_CHECK_WAIT(call, ivars, n * sizeof(T), c);
  const size_t first = first_in_set(status, n);
  if (first == n) return 0;
  size_t count = scan_some(ivars, n, indices, status, c, vals);
  if (count == 0) {
    wait_deadline d;
    do {
      if (d.expired()) report_timeout(call, ivars + first, first, n, ld_volatile(ivars + first), vals[first], c);
      count = scan_some(ivars, n, indices, status, c, vals);
    } while (count == 0);
  }
  return count;
}

template <class T, class V>
__device__ inline bool test_all_impl(T* ivars, size_t n, const int* status, cmp c, V vals, const char* call) {
  (void)call;
  GSHMEMI_CHECK_WAIT(call, ivars, n * sizeof(T), c);
  if (first_unmet(ivars, 0, n, status, c, vals) != n) return false;
  acquire_after_scan(n);
  return true;
}

template <class T, class V>
__device__ inline size_t test_any_impl(T* ivars, size_t n, const int* status, cmp c, V vals, const char* call) {
  (void)call;
  GSHMEMI_CHECK_WAIT(call, ivars, n * sizeof(T), c);
  return scan_any(ivars, n, status, c, vals, scan_start(n));
}

template <class T, class V>
__device__ inline size_t test_some_impl(T* ivars, size_t n, size_t* indices, const int* status, cmp c, V vals,
                                        const char* call) {
  (void)call;
  GSHMEMI_CHECK_WAIT(call, ivars, n * sizeof(T), c);
  return scan_some(ivars, n, indices, status, c, vals);
}

}  // namespace detail

template <class T>
__device__ inline bool test(T* ivar, cmp c, T value) {
  GSHMEMI_CHECK_WAIT("gshmem_test", ivar, sizeof(T), c);
  return detail::compare(detail::ld_acquire(ivar), c, value);
}

template <class T>
__device__ inline void wait_until(T* ivar, cmp c, T value) {
  detail::wait_value(ivar, c, value, "gshmem_wait_until");
}

template <class T>
__device__ inline void wait_until_all(T* ivars, size_t nelems, const int* status, cmp c, T value) {
  detail::wait_all_impl(ivars, nelems, status, c, detail::cmp_scalar<T>{value}, "gshmem_wait_until_all");
}
template <class T>
__device__ inline size_t wait_until_any(T* ivars, size_t nelems, const int* status, cmp c, T value) {
  return detail::wait_any_impl(ivars, nelems, status, c, detail::cmp_scalar<T>{value}, "gshmem_wait_until_any");
}
template <class T>
__device__ inline size_t wait_until_some(T* ivars, size_t nelems, size_t* indices, const int* status, cmp c, T value) {
  return detail::wait_some_impl(ivars, nelems, indices, status, c, detail::cmp_scalar<T>{value},
                                "gshmem_wait_until_some");
}
template <class T>
__device__ inline void wait_until_all_vector(T* ivars, size_t nelems, const int* status, cmp c, const T* values) {
  detail::wait_all_impl(ivars, nelems, status, c, detail::cmp_vector<T>{values}, "gshmem_wait_until_all_vector");
}
template <class T>
__device__ inline size_t wait_until_any_vector(T* ivars, size_t nelems, const int* status, cmp c, const T* values) {
  return detail::wait_any_impl(ivars, nelems, status, c, detail::cmp_vector<T>{values}, "gshmem_wait_until_any_vector");
}
template <class T>
__device__ inline size_t wait_until_some_vector(T* ivars, size_t nelems, size_t* indices, const int* status, cmp c,
                                                const T* values) {
  return detail::wait_some_impl(ivars, nelems, indices, status, c, detail::cmp_vector<T>{values},
                                "gshmem_wait_until_some_vector");
}

template <class T>
__device__ inline bool test_all(T* ivars, size_t nelems, const int* status, cmp c, T value) {
  return detail::test_all_impl(ivars, nelems, status, c, detail::cmp_scalar<T>{value}, "gshmem_test_all");
}
template <class T>
__device__ inline size_t test_any(T* ivars, size_t nelems, const int* status, cmp c, T value) {
  return detail::test_any_impl(ivars, nelems, status, c, detail::cmp_scalar<T>{value}, "gshmem_test_any");
}
template <class T>
__device__ inline size_t test_some(T* ivars, size_t nelems, size_t* indices, const int* status, cmp c, T value) {
  return detail::test_some_impl(ivars, nelems, indices, status, c, detail::cmp_scalar<T>{value}, "gshmem_test_some");
}
template <class T>
__device__ inline bool test_all_vector(T* ivars, size_t nelems, const int* status, cmp c, const T* values) {
  return detail::test_all_impl(ivars, nelems, status, c, detail::cmp_vector<T>{values}, "gshmem_test_all_vector");
}
template <class T>
__device__ inline size_t test_any_vector(T* ivars, size_t nelems, const int* status, cmp c, const T* values) {
  return detail::test_any_impl(ivars, nelems, status, c, detail::cmp_vector<T>{values}, "gshmem_test_any_vector");
}
template <class T>
__device__ inline size_t test_some_vector(T* ivars, size_t nelems, size_t* indices, const int* status, cmp c,
                                          const T* values) {
  return detail::test_some_impl(ivars, nelems, indices, status, c, detail::cmp_vector<T>{values},
                                "gshmem_test_some_vector");
}

}  // namespace gshmem
