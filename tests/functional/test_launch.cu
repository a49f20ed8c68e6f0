// SPDX-License-Identifier: BSD-3-Clause
// gshmemx_collective_launch / gshmemx_collective_launch_query_gridsize.
//   1. A kernel whose blocks synchronise across the grid (a software grid barrier,
//      which only works when every block is resident) and across GPUs (block 0
//      alone calls the device barrier: one block per PE at a time), launched with
//      the largest grid query_gridsize allows, at 256 and 1024 threads per block.
//      Every block puts its slice into the next PE each round; every block checks
//      the slice it received.
//   2. A grid that cannot be co-resident - query_gridsize()+1 blocks, or 1024
//      threads with more dynamic shared memory than an SM has - returns
//      GSHMEM_ERROR_LAUNCH (11) within a second instead of hanging, leaves no
//      CUDA error behind, and a correct launch works afterwards.
//   3. query_gridsize agrees with the CUDA occupancy calculator, divided by the PEs that
//      share this PE's GPU (found here by the GPUs' UUIDs), so that the sharing PEs' grids
//      are resident together (under MPS).
#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

#include "common.cuh"

using namespace gt;

namespace {

constexpr int kSliceInts = 1000;
constexpr int kRounds = 4;

struct GridBarrier {
  unsigned count;
  unsigned generation;
};

// Software grid barrier: needs every block resident (what a collective launch guarantees).
__device__ void grid_sync(GridBarrier* gb) {
  __syncthreads();
  if (threadIdx.x == 0) {
    volatile unsigned* gen = &gb->generation;
    const unsigned g = *gen;
    __threadfence();
    if (atomicAdd(&gb->count, 1u) == gridDim.x - 1) {
      gb->count = 0;
      __threadfence();
      atomicAdd(&gb->generation, 1u);
    } else {
      while (*gen == g) {
      }
    }
    __threadfence();
  }
  __syncthreads();
}

// dst: symmetric int[gridDim.x * kSliceInts]; src: local, same size.
__global__ void __launch_bounds__(1024) k_ring(int* dst, int* src, GridBarrier* gb, uint64_t salt0, DevErrors* err) {
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  const size_t base = static_cast<size_t>(blockIdx.x) * kSliceInts;
  for (int r = 0; r < kRounds; ++r) {
    const uint64_t salt = salt0 + r;
    for (int i = threadIdx.x; i < kSliceInts; i += blockDim.x) src[base + i] = value<int>(me, base + i, salt);
    __syncthreads();  // the _nbi block form does not synchronise the block on entry
    gshmemx_int_put_nbi_block(dst + base, src + base, kSliceInts, next);
    gshmem::quiet<gshmem::block_scope>();
    grid_sync(gb);
    if (blockIdx.x == 0) gshmemx_barrier_all_block();  // every PE's whole grid has put
    grid_sync(gb);
    for (int i = threadIdx.x; i < kSliceInts; i += blockDim.x) {
      const int v = *static_cast<volatile int*>(&dst[base + i]);
      const int e = value<int>(prev, base + i, salt);
      if (v != e)
        dev_fail(err, base + i, static_cast<unsigned long long>(r), static_cast<unsigned>(e), static_cast<unsigned>(v));
    }
    grid_sync(gb);
    if (blockIdx.x == 0) gshmemx_barrier_all_block();  // everyone checked before the next round's puts
    grid_sync(gb);
  }
}

// Uses its dynamic shared memory for real; block 0 also takes part in a device barrier.
__global__ void __launch_bounds__(1024) k_smem(int* out, DevErrors* err) {
  extern __shared__ int smem[];
  unsigned dyn = 0;
  asm volatile("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dyn));
  const unsigned ints = dyn / sizeof(int);
  for (unsigned i = threadIdx.x; i < ints; i += blockDim.x) smem[i] = static_cast<int>(i * 3 + blockIdx.x);
  __syncthreads();
  long long sum = 0;
  for (unsigned i = threadIdx.x; i < ints; i += blockDim.x) sum += smem[ints - 1 - i];
  if (blockIdx.x == 0) gshmemx_barrier_all_block();
  atomicAdd(reinterpret_cast<unsigned long long*>(out), static_cast<unsigned long long>(sum));
  (void)err;
}

void host_function_not_a_kernel() {}

// PEs on this PE's GPU (itself included), by the GPUs' UUIDs gathered through the heap:
// query_gridsize gives each its share of what fits.
int pes_on_my_gpu(const cudaDeviceProp& prop) {
  const int npes = gshmem_n_pes();
  char* ids = static_cast<char*>(gshmem_malloc(static_cast<size_t>(npes) * sizeof(cudaUUID_t)));
  GT_CHECK(ids != nullptr);
  if (!ids) return 1;
  for (int pe = 0; pe < npes; ++pe)
    gshmem_putmem(ids + static_cast<size_t>(gshmem_my_pe()) * sizeof(cudaUUID_t), &prop.uuid, sizeof(cudaUUID_t), pe);
  gshmem_barrier_all();
  std::vector<cudaUUID_t> all(npes);
  CUDA_CHECK(cudaMemcpy(all.data(), ids, all.size() * sizeof(cudaUUID_t), cudaMemcpyDeviceToHost));
  gshmem_barrier_all();
  gshmem_free(ids);
  int n = 0;
  for (const cudaUUID_t& u : all) n += memcmp(&u, &prop.uuid, sizeof(u)) == 0;
  return n;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void ring_launch(unsigned threads, uint64_t salt, int* dst, int* src, int max_blocks, int sharing) {
  set_context("collective launch of the grid-synchronising ring kernel, %u threads per block", threads);
  int blocks = 0;
  GT_CHECK_STATUS(gshmemx_collective_launch_query_gridsize((const void*)k_ring, dim3(threads), nullptr, 0, &blocks));
  GT_CHECK(blocks > 0);
  // Cross-check with the occupancy calculator of this TU's CUDA runtime: what fits, split
  // between the PEs on this GPU.
  int dev = 0, sms = 0, per_sm = 0;
  CUDA_CHECK(cudaGetDevice(&dev));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k_ring, static_cast<int>(threads), 0));
  GT_CHECK_EQ(std::max(1, per_sm * sms / sharing), blocks);
  // Same grid on every PE (the smallest any PE allows) so the slices line up.
  int* all = static_cast<int*>(gshmem_calloc(gshmem_n_pes(), sizeof(int)));
  GT_CHECK(all != nullptr);
  if (!all || blocks <= 0) return;
  for (int pe = 0; pe < gshmem_n_pes(); ++pe) gshmem_int_p(&all[gshmem_my_pe()], blocks, pe);
  gshmem_barrier_all();
  std::vector<int> h(gshmem_n_pes());
  CUDA_CHECK(cudaMemcpy(h.data(), all, h.size() * sizeof(int), cudaMemcpyDeviceToHost));
  gshmem_barrier_all();
  gshmem_free(all);
  int grid = *std::min_element(h.begin(), h.end());
  if (grid > max_blocks) grid = max_blocks;
  set_context("collective launch of the grid-synchronising ring kernel, %d blocks x %u threads", grid, threads);

  GridBarrier* gb = nullptr;
  CUDA_CHECK(cudaMalloc(&gb, sizeof(GridBarrier)));
  CUDA_CHECK(cudaMemset(gb, 0, sizeof(GridBarrier)));
  CUDA_CHECK(cudaMemset(dst, 0, static_cast<size_t>(grid) * kSliceInts * sizeof(int)));
  CUDA_CHECK(cudaDeviceSynchronize());
  DevErrorsHost err;
  DevErrors* e = err.d;
  void* args[] = {&dst, &src, &gb, &salt, &e};
  gshmem_barrier_all();
  GT_CHECK_STATUS(gshmemx_collective_launch((const void*)k_ring, dim3(grid), dim3(threads), args, 0, 0));
  KERNEL_CHECK();
  err.check("element", "round", __FILE__, __LINE__);
  gshmem_barrier_all();
  CUDA_CHECK(cudaFree(gb));
}

// A launch that must fail fast with GSHMEM_ERROR_LAUNCH.
void expect_launch_error(const char* what, const void* func, dim3 grid, dim3 block, void** args, size_t smem) {
  set_context("%s: %u blocks x %u threads, %zu bytes of dynamic shared memory", what, grid.x, block.x, smem);
  const auto t0 = std::chrono::steady_clock::now();
  const int st = gshmemx_collective_launch(func, grid, block, args, smem, 0);
  const double dt = seconds_since(t0);
  GT_CHECK_EQ(static_cast<int>(GSHMEM_ERROR_LAUNCH), st);
  GT_CHECK(dt < 1.0);
  if (dt >= 1.0) emit(stderr, "PE %d: the failing launch took %.3f s\n", log_pe(), dt);
  // Nothing was launched and no CUDA error is left behind.
  GT_CHECK_EQ(cudaSuccess, cudaGetLastError());
  GT_CHECK_EQ(cudaSuccess, cudaDeviceSynchronize());
}

}  // namespace

