// SPDX-License-Identifier: BSD-3-Clause
// The on-stream reductions' C functions by datatype and operation, shared by
// reduction_on_stream.cpp and reducescatter_on_stream.cpp: one table per kind
// (reduce / reducescatter), built by PERF_REDUCE_TABLE.
#pragma once

#include <cstdint>
#include <string>

#include <gshmem/gshmem.h>

#include "../common/bench.h"

namespace perf {

template <class T>
using ReduceFn = int (*)(gshmem_team_t, T*, const T*, size_t, cudaStream_t);
template <class T>
struct ReduceOps {
  ReduceFn<T> sum, prod, min, max, band, bor, bxor;  // bitwise ones: integer types only
};
struct ReduceTable {
  ReduceOps<int32_t> i32;
  ReduceOps<int64_t> i64;
  ReduceOps<float> f32;
  ReduceOps<double> f64;
};

#define PERF_REDUCE_OPS_(T, KIND)                                                                                      \
  {                                                                                                                    \
    gshmemx_##T##_sum_##KIND##_on_stream, gshmemx_##T##_prod_##KIND##_on_stream, gshmemx_##T##_min_##KIND##_on_stream, \
        gshmemx_##T##_max_##KIND##_on_stream, gshmemx_##T##_and_##KIND##_on_stream,                                    \
        gshmemx_##T##_or_##KIND##_on_stream, gshmemx_##T##_xor_##KIND##_on_stream                                      \
  }
#define PERF_REDUCE_FOPS_(T, KIND)                                                                                     \
  {                                                                                                                    \
    gshmemx_##T##_sum_##KIND##_on_stream, gshmemx_##T##_prod_##KIND##_on_stream, gshmemx_##T##_min_##KIND##_on_stream, \
        gshmemx_##T##_max_##KIND##_on_stream, nullptr, nullptr, nullptr                                                \
  }
// gshmemx_<type>_<op>_<KIND>_on_stream for the benchmarks' datatypes (KIND: reduce, reducescatter).
#define PERF_REDUCE_TABLE(KIND)                                                                   \
  ::perf::ReduceTable {                                                                           \
    PERF_REDUCE_OPS_(int32, KIND), PERF_REDUCE_OPS_(int64, KIND), PERF_REDUCE_FOPS_(float, KIND), \
        PERF_REDUCE_FOPS_(double, KIND)                                                           \
  }

template <class T>
int reduce_call(const ReduceOps<T>& o, const std::string& op, void* d, const void* s, size_t n, cudaStream_t st) {
  ReduceFn<T> f = op == "prod"  ? o.prod
                  : op == "min" ? o.min
                  : op == "max" ? o.max
                  : op == "and" ? o.band
                  : op == "or"  ? o.bor
                  : op == "xor" ? o.bxor
                                : o.sum;
  return f ? f(GSHMEM_TEAM_WORLD, static_cast<T*>(d), static_cast<const T*>(s), n, st) : -1;
}

// The table's function for (datatype, op) on TEAM_WORLD; -1 when there is none.
inline int reduce_call(const ReduceTable& t, DType dt, const std::string& op, void* d, const void* s, size_t n,
                       cudaStream_t st) {
  switch (dt) {
    case DType::int64:
      return reduce_call(t.i64, op, d, s, n, st);
    case DType::float32:
      return reduce_call(t.f32, op, d, s, n, st);
    case DType::float64:
      return reduce_call(t.f64, op, d, s, n, st);
    default:
      return reduce_call(t.i32, op, d, s, n, st);
  }
}

}  // namespace perf
