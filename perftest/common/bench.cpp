// SPDX-License-Identifier: BSD-3-Clause
// The benchmark registry, names of the enums, bus-bandwidth factors and statistics.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "bench.h"
#include "stats.h"

namespace perf {

namespace {
std::vector<Bench>& mutable_registry() {
  static std::vector<Bench> r;
  return r;
}
}  // namespace

void register_bench(const Bench& b) {
  for (const Bench& x : mutable_registry()) {
    if (strcmp(x.name, b.name) == 0) {
      fprintf(stderr, "gshmem-perf: benchmark '%s' registered twice (two files fill the same name)\n", b.name);
      abort();
    }
  }
  mutable_registry().push_back(b);
}

const std::vector<Bench>& registry() {
  std::vector<Bench>& r = mutable_registry();
  std::sort(r.begin(), r.end(), [](const Bench& a, const Bench& b) { return strcmp(a.name, b.name) < 0; });
  return r;
}

const char* name_of(Scope s) {
  switch (s) {
    case Scope::thread:
      return "thread";
    case Scope::warp:
      return "warp";
    case Scope::block:
      return "block";
  }
  return "?";
}

const char* name_of(DType d) {
  switch (d) {
    case DType::int32:
      return "int32";
    case DType::int64:
      return "int64";
    case DType::uint32:
      return "uint32";
    case DType::uint64:
      return "uint64";
    case DType::float32:
      return "float";
    case DType::float64:
      return "double";
  }
  return "?";
}

size_t size_of(DType d) {
  switch (d) {
    case DType::int32:
    case DType::uint32:
    case DType::float32:
      return 4;
    case DType::int64:
    case DType::uint64:
    case DType::float64:
      return 8;
  }
  return 1;
}

int square_side(size_t bytes, size_t elem_bytes) {
  size_t n = static_cast<size_t>(std::sqrt(static_cast<double>(bytes / elem_bytes)));
  while (n > 0 && n * n * elem_bytes > bytes) --n;
  while ((n + 1) * (n + 1) * elem_bytes <= bytes) ++n;
  return static_cast<int>(n);
}

double busbw_factor(Bus b, int n) {
  const double N = n > 0 ? n : 1;
  switch (b) {
    case Bus::none:
      return 0.0;
    case Bus::p2p:
      return 1.0;
    case Bus::allreduce:
      return 2.0 * (N - 1) / N;
    case Bus::allgather:
    case Bus::reducescatter:
    case Bus::alltoall:
      return (N - 1) / N;
    case Bus::broadcast:
      return 1.0;
  }
  return 0.0;
}

double percentile(std::vector<double> s, double q) {
  if (s.empty()) return 0.0;
  std::sort(s.begin(), s.end());
  // Nearest rank: the smallest sample with at least q% of the samples <= it.
  size_t rank = static_cast<size_t>(std::ceil(q / 100.0 * static_cast<double>(s.size())));
  if (rank < 1) rank = 1;
  if (rank > s.size()) rank = s.size();
  return s[rank - 1];
}

std::vector<size_t> size_sweep(size_t min, size_t max, double factor) {
  std::vector<size_t> out;
  if (max < min) max = min;
  if (max == 0) {
    out.push_back(0);
    return out;
  }
  if (min == 0) min = 1;
  double s = static_cast<double>(min);
  while (s <= static_cast<double>(max) * (1 + 1e-12)) {
    size_t v = static_cast<size_t>(s);
    if (out.empty() || v > out.back()) out.push_back(v);
    s *= factor;
  }
  return out;
}

}  // namespace perf
