// SPDX-License-Identifier: BSD-3-Clause
// Device-side remote memory access: declarations and contracts.
// Bodies: impl/rma.cuh. C names (gshmem_int_p, gshmemx_putmem_block, ...): c_api.cuh.
//
// Addresses. `dest`/`source` named "symmetric" must point into the symmetric
// heap (gshmem_malloc & co.); the same address names the corresponding object
// on every PE. Local buffers may be anywhere the GPU can read or write.
//
// Completion. A blocking put returns when `source` may be reused; the data is
// then in flight to `pe` and becomes visible there no later than the next
// quiet (or barrier_all) of the calling thread(s). A blocking get returns with
// the data in `dest`. The _nbi forms may return earlier: `source` (put) or
// `dest` (get) must not be touched until quiet. On the NVLink path both forms
// are stores/loads issued by the calling threads.
//
// Scope. With warp_scope/block_scope every thread of the warp/block calls with
// the same arguments and the copy is spread over all of them (16-byte vector
// accesses wherever source and destination allow it), so a thread may copy
// elements other threads wrote. The blocking forms synchronise the scope on
// entry and exit; the _nbi forms do not: when the scope's threads fill `source`
// just before an _nbi call, synchronise them first (__syncthreads / __syncwarp).
//
// Types. Any trivially copyable T: the OpenSHMEM standard RMA types, __half
// and __nv_bfloat16 (the C names gshmem_half_put, gshmem_bfloat16_g, ...), and
// the sized forms' 8..128-bit elements.
//
// Arguments are not checked in release builds. Compiled with
// -DGSHMEM_DEBUG_CHECKS=1, every call checks its PE, that the remote range
// lies in the symmetric heap, the strides, element alignment and (source,
// destination) overlap, and on a violation prints one line naming the call,
// the PE, the cause and the remedy, then traps.
#pragma once

#include <cstddef>

#include "scope.cuh"

namespace gshmem {

// Single element: *dest on `pe` = value. dest symmetric.
template <class T>
__device__ void p(T* dest, T value, int pe);
// Single element: returns *source on `pe`. source symmetric.
template <class T>
__device__ T g(const T* source, int pe);

// nelems elements from local `source` to symmetric `dest` on `pe`.
template <class Scope = thread_scope, class T>
__device__ void put(T* dest, const T* source, size_t nelems, int pe);
template <class Scope = thread_scope, class T>
__device__ void put_nbi(T* dest, const T* source, size_t nelems, int pe);
// nelems elements from symmetric `source` on `pe` to local `dest`.
template <class Scope = thread_scope, class T>
__device__ void get(T* dest, const T* source, size_t nelems, int pe);
template <class Scope = thread_scope, class T>
__device__ void get_nbi(T* dest, const T* source, size_t nelems, int pe);

// Untyped forms: `bytes` bytes.
template <class Scope = thread_scope>
__device__ void putmem(void* dest, const void* source, size_t bytes, int pe);
template <class Scope = thread_scope>
__device__ void putmem_nbi(void* dest, const void* source, size_t bytes, int pe);
template <class Scope = thread_scope>
__device__ void getmem(void* dest, const void* source, size_t bytes, int pe);
template <class Scope = thread_scope>
__device__ void getmem_nbi(void* dest, const void* source, size_t bytes, int pe);

// Strided forms: element i goes from source[i * sst] to dest[i * dst], for
// i < nelems. Strides count elements and must be >= 1 (1: contiguous).
// iput: local `source` -> symmetric `dest` on `pe`; iget: symmetric `source`
// on `pe` -> local `dest`. Completion as for the blocking put/get: on return
// `source` may be reused (iput) / `dest` holds the data (iget); the remote
// writes of an iput are visible at `pe` after the next quiet.
template <class Scope = thread_scope, class T>
__device__ void iput(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
template <class Scope = thread_scope, class T>
__device__ void iget(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);

// Address of symmetric `dest` on `pe` usable with ordinary loads and stores
// from this GPU, or nullptr when `pe` is out of range, `dest` is not in the
// symmetric heap or `pe` is not reachable that way.
__device__ void* ptr(const void* dest, int pe);

}  // namespace gshmem
