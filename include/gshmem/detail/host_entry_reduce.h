/* SPDX-License-Identifier: BSD-3-Clause */
/* Library entry point behind the host and on-stream forms of the team reductions
 * (gshmem_TYPE_OP_reduce, gshmem_TYPE_OP_reducescatter and their gshmemx_..._on_stream
 * forms). Not for users: call the C names, which pass their own name (`call`) for
 * messages and describe the element type with GSHMEMI_RTYPE. */
#ifndef GSHMEM_DETAIL_HOST_ENTRY_REDUCE_H
#define GSHMEM_DETAIL_HOST_ENTRY_REDUCE_H

#include <limits.h>
#include <stddef.h>
#include <cuda_runtime_api.h>

#include "gshmem/detail/export.h"
#include "gshmem/types.h"

#if defined(__cplusplus)
/* __half / __nv_bfloat16 of the C++-only half and bfloat16 names. */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#endif

/* Collective (`coll`). */
#define GSHMEMI_REDUCE_ALL 0     /* all-reduce: gshmem_TYPE_OP_reduce */
#define GSHMEMI_REDUCE_SCATTER 1 /* gshmem_TYPE_OP_reducescatter */

/* Operator (`op`); same numbers as gshmem::detail::reduce_op_id. */
#define GSHMEMI_ROP_AND 0
#define GSHMEMI_ROP_OR 1
#define GSHMEMI_ROP_XOR 2
#define GSHMEMI_ROP_MAX 3
#define GSHMEMI_ROP_MIN 4
#define GSHMEMI_ROP_SUM 5
#define GSHMEMI_ROP_PROD 6

/* Element type (`rtype`): a kind and the size in bytes. */
#define GSHMEMI_RK_SINT 0    /* signed integer */
#define GSHMEMI_RK_UINT 1    /* unsigned integer */
#define GSHMEMI_RK_FLOAT 2   /* float, double, long double (by size) */
#define GSHMEMI_RK_HALF 3    /* __half */
#define GSHMEMI_RK_BF16 4    /* __nv_bfloat16 */
#define GSHMEMI_RK_COMPLEX 5 /* float _Complex, double _Complex (by size) */
#define GSHMEMI_RTYPE(kind, size) (((int)(kind) << 8) | (int)(size))
/* Kind of plain char (signed on x86-64, unsigned on Arm). */
#if CHAR_MIN < 0
#define GSHMEMI_RK_CHAR GSHMEMI_RK_SINT
#else
#define GSHMEMI_RK_CHAR GSHMEMI_RK_UINT
#endif

/* `mode` */
#define GSHMEMI_REDUCE_BLOCKING 0 /* on the library's stream; returns when complete */
#define GSHMEMI_REDUCE_STREAM 1   /* ordered on `stream`; returns at once */

GSHMEM_EXTERN_C_BEGIN
/* Returns 0 (GSHMEM_SUCCESS) or a status code after logging the call, the PE and the cause. */
GSHMEM_API int gshmemi_host_reduce(const char* call, int coll, int op, int rtype, gshmem_team_t team, void* dest,
                                   const void* source, size_t nreduce, int mode, cudaStream_t stream);
GSHMEM_EXTERN_C_END

#endif
