// SPDX-License-Identifier: BSD-3-Clause
// Bodies of device/rma.cuh: the load/store (NVLink / PCIe P2P) path.
#pragma once

#include "../rma.cuh"
#include "copy.cuh"
#include "memops.cuh"
#include "state.cuh"

namespace gshmem {

__device__ inline void* ptr(const void* dest, int pe) {
  return detail::peer_address(const_cast<void*>(dest), pe);
}

template <class T>
__device__ inline void p(T* dest, T value, int pe) {
  GSHMEMI_CHECK_REMOTE("gshmem_p", dest, sizeof(T), pe);
  detail::st_volatile(detail::peer_address(dest, pe), value);
}

template <class T>
__device__ inline T g(const T* source, int pe) {
  GSHMEMI_CHECK_REMOTE("gshmem_g", source, sizeof(T), pe);
  return detail::ld_volatile(detail::peer_address(source, pe));
}

template <class Scope>
__device__ inline void putmem_nbi(void* dest, const void* source, size_t bytes, int pe) {
  GSHMEMI_CHECK_REMOTE("gshmem_putmem", dest, bytes, pe);
  detail::scoped_copy<Scope>(detail::peer_address(dest, pe), source, bytes);
}

template <class Scope>
__device__ inline void getmem_nbi(void* dest, const void* source, size_t bytes, int pe) {
  GSHMEMI_CHECK_REMOTE("gshmem_getmem", source, bytes, pe);
  detail::scoped_copy<Scope>(dest, detail::peer_address(source, pe), bytes);
}

// Blocking forms: on the load/store path the copy is done when the issuing
// threads finish it; the scope synchronises so that every participating thread
// may reuse `source` (put) or read `dest` (get) on return.
template <class Scope>
__device__ inline void putmem(void* dest, const void* source, size_t bytes, int pe) {
  Scope::sync();
  putmem_nbi<Scope>(dest, source, bytes, pe);
  Scope::sync();
}

template <class Scope>
__device__ inline void getmem(void* dest, const void* source, size_t bytes, int pe) {
  Scope::sync();
  getmem_nbi<Scope>(dest, source, bytes, pe);
  Scope::sync();
}

template <class Scope, class T>
__device__ inline void put(T* dest, const T* source, size_t nelems, int pe) {
  putmem<Scope>(dest, source, nelems * sizeof(T), pe);
}
template <class Scope, class T>
__device__ inline void put_nbi(T* dest, const T* source, size_t nelems, int pe) {
  putmem_nbi<Scope>(dest, source, nelems * sizeof(T), pe);
}
template <class Scope, class T>
__device__ inline void get(T* dest, const T* source, size_t nelems, int pe) {
  getmem<Scope>(dest, source, nelems * sizeof(T), pe);
}
template <class Scope, class T>
__device__ inline void get_nbi(T* dest, const T* source, size_t nelems, int pe) {
  getmem_nbi<Scope>(dest, source, nelems * sizeof(T), pe);
}

}  // namespace gshmem
