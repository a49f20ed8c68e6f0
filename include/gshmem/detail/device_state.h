/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The state every device-side gshmem call reads: a small, trivially copyable
 * block that the host library fills at init and after every change.
 *
 * How it reaches kernels without -rdc: each CUDA translation unit that
 * includes <gshmem/gshmem.h> gets its own `static __constant__` copy of this
 * struct plus a static registrar object that hands the library a function
 * uploading into that copy (device/impl/state.cuh). The library keeps the list
 * and fills every registered copy, so kernels in several shared libraries, each
 * compiled without relocatable device code, see the same state.
 *
 * Versioned: the header and the library compare GSHMEMI_DEVICE_STATE_VERSION and
 * sizeof at registration; a mismatch is reported instead of read as garbage.
 * Not a public struct: its layout may change between versions.
 */
#ifndef GSHMEM_DETAIL_DEVICE_STATE_H
#define GSHMEM_DETAIL_DEVICE_STATE_H

#include <stdint.h>

#include "gshmem/detail/export.h"

#define GSHMEMI_DEVICE_STATE_VERSION 1u

typedef struct gshmemi_device_state {
  uint32_t version;          /* GSHMEMI_DEVICE_STATE_VERSION once initialised, 0 before */
  uint32_t struct_size;      /* sizeof(gshmemi_device_state) */
  int32_t my_pe;
  int32_t n_pes;
  char* heap_base;           /* this PE's heap: symmetric addresses live in [base, base+size) */
  uint64_t heap_size;        /* bytes currently mapped */
  char* const* peer_base;    /* device array [n_pes]: PE p's heap as mapped here; NULL if unreachable */
  uint64_t* sync_flags;      /* symmetric [n_pes]: sync_flags[q] on PE p = last sync epoch q signalled to p */
  uint64_t* sync_epoch;      /* this PE's count of completed world syncs (device memory) */
  uint64_t wait_timeout_ns;  /* 0: device waits are unbounded; else report + trap after this */
  uint32_t debug_checks;     /* 1: device calls validate PE and pointer arguments */
  uint32_t reserved0;
  uint64_t reserved[4];
} gshmemi_device_state;

#ifdef __cplusplus
static_assert(sizeof(gshmemi_device_state) == 104, "device state layout changed: bump GSHMEMI_DEVICE_STATE_VERSION");
#endif

/* Uploads *state into one translation unit's __constant__ copy; returns a cudaError_t value. */
typedef int (*gshmemi_state_upload_fn)(const gshmemi_device_state* state);

GSHMEM_EXTERN_C_BEGIN
/* Called by each CUDA TU's static registrar (load time) and on unload. If the
 * library is already initialised the state is uploaded at once. */
GSHMEM_API void gshmemi_register_device_state(gshmemi_state_upload_fn upload, uint32_t version,
                                              uint32_t struct_size, const char* tu_name);
GSHMEM_API void gshmemi_unregister_device_state(gshmemi_state_upload_fn upload);
GSHMEM_EXTERN_C_END

#endif
