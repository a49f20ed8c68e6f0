// SPDX-License-Identifier: BSD-3-Clause
// Host-only check of the stream-wait mapping (src/host/amo/wait_value_plan.h):
// for every comparison and many operands, the cuStreamWaitValue64 condition
// chosen must agree with the OpenSHMEM comparison for every signal value it
// is documented to be exact for (all values; below 2^63 for the cyclic GEQ),
// and "always true" must be true for every value.
#include <cstdint>
#include <cstdio>
#include <vector>

#include "host/amo/wait_value_plan.h"

namespace {

using gshmem::amo::plan_wait_value;
using gshmem::amo::WaitValuePlan;

bool holds(uint64_t a, int c, uint64_t b) {
  switch (c) {
    case GSHMEM_CMP_EQ:
      return a == b;
    case GSHMEM_CMP_NE:
      return a != b;
    case GSHMEM_CMP_GT:
      return a > b;
    case GSHMEM_CMP_GE:
      return a >= b;
    case GSHMEM_CMP_LT:
      return a < b;
    case GSHMEM_CMP_LE:
      return a <= b;
  }
  return false;
}

// What cuStreamWaitValue64 waits for (CUDA driver API documentation).
bool memop_holds(uint64_t a, unsigned flags, uint64_t v) {
  switch (flags) {
    case CU_STREAM_WAIT_VALUE_GEQ:
      return static_cast<int64_t>(a - v) >= 0;
    case CU_STREAM_WAIT_VALUE_EQ:
      return a == v;
    case CU_STREAM_WAIT_VALUE_AND:
      return (a & v) != 0;
    case CU_STREAM_WAIT_VALUE_NOR:
      return ~(a | v) != 0;
  }
  return false;
}

}  // namespace

int main() {
  std::vector<uint64_t> vals = {0, 1, 2, 3, 5, 6, 7, 8, 9, 15, 16, 17, 100, 1023, 1024, 1025};
  for (int k = 0; k < 64; ++k) {
    const uint64_t p = 1ull << k;
    vals.insert(vals.end(), {p - 1, p, p + 1, ~p, ~0ull - p});
  }
  vals.insert(vals.end(), {(1ull << 63) - 2, (1ull << 63) - 1, 1ull << 63, (1ull << 63) + 1, ~0ull - 1, ~0ull,
                           0x123456789abcdefull, 0xfedcba9876543210ull});
  long checks = 0, failures = 0, memops = 0, kernels = 0;
  for (int c = GSHMEM_CMP_EQ; c <= GSHMEM_CMP_LE; ++c) {
    for (uint64_t v : vals) {
      const WaitValuePlan p = plan_wait_value(c, v);
      if (p.how == WaitValuePlan::How::kernel) {
        ++kernels;
        continue;
      }
      if (p.how == WaitValuePlan::How::memop) ++memops;
      const bool cyclic = p.how == WaitValuePlan::How::memop && p.flags == CU_STREAM_WAIT_VALUE_GEQ;
      if (cyclic && (p.value >> 63) != 0) {
        ++failures;
        printf("FAIL: cmp %d value 0x%llx: cyclic GEQ chosen for an operand >= 2^63\n", c, (unsigned long long)v);
      }
      for (uint64_t a : vals) {
        if (cyclic && (a >> 63) != 0) continue;  // documented domain of the cyclic comparison
        ++checks;
        const bool want = holds(a, c, v);
        const bool got = p.how == WaitValuePlan::How::always_true ? true : memop_holds(a, p.flags, p.value);
        if (want != got) {
          ++failures;
          if (failures < 20)
            printf(
                "FAIL: cmp %d value 0x%llx signal 0x%llx: OpenSHMEM says %d, the plan (flags %u value 0x%llx) "
                "says %d\n",
                c, (unsigned long long)v, (unsigned long long)a, want, p.flags, (unsigned long long)p.value, got);
        }
      }
    }
  }
  // The common cases must not fall back to a kernel.
  const int must_memop[][2] = {
      {GSHMEM_CMP_EQ, 5}, {GSHMEM_CMP_GE, 10}, {GSHMEM_CMP_GE, 16}, {GSHMEM_CMP_GT, 9}, {GSHMEM_CMP_NE, 0}};
  for (const auto& m : must_memop) {
    ++checks;
    if (plan_wait_value(m[0], static_cast<uint64_t>(m[1])).how != WaitValuePlan::How::memop) {
      ++failures;
      printf("FAIL: cmp %d value %d should map to a stream memory operation\n", m[0], m[1]);
    }
  }
  printf("%ld checks, %ld failures (%ld memop plans, %ld kernel fallbacks)\n", checks, failures, memops, kernels);
  return failures == 0 ? 0 : 1;
}
