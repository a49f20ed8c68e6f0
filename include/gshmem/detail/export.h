/* SPDX-License-Identifier: BSD-3-Clause */
/* Symbol visibility for the host library (built with hidden visibility). */
#ifndef GSHMEM_DETAIL_EXPORT_H
#define GSHMEM_DETAIL_EXPORT_H

#define GSHMEM_API __attribute__((visibility("default")))

#ifdef __cplusplus
#define GSHMEM_EXTERN_C_BEGIN extern "C" {
#define GSHMEM_EXTERN_C_END }
#else
#define GSHMEM_EXTERN_C_BEGIN
#define GSHMEM_EXTERN_C_END
#endif

#endif
