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
// accesses wherever source and destination allow it).
#pragma once

#include <cstddef>

#include "scope.cuh"

namespace gshmem {

// Single element: *dest on `pe` = value. dest symmetric.
template <class T> __device__ void p(T* dest, T value, int pe);
// Single element: returns *source on `pe`. source symmetric.
template <class T> __device__ T g(const T* source, int pe);

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

// Address of symmetric `dest` on `pe` usable with ordinary loads and stores
// from this GPU, or nullptr when `pe` is not reachable that way.
__device__ void* ptr(const void* dest, int pe);

}  // namespace gshmem
