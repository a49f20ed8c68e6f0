// SPDX-License-Identifier: BSD-3-Clause
// What the probes share: the CUDA error check (a failed call prints where and why, then ends
// the probe) and the median of repeated measurements.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define PROBE_CHECK(x)                                                                           \
  do {                                                                                           \
    cudaError_t e_ = (x);                                                                        \
    if (e_ != cudaSuccess) {                                                                     \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      exit(1);                                                                                   \
    }                                                                                            \
  } while (0)

// The median (upper middle element) of repeated measurements.
inline double probe_median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
