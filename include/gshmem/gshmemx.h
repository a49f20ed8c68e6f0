/* SPDX-License-Identifier: BSD-3-Clause */
/* gshmem extensions (gshmemx_*). They are declared with the rest of the host
 * API; this header exists for code that includes it by name, as NVSHMEM code
 * includes nvshmemx.h. */
#ifndef GSHMEM_GSHMEMX_H
#define GSHMEM_GSHMEMX_H
#include "gshmem/gshmem.h"
#endif
