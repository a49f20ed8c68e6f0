/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The one include: #include <gshmem/gshmem.h>
 *   - any C or C++ TU: the host API (host.h);
 *   - a CUDA TU: additionally the device API, in C (gshmem_int_p, gshmemx_putmem_block,
 *     ...) and C++ (gshmem::put<gshmem::block_scope>(...)) forms, usable without -rdc.
 * Start reading at device/gshmem_device.cuh for the device contracts.
 */
#ifndef GSHMEM_GSHMEM_H
#define GSHMEM_GSHMEM_H

#include "gshmem/host.h"

#if defined(__CUDACC__)
#include "gshmem/device/gshmem_device.cuh"
#endif

#endif
