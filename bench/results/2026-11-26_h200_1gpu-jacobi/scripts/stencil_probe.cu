// SPDX-License-Identifier: BSD-3-Clause
// Session 40 probe: how fast can one H200 run the jacobi benchmark's 5-point step on an
// N x N grid of doubles? Variants of the row-band kernel, and a plain device copy of the
// same bytes as the floor. One GPU, no gshmem.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)

// v0: the benchmark's first kernel (row band, one column per thread step, rolling registers).
__global__ void __launch_bounds__(1024) v0(const double* in, double* out, int rows, int n_, int rpc) {
  const int r0 = 1 + blockIdx.x * rpc, r1 = min(rows, r0 + rpc - 1);
  const size_t n = n_;
  for (size_t j = 1 + threadIdx.x; j + 1 < n; j += blockDim.x) {
    const double* col = in + j;
    double above = col[(r0 - 1) * n], mid = col[r0 * n];
    for (int r = r0; r <= r1; ++r) {
      const double below = col[(r + 1) * n];
      out[r * n + j] = 0.25 * ((above + below) + (col[r * n - 1] + col[r * n + 1]));
      above = mid; mid = below;
    }
  }
}
// v1: v0 with the row loop unrolled by U (more loads in flight).
template <int U>
__global__ void __launch_bounds__(1024) v1(const double* in, double* out, int rows, int n_, int rpc) {
  const int r0 = 1 + blockIdx.x * rpc, r1 = min(rows, r0 + rpc - 1);
  const size_t n = n_;
  for (size_t j = 1 + threadIdx.x; j + 1 < n; j += blockDim.x) {
    const double* col = in + j;
    double above = col[(r0 - 1) * n], mid = col[r0 * n];
#pragma unroll U
    for (int r = r0; r <= r1; ++r) {
      const double below = col[(r + 1) * n];
      out[r * n + j] = 0.25 * ((above + below) + (col[r * n - 1] + col[r * n + 1]));
      above = mid; mid = below;
    }
  }
}
// v2: one thread per output point, 2D grid of (32 x 8) tiles; everything from L1/L2.
__global__ void v2(const double* in, double* out, int rows, int n_) {
  const size_t n = n_;
  const int j = 1 + blockIdx.x * blockDim.x + threadIdx.x;
  const int r = 1 + blockIdx.y * blockDim.y + threadIdx.y;
  if (j + 1 >= n_ || r > rows) return;
  const double* p = in + r * n + j;
  out[r * n + j] = 0.25 * ((p[-n] + p[n]) + (p[-1] + p[1]));
}
// v3: a thread handles R rows of one column, all loads issued before any store.
template <int R>
__global__ void __launch_bounds__(256) v3(const double* in, double* out, int rows, int n_) {
  const size_t n = n_;
  const int j = 1 + blockIdx.x * blockDim.x + threadIdx.x;
  const int r0 = 1 + blockIdx.y * R;
  if (j + 1 >= n_) return;
  double c[R + 2], l[R], rr[R];
#pragma unroll
  for (int k = 0; k < R + 2; ++k) c[k] = (r0 - 1 + k <= rows + 1) ? in[(r0 - 1 + k) * n + j] : 0.0;
#pragma unroll
  for (int k = 0; k < R; ++k) {
    if (r0 + k <= rows) { l[k] = in[(r0 + k) * n + j - 1]; rr[k] = in[(r0 + k) * n + j + 1]; }
  }
#pragma unroll
  for (int k = 0; k < R; ++k)
    if (r0 + k <= rows) out[(r0 + k) * n + j] = 0.25 * ((c[k] + c[k + 2]) + (l[k] + rr[k]));
}
__global__ void copyk(const double2* a, double2* b, size_t n4) {
  for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < n4; k += (size_t)gridDim.x * blockDim.x) b[k] = a[k];
}

int main(int argc, char** argv) {
  const int N = argc > 1 ? atoi(argv[1]) : 16384;
  const int iters = 50;
  const size_t bytes = (size_t)N * N * 8;
  double *a, *b;
  CK(cudaMalloc(&a, bytes)); CK(cudaMalloc(&b, bytes));
  CK(cudaMemset(a, 0, bytes)); CK(cudaMemset(b, 0, bytes));
  int sms; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  const int rows = N - 2;
  auto timeit = [&](const char* name, auto launch) {
    std::vector<float> t;
    for (int rep = 0; rep < 5; ++rep) {
      launch(); CK(cudaDeviceSynchronize());
      cudaEventRecord(e0);
      for (int i = 0; i < iters; ++i) launch();
      cudaEventRecord(e1); CK(cudaEventSynchronize(e1));
      float ms; cudaEventElapsedTime(&ms, e0, e1); t.push_back(ms * 1000 / iters);
    }
    std::sort(t.begin(), t.end());
    printf("N=%5d %-28s %9.2f us  %7.1f GB/s (2 x grid)\n", N, name, t[2], 2.0 * bytes / (t[2] * 1e3));
  };
  timeit("copy (floor)", [&] { copyk<<<sms * 8, 256>>>((const double2*)a, (double2*)b, bytes / 16); });
  for (int th : {256, 512, 1024}) {
    int per_sm; cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, v0, th, 0);
    for (int waves : {1, 2, 4}) {
      int ctas = sms * per_sm * waves, rpc = (rows + ctas - 1) / ctas; ctas = (rows + rpc - 1) / rpc;
      char nm[64]; snprintf(nm, 64, "v0 t%d w%d (%d/SM)", th, waves, per_sm);
      timeit(nm, [&] { v0<<<ctas, th>>>(a, b, rows, N, rpc); });
      snprintf(nm, 64, "v1<4> t%d w%d", th, waves);
      timeit(nm, [&] { v1<4><<<ctas, th>>>(a, b, rows, N, rpc); });
      snprintf(nm, 64, "v1<8> t%d w%d", th, waves);
      timeit(nm, [&] { v1<8><<<ctas, th>>>(a, b, rows, N, rpc); });
    }
  }
  timeit("v2 32x8", [&] { v2<<<dim3((N - 2 + 31) / 32, (rows + 7) / 8), dim3(32, 8)>>>(a, b, rows, N); });
  timeit("v2 128x4", [&] { v2<<<dim3((N - 2 + 127) / 128, (rows + 3) / 4), dim3(128, 4)>>>(a, b, rows, N); });
  timeit("v3<4> 256", [&] { v3<4><<<dim3((N - 2 + 255) / 256, (rows + 3) / 4), 256>>>(a, b, rows, N); });
  timeit("v3<8> 256", [&] { v3<8><<<dim3((N - 2 + 255) / 256, (rows + 7) / 8), 256>>>(a, b, rows, N); });
  timeit("v3<16> 256", [&] { v3<16><<<dim3((N - 2 + 255) / 256, (rows + 15) / 16), 256>>>(a, b, rows, N); });
  return 0;
}
