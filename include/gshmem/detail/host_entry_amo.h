/* SPDX-License-Identifier: BSD-3-Clause */
/* Library entry points behind the host side of the atomic, signal and
 * point-to-point synchronisation C names (gshmem_int_atomic_fetch_add,
 * gshmem_putmem_signal, gshmem_long_wait_until_any, ...). Not for users: call
 * the C names. Each takes the C name it serves (`call`) for its messages.
 *
 * Host forms run the device implementation in a one-thread kernel on the
 * library's internal stream (so they are ordered with host RMA) and wait for
 * it; results are copied back. Stream forms enqueue on the user's stream: CUDA
 * stream memory operations where they express the operation exactly, else a
 * one-thread kernel. */
#ifndef GSHMEM_DETAIL_HOST_ENTRY_AMO_H
#define GSHMEM_DETAIL_HOST_ENTRY_AMO_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#include "gshmem/detail/export.h"

/* AMO operations (gshmemi_host_amo `op`). */
#define GSHMEMI_AMO_FETCH 0
#define GSHMEMI_AMO_SET 1
#define GSHMEMI_AMO_SWAP 2
#define GSHMEMI_AMO_COMPARE_SWAP 3
#define GSHMEMI_AMO_FETCH_ADD 4
#define GSHMEMI_AMO_FETCH_AND 5
#define GSHMEMI_AMO_FETCH_OR 6
#define GSHMEMI_AMO_FETCH_XOR 7

/* Element kinds (with the element size they name the C type). */
#define GSHMEMI_KIND_SIGNED 0
#define GSHMEMI_KIND_UNSIGNED 1
#define GSHMEMI_KIND_FLOAT 2

/* Point-to-point operations (gshmemi_host_wait `op`). */
#define GSHMEMI_WAIT_UNTIL 0
#define GSHMEMI_WAIT_UNTIL_ALL 1
#define GSHMEMI_WAIT_UNTIL_ANY 2
#define GSHMEMI_WAIT_UNTIL_SOME 3
#define GSHMEMI_TEST 4
#define GSHMEMI_TEST_ALL 5
#define GSHMEMI_TEST_ANY 6
#define GSHMEMI_TEST_SOME 7

/* How a host signal call completes (`mode`). */
#define GSHMEMI_MODE_BLOCKING 0 /* done when the call returns */
#define GSHMEMI_MODE_NBI 1      /* enqueued on the internal stream; done at gshmem_quiet */
#define GSHMEMI_MODE_STREAM 2   /* enqueued on `stream` */

GSHMEM_EXTERN_C_BEGIN
/* *fetch (if not NULL) = previous value of *dest on `pe`. value/cond point to
 * one element of the type (cond: compare_swap only). Blocking. */
GSHMEM_API void gshmemi_host_amo(const char* call, int op, int kind, size_t size, void* dest, const void* value,
                                 const void* cond, void* fetch, int pe);

GSHMEM_API void gshmemi_host_putmem_signal(const char* call, void* dest, const void* source, size_t nbytes,
                                           uint64_t* sig_addr, uint64_t signal, int sig_op, int pe, int mode,
                                           cudaStream_t stream);
GSHMEM_API void gshmemi_host_signal_op(const char* call, uint64_t* sig_addr, uint64_t signal, int sig_op, int pe,
                                       int mode, cudaStream_t stream);
GSHMEM_API uint64_t gshmemi_host_signal_fetch(const char* call, const uint64_t* sig_addr);
GSHMEM_API uint64_t gshmemi_host_signal_wait_until(const char* call, uint64_t* sig_addr, int cmp, uint64_t cmp_value);
GSHMEM_API void gshmemi_host_signal_wait_until_on_stream(const char* call, uint64_t* sig_addr, int cmp,
                                                         uint64_t cmp_value, cudaStream_t stream);

/* One entry for every wait/test form: exactly one of cmp_value (one element)
 * and cmp_values (nelems elements) is not NULL. Returns what the C name
 * returns (index, count, 0/1), widened to size_t. */
GSHMEM_API size_t gshmemi_host_wait(const char* call, int op, int kind, size_t size, void* ivars, size_t nelems,
                                    size_t* indices, const int* status, int cmp, const void* cmp_value,
                                    const void* cmp_values);
/* Stream-ordered GSHMEMI_WAIT_UNTIL or GSHMEMI_WAIT_UNTIL_ALL (status and
 * cmp_values in host memory are read before return, in device memory in
 * stream order). */
GSHMEM_API void gshmemi_host_wait_on_stream(const char* call, int op, int kind, size_t size, void* ivars, size_t nelems,
                                            const int* status, int cmp, const void* cmp_value, const void* cmp_values,
                                            cudaStream_t stream);
GSHMEM_EXTERN_C_END

#endif
