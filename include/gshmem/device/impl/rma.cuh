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
  if constexpr (std::is_same<W, T>::value) {
    st_volatile(peer_address(dest, pe), value);
  } else {
    W w;
    memcpy(&w, &value, sizeof(T));
    st_volatile(reinterpret_cast<W*>(peer_address(dest, pe)), w);
  }
}

template <class T>
__device__ __forceinline__ T g(const char* call, const T* source, int pe) {
  GSHMEMI_CHECK_RMA(thread_scope, call, false, source, 1, nullptr, 1, 1, sizeof(T), pe);
  using W = typename rma_word<T>::type;
  if constexpr (std::is_same<W, T>::value) {
    return ld_volatile(peer_address(source, pe));
  } else {
    const W w = ld_volatile(reinterpret_cast<const W*>(peer_address(source, pe)));
    T v;
    memcpy(&v, &w, sizeof(T));
    return v;
  }
}

template <class Scope>
__device__ __forceinline__ void putmem_nbi(const char* call, void* dest, const void* source, size_t bytes, int pe) {
  GSHMEMI_CHECK_RMA(Scope, call, true, dest, 1, source, 1, bytes, 1, pe);
  scoped_copy_unit_first<Scope>(peer_address(dest, pe), source, bytes);
}

template <class Scope>
__device__ __forceinline__ void getmem_nbi(const char* call, void* dest, const void* source, size_t bytes, int pe) {
  GSHMEMI_CHECK_RMA(Scope, call, false, source, 1, dest, 1, bytes, 1, pe);
  scoped_copy_unit_first<Scope>(dest, peer_address(source, pe), bytes);
}

// Blocking forms: on the load/store path the copy is done when the issuing
// threads finish it; the scope synchronises so that every participating thread
// may reuse `source` (put) or read `dest` (get) on return.
template <class Scope>
__device__ __forceinline__ void putmem(const char* call, void* dest, const void* source, size_t bytes, int pe) {
  Scope::sync();
  putmem_nbi<Scope>(call, dest, source, bytes, pe);
  Scope::sync();
}

template <class Scope>
__device__ __forceinline__ void getmem(const char* call, void* dest, const void* source, size_t bytes, int pe) {
  Scope::sync();
  getmem_nbi<Scope>(call, dest, source, bytes, pe);
  Scope::sync();
}

// Strided, blocking like putmem/getmem.
template <class Scope, class T>
__device__ __forceinline__ void iput(const char* call, T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst,
                                     size_t nelems, int pe) {
  Scope::sync();
  GSHMEMI_CHECK_RMA(Scope, call, true, dest, dst, source, sst, nelems, sizeof(T), pe);
  scoped_strided_copy<Scope>(peer_address(dest, pe), dst, source, sst, nelems);
  Scope::sync();
}

template <class Scope, class T>
__device__ __forceinline__ void iget(const char* call, T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst,
                                     size_t nelems, int pe) {
  Scope::sync();
  GSHMEMI_CHECK_RMA(Scope, call, false, source, sst, dest, dst, nelems, sizeof(T), pe);
  scoped_strided_copy<Scope>(dest, dst, peer_address(source, pe), sst, nelems);
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
