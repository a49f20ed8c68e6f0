/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NVSHMEM dialect of gshmem: programs written against the NVSHMEM 3.x API
 * (#include <nvshmem.h> / <nvshmemx.h>, nvshmem_* and nvshmemx_* names) build
 * unchanged against gshmem.
 *
 *   CMake:   target_link_libraries(app PRIVATE gshmem::nvshmem_compat)
 *   by hand: nvcc -I<prefix>/include -I<prefix>/include/gshmem/compat app.cu -L<prefix>/lib -lgshmem
 *
 * Every gshmem C name has its NVSHMEM spelling through detail/nvshmem_names.h
 * (generated from the one table: nvshmem_X -> gshmem_X, nvshmemx_X -> gshmemx_X,
 * as object-like macros, so host/device dispatch and function addresses are
 * gshmem's own). This file adds the types, constants and the few calls whose
 * NVSHMEM form has no gshmem name. Written from NVSHMEM's public API
 * documentation; docs/compat.md lists every NVSHMEM name family, what is
 * supported, and where the semantics differ.
 * Works in C, C++ and CUDA translation units (device names in CUDA TUs only).
 */
#ifndef GSHMEM_COMPAT_NVSHMEM_H
#define GSHMEM_COMPAT_NVSHMEM_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gshmem/gshmem.h"
#include "gshmem/compat/detail/nvshmem_names.h"

/* As NVSHMEM's headers do: cooperative groups in CUDA C++ translation units, and the driver
 * API's types (CUmodule for nvshmemx_cumodule_init) in C++ and non-strict C ones. <cuda.h> is
 * not ISO C99 (-std=c99 -pedantic refuses it): strict C code includes it itself. */
#if defined(__CUDACC__) && defined(__cplusplus)
#include <cooperative_groups.h>
#endif
#if defined(__cplusplus) || !defined(__STRICT_ANSI__)
#include <cuda.h>
#endif

/* Compiled against gshmem's NVSHMEM dialect (for code that must tell). */
#define GSHMEM_NVSHMEM_COMPAT 1

/* ---- library constants ---- */
/* OpenSHMEM specification version implemented (what nvshmem_info_get_version reports). */
#define NVSHMEM_MAJOR_VERSION GSHMEM_SPEC_MAJOR_VERSION
#define NVSHMEM_MINOR_VERSION GSHMEM_SPEC_MINOR_VERSION
/* Library version: gshmem's own, not an NVSHMEM release number. */
#define NVSHMEM_VENDOR_MAJOR_VERSION GSHMEM_MAJOR_VERSION
#define NVSHMEM_VENDOR_MINOR_VERSION GSHMEM_MINOR_VERSION
#define NVSHMEM_VENDOR_PATCH_VERSION GSHMEM_PATCH_VERSION
#define NVSHMEM_VENDOR_STRING GSHMEM_VENDOR_STRING
#define NVSHMEM_MAX_NAME_LEN 256 /* buffer size for nvshmem_info_get_name */

#define NVSHMEM_THREAD_SINGLE GSHMEM_THREAD_SINGLE
#define NVSHMEM_THREAD_FUNNELED GSHMEM_THREAD_FUNNELED
#define NVSHMEM_THREAD_SERIALIZED GSHMEM_THREAD_SERIALIZED
#define NVSHMEM_THREAD_MULTIPLE GSHMEM_THREAD_MULTIPLE
#define NVSHMEM_MALLOC_ATOMICS_REMOTE GSHMEM_MALLOC_ATOMICS_REMOTE
#define NVSHMEM_MALLOC_SIGNAL_REMOTE GSHMEM_MALLOC_SIGNAL_REMOTE

#define NVSHMEM_CMP_EQ GSHMEM_CMP_EQ
#define NVSHMEM_CMP_NE GSHMEM_CMP_NE
#define NVSHMEM_CMP_GT GSHMEM_CMP_GT
#define NVSHMEM_CMP_GE GSHMEM_CMP_GE
#define NVSHMEM_CMP_LT GSHMEM_CMP_LT
#define NVSHMEM_CMP_LE GSHMEM_CMP_LE

#define NVSHMEM_SIGNAL_SET GSHMEM_SIGNAL_SET
#define NVSHMEM_SIGNAL_ADD GSHMEM_SIGNAL_ADD

/* ---- teams ---- */
typedef gshmem_team_t nvshmem_team_t;
typedef gshmem_team_config_t nvshmem_team_config_t;
#define NVSHMEM_TEAM_INVALID GSHMEM_TEAM_INVALID
#define NVSHMEM_TEAM_WORLD GSHMEM_TEAM_WORLD
#define NVSHMEM_TEAM_SHARED GSHMEM_TEAM_SHARED
#define NVSHMEMX_TEAM_NODE GSHMEMX_TEAM_NODE
#define NVSHMEM_TEAM_NUM_CONTEXTS GSHMEM_TEAM_NUM_CONTEXTS

/* ---- initialisation ---- */
/* nvshmemx_init_attr(flags, &attr): attr from NVSHMEMX_INIT_ATTR_INITIALIZER, then
 * nvshmemx_set_attr_uniqueid_args(rank, nranks, &id, &attr) for
 * NVSHMEMX_INIT_WITH_UNIQUEID, or attr.mpi_comm = &comm (Open MPI) for
 * NVSHMEMX_INIT_WITH_MPI_COMM. */
typedef gshmemx_uniqueid_t nvshmemx_uniqueid_t;
typedef gshmemx_init_attr_t nvshmemx_init_attr_t;
#define NVSHMEMX_UNIQUEID_INITIALIZER GSHMEMX_UNIQUEID_INITIALIZER
#define NVSHMEMX_INIT_ATTR_INITIALIZER GSHMEMX_INIT_ATTR_INITIALIZER
#define NVSHMEMX_INIT_WITH_UNIQUEID GSHMEMX_INIT_WITH_UNIQUEID
#define NVSHMEMX_INIT_WITH_MPI_COMM GSHMEMX_INIT_WITH_MPI_COMM

/* Status of host calls that return int (0 = success; other values are gshmem's
 * codes, gshmemx_status_string explains them). */
#define NVSHMEMX_SUCCESS GSHMEM_SUCCESS
#define NVSHMEMX_ERROR_INTERNAL GSHMEM_ERROR_INTERNAL

/* nvshmemx_init_status(): whether the library is initialised. gshmem has no
 * bootstrapped-only state, so the answer is one of the first and last. */
#define NVSHMEM_STATUS_NOT_INITIALIZED 0
#define NVSHMEM_STATUS_IS_BOOTSTRAPPED 1
#define NVSHMEM_STATUS_IS_INITIALIZED 2
static inline int nvshmemx_init_status(void) {
  return gshmemx_initialized() ? NVSHMEM_STATUS_IS_INITIALIZED : NVSHMEM_STATUS_NOT_INITIALIZED;
}

/* ---- modules loaded through the driver API ----
 * nvshmemx_cumodule_init(module) / nvshmemx_cumodule_finalize(module) are gshmemx_cumodule_init /
 * _finalize (detail/nvshmem_names.h; contract in gshmem/host.h): the module must be compiled
 * without -rdc from a file that includes this header (or <gshmem/gshmem.h>). */

/* ---- error printing ----
 * NVSHMEMI_ERROR_PRINT(fmt, ...): what NVSHMEM's headers give its helpers (perftest's among
 * them): one line "file:line: message" on stderr, formatted as printf does; a newline is added
 * when the message does not end with one. Host code only. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static inline void
gshmemi_compat_error_print(const char* file, int line, const char* fmt, ...) {
  char msg[1024];
  va_list ap;
  size_t len;
  va_start(ap, fmt);
  if (vsnprintf(msg, sizeof msg, fmt, ap) < 0) msg[0] = '\0';
  va_end(ap);
  len = strlen(msg);
  fprintf(stderr, "%s:%d: %s%s", file, line, msg, (len > 0 && msg[len - 1] == '\n') ? "" : "\n");
}
#define NVSHMEMI_ERROR_PRINT(...) gshmemi_compat_error_print(__FILE__, __LINE__, __VA_ARGS__)

#endif /* GSHMEM_COMPAT_NVSHMEM_H */
