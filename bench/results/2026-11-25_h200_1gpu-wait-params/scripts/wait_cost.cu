// SPDX-License-Identifier: BSD-3-Clause
// Host cost of the waits with a status mask and comparison values (3, 32, 33, 41, 320, 321, 500,
// 2560 and 2561 elements, already met), one PE: the on-stream form's call (host time per call,
// the stream drained every 100 calls) and the blocking host forms (round trip). Median and p90
// of 11 runs of 1000 calls each (200 past 1000 elements), in us.
// Built by hand against the build tree (nvcc -arch=sm_90 -O2 -I include wait_cost.cu -L lib -lgshmem)
// and run with each library. From ../../2026-11-25_h200_1gpu-stream-scratch/scripts/wait_cost.cu, more sizes.
#include <gshmem/gshmem.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

namespace {
using clk = std::chrono::steady_clock;

int calls = 1000;

template <class F>
void time_it(const char* what, F&& f) {
  std::vector<double> per_call;
  for (int run = 0; run < 11; ++run) {
    const auto t0 = clk::now();
    for (int i = 0; i < calls; ++i) f(i);
    per_call.push_back(std::chrono::duration<double, std::micro>(clk::now() - t0).count() / calls);
  }
  std::sort(per_call.begin(), per_call.end());
  std::printf("%-52s median %7.3f us  p90 %7.3f us\n", what, per_call[5], per_call[9]);
}
}  // namespace

int main() {
  gshmem_init();
  constexpr size_t kMax = 2561;
  auto* iv = static_cast<uint64_t*>(gshmem_malloc(kMax * sizeof(uint64_t)));
  static uint64_t values[kMax], cmp[kMax];
  static int status[kMax];
  static size_t indices[kMax];
  for (size_t i = 0; i < kMax; ++i) values[i] = cmp[i] = 5 + i, status[i] = i == 1;
  cmp[1] = 99;  // excluded
  cudaMemcpy(iv, values, sizeof(values), cudaMemcpyHostToDevice);
  cudaStream_t st;
  cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking);
  char what[96];
  for (size_t n : {size_t{3}, size_t{32}, size_t{33}, size_t{41}, size_t{320}, size_t{321}, size_t{500}, size_t{2560},
                   kMax}) {
    calls = n > 1000 ? 200 : 1000;
    snprintf(what, sizeof(what), "n=%zu wait_until_all_vector_on_stream (call)", n);
    time_it(what, [&](int i) {
      gshmemx_uint64_wait_until_all_vector_on_stream(iv, n, status, GSHMEM_CMP_EQ, cmp, st);
      if (i % 100 == 99) cudaStreamSynchronize(st);
    });
    snprintf(what, sizeof(what), "n=%zu wait_until_all_on_stream, status (call)", n);
    time_it(what, [&](int i) {
      gshmemx_uint64_wait_until_all_on_stream(iv, n, status, GSHMEM_CMP_GE, 5, st);
      if (i % 100 == 99) cudaStreamSynchronize(st);
    });
    snprintf(what, sizeof(what), "n=%zu wait_until_all_vector (host, blocking)", n);
    time_it(what, [&](int) { gshmem_uint64_wait_until_all_vector(iv, n, status, GSHMEM_CMP_EQ, cmp); });
    snprintf(what, sizeof(what), "n=%zu test_all (host, blocking)", n);
    time_it(what, [&](int) { (void)gshmem_uint64_test_all(iv, n, status, GSHMEM_CMP_GE, 5); });
    snprintf(what, sizeof(what), "n=%zu test_any (host, blocking)", n);
    time_it(what, [&](int) { (void)gshmem_uint64_test_any(iv, n, status, GSHMEM_CMP_GE, 5 + n / 2); });
    snprintf(what, sizeof(what), "n=%zu test_some_vector (host, blocking)", n);
    time_it(what, [&](int) { (void)gshmem_uint64_test_some_vector(iv, n, indices, status, GSHMEM_CMP_EQ, cmp); });
  }
  cudaStreamSynchronize(st);
  cudaStreamDestroy(st);
  gshmem_free(iv);
  gshmem_finalize();
  return 0;
}
