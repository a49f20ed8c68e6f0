// SPDX-License-Identifier: BSD-3-Clause
// debug_check_cost-N (issue 56, item 6: "the debug build's cost measured"): what the device debug
// checks of a GSHMEM_DEBUG_CHECKS build add to a device call. One thread makes 20,000 calls in a
// row - gshmem_long_p, an 8-byte gshmem_putmem, gshmem_long_atomic_add - to the next PE, from a
// Release translation unit and from a GSHMEM_DEBUG_CHECKS one (debug_check_cost.cuh), with the
// device's table of live allocations holding a few ranges and then 1,027 (the search: 11 loads).
// Prints ns per call for each; checks that every form wrote what it should (the p and put values
// of the last round, the AMO counts). Exits 77 without a GPU per PE (GT_SHARE_GPUS=1 shares one).
#include <vector>

#include "common.h"
#include "debug_check_cost.cuh"

using namespace gt;

int main() {
  test_main_prologue(1, 0);
  const int me = gshmem_my_pe(), n = gshmem_n_pes(), next = (me + 1) % n;
  constexpr int kIters = 20000, kSlots = 256;
  long* dst = static_cast<long*>(gshmem_calloc(kSlots, sizeof(long)));
  std::vector<void*> extra;
  const char* kinds[3] = {"gshmem_long_p", "gshmem_putmem (8 bytes)", "gshmem_long_atomic_add"};
  for (int round = 0; round < 2; ++round) {
    if (round == 1)
      for (int i = 0; i < 1024; ++i) extra.push_back(gshmem_malloc(64 + (i % 7) * 40));
    for (int kind = 0; kind < 3; ++kind) {
      float ms[2];
      for (int form = 0; form < 2; ++form) {
        CUDA_CHECK(cudaMemset(dst, 0, kSlots * sizeof(long)));
        gshmem_barrier_all();
        cost::run_release(dst, next, 64, kind);  // warm-up: the module is loaded, caches are warm
        CUDA_CHECK(cudaMemset(dst, 0, kSlots * sizeof(long)));
        gshmem_barrier_all();
        ms[form] = form == 0 ? cost::run_release(dst, next, kIters, kind) : cost::run_debug(dst, next, kIters, kind);
        GT_CHECK(ms[form] >= 0);
        gshmem_barrier_all();
        std::vector<long> got(kSlots);
        CUDA_CHECK(cudaMemcpy(got.data(), dst, sizeof(long) * kSlots, cudaMemcpyDeviceToHost));
        for (int s = 0; s < kSlots;
             ++s) {  // slot s last written by call kIters - kSlots + s; AMOs: kIters / kSlots each
          const long want = kind == 2 ? kIters / kSlots + (s < kIters % kSlots ? 1 : 0)
                                      : static_cast<long>((kIters - 1) - ((kIters - 1 - s) % kSlots));
          GT_CHECK_EQ(want, got[s]);
        }
      }
      emit(stdout,
           "PE %d: %s to PE %d, %zu more live allocations: Release %.1f ns a call, GSHMEM_DEBUG_CHECKS %.1f ns "
           "(+%.1f)\n",
           me, kinds[kind], next, extra.size(), 1e6 * ms[0] / kIters, 1e6 * ms[1] / kIters,
           1e6 * (ms[1] - ms[0]) / kIters);
    }
  }
  for (void* p : extra) gshmem_free(p);
  gshmem_free(dst);
  return test_main_epilogue("debug_check_cost");
}
