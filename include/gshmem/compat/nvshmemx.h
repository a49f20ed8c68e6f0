/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NVSHMEM dialect of gshmem, extensions header. NVSHMEM programs include it for
 * the nvshmemx_* names (init attributes, unique ids, _warp/_block device forms,
 * _on_stream host forms, collective launch). In gshmem's dialect <nvshmem.h>
 * already declares all of them, so either header gives the whole API; see
 * nvshmem.h for how to build and docs/compat.md for what is supported.
 */
#ifndef GSHMEM_COMPAT_NVSHMEMX_H
#define GSHMEM_COMPAT_NVSHMEMX_H

#include "nvshmem.h"

#endif /* GSHMEM_COMPAT_NVSHMEMX_H */
