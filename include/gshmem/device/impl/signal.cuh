// SPDX-License-Identifier: BSD-3-Clause
// Bodies of device/signal.cuh. Contract: device/signal.cuh, docs/memory-model.md.
#pragma once

#include <cstdint>
#include <cstdio>

#include "../signal.cuh"
#include "amo.cuh"
#include "copy.cuh"
#include "memops.cuh"
#include "proxy.cuh"
#include "state.cuh"
#include "wait.cuh"
#include "gshmem/types.h"

namespace gshmem {
namespace detail {

#if defined(GSHMEM_DEBUG_CHECKS)
[[noreturn]] static __device__ __noinline__ inline void report_bad_sig_op(const char* call, int sig_op, int pe) {
  report_printf(
      "gshmem ERROR [PE %lld]: %s: invalid sig_op %lld for PE %lld; use GSHMEM_SIGNAL_SET or GSHMEM_SIGNAL_ADD "
      "(block %lld thread %lld)\n",
      state().my_pe, call, sig_op, pe, blockIdx.x, threadIdx.x);
  __trap();
}
__device__ __forceinline__ void check_signal(const char* call, const uint64_t* sig_addr, int sig_op, int pe) {
  check_remote(call, sig_addr, sizeof(uint64_t), pe);
  if (sig_op != GSHMEM_SIGNAL_SET && sig_op != GSHMEM_SIGNAL_ADD) report_bad_sig_op(call, sig_op, pe);
}
#define GSHMEMI_CHECK_SIGNAL(call, sig_addr, sig_op, pe) ::gshmem::detail::check_signal(call, sig_addr, sig_op, pe)
#else
#define GSHMEMI_CHECK_SIGNAL(call, sig_addr, sig_op, pe) ((void)0)
#endif

// Signal update with release semantics at system scope (put_signal):
//   SET  st.release.sys   (an atomic store: atomic w.r.t. concurrent ADDs)
//   ADD  red.add.release.sys
__device__ __forceinline__ void signal_update_release(uint64_t* remote_sig, uint64_t v, int sig_op) {
  if (sig_op == GSHMEM_SIGNAL_ADD)
    red_add_release_sys(remote_sig, v);
  else
    st_release_sys(remote_sig, v);
}
// Relaxed update (signal_op, like an AMO).
__device__ __forceinline__ void signal_update_relaxed(uint64_t* remote_sig, uint64_t v, int sig_op) {
  if (sig_op == GSHMEM_SIGNAL_ADD)
    red_add_relaxed_sys(remote_sig, v);
  else
    st_relaxed_sys(remote_sig, v);
}

}  // namespace detail

// Why the signal cannot overtake the data (PTX memory model):
//  1. Each thread of the scope writes its share of `dest` with ordinary
//     (weak) stores through the peer mapping.
//  2. Scope::sync() (bar.sync / bar.warp.sync) orders every participating
//     thread's earlier memory operations before everything the other
//     participants do after it: the writes of step 1 precede, in causality
//     order, the signalling thread's next instruction. For thread_scope the
//     thread's own program order does this.
//  3. The signalling thread's update is a release at system scope. A release
//     is cumulative: it makes visible not only its own earlier writes but every
//     write that precedes it in causality order, so all of step 1.
//  4. The consumer observes the update with an acquire at system scope
//     (signal_wait_until / wait_until / signal_fetch), which synchronises with
//     the release; its later loads of `dest` therefore see the data.
// The same argument with the scope barrier + release is what barrier_all uses.
namespace detail {
// put_signal on the load/store path: the copy, the scope barrier, the signal's release.
template <class Scope>
__device__ __forceinline__ void putmem_signal_direct(void* a, const void* source, size_t bytes, uint64_t* sig_addr,
                                                     uint64_t signal, int sig_op, int pe) {
  scoped_copy_unit_first<Scope>(a, source, bytes);
  Scope::sync();
  if (Scope::rank() == 0) signal_update_release(peer_address(sig_addr, pe), signal, sig_op);
}
}  // namespace detail

template <class Scope>
__device__ inline void putmem_signal_nbi(void* dest, const void* source, size_t bytes, uint64_t* sig_addr,
                                         uint64_t signal, int sig_op, int pe) {
  GSHMEMI_CHECK_REMOTE("gshmem_putmem_signal", dest, bytes, pe);
  GSHMEMI_CHECK_SIGNAL("gshmem_putmem_signal", sig_addr, sig_op, pe);
  detail::route(
      dest, pe, [&](void* a) { detail::putmem_signal_direct<Scope>(a, source, bytes, sig_addr, signal, sig_op, pe); },
      [&] { detail::proxy::put<Scope>(dest, source, bytes, pe, true, sig_addr, signal, sig_op); });
}

// Through the proxy the blocking form returns once the source was copied out.
template <class Scope>
__device__ inline void putmem_signal(void* dest, const void* source, size_t bytes, uint64_t* sig_addr, uint64_t signal,
                                     int sig_op, int pe) {
  GSHMEMI_CHECK_REMOTE("gshmem_putmem_signal", dest, bytes, pe);
  GSHMEMI_CHECK_SIGNAL("gshmem_putmem_signal", sig_addr, sig_op, pe);
  detail::route(
      dest, pe,
      [&](void* a) {
        Scope::sync();
        detail::putmem_signal_direct<Scope>(a, source, bytes, sig_addr, signal, sig_op, pe);
      },
      [&] { detail::proxy::put<Scope>(dest, source, bytes, pe, false, sig_addr, signal, sig_op); });
}

template <class Scope, class T>
__device__ inline void put_signal(T* dest, const T* source, size_t nelems, uint64_t* sig_addr, uint64_t signal,
                                  int sig_op, int pe) {
  putmem_signal<Scope>(dest, source, nelems * sizeof(T), sig_addr, signal, sig_op, pe);
}
template <class Scope, class T>
__device__ inline void put_signal_nbi(T* dest, const T* source, size_t nelems, uint64_t* sig_addr, uint64_t signal,
                                      int sig_op, int pe) {
  putmem_signal_nbi<Scope>(dest, source, nelems * sizeof(T), sig_addr, signal, sig_op, pe);
}

__device__ inline void signal_op(uint64_t* sig_addr, uint64_t signal, int sig_op, int pe) {
  GSHMEMI_CHECK_SIGNAL("gshmemx_signal_op", sig_addr, sig_op, pe);
  detail::route(
      sig_addr, pe, [&](uint64_t* a) { detail::signal_update_relaxed(a, signal, sig_op); },
      [&] { detail::proxy::signal(sig_addr, signal, sig_op, pe); });
}

__device__ inline uint64_t signal_fetch(const uint64_t* sig_addr) {
  GSHMEMI_CHECK_REMOTE("gshmem_signal_fetch", sig_addr, sizeof(uint64_t), detail::state().my_pe);
  return detail::ld_acquire_sys(sig_addr);
}

__device__ inline uint64_t signal_wait_until(uint64_t* sig_addr, cmp c, uint64_t cmp_value) {
  return detail::wait_value(sig_addr, c, cmp_value, "gshmem_signal_wait_until");
}

}  // namespace gshmem
