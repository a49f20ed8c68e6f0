// SPDX-License-Identifier: BSD-3-Clause
// Device-side atomic memory operations (AMOs): declarations and contracts.
// Bodies: impl/amo.cuh. C names (gshmem_int_atomic_fetch_add, ...): c_api.cuh.
// Ordering contract (what orders AMOs, at which scope): docs/memory-model.md.
//
// Every AMO is a single-thread operation on one element of the symmetric
// object `dest` (or `source`) on PE `pe`: no warp/block forms exist, as in
// OpenSHMEM. On the load/store path an AMO is one system-scope atomic
// instruction (PTX atom/red .relaxed.sys) on the peer's memory through NVLink
// or PCIe, atomic with respect to every other AMO on the same object from any
// thread of any PE and from the host forms. AMOs are NOT ordered with other
// operations by themselves (relaxed): order them with fence()/quiet(), or read
// what another PE published with wait_until/signal_wait_until (acquire).
//
// Types (T) as the specification assigns them:
//   standard AMO types  int, long, long long, unsigned int, unsigned long,
//                       unsigned long long, int32_t, int64_t, uint32_t, uint64_t,
//                       size_t, ptrdiff_t: every operation below;
//   extended AMO types  the standard ones plus float and double: atomic_fetch,
//                       atomic_set, atomic_swap (and their _nbi forms);
//   bitwise AMO types   unsigned int, unsigned long, unsigned long long, int32_t,
//                       int64_t, uint32_t, uint64_t: and/or/xor.
// Arithmetic wraps around (two's complement) on overflow, signed types included.
//
// _nbi forms store the fetched value into the local `fetch` instead of
// returning it; `fetch` may be read after the next quiet() of the calling
// thread (on the load/store path it is already written when the call returns).
#pragma once

#include <cstddef>

namespace gshmem {

// Returns *source on `pe`.
template <class T>
__device__ T atomic_fetch(const T* source, int pe);
// *dest on `pe` = value.
template <class T>
__device__ void atomic_set(T* dest, T value, int pe);
// *dest on `pe` = value; returns the previous value.
template <class T>
__device__ T atomic_swap(T* dest, T value, int pe);
// If *dest on `pe` == cond, *dest = value. Returns the previous value either way.
template <class T>
__device__ T atomic_compare_swap(T* dest, T cond, T value, int pe);
// *dest on `pe` += 1 / += value; the fetch_ forms return the previous value.
template <class T>
__device__ T atomic_fetch_inc(T* dest, int pe);
template <class T>
__device__ void atomic_inc(T* dest, int pe);
template <class T>
__device__ T atomic_fetch_add(T* dest, T value, int pe);
template <class T>
__device__ void atomic_add(T* dest, T value, int pe);
// *dest on `pe` &=, |=, ^= value; the fetch_ forms return the previous value.
template <class T>
__device__ T atomic_fetch_and(T* dest, T value, int pe);
template <class T>
__device__ void atomic_and(T* dest, T value, int pe);
template <class T>
__device__ T atomic_fetch_or(T* dest, T value, int pe);
template <class T>
__device__ void atomic_or(T* dest, T value, int pe);
template <class T>
__device__ T atomic_fetch_xor(T* dest, T value, int pe);
template <class T>
__device__ void atomic_xor(T* dest, T value, int pe);

// Non-blocking fetching forms (OpenSHMEM 1.5): *fetch = the value the blocking
// form returns. `fetch` is local (any memory this GPU can write).
template <class T>
__device__ void atomic_fetch_nbi(T* fetch, const T* source, int pe);
template <class T>
__device__ void atomic_swap_nbi(T* fetch, T* dest, T value, int pe);
template <class T>
__device__ void atomic_compare_swap_nbi(T* fetch, T* dest, T cond, T value, int pe);
template <class T>
__device__ void atomic_fetch_inc_nbi(T* fetch, T* dest, int pe);
template <class T>
__device__ void atomic_fetch_add_nbi(T* fetch, T* dest, T value, int pe);
template <class T>
__device__ void atomic_fetch_and_nbi(T* fetch, T* dest, T value, int pe);
template <class T>
__device__ void atomic_fetch_or_nbi(T* fetch, T* dest, T value, int pe);
template <class T>
__device__ void atomic_fetch_xor_nbi(T* fetch, T* dest, T value, int pe);

}  // namespace gshmem
