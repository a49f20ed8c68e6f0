// SPDX-License-Identifier: BSD-3-Clause
// The reduce and reducescatter benchmarks' kernels for float (reduce_bench.cuh).
#include "reduce_kernels.cuh"

PERF_REDUCE_KERNELS(float)
