// SPDX-License-Identifier: BSD-3-Clause
// Sample statistics and the derived figures of a table row (pure functions, so
// the host unit test checks them without a GPU).
#pragma once

#include <cstddef>
#include <vector>

#include "bench.h"

namespace perf {

// Nearest-rank percentile (q in [0, 100]) of the samples; 0 for none.
double percentile(std::vector<double> samples, double q);
inline double median(const std::vector<double>& s) { return percentile(s, 50.0); }

// The sizes of a sweep: min, min*f, ... <= max (each rounded down, strictly
// increasing; at least one). max == 0: the single size 0 (size-less benchmarks).
std::vector<size_t> size_sweep(size_t min, size_t max, double factor);

// GB/s (1e9 bytes per second, as nccl-tests) for `bytes` moved in `us` microseconds.
inline double gbps(double bytes, double us) { return us > 0 ? bytes / (us * 1e3) : 0.0; }

}  // namespace perf
