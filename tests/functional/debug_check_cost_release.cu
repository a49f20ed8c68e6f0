// SPDX-License-Identifier: BSD-3-Clause
// The cost kernel as a Release user's translation unit compiles it (no device checks).
#define GSHMEM_COST_KERNEL_NAME cost_kernel_release
#include "debug_check_cost.cuh"

float cost::run_release(long* dst, int pe, int iters, int kind) { return time_kernel(dst, pe, iters, kind); }
