/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * OpenSHMEM dialect of gshmem: programs written against OpenSHMEM 1.5's C API
 * (#include <shmem.h>; shmem_init, shmem_my_pe, shmem_team_split_strided,
 * shmem_team_split_2d, shmem_team_translate_pe, shmem_malloc, shmem_int_put ...)
 * build unchanged against gshmem.
 *
 *   CMake:   target_link_libraries(app PRIVATE gshmem::nvshmem_compat)
 *   by hand: cc -I<prefix>/include -I<prefix>/include/gshmem/compat -I<cuda>/include app.c \
 *               -L<prefix>/lib -lgshmem
 *
 * Every gshmem_ C name has its shmem_ spelling through detail/shmem_names.h
 * (generated from the one table, object-like macros). This file adds the types
 * and constants. Not provided: contexts (shmem_ctx_*), the C11 type-generic
 * names (shmem_put(dest, ...) without a type), the deprecated active-set
 * collectives and pSync constants, shmem_malloc_with_hints; see docs/compat.md.
 * Symmetric memory is GPU memory: host code reaches it with shmem_* calls or
 * cudaMemcpy, not with plain loads and stores.
 */
#ifndef GSHMEM_COMPAT_SHMEM_H
#define GSHMEM_COMPAT_SHMEM_H

#include "gshmem/gshmem.h"
#include "gshmem/compat/detail/shmem_names.h"

/* ---- library constants ---- */
#define SHMEM_MAJOR_VERSION GSHMEM_SPEC_MAJOR_VERSION
#define SHMEM_MINOR_VERSION GSHMEM_SPEC_MINOR_VERSION
#define SHMEM_VENDOR_STRING GSHMEM_VENDOR_STRING
#define SHMEM_MAX_NAME_LEN 256 /* buffer size for shmem_info_get_name */

#define SHMEM_THREAD_SINGLE GSHMEM_THREAD_SINGLE
#define SHMEM_THREAD_FUNNELED GSHMEM_THREAD_FUNNELED
#define SHMEM_THREAD_SERIALIZED GSHMEM_THREAD_SERIALIZED
#define SHMEM_THREAD_MULTIPLE GSHMEM_THREAD_MULTIPLE
#define SHMEM_MALLOC_ATOMICS_REMOTE GSHMEM_MALLOC_ATOMICS_REMOTE
#define SHMEM_MALLOC_SIGNAL_REMOTE GSHMEM_MALLOC_SIGNAL_REMOTE

#define SHMEM_CMP_EQ GSHMEM_CMP_EQ
#define SHMEM_CMP_NE GSHMEM_CMP_NE
#define SHMEM_CMP_GT GSHMEM_CMP_GT
#define SHMEM_CMP_GE GSHMEM_CMP_GE
#define SHMEM_CMP_LT GSHMEM_CMP_LT
#define SHMEM_CMP_LE GSHMEM_CMP_LE

#define SHMEM_SIGNAL_SET GSHMEM_SIGNAL_SET
#define SHMEM_SIGNAL_ADD GSHMEM_SIGNAL_ADD

/* ---- teams ---- */
typedef gshmem_team_t shmem_team_t;
typedef gshmem_team_config_t shmem_team_config_t;
#define SHMEM_TEAM_INVALID GSHMEM_TEAM_INVALID
#define SHMEM_TEAM_WORLD GSHMEM_TEAM_WORLD
#define SHMEM_TEAM_SHARED GSHMEM_TEAM_SHARED
#define SHMEMX_TEAM_NODE GSHMEMX_TEAM_NODE /* extension: PEs on this node */
#define SHMEM_TEAM_NUM_CONTEXTS GSHMEM_TEAM_NUM_CONTEXTS

#endif /* GSHMEM_COMPAT_SHMEM_H */
