// SPDX-License-Identifier: BSD-3-Clause
// Memory operations named by their semantics. Everything that orders memory in
// the device API goes through these, so the PTX they become is in one place.
#pragma once

#include <cuda/atomic>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace gshmem {
namespace detail {

template <class T>
__device__ __forceinline__ T ld_acquire_sys(const T* p) {
  return cuda::atomic_ref<T, cuda::thread_scope_system>(*const_cast<T*>(p)).load(cuda::memory_order_acquire);
}
// The same for a word the caller knows to be in global memory (signal slots in
// the symmetric heap): ld.acquire.sys.global, an LDG, where the generic form is
// an LD that must first resolve the state space.
__device__ __forceinline__ uint64_t ld_acquire_sys_global(const uint64_t* p) {
  uint64_t v;
  asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(__cvta_generic_to_global(p)) : "memory");
  return v;
}
template <class T>
__device__ __forceinline__ T ld_relaxed_sys(const T* p) {
  return cuda::atomic_ref<T, cuda::thread_scope_system>(*const_cast<T*>(p)).load(cuda::memory_order_relaxed);
}
template <class T>
__device__ __forceinline__ void st_release_sys(T* p, T v) {
  cuda::atomic_ref<T, cuda::thread_scope_system>(*p).store(v, cuda::memory_order_release);
}
template <class T>
__device__ __forceinline__ void st_relaxed_sys(T* p, T v) {
  cuda::atomic_ref<T, cuda::thread_scope_system>(*p).store(v, cuda::memory_order_relaxed);
}
// Two 8-byte words at once, relaxed at system scope: PTX {ld,st}.relaxed.sys.global.v2.u64,
// one 16-byte access. The memory model takes a vector access for one access per element,
// in no set order (PTX ISA, memory consistency model, vector data-types): each word is
// single-copy atomic as with the scalar forms, the pair is not. p: global memory, 16-byte
// aligned. Half the instructions of two scalar accesses, and a lone thread's 16 polls of a
// line in 8 requests.
__device__ __forceinline__ void ld_relaxed_sys_v2(const uint64_t* p, uint64_t& a, uint64_t& b) {
  asm volatile("ld.relaxed.sys.global.v2.u64 {%0, %1}, [%2];"
               : "=l"(a), "=l"(b)
               : "l"(__cvta_generic_to_global(p))
               : "memory");
}
__device__ __forceinline__ void st_relaxed_sys_v2(uint64_t* p, uint64_t a, uint64_t b) {
  asm volatile("st.relaxed.sys.global.v2.u64 [%0], {%1, %2};" ::"l"(__cvta_generic_to_global(p)), "l"(a), "l"(b)
               : "memory");
}

// ---- named system-scope atomics (memory order in the name) ----
template <class T>
using sys_atomic_ref = cuda::atomic_ref<T, cuda::thread_scope_system>;

// PTX atom.exch.relaxed.sys
template <class T>
__device__ __forceinline__ T atomic_exchange_relaxed_sys(T* p, T v) {
  return sys_atomic_ref<T>(*p).exchange(v, cuda::memory_order_relaxed);
}
// PTX atom.cas.relaxed.sys; returns the previous value whether or not it swapped.
template <class T>
__device__ __forceinline__ T atomic_cas_relaxed_sys(T* p, T cond, T v) {
  sys_atomic_ref<T>(*p).compare_exchange_strong(cond, v, cuda::memory_order_relaxed, cuda::memory_order_relaxed);
  return cond;
}
// PTX atom.add.relaxed.sys (without a result: red_add_relaxed_sys below)
template <class T>
__device__ __forceinline__ T atomic_fetch_add_relaxed_sys(T* p, T v) {
  return sys_atomic_ref<T>(*p).fetch_add(v, cuda::memory_order_relaxed);
}
// PTX atom.{and,or,xor}.relaxed.sys
template <class T>
__device__ __forceinline__ T atomic_fetch_and_relaxed_sys(T* p, T v) {
  return sys_atomic_ref<T>(*p).fetch_and(v, cuda::memory_order_relaxed);
}
template <class T>
__device__ __forceinline__ T atomic_fetch_or_relaxed_sys(T* p, T v) {
  return sys_atomic_ref<T>(*p).fetch_or(v, cuda::memory_order_relaxed);
}
template <class T>
__device__ __forceinline__ T atomic_fetch_xor_relaxed_sys(T* p, T v) {
  return sys_atomic_ref<T>(*p).fetch_xor(v, cuda::memory_order_relaxed);
}