int main() {
  test_main_prologue(1, 0);
  int dev = 0;
  CUDA_CHECK(cudaGetDevice(&dev));
  cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
  // Upper bound of any co-resident grid (sizes the buffers).
  const int max_blocks = prop.maxBlocksPerMultiProcessor * prop.multiProcessorCount;
  int* dst = static_cast<int*>(gshmem_malloc(static_cast<size_t>(max_blocks) * kSliceInts * sizeof(int)));
  int* src = nullptr;
  CUDA_CHECK(cudaMalloc(&src, static_cast<size_t>(max_blocks) * kSliceInts * sizeof(int)));
  GT_CHECK(dst != nullptr);
  if (!dst) return test_main_epilogue("launch");

  // 1. Full-size co-resident grids that synchronise within the grid and across GPUs.
  const int sharing = pes_on_my_gpu(prop);
  ring_launch(256, 100, dst, src, max_blocks, sharing);
  ring_launch(1024, 200, dst, src, max_blocks, sharing);
  ring_launch(32, 300, dst, src, max_blocks, sharing);

  // 2. Grids that cannot be co-resident.
  int q = 0;
  GT_CHECK_STATUS(gshmemx_collective_launch_query_gridsize((const void*)k_ring, dim3(256), nullptr, 0, &q));
  {
    GridBarrier* gb = nullptr;
    CUDA_CHECK(cudaMalloc(&gb, sizeof(GridBarrier)));
    DevErrorsHost err;
    DevErrors* e = err.d;
    uint64_t salt = 1;
    void* args[] = {&dst, &src, &gb, &salt, &e};
    expect_launch_error("query_gridsize()+1 blocks", (const void*)k_ring, dim3(q + 1), dim3(256), args, 0);
    expect_launch_error("4 x query_gridsize() blocks", (const void*)k_ring, dim3(4 * q), dim3(256), args, 0);
    CUDA_CHECK(cudaFree(gb));
  }
  unsigned long long* out = nullptr;
  CUDA_CHECK(cudaMalloc(&out, sizeof(unsigned long long)));
  DevErrorsHost err;
  DevErrors* e = err.d;
  void* sargs[] = {&out, &e};
  const size_t optin = prop.sharedMemPerBlockOptin;
  // More dynamic shared memory than a block may have at all.
  expect_launch_error("1024 threads, shared memory beyond the per-block maximum", (const void*)k_smem, dim3(1),
                      dim3(1024), sargs, optin + 4096);
  // Above the default 48 KiB limit without cudaFuncAttributeMaxDynamicSharedMemorySize: not launchable.
  expect_launch_error("1024 threads, 100 KiB shared memory without the opt-in attribute", (const void*)k_smem, dim3(1),
                      dim3(1024), sargs, 100 * 1024);
  {
    set_context("query_gridsize with 1024 threads and shared memory beyond the maximum");
    int blocks = -1;
    const int st =
        gshmemx_collective_launch_query_gridsize((const void*)k_smem, dim3(1024), sargs, optin + 4096, &blocks);
    GT_CHECK(st != GSHMEM_SUCCESS || blocks == 0);
    cudaGetLastError();
  }
  // Opt in to the maximum: then it fits (one block per SM) - and one block more than fits does not.
  CUDA_CHECK(cudaFuncSetAttribute(k_smem, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(optin)));
  int sq = 0;
  set_context("query_gridsize, 1024 threads, %zu bytes of shared memory (opted in)", optin);
  GT_CHECK_STATUS(gshmemx_collective_launch_query_gridsize((const void*)k_smem, dim3(1024), sargs, optin, &sq));
  GT_CHECK(sq >= 1);
  if (sq >= 1) {
    expect_launch_error("1024 threads, maximum shared memory, query_gridsize()+1 blocks", (const void*)k_smem,
                        dim3(sq + 1), dim3(1024), sargs, optin);
    set_context("collective launch: %d blocks x 1024 threads with %zu bytes of shared memory", sq, optin);
    CUDA_CHECK(cudaMemset(out, 0, sizeof(*out)));
    gshmem_barrier_all();
    GT_CHECK_STATUS(gshmemx_collective_launch((const void*)k_smem, dim3(sq), dim3(1024), sargs, optin, 0));
    KERNEL_CHECK();
    unsigned long long sum = 0;
    CUDA_CHECK(cudaMemcpy(&sum, out, sizeof(sum), cudaMemcpyDeviceToHost));
    unsigned long long expected = 0;
    const unsigned long long ints = optin / sizeof(int);
    for (int b = 0; b < sq; ++b) expected += 3 * (ints * (ints - 1) / 2) + ints * static_cast<unsigned long long>(b);
    GT_CHECK_EQ(expected, sum);
  }
  // Not a kernel at all: an error, not a crash or a hang.
  {
    set_context("collective launch of a host function");
    const int st = gshmemx_collective_launch((const void*)host_function_not_a_kernel, dim3(1), dim3(32), nullptr, 0, 0);
    GT_CHECK(st != GSHMEM_SUCCESS);
    cudaGetLastError();
    GT_CHECK_EQ(cudaSuccess, cudaDeviceSynchronize());
  }
  // After all these failures a normal collective launch still works (and the barrier sequence is intact).
  ring_launch(256, 400, dst, src, max_blocks, sharing);

  CUDA_CHECK(cudaFree(out));
  CUDA_CHECK(cudaFree(src));
  gshmem_free(dst);
  return test_main_epilogue("launch");
}
