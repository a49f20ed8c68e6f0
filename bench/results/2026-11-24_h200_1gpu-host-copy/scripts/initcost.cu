// SPDX-License-Identifier: BSD-3-Clause
// scratch: cost of a D2D cudaMemcpyAsync + sync before and after gshmem_init
#include <cuda_runtime.h>
#include <gshmem/gshmem.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>
static double now() { return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
static void measure(const char* label, char* a, char* b, cudaStream_t s) {
  for (size_t n : {size_t(8), size_t(65536), size_t(1 << 20)}) {
    std::vector<double> us;
    for (int i = 0; i < 1100; ++i) {
      double t0 = now();
      cudaMemcpyAsync(a, b, n, cudaMemcpyDefault, s);
      cudaStreamSynchronize(s);
      if (i >= 100) us.push_back(now() - t0);
    }
    std::sort(us.begin(), us.end());
    printf("%-28s %8zu B  median %.3f us  p10 %.3f p90 %.3f\n", label, n, us[us.size() / 2], us[us.size() / 10], us[us.size() * 9 / 10]);
  }
  // empty kernel-free: event record+sync
}
__global__ void k() {}
static void measure_k(const char* label, cudaStream_t s) {
  std::vector<double> us;
  for (int i = 0; i < 1100; ++i) {
    double t0 = now();
    k<<<1, 1, 0, s>>>();
    cudaStreamSynchronize(s);
    if (i >= 100) us.push_back(now() - t0);
  }
  std::sort(us.begin(), us.end());
  printf("%-28s kernel    median %.3f us\n", label, us[us.size() / 2]);
}
int main() {
  cudaSetDevice(0);
  char *a, *b;
  cudaMalloc(&a, 1 << 20); cudaMalloc(&b, 1 << 20);
  cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  measure("before init", a, b, s); measure_k("before init", s);
  gshmem_init();
  measure("after init", a, b, s); measure_k("after init", s);
  char* h = (char*)gshmem_malloc(1 << 20);
  measure("after init, to heap", h, b, s);
  measure("after init", a, b, s); measure_k("after init", s);
  gshmem_free(h);
  gshmem_finalize();
  measure("after finalize", a, b, s);
  return 0;
}