// PTX red.add.{relaxed,release}.sys on global memory: an addition whose old value
// nobody needs (barrier and signal counts, atomic_add/inc). Not the atom that
// cuda::atomic_ref emits with its result unused: ptxas keeps that an ATOM with a
// return path (and, for a generic address, a shared-memory fallback), which slows the
// barrier (perftest/probe/ordering_probe.cu, variant 12).
template <bool Release, class T>
__device__ __forceinline__ void red_add_sys(T* p, T v) {
  static_assert(std::is_integral<T>::value && (sizeof(T) == 4 || sizeof(T) == 8), "4- or 8-byte integers");
  const size_t g = __cvta_generic_to_global(p);
  if constexpr (sizeof(T) == 8 && Release)
    asm volatile("red.release.sys.global.add.u64 [%0], %1;" ::"l"(g), "l"(static_cast<uint64_t>(v)) : "memory");
  else if constexpr (sizeof(T) == 8)
    asm volatile("red.relaxed.sys.global.add.u64 [%0], %1;" ::"l"(g), "l"(static_cast<uint64_t>(v)) : "memory");
  else if constexpr (Release)
    asm volatile("red.release.sys.global.add.u32 [%0], %1;" ::"l"(g), "r"(static_cast<uint32_t>(v)) : "memory");
  else
    asm volatile("red.relaxed.sys.global.add.u32 [%0], %1;" ::"l"(g), "r"(static_cast<uint32_t>(v)) : "memory");
}
template <class T>
__device__ __forceinline__ void red_add_relaxed_sys(T* p, T v) {
  red_add_sys<false>(p, v);
}
// Earlier memory operations of this thread (and, by cumulativity, everything they
// observed) are visible to any thread that observes the addition with an acquire.
template <class T>
__device__ __forceinline__ void red_add_release_sys(T* p, T v) {
  red_add_sys<true>(p, v);
}

// Acquire load at system scope of any 1-, 2-, 4- or 8-byte T (the waits poll
// with it). As cheap as a volatile load, where a volatile poll ended by
// fence.acq_rel.sys adds a fence to every wait (perftest/probe/ordering_probe.cu).
template <class T>
__device__ __forceinline__ T ld_acquire(const T* p) {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8, "1, 2, 4 or 8 bytes");
  T r;
  if constexpr (sizeof(T) == 8) {
    uint64_t v;
    asm volatile("ld.acquire.sys.b64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    memcpy(&r, &v, sizeof(T));
  } else if constexpr (sizeof(T) == 4) {
    uint32_t v;
    asm volatile("ld.acquire.sys.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    memcpy(&r, &v, sizeof(T));
  } else if constexpr (sizeof(T) == 2) {
    unsigned short v;
    asm volatile("ld.acquire.sys.b16 %0, [%1];" : "=h"(v) : "l"(p) : "memory");
    memcpy(&r, &v, sizeof(T));
  } else {
    uint32_t v;
    asm volatile("ld.acquire.sys.u8 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    const uint8_t b = static_cast<uint8_t>(v);
    memcpy(&r, &b, sizeof(T));
  }
  return r;
}

// Single-element remote store/load that the compiler may neither drop, merge
// nor hoist out of a loop (any size of trivially copyable T).
template <class T>
__device__ __forceinline__ void st_volatile(T* p, const T& v) {
  *const_cast<volatile T*>(p) = v;
}
template <class T>
__device__ __forceinline__ T ld_volatile(const T* p) {
  return *const_cast<const volatile T*>(p);
}

// Orders this thread's earlier memory operations before its later ones for
// every observer in the system (release + acquire). PTX: fence.acq_rel.sys.
__device__ __forceinline__ void fence_acq_rel_sys() {
  cuda::atomic_thread_fence(cuda::memory_order_acq_rel, cuda::thread_scope_system);
}
// Sequentially consistent system fence: earlier operations are complete and
// visible system-wide before later ones start. PTX: fence.sc.sys.
__device__ __forceinline__ void fence_sc_sys() {
  cuda::atomic_thread_fence(cuda::memory_order_seq_cst, cuda::thread_scope_system);
}

__device__ __forceinline__ uint64_t global_timer_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

}  // namespace detail
}  // namespace gshmem
