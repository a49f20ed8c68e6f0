// SPDX-License-Identifier: BSD-3-Clause
// What the collective benchmarks (device and on-stream) share: buffer layout per
// collective from the nccl-tests size, the input patterns and the result checks,
// and the datatype / operation sets.
//
//   collective      count (the API's nelems)   source       destination   size (bytes)
//   broadcast       size / es                  count        count         count*es
//   fcollect        size / (N es)              count        N count       N count es
//   alltoall        size / (N es)              N count      N count       N count es
//   reduce          size / es                  count        count         count es
//   reducescatter   size / (N es)              N count      count         N count es
// Broadcast, fcollect and alltoall move byte patterns (block j of PE p's source
// carries seed (p, j)); the reductions use verify.h's exact typed values.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "bench.h"

namespace perf {

struct Ctx;

enum class Coll { broadcast, fcollect, alltoall, reduce, reducescatter };

struct CollLayout {
  size_t count = 0;      // the nelems / nreduce argument; 0: the size is too small (skip)
  size_t src_bytes = 0;  // source buffer
  size_t dst_bytes = 0;  // destination buffer
  size_t size = 0;       // the size really measured (nccl-tests definition)
};
CollLayout coll_layout(Coll k, size_t size, size_t elem_bytes, int npes);

// Fills this PE's source and poisons its destination (on ctx.stream, then waits).
void coll_prepare(Ctx& ctx, Coll k, const Case& c, const CollLayout& l, void* src, void* dst, const char* bench);
// Poisons the destination again (before a second implementation runs on it).
void coll_poison(Ctx& ctx, const CollLayout& l, void* dst);
// Checks this PE's destination; adds to r (r.bad, or r.nccl_bad when nccl).
void coll_check(Ctx& ctx, Coll k, const Case& c, const CollLayout& l, const void* dst, Result& r, const char* bench,
                bool nccl);

// algbw bytes of a collective: its size (nccl-tests).
inline double coll_bytes(const Case&, size_t size, int) { return static_cast<double>(size); }

// Datatypes of the data-movement collectives and of the reductions.
constexpr unsigned kCollDTypes = (1u << static_cast<int>(DType::int32)) | (1u << static_cast<int>(DType::int64)) |
                                 (1u << static_cast<int>(DType::float32)) | (1u << static_cast<int>(DType::float64));
std::vector<std::string> reduce_ops();  // sum prod min max and or xor
// and / or / xor only on integer types.
bool reduce_valid(const Case& c, int npes);

}  // namespace perf
