// SPDX-License-Identifier: BSD-3-Clause
// The reduce and reducescatter benchmarks' kernels for int64_t (reduce_bench.cuh).
#include "reduce_kernels.cuh"

PERF_REDUCE_KERNELS(int64_t)
