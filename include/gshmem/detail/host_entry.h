/* SPDX-License-Identifier: BSD-3-Clause */
/* Library entry points behind the host side of the C names. Not for users:
 * call gshmem_putmem & co. These exist so that CUDA TUs, where gshmem_putmem
 * is an inline host+device wrapper, reach the library without a name clash. */
#ifndef GSHMEM_DETAIL_HOST_ENTRY_H
#define GSHMEM_DETAIL_HOST_ENTRY_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#include "gshmem/detail/export.h"

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
GSHMEM_API void gshmemi_host_quiet(void);
GSHMEM_API void gshmemi_host_fence(void);
GSHMEM_API void gshmemi_host_barrier_all(void);
GSHMEM_API void gshmemi_host_sync_all(void);
GSHMEM_EXTERN_C_END

#endif
