// SPDX-License-Identifier: BSD-3-Clause
// The cost kernel with the device debug checks (PE, heap bounds, the live-allocation search).
#define GSHMEM_DEBUG_CHECKS 1
#define GSHMEM_COST_KERNEL_NAME cost_kernel_debug
#include "debug_check_cost.cuh"

float cost::run_debug(long* dst, int pe, int iters, int kind) { return time_kernel(dst, pe, iters, kind); }
