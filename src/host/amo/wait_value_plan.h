// SPDX-License-Identifier: BSD-3-Clause
// How a stream wait for `*sig cmp value` (uint64_t, OpenSHMEM comparison) is
// expressed with cuStreamWaitValue64, which knows four conditions:
//   GEQ  (int64_t)(*addr - v) >= 0   (cyclic)      EQ   *addr == v
//   AND  (*addr & v) != 0                          NOR  ~(*addr | v) != 0
// Exact mappings:
//   EQ v                  -> EQ v
//   NE 0                  -> AND ~0          (some bit set)
//   NE ~0                 -> NOR 0           (some bit clear; needs NOR support)
//   GE 0, LE ~0           -> nothing to wait for (always true)
//   GE 2^k, GT 2^k-1      -> AND ~(2^k - 1)  (some bit at or above k)
// Exact only while the signal stays below 2^63 (documented precondition of
// gshmemx_signal_wait_until_on_stream, see docs/memory-model.md):
//   GE v, GT v-1 (0 < v < 2^63, v not a power of two) -> GEQ v
// Everything else (LT, LE, NE v, GE v >= 2^63 ...) -> a one-thread kernel.
// Header-only so the mapping can be unit tested without a GPU.
#pragma once

#include <cuda.h>

#include <cstdint>

#include "gshmem/types.h"

namespace gshmem::amo {

struct WaitValuePlan {
  enum class How { always_true, memop, kernel };
  How how = How::kernel;
  uint64_t value = 0;
  unsigned flags = 0;      // CU_STREAM_WAIT_VALUE_{GEQ,EQ,AND,NOR}
  bool needs_nor = false;  // the device must support CU_STREAM_WAIT_VALUE_NOR
};

inline WaitValuePlan plan_wait_value(int cmp, uint64_t v) {
  using How = WaitValuePlan::How;
  const uint64_t kAll = ~0ull, kSignBit = 1ull << 63;
  WaitValuePlan p;
  switch (cmp) {
    case GSHMEM_CMP_EQ:
      return {How::memop, v, CU_STREAM_WAIT_VALUE_EQ, false};
    case GSHMEM_CMP_NE:
      if (v == 0) return {How::memop, kAll, CU_STREAM_WAIT_VALUE_AND, false};
      if (v == kAll) return {How::memop, 0, CU_STREAM_WAIT_VALUE_NOR, true};
      return p;
    case GSHMEM_CMP_GT:
      if (v == kAll) return p;  // never true: the kernel waits (and times out) like the device form
      return plan_wait_value(GSHMEM_CMP_GE, v + 1);
    case GSHMEM_CMP_GE:
      if (v == 0) return {How::always_true, 0, 0, false};
      if ((v & (v - 1)) == 0) return {How::memop, ~(v - 1), CU_STREAM_WAIT_VALUE_AND, false};
      if (v < kSignBit) return {How::memop, v, CU_STREAM_WAIT_VALUE_GEQ, false};
      return p;
    case GSHMEM_CMP_LE:
      if (v == kAll) return {How::always_true, 0, 0, false};
      return p;
    default:
      return p;
  }
}

}  // namespace gshmem::amo
