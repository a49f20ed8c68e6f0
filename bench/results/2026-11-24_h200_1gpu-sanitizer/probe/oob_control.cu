// SPDX-License-Identifier: BSD-3-Clause
// Control for the sanitizer runs: a kernel that writes one int past a cudaMalloc'd buffer.
// Run under compute-sanitizer --tool memcheck (with the MPS daemon of the runs up), it must
// report an invalid __global__ write; otherwise a clean report of the tests would prove nothing.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void k_oob(int* p, int n) { p[n + threadIdx.x] = 1; }

int main() {
  int* p = nullptr;
  const int n = 1 << 20;
  if (cudaMalloc(&p, n * sizeof(int)) != cudaSuccess) return 2;
  k_oob<<<1, 1>>>(p, n);
  const cudaError_t e = cudaDeviceSynchronize();
  printf("oob_control: kernel returned %s\n", cudaGetErrorName(e));
  return 0;
}
