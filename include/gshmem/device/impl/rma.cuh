// SPDX-License-Identifier: BSD-3-Clause
// Bodies of device/rma.cuh: the load/store (NVLink / PCIe P2P) path.
//
// Every operation is implemented once, in detail::, taking the name of the
// calling API function (`call`) for debug-check messages: the C names pass
// their own name ("gshmemx_int_iput_block"), the C++ templates theirs. In
// release builds `call` is unused and the calls inline to the copy loops.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../rma.cuh"
#include "copy.cuh"
#include "memops.cuh"
#include "proxy.cuh"
#include "state.cuh"

namespace gshmem {
namespace detail {

// The word a single-element p/g moves: T itself for arithmetic and pointer
// types; an unsigned integer of the same size for other 1/2/4/8-byte types
// (__half, __nv_bfloat16), so that p/g stay one volatile access.
template <class T, bool = std::is_arithmetic<T>::value || std::is_pointer<T>::value, size_t = sizeof(T)>
struct rma_word {
  using type = T;
};
template <class T>
struct rma_word<T, false, 1> {
  using type = uint8_t;
};
template <class T>
struct rma_word<T, false, 2> {
  using type = uint16_t;
};
template <class T>
struct rma_word<T, false, 4> {
  using type = uint32_t;
};
template <class T>
struct rma_word<T, false, 8> {
  using type = uint64_t;
};

// Element of the 128-bit sized forms (iput128, iget128): 8-byte alignment is
// what the 128-bit C types (double _Complex, long double pairs) guarantee.
struct alignas(8) bits128 {
  uint64_t lo, hi;
};

template <class T>
__device__ __forceinline__ void p(const char* call, T* dest, T value, int pe) {
  GSHMEMI_CHECK_RMA(thread_scope, call, true, dest, 1, nullptr, 1, 1, sizeof(T), pe);
  using W = typename rma_word<T>::type;
  W w;
  memcpy(&w, &value, sizeof(T));
  route(
      reinterpret_cast<W*>(dest), pe, [&](W* a) { st_volatile(a, w); },
      [&] {
        uint64_t bits = 0;
        memcpy(&bits, &w, sizeof(W));
        proxy::p(dest, bits, sizeof(W), pe);
      });
}

template <class T>
__device__ __forceinline__ T g(const char* call, const T* source, int pe) {
  GSHMEMI_CHECK_RMA(thread_scope, call, false, source, 1, nullptr, 1, 1, sizeof(T), pe);
  using W = typename rma_word<T>::type;
  const W w = route(
      reinterpret_cast<const W*>(source), pe, [&](const W* a) { return ld_volatile(a); },
      [&] {
        const uint64_t bits = proxy::g(source, sizeof(W), pe);
        W r;
        memcpy(&r, &bits, sizeof(W));
        return r;
      });
  T v;
  memcpy(&v, &w, sizeof(T));
  return v;
}

template <class Scope>
__device__ __forceinline__ void putmem_nbi(const char* call, void* dest, const void* source, size_t bytes, int pe) {
  GSHMEMI_CHECK_RMA(Scope, call, true, dest, 1, source, 1, bytes, 1, pe);
  route(
      dest, pe, [&](void* a) { scoped_copy_unit_first<Scope>(a, source, bytes); },
      [&] { proxy::put<Scope>(dest, source, bytes, pe, true, nullptr, 0, 0); });
}

template <class Scope>
__device__ __forceinline__ void getmem_nbi(const char* call, void* dest, const void* source, size_t bytes, int pe) {
  GSHMEMI_CHECK_RMA(Scope, call, false, source, 1, dest, 1, bytes, 1, pe);
  route(
      source, pe, [&](const void* a) { scoped_copy_unit_first<Scope, true>(dest, a, bytes); },
      [&] { proxy::get<Scope>(dest, source, bytes, pe, true); });
}

// Blocking forms: on the load/store path the copy is done when the issuing
// threads finish it; the scope synchronises so that every participating thread
// may reuse `source` (put) or read `dest` (get) on return.
// Through the proxy, a blocking put returns once the source was copied out, a blocking get
// once its data landed (impl/proxy.cuh).
template <class Scope>
__device__ __forceinline__ void putmem(const char* call, void* dest, const void* source, size_t bytes, int pe) {
  GSHMEMI_CHECK_RMA(Scope, call, true, dest, 1, source, 1, bytes, 1, pe);
  route(
      dest, pe,
      [&](void* a) {
        Scope::sync();
        scoped_copy_unit_first<Scope>(a, source, bytes);
        Scope::sync();
      },
      [&] { proxy::put<Scope>(dest, source, bytes, pe, false, nullptr, 0, 0); });
}

template <class Scope>
__device__ __forceinline__ void getmem(const char* call, void* dest, const void* source, size_t bytes, int pe) {
  GSHMEMI_CHECK_RMA(Scope, call, false, source, 1, dest, 1, bytes, 1, pe);
  route(
      source, pe,
      [&](const void* a) {
        Scope::sync();
        scoped_copy_unit_first<Scope, true>(dest, a, bytes);
        Scope::sync();
      },
      [&] { proxy::get<Scope>(dest, source, bytes, pe, false); });
}

// Strided through the proxy: each element its own blocking put or get of one element (the
// scope's threads side by side), through the same calls as contiguous data.
template <class Scope, bool Put, class T>
__device__ __forceinline__ void proxy_strided(T* dest, ptrdiff_t dst, const T* source, ptrdiff_t sst, size_t nelems,
                                              int pe) {
  for (size_t i = Scope::rank(); i < nelems; i += Scope::size()) {
    if constexpr (Put)
      proxy::put<thread_scope>(dest + i * dst, source + i * sst, sizeof(T), pe, false, nullptr, 0, 0);
    else
      proxy::get<thread_scope>(dest + i * dst, source + i * sst, sizeof(T), pe, false);
  }
}

// Strided, blocking like putmem/getmem.
template <class Scope, class T>
__device__ __forceinline__ void iput(const char* call, T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst,
                                     size_t nelems, int pe) {
  Scope::sync();
  GSHMEMI_CHECK_RMA(Scope, call, true, dest, dst, source, sst, nelems, sizeof(T), pe);
  route(
      dest, pe, [&](T* a) { scoped_strided_copy<Scope>(a, dst, source, sst, nelems); },
      [&] { proxy_strided<Scope, true, T>(dest, dst, source, sst, nelems, pe); });
  Scope::sync();
}

template <class Scope, class T>
__device__ __forceinline__ void iget(const char* call, T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst,
                                     size_t nelems, int pe) {
  Scope::sync();
  GSHMEMI_CHECK_RMA(Scope, call, false, source, sst, dest, dst, nelems, sizeof(T), pe);
  route(
      source, pe, [&](const T* a) { scoped_strided_copy<Scope>(dest, dst, a, sst, nelems); },
      [&] { proxy_strided<Scope, false, T>(dest, dst, source, sst, nelems, pe); });
  Scope::sync();
}

}  // namespace detail

__device__ inline void* ptr(const void* dest, int pe) {
  const gshmemi_device_state& s = detail::state();
  const char* a = static_cast<const char*>(dest);
  if (pe < 0 || pe >= s.n_pes || a < s.heap_base || a >= s.heap_base + s.heap_size) return nullptr;
  return detail::peer_address(const_cast<void*>(dest), pe);
}

template <class T>
__device__ inline void p(T* dest, T value, int pe) {
  detail::p("gshmem::p", dest, value, pe);
}

template <class T>
__device__ inline T g(const T* source, int pe) {
  return detail::g("gshmem::g", source, pe);
}

template <class Scope>
__device__ inline void putmem_nbi(void* dest, const void* source, size_t bytes, int pe) {
  detail::putmem_nbi<Scope>("gshmem::putmem_nbi", dest, source, bytes, pe);
}
template <class Scope>
__device__ inline void getmem_nbi(void* dest, const void* source, size_t bytes, int pe) {
  detail::getmem_nbi<Scope>("gshmem::getmem_nbi", dest, source, bytes, pe);
}
template <class Scope>
__device__ inline void putmem(void* dest, const void* source, size_t bytes, int pe) {
  detail::putmem<Scope>("gshmem::putmem", dest, source, bytes, pe);
}
template <class Scope>
__device__ inline void getmem(void* dest, const void* source, size_t bytes, int pe) {
  detail::getmem<Scope>("gshmem::getmem", dest, source, bytes, pe);
}

template <class Scope, class T>
__device__ inline void put(T* dest, const T* source, size_t nelems, int pe) {
  detail::putmem<Scope>("gshmem::put", dest, source, nelems * sizeof(T), pe);
}
template <class Scope, class T>
__device__ inline void put_nbi(T* dest, const T* source, size_t nelems, int pe) {
  detail::putmem_nbi<Scope>("gshmem::put_nbi", dest, source, nelems * sizeof(T), pe);
}
template <class Scope, class T>
__device__ inline void get(T* dest, const T* source, size_t nelems, int pe) {
  detail::getmem<Scope>("gshmem::get", dest, source, nelems * sizeof(T), pe);
}
template <class Scope, class T>
__device__ inline void get_nbi(T* dest, const T* source, size_t nelems, int pe) {
  detail::getmem_nbi<Scope>("gshmem::get_nbi", dest, source, nelems * sizeof(T), pe);
}

template <class Scope, class T>
__device__ inline void iput(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) {
  detail::iput<Scope>("gshmem::iput", dest, source, dst, sst, nelems, pe);
}
template <class Scope, class T>
__device__ inline void iget(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) {
  detail::iget<Scope>("gshmem::iget", dest, source, dst, sst, nelems, pe);
}

}  // namespace gshmem
