// SPDX-License-Identifier: BSD-3-Clause
// Latency of single-value blocking host calls, PE 0 to PE 1 (PE 1 waits in a barrier):
// gshmem_int_atomic_fetch_add, gshmem_int_g, gshmem_int_p, gshmem_signal_fetch and a satisfied
// gshmem_int_wait_until, kIters calls each one after the other, the median of kReps batches'
// mean. Built against one tree's headers and library at a time (the parent's and this change's),
// so the same source times both. Every fetched value is checked.
//   nvcc -arch=sm_90 -O2 -I<tree>/include host_call_latency.cu -o hcl -L<build>/lib -lgshmem
#include <gshmem/gshmem.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

constexpr int kIters = 500, kReps = 9;

template <class F>
double median_us(F&& call) {
  std::vector<double> t;
  for (int r = 0; r < kReps + 1; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < kIters; ++i) call(i);
    const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    if (r > 0) t.push_back(us / kIters);  // the first batch warms up
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main() {
  gshmem_init();
  const int me = gshmem_my_pe();
  if (gshmem_n_pes() < 2) {
    fprintf(stderr, "host_call_latency: needs 2 PEs\n");
    return 77;
  }
  int* word = static_cast<int*>(gshmem_malloc(2 * sizeof(int)));  // [0]: AMO target, [1]: g/p word
  uint64_t* sig = static_cast<uint64_t*>(gshmem_malloc(sizeof(uint64_t)));
  const int init[2] = {0, 4242};
  cudaMemcpy(word, init, sizeof init, cudaMemcpyHostToDevice);
  cudaMemset(sig, 0, sizeof(uint64_t));
  cudaDeviceSynchronize();
  gshmem_barrier_all();
  int bad = 0;
  if (me == 0) {
    long long expect = 0;
    const double amo = median_us([&](int) {
      const int old = gshmem_int_atomic_fetch_add(word, 1, 1);
      bad += old != expect++;
    });
    const double g = median_us([&](int) { bad += gshmem_int_g(word + 1, 1) != 4242; });
    const double p = median_us([&](int) { gshmem_int_p(word + 1, 4242, 1); });
    const double sf = median_us([&](int) { bad += gshmem_signal_fetch(sig) != 0; });
    const double w = median_us([&](int) { gshmem_int_wait_until(word, GSHMEM_CMP_GE, 0); });
    printf("us per call (median of %d batches of %d): atomic_fetch_add %.2f  g %.2f  p %.2f  signal_fetch %.2f  "
           "wait_until %.2f  %s\n", kReps, kIters, amo, g, p, sf, w, bad ? "WRONG VALUES" : "values ok");
  }
  gshmem_barrier_all();
  gshmem_free(sig);
  gshmem_free(word);
  gshmem_finalize();
  return bad ? 1 : 0;
}
