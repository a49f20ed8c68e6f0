// SPDX-License-Identifier: BSD-3-Clause
// Bodies of device/amo.cuh. Contract: device/amo.cuh and docs/memory-model.md.
// Every AMO is one system-scope relaxed atomic on the peer's memory, issued
// through the named atomics of memops.cuh (PTX atom .relaxed.sys; red for the adds
// that return nothing); one dispatch
// template serves every operation and type.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../amo.cuh"
#include "memops.cuh"
#include "proxy.cuh"
#include "state.cuh"

namespace gshmem {
namespace detail {

// The named system-scope atomics (atomic_*_sys) are in memops.cuh.

// add: fetch_add without the old value (atomic_add, atomic_inc), one red.
enum class amo_op : int { fetch, set, swap, compare_swap, add, fetch_add, fetch_and, fetch_or, fetch_xor };

// The same operation through the proxy (impl/proxy.cuh): the target's GPU runs it.
template <amo_op Op, class T>
__device__ __forceinline__ T amo_proxied(const char* call, T* dest, T value, T cond, int pe) {
  constexpr unsigned op = Op == amo_op::fetch          ? GSHMEMI_PROXY_OP_AMO_FETCH
                          : Op == amo_op::set          ? GSHMEMI_PROXY_OP_AMO_SET
                          : Op == amo_op::swap         ? GSHMEMI_PROXY_OP_AMO_SWAP
                          : Op == amo_op::compare_swap ? GSHMEMI_PROXY_OP_AMO_CSWAP
                          : Op == amo_op::fetch_and    ? GSHMEMI_PROXY_OP_AMO_AND
                          : Op == amo_op::fetch_or     ? GSHMEMI_PROXY_OP_AMO_OR
                          : Op == amo_op::fetch_xor    ? GSHMEMI_PROXY_OP_AMO_XOR
                                                       : GSHMEMI_PROXY_OP_AMO_ADD;
  constexpr bool fetching = Op != amo_op::set && Op != amo_op::add;
  uint64_t v = 0, c = 0;
  memcpy(&v, &value, sizeof(T));
  memcpy(&c, &cond, sizeof(T));
  const uint64_t r = proxy::amo(op, fetching, dest, sizeof(T), v, c, pe);
  if constexpr (Op == amo_op::set) return value;
  T out;
  memcpy(&out, &r, sizeof(T));
  return out;
}

// The operation on a mapped address.
template <amo_op Op, class T>
__device__ __forceinline__ T amo_direct(T* p, T value, T cond) {
  if constexpr (Op == amo_op::fetch) {
    return ld_relaxed_sys(p);
  } else if constexpr (Op == amo_op::set) {
    st_relaxed_sys(p, value);
    return value;
  } else if constexpr (Op == amo_op::swap) {
    return atomic_exchange_relaxed_sys(p, value);
  } else {
    static_assert(std::is_integral<T>::value,
                  "gshmem atomics: compare_swap, inc, add, and, or, xor need an integer type "
                  "(float/double support fetch, set and swap only)");
    if constexpr (Op == amo_op::add) {
      red_add_relaxed_sys(p, value);
      return T();
    } else if constexpr (Op == amo_op::compare_swap)
      return atomic_cas_relaxed_sys(p, cond, value);
    else if constexpr (Op == amo_op::fetch_add)
      return atomic_fetch_add_relaxed_sys(p, value);
    else if constexpr (Op == amo_op::fetch_and)
      return atomic_fetch_and_relaxed_sys(p, value);
    else if constexpr (Op == amo_op::fetch_or)
      return atomic_fetch_or_relaxed_sys(p, value);
    else
      return atomic_fetch_xor_relaxed_sys(p, value);
  }
}

// The one AMO body: operation `Op` on *dest of PE `pe`; returns the previous
// value (`value` for set). `call` names the API call in debug-check messages.
template <amo_op Op, class T>
__device__ __forceinline__ T amo(T* dest, T value, T cond, int pe, const char* call) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "gshmem atomics: T must be a 4- or 8-byte type");
  (void)call;
  GSHMEMI_CHECK_REMOTE(call, dest, sizeof(T), pe);
  GSHMEMI_CHECK_ALIGNED(call, dest, sizeof(T), pe);
  return route(
      dest, pe, [&](T* p) { return amo_direct<Op>(p, value, cond); },
      [&] { return amo_proxied<Op>(call, dest, value, cond, pe); });
}

}  // namespace detail

