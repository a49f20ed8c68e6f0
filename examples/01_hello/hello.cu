// SPDX-License-Identifier: BSD-3-Clause
// 01_hello: every PE greets from the host and from a kernel.
//   gshmrun -n 2 ./hello
#include <gshmem/gshmem.h>

#include <cstdio>

__global__ void hello_kernel() { printf("  hello from a kernel on PE %d of %d\n", gshmem_my_pe(), gshmem_n_pes()); }

int main() {
  gshmem_init();  // rank and size come from the launcher; the GPU from the node-local rank
  int device = -1;
  cudaGetDevice(&device);
  printf("hello from PE %d of %d (GPU %d)\n", gshmem_my_pe(), gshmem_n_pes(), device);
  hello_kernel<<<1, 1>>>();
  cudaError_t err = cudaDeviceSynchronize();
  if (err != cudaSuccess) {
    fprintf(stderr, "PE %d: kernel failed: %s\n", gshmem_my_pe(), cudaGetErrorString(err));
    return 1;
  }
  gshmem_barrier_all();
  gshmem_finalize();
  return 0;
}
