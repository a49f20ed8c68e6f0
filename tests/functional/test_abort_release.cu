// SPDX-License-Identifier: BSD-3-Clause
// gshmemx_abort releases the device (issue 56, item 2): every PE launches a kernel whose block 0
// spins in gshmem_int_wait_until and block 1 in gshmem_signal_wait_until on variables nobody
// updates, and on PE 0 of a job of 2 PEs or more block 2 in a device gshmem_team_sync of the world
// team and block 3 (all its 32 threads) in gshmemx_barrier_all_block, which the other PEs never
// enter (its threads that exit in their waits release the others from the block's barrier). After 300 ms
// (the kernel must still run then) a host thread calls gshmemx_abort(7); the kernel must end
// within 100 ms of that call, its waits returned unmet, without an error. Then host calls fail
// (gshmem_malloc returns NULL, gshmem_team_sync returns GSHMEM_ERROR_ABORTED, and
// gshmemx_take_error has the reason), gshmem_finalize works, a new gshmem_init works, and a put
// to the next PE, a barrier and a get deliver the pattern.
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "common.h"

namespace {

using Clock = std::chrono::steady_clock;

// Each waiting block's thread 0 records that it began to wait (out[b] = 1) and, if its wait ever
// returned, out[3 + b] = 1.
__global__ void k_spin(int* flag, uint64_t* sig, int* out, int with_sync) {
  if (blockIdx.x == 3) {
    gshmemx_barrier_all_block();
    return;
  }
  if (threadIdx.x != 0) return;
  out[blockIdx.x] = 1;
  __threadfence_system();
  if (blockIdx.x == 0) gshmem_int_wait_until(flag, GSHMEM_CMP_EQ, 1);
  if (blockIdx.x == 1) gshmem_signal_wait_until(sig, GSHMEM_CMP_EQ, 1);
  if (blockIdx.x == 2 && with_sync) gshmem_team_sync(GSHMEM_TEAM_WORLD);  // no other PE enters it
  out[3 + blockIdx.x] = 1;
}

__global__ void k_put(int* dst, const int* src, size_t n, int pe) { gshmem_int_put(dst, src, n, pe); }

}  // namespace

int main() {
  gt::test_main_prologue(1, 0);
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  int* flag = static_cast<int*>(gshmem_calloc(1, sizeof(int)));
  uint64_t* sig = static_cast<uint64_t*>(gshmem_calloc(1, sizeof(uint64_t)));
  GT_CHECK(flag != nullptr && sig != nullptr);
  int* out = nullptr;
  CUDA_CHECK(cudaMalloc(&out, 6 * sizeof(int)));
  CUDA_CHECK(cudaMemset(out, 0, 6 * sizeof(int)));
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  gshmem_barrier_all();

  const int blocks = npes > 1 && me == 0 ? 4 : 2;
  k_spin<<<blocks, 32, 0, s>>>(flag, sig, out, blocks == 4);
  CUDA_CHECK(cudaGetLastError());
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  GT_CHECK_EQ(static_cast<int>(cudaErrorNotReady), static_cast<int>(cudaStreamQuery(s)));  // still spinning

  Clock::time_point t0;
  int abort_rc = -1;
  std::thread aborter([&] {
    t0 = Clock::now();
    abort_rc = gshmemx_abort(7);
  });
  aborter.join();
  cudaError_t q;
  while ((q = cudaStreamQuery(s)) == cudaErrorNotReady) {
    if (Clock::now() - t0 > std::chrono::seconds(10)) break;
  }
  const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  gt::emit(stdout, "abort_release: PE %d: the kernel ended %.2f ms after gshmemx_abort (%s)\n", me, ms,
           cudaGetErrorString(q));
  GT_CHECK_EQ(0, abort_rc);
  GT_CHECK_EQ(static_cast<int>(cudaSuccess), static_cast<int>(q));
  GT_CHECK(ms < 100.0);
  int h[6] = {0, 0, 0, 0, 0, 0};
  CUDA_CHECK(cudaMemcpy(h, out, sizeof(h), cudaMemcpyDeviceToHost));
  for (int b = 0; b < blocks && b < 3; ++b) {
    GT_CHECK_EQ(1, h[b]);      // it waited
    GT_CHECK_EQ(0, h[3 + b]);  // and ended there
  }

  // Host calls fail now, saying why.
  gshmemx_take_error(nullptr, 0);
  GT_CHECK(gshmem_malloc(64) == nullptr);
  GT_CHECK_EQ(static_cast<int>(GSHMEM_ERROR_ABORTED), gshmem_team_sync(GSHMEM_TEAM_WORLD));
  char why[256] = {0};
  GT_CHECK(gshmemx_take_error(why, sizeof(why)) > 0);
  GT_CHECK(strstr(why, "gshmemx_abort(7)") != nullptr);
  GT_CHECK_EQ(1, gshmemx_initialized());
  CUDA_CHECK(cudaStreamDestroy(s));
  CUDA_CHECK(cudaFree(out));

  gshmem_finalize();
  GT_CHECK_EQ(0, gshmemx_initialized());

  // A new start: the abort is gone, a put goes through.
  gshmem_init();
  GT_CHECK_EQ(1, gshmemx_initialized());
  GT_CHECK_EQ(me, gshmem_my_pe());
  const size_t n = 1021;
  int* dst = static_cast<int*>(gshmem_malloc(n * sizeof(int)));
  int* src = static_cast<int*>(gshmem_malloc(n * sizeof(int)));
  GT_CHECK(dst != nullptr && src != nullptr);
  if (dst != nullptr && src != nullptr) {
    std::vector<int> init(n);
    for (size_t i = 0; i < n; ++i) init[i] = gt::value<int>(me, i, 56);
    CUDA_CHECK(cudaMemcpy(src, init.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(dst, gt::kPoison, n * sizeof(int)));
    gshmem_barrier_all();
    k_put<<<1, 1>>>(dst, src, n, (me + 1) % npes);
    KERNEL_CHECK();
    gshmem_barrier_all();
    std::vector<int> got(n);
    CUDA_CHECK(cudaMemcpy(got.data(), dst, n * sizeof(int), cudaMemcpyDeviceToHost));
    const int from = (me + npes - 1) % npes;
    GT_VERIFY("put after a new gshmem_init", got.data(), n, [&](size_t i) { return gt::value<int>(from, i, 56); });
  }
  return gt::test_main_epilogue("abort_release");
}
