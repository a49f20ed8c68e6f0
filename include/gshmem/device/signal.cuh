// SPDX-License-Identifier: BSD-3-Clause
// Device-side signals: put-with-signal, signal_op, signal_fetch and
// signal_wait_until. Declarations and contracts; bodies in impl/signal.cuh.
// Ordering contract in full: docs/memory-model.md.
//
// A signal is a symmetric uint64_t. `sig_op` is GSHMEM_SIGNAL_SET (the signal
// becomes `signal`) or GSHMEM_SIGNAL_ADD (the signal += `signal`, wrapping).
// Every update is atomic with respect to other signal updates, signal_fetch,
// signal_wait_until and the AMOs on the same word.
//
// put_signal: copies the data to `dest` on `pe`, then updates `sig_addr` on
// `pe`. The update is ordered after the data: a thread that observes it
// (signal_wait_until, signal_fetch, wait_until/test on the word) and then
// reads `dest` sees the whole transfer. With warp_scope/block_scope every
// thread of the warp/block calls with the same arguments, the copy is spread
// over all of them, and one thread sends the signal after the scope's threads
// synchronised. The blocking form also begins with a Scope::sync() and
// returns when `source` may be reused; the _nbi form may return earlier
// (`source` untouched until quiet). Both complete at the next quiet().
//
// signal_op: the signal update alone. Like an AMO it is relaxed: order it after
// earlier puts with fence()/quiet(), or use put_signal.
// signal_fetch: the local signal's value (acquire, system scope).
// signal_wait_until: waits until the local signal satisfies the comparison and
// returns the value that did (acquire, system scope; bounded by
// GSHMEM_WAIT_TIMEOUT like every wait).
//
// Debug checks (GSHMEM_DEBUG_CHECKS): PE out of range, `dest`/`sig_addr` not
// symmetric, or an invalid sig_op/cmp is reported (call, PE, cause) and traps.
#pragma once

#include <cstddef>
#include <cstdint>

#include "scope.cuh"
#include "wait.cuh"

namespace gshmem {

template <class Scope = thread_scope>
__device__ void putmem_signal(void* dest, const void* source, size_t bytes, uint64_t* sig_addr, uint64_t signal,
                              int sig_op, int pe);
template <class Scope = thread_scope>
__device__ void putmem_signal_nbi(void* dest, const void* source, size_t bytes, uint64_t* sig_addr, uint64_t signal,
                                  int sig_op, int pe);
// nelems elements of T.
template <class Scope = thread_scope, class T>
__device__ void put_signal(T* dest, const T* source, size_t nelems, uint64_t* sig_addr, uint64_t signal, int sig_op,
                           int pe);
template <class Scope = thread_scope, class T>
__device__ void put_signal_nbi(T* dest, const T* source, size_t nelems, uint64_t* sig_addr, uint64_t signal, int sig_op,
                               int pe);

__device__ void signal_op(uint64_t* sig_addr, uint64_t signal, int sig_op, int pe);
__device__ uint64_t signal_fetch(const uint64_t* sig_addr);
__device__ uint64_t signal_wait_until(uint64_t* sig_addr, cmp c, uint64_t cmp_value);

}  // namespace gshmem
