// SPDX-License-Identifier: BSD-3-Clause
// Output: per-PE results of a point are gathered on PE 0 and turned into one
// table row and one JSON line. A collective's time is the slowest PE's (max over
// the PEs that timed it) for gshmem and NCCL alike.
//
// JSON lines (one object per line; plot.py and summary.py read them). "lib" is
// "gshmem", or "nvshmem" in gshmem-perf-nvshmem (perftest/nvshmem):
//   {"type":"header", "cmd", "pes", "gpu", "driver", "cuda_driver", "cuda_runtime",
//    "lib", "lib_version", "host", "date"}                     once per process
//   {"type":"result", "lib", "bench", "kind", "pes", "size", "scope", "dtype", "op", "ctas",
//    "threads", "iters", "warmup", "reps", "bidir", "graph", "timer",
//    "lat_us_median", "lat_us_p99", "algbw_GBps", "busbw_GBps",
//    ["nccl_lat_us_median", "nccl_lat_us_p99", "nccl_algbw_GBps", "nccl_busbw_GBps",
//     "nccl_version", "ratio"],          ratio = NCCL time / gshmem time (> 1: gshmem faster)
//    ["ceiling_GBps", "ceiling_us_median", "ceiling_ratio"],
//                                        copy-engine peer copy; ratio = algbw / ceiling
//                                        (= the copy's time / gshmem's)
//    ["mops"], "verified", "checked"}
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench.h"

namespace perf {

struct Ctx;

// What one PE contributes to a row (trivially copyable: it travels through gshmem).
struct PeSummary {
  uint8_t timed, nccl_timed, ceiling_timed, skip;
  uint32_t pad;
  double med, p99, nccl_med, nccl_p99, ceiling_med, ops_per_iter;
  uint64_t size, checked, bad, nccl_bad;
};
PeSummary summarize(const Case& c, const Result& r);

struct Row {
  size_t size = 0;
  bool has_lat = false, has_nccl = false, has_ceiling = false;
  double med = 0, p99 = 0, algbw = 0, busbw = 0;
  double nccl_med = 0, nccl_p99 = 0, nccl_algbw = 0, nccl_busbw = 0, ratio = 0;
  double ceiling = 0, ceiling_us = 0, ceiling_ratio = 0, mops = 0;
  uint64_t checked = 0, bad = 0, nccl_bad = 0;
  bool skip = false;
};
Row aggregate(const Bench& b, const Case& c, const std::vector<PeSummary>& pes, int npes);

std::string header_json(const Ctx& ctx);
std::string bench_title(const Ctx& ctx, const Bench& b, const Case& c);
std::string table_header(const Bench& b);
std::string table_row(const Bench& b, const Case& c, const Row& row);
std::string result_json(const Ctx& ctx, const Bench& b, const Case& c, const Result& r0, const Row& row);

}  // namespace perf
