/* SPDX-License-Identifier: BSD-3-Clause */
/* Library entry points behind the host side of the C names. Not for users:
 * call gshmem_putmem & co. These exist so that CUDA TUs, where gshmem_putmem
 * is an inline host+device wrapper, reach the library without a name clash. */
#ifndef GSHMEM_DETAIL_HOST_ENTRY_H
#define GSHMEM_DETAIL_HOST_ENTRY_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#include "gshmem/detail/export.h"

/* The half / bfloat16 RMA names (gshmem_half_put, gshmem_bfloat16_g, ...) use
 * CUDA's C++ types; they exist in C++ and CUDA translation units only. */
#if defined(__cplusplus)
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#endif

GSHMEM_EXTERN_C_BEGIN
GSHMEM_API int gshmemi_host_my_pe(void);
GSHMEM_API int gshmemi_host_n_pes(void);
GSHMEM_API void* gshmemi_host_ptr(const void* dest, int pe);
/* nbi = 0: returns when the transfer is complete; 1: when source may be reused
 * (put) / completes at the next quiet. */
GSHMEM_API void gshmemi_host_putmem(void* dest, const void* source, size_t nbytes, int pe, int nbi);
GSHMEM_API void gshmemi_host_getmem(void* dest, const void* source, size_t nbytes, int pe, int nbi);
GSHMEM_API void gshmemi_host_putmem_on_stream(void* dest, const void* source, size_t nbytes, int pe,
                                              cudaStream_t stream);
GSHMEM_API void gshmemi_host_getmem_on_stream(void* dest, const void* source, size_t nbytes, int pe,
                                              cudaStream_t stream);

/* ---- every host RMA form through one entry (the C names use this one) ----
 * op:   GSHMEMI_RMA_PUT (local source -> symmetric dest on pe) or
 *       GSHMEMI_RMA_GET (symmetric source on pe -> local dest).
 * dst, sst: element strides of dest and source (1: contiguous; must be >= 1).
 * nelems elements of elem_bytes each (the *mem forms: elem_bytes 1).
 * mode: GSHMEMI_RMA_BLOCKING  returns when the transfer is complete;
 *       GSHMEMI_RMA_NBI       completes at the next gshmem_quiet;
 *       GSHMEMI_RMA_STREAM    ordered on `stream`, returns at once;
 *       GSHMEMI_RMA_STREAM_WAIT  ordered on `stream`, returns when complete;
 *       | GSHMEMI_RMA_VALUE  (with BLOCKING or STREAM_WAIT) the local side is one element
 *         of at most 16 bytes in host memory, such as the caller's variable in p and g: it
 *         goes through the library's pinned memory, since a copy into or out of pageable
 *         memory waits for every stream's kernels.
 * `call` names the C function in error messages. Arguments are always checked
 * (PE range, symmetric range, strides, overlap on self); a bad call is logged
 * and does nothing. */
#define GSHMEMI_RMA_PUT 0
#define GSHMEMI_RMA_GET 1
#define GSHMEMI_RMA_BLOCKING 0
#define GSHMEMI_RMA_NBI 1
#define GSHMEMI_RMA_STREAM 2
#define GSHMEMI_RMA_STREAM_WAIT 3
#define GSHMEMI_RMA_VALUE 8
GSHMEM_API void gshmemi_host_rma(const char* call, int op, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,
                                 size_t nelems, size_t elem_bytes, int pe, int mode, cudaStream_t stream);
/* Stream-ordered single-element store (p_on_stream): the `bytes` (1..16) at
 * `value` are captured before return and written to dest on pe in order on
 * `stream`. */
GSHMEM_API void gshmemi_host_p_on_stream(const char* call, void* dest, const void* value, size_t bytes, int pe,
                                         cudaStream_t stream);

GSHMEM_API void gshmemi_host_quiet(void);
GSHMEM_API void gshmemi_host_fence(void);
GSHMEM_API void gshmemi_host_barrier_all(void);
GSHMEM_API void gshmemi_host_sync_all(void);
GSHMEM_EXTERN_C_END

#endif
