// SPDX-License-Identifier: BSD-3-Clause
// A PE dies while the others wait for it in a device barrier.
// Every PE initialises and passes one host barrier. Then every PE except PE 1
// launches a kernel that enters gshmem_barrier_all (device) and can only leave it
// if PE 1 arrives - which it never does: PE 1 sleeps 1 s and raises SIGKILL on
// itself. gshmrun must notice, name PE 1 and signal 9, and end the job.
// Driven by kill_in_barrier.sh, which checks the exit status, the messages and
// the time gshmrun took after the kill. Exits 77 without enough GPUs.
#include "common.h"
#include "fault.h"

__global__ void k_barrier_forever(int* done) {
  gshmem_barrier_all();  // PE 1 never arrives
  *done = 1;
}

int main() {
  gt::test_main_prologue(2, 0);
  const int me = gshmem_my_pe();
  gshmem_barrier_all();  // everyone is up
  if (me == 1) {
    sleep(1);  // long enough for the others to be inside the barrier kernel
    fault::raise_now("kill_in_barrier", 1, SIGKILL, "raising SIGKILL");
    return 3;  // not reached
  }
  int* done = nullptr;
  CUDA_CHECK(cudaMalloc(&done, sizeof(int)));
  CUDA_CHECK(cudaMemset(done, 0, sizeof(int)));
  gt::emit(stdout, "kill_in_barrier: PE %d entering the device barrier\n", me);
  k_barrier_forever<<<1, 1>>>(done);
  CUDA_CHECK(cudaGetLastError());
  const cudaError_t e = cudaDeviceSynchronize();
  // Reached if the barrier let this PE through without PE 1 (a bug: done=1), or the kernel
  // was stopped by an error - the library's own, once the failure monitor has set the abort
  // word: the barrier names PE 1 as failed and traps (done=0).
  int h = 0;
  cudaMemcpy(&h, done, sizeof(int), cudaMemcpyDeviceToHost);
  gt::emit(stdout, "kill_in_barrier: PE %d BARRIER RETURNED (done=%d, %s)\n", me, h, cudaGetErrorString(e));
  return 4;
}