template <class T>
__device__ inline T atomic_fetch(const T* source, int pe) {
  return detail::amo<detail::amo_op::fetch>(const_cast<T*>(source), T(), T(), pe, "gshmem_atomic_fetch");
}
template <class T>
__device__ inline void atomic_set(T* dest, T value, int pe) {
  detail::amo<detail::amo_op::set>(dest, value, T(), pe, "gshmem_atomic_set");
}
template <class T>
__device__ inline T atomic_swap(T* dest, T value, int pe) {
  return detail::amo<detail::amo_op::swap>(dest, value, T(), pe, "gshmem_atomic_swap");
}
template <class T>
__device__ inline T atomic_compare_swap(T* dest, T cond, T value, int pe) {
  return detail::amo<detail::amo_op::compare_swap>(dest, value, cond, pe, "gshmem_atomic_compare_swap");
}
template <class T>
__device__ inline T atomic_fetch_inc(T* dest, int pe) {
  return detail::amo<detail::amo_op::fetch_add>(dest, T(1), T(), pe, "gshmem_atomic_fetch_inc");
}
template <class T>
__device__ inline void atomic_inc(T* dest, int pe) {
  detail::amo<detail::amo_op::add>(dest, T(1), T(), pe, "gshmem_atomic_inc");
}
template <class T>
__device__ inline T atomic_fetch_add(T* dest, T value, int pe) {
  return detail::amo<detail::amo_op::fetch_add>(dest, value, T(), pe, "gshmem_atomic_fetch_add");
}
template <class T>
__device__ inline void atomic_add(T* dest, T value, int pe) {
  detail::amo<detail::amo_op::add>(dest, value, T(), pe, "gshmem_atomic_add");
}
template <class T>
__device__ inline T atomic_fetch_and(T* dest, T value, int pe) {
  return detail::amo<detail::amo_op::fetch_and>(dest, value, T(), pe, "gshmem_atomic_fetch_and");
}
template <class T>
__device__ inline void atomic_and(T* dest, T value, int pe) {
  detail::amo<detail::amo_op::fetch_and>(dest, value, T(), pe, "gshmem_atomic_and");
}
template <class T>
__device__ inline T atomic_fetch_or(T* dest, T value, int pe) {
  return detail::amo<detail::amo_op::fetch_or>(dest, value, T(), pe, "gshmem_atomic_fetch_or");
}
template <class T>
__device__ inline void atomic_or(T* dest, T value, int pe) {
  detail::amo<detail::amo_op::fetch_or>(dest, value, T(), pe, "gshmem_atomic_or");
}
template <class T>
__device__ inline T atomic_fetch_xor(T* dest, T value, int pe) {
  return detail::amo<detail::amo_op::fetch_xor>(dest, value, T(), pe, "gshmem_atomic_fetch_xor");
}
template <class T>
__device__ inline void atomic_xor(T* dest, T value, int pe) {
  detail::amo<detail::amo_op::fetch_xor>(dest, value, T(), pe, "gshmem_atomic_xor");
}

// _nbi: the load/store path completes at once, so these store the result now.
template <class T>
__device__ inline void atomic_fetch_nbi(T* fetch, const T* source, int pe) {
  *fetch = detail::amo<detail::amo_op::fetch>(const_cast<T*>(source), T(), T(), pe, "gshmem_atomic_fetch_nbi");
}
template <class T>
__device__ inline void atomic_swap_nbi(T* fetch, T* dest, T value, int pe) {
  *fetch = detail::amo<detail::amo_op::swap>(dest, value, T(), pe, "gshmem_atomic_swap_nbi");
}
template <class T>
__device__ inline void atomic_compare_swap_nbi(T* fetch, T* dest, T cond, T value, int pe) {
  *fetch = detail::amo<detail::amo_op::compare_swap>(dest, value, cond, pe, "gshmem_atomic_compare_swap_nbi");
}
template <class T>
__device__ inline void atomic_fetch_inc_nbi(T* fetch, T* dest, int pe) {
  *fetch = detail::amo<detail::amo_op::fetch_add>(dest, T(1), T(), pe, "gshmem_atomic_fetch_inc_nbi");
}
template <class T>
__device__ inline void atomic_fetch_add_nbi(T* fetch, T* dest, T value, int pe) {
  *fetch = detail::amo<detail::amo_op::fetch_add>(dest, value, T(), pe, "gshmem_atomic_fetch_add_nbi");
}
template <class T>
__device__ inline void atomic_fetch_and_nbi(T* fetch, T* dest, T value, int pe) {
  *fetch = detail::amo<detail::amo_op::fetch_and>(dest, value, T(), pe, "gshmem_atomic_fetch_and_nbi");
}
template <class T>
__device__ inline void atomic_fetch_or_nbi(T* fetch, T* dest, T value, int pe) {
  *fetch = detail::amo<detail::amo_op::fetch_or>(dest, value, T(), pe, "gshmem_atomic_fetch_or_nbi");
}
template <class T>
__device__ inline void atomic_fetch_xor_nbi(T* fetch, T* dest, T value, int pe) {
  *fetch = detail::amo<detail::amo_op::fetch_xor>(dest, value, T(), pe, "gshmem_atomic_fetch_xor_nbi");
}

}  // namespace gshmem
