// SPDX-License-Identifier: BSD-3-Clause
// Which copies on a non-blocking stream wait for a kernel running on another stream? The kernel
// (60 waves of spinning blocks, ~48 ms) runs on a stream of its own, or with an argument on the
// legacy default stream; a second argument gives the copy stream the default (lowest) priority
// instead of the greatest. Each copy is timed from its enqueue; "(WAITED for kernel)" marks a copy
// that completed only after the kernel.
//   nvcc -arch=sm_90 -O2 -o probe pageable_copy_probe.cu; ./probe [legacy [lowprio]]
#include <cstdio>
#include <cstdlib>
#include <chrono>
#include <vector>
#include <cuda_runtime.h>
__global__ void occupy(long long ns, int* flag) {
  long long t0 = clock64();
  // ~spin; 1.98 GHz approx
  while (clock64() - t0 < ns * 2) {}
  if (threadIdx.x == 0 && blockIdx.x == 0) atomicAdd(flag, 1);
}
static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
int main(int argc, char** argv) {
  int lo, hi; cudaDeviceGetStreamPriorityRange(&lo, &hi);
  cudaStream_t a, b; cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking);
  cudaStreamCreateWithPriority(&b, cudaStreamNonBlocking, argc > 2 ? lo : hi);
  int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  int* flag; cudaMalloc(&flag, 4);
  const size_t sizes[] = {4, 4096, 1 << 20, 64 << 20};
  char* d; cudaMalloc(&d, 64 << 20);
  char* pin; cudaHostAlloc(&pin, 64 << 20, 0);
  char* pg = (char*)malloc(64 << 20);
  for (size_t i = 0; i < (64u << 20); i += 4096) pg[i] = 1;
  char* reg = (char*)malloc(64 << 20); cudaHostRegister(reg, 64 << 20, 0);
  struct { const char* n; char* h; } hs[] = {{"pageable", pg}, {"pinned", pin}, {"registered", reg}};
  // warm
  cudaMemcpyAsync(d, pg, 4, cudaMemcpyDefault, b); cudaMemcpyAsync(pg, d, 4, cudaMemcpyDefault, b); cudaStreamSynchronize(b);
  occupy<<<1, 1, 0, a>>>(1000, flag); cudaDeviceSynchronize();
  for (auto& h : hs) for (size_t sz : sizes) for (int dir = 0; dir < 2; ++dir) {
    occupy<<<sms * 8 * 60, 256, 0, argc > 1 ? (cudaStream_t)0 : a>>>(50 * 1000 * 1000 / 60 , flag);  // ~60 waves; whole kernel ~50+ ms
    // sleep 2 ms to be sure kernel runs
    double t = now(); while (now() - t < 0.002) {}
    double t0 = now();
    if (dir == 0) cudaMemcpyAsync(d, h.h, sz, cudaMemcpyDefault, b); else cudaMemcpyAsync(h.h, d, sz, cudaMemcpyDefault, b);
    double t1 = now();
    cudaStreamSynchronize(b);
    double t2 = now();
    bool kernel_done = cudaStreamQuery(argc > 1 ? (cudaStream_t)0 : a) == cudaSuccess;
    cudaDeviceSynchronize();
    double t3 = now();
    printf("%-10s %-3s %9zu B: enqueue %8.3f ms, done %8.3f ms, kernel ended at %8.3f ms%s\n", h.n, dir ? "D2H" : "H2D", sz,
           (t1 - t0) * 1e3, (t2 - t0) * 1e3, (t3 - t0) * 1e3, kernel_done ? "  (WAITED for kernel)" : "");
  }
  printf("error: %s\n", cudaGetErrorString(cudaGetLastError()));
}
