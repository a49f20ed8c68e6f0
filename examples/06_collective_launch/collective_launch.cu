// SPDX-License-Identifier: BSD-3-Clause
// 06_collective_launch: one kernel, many CTAs per PE, synchronising across all CTAs of
// all PEs. Every CTA b of every PE p puts its slice into slot [p][b] of `gathered` on every
// PE (an all-gather done by the whole grid), then the grids meet in a grid-wide barrier
// across PEs, then CTA b of each PE sums slot b over the PEs. Several rounds, in one launch.
//   grid-wide barrier = cg::this_grid().sync()    every CTA of this PE's grid arrives
//                     + gshmemx_barrier_all_block  CTA 0 alone meets the other PEs
//                     + cg::this_grid().sync()    the rest of the grid learns it
// A CTA that waits for CTAs which are not running yet never returns: such a kernel must be
// started with gshmemx_collective_launch (all CTAs resident at once, on every PE), its grid
// no larger than gshmemx_collective_launch_query_gridsize allows.
//   gshmrun -n 4 ./collective_launch
#include <cooperative_groups.h>
#include <gshmem/gshmem.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace cg = cooperative_groups;

constexpr int kSlice = 1024;     // ints each CTA contributes per round
constexpr int kMaxBlocks = 256;  // cap on the grid, to bound the buffers
constexpr int kThreads = 256;
constexpr int kRounds = 3;

__host__ __device__ int value(int pe, int b, int i, int r) { return (pe + 1) * 1000003 + b * 1009 + i * 7 + r * 31; }

__device__ void grid_barrier_all(cg::grid_group& grid) {
  grid.sync();                                       // every CTA here has finished its puts (quiet)
  if (blockIdx.x == 0) gshmemx_barrier_all_block();  // one CTA per PE, as a collective asks
  grid.sync();
}

// gathered: symmetric [npes][grid][kSlice]; stage, out: local [grid][kSlice].
__global__ void __launch_bounds__(kThreads) allgather_sum(int* gathered, int* stage, int* out) {
  cg::grid_group grid = cg::this_grid();
  const int me = gshmem_my_pe(), npes = gshmem_n_pes(), b = blockIdx.x;
  const size_t mine = (static_cast<size_t>(me) * gridDim.x + b) * kSlice;  // our slot on every PE
  for (int r = 0; r < kRounds; ++r) {
    for (int i = threadIdx.x; i < kSlice; i += blockDim.x) stage[b * kSlice + i] = value(me, b, i, r);
    __syncthreads();  // the _nbi block form does not synchronise the block first
    // To every PE, ourselves included; each PE starts at a different one, spreading the load.
    for (int j = 0; j < npes; ++j)
      gshmemx_int_put_nbi_block(gathered + mine, stage + b * kSlice, kSlice, (me + j) % npes);
    gshmem::quiet<gshmem::block_scope>();  // this CTA's puts are complete (scope as a type)
    grid_barrier_all(grid);                // ... and so are every CTA's on every PE
    for (int i = threadIdx.x; i < kSlice; i += blockDim.x) {
      int sum = 0;
      for (int p = 0; p < npes; ++p) sum += gathered[(static_cast<size_t>(p) * gridDim.x + b) * kSlice + i];
      out[b * kSlice + i] += sum;
    }
    grid_barrier_all(grid);  // every PE has read `gathered` before the next round refills it
  }
}

// The demo needs one GPU per PE on this node. Exit code 77 tells ctest "skipped".
static void require_gpus() {
  int count = 0;
  const char* local = getenv("GSHMEM_LOCAL_SIZE");
  const int needed = local ? atoi(local) : 1;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count < needed) {
    fprintf(stderr, "collective_launch: needs one CUDA GPU per PE (%d on this node) but %d %s visible\n", needed, count,
            count == 1 ? "is" : "are");
    exit(77);
  }
}

int main() {
  require_gpus();
  gshmem_init();
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const size_t slots = static_cast<size_t>(kMaxBlocks) * kSlice;
  int* gathered = static_cast<int*>(gshmem_malloc(npes * slots * sizeof(int)));
  int* grids = static_cast<int*>(gshmem_malloc(2 * sizeof(int)));  // [0]: this PE's, [1]: the smallest
  int *stage = nullptr, *out = nullptr;
  if (!gathered || !grids || cudaMalloc(&stage, slots * sizeof(int)) != cudaSuccess ||
      cudaMalloc(&out, slots * sizeof(int)) != cudaSuccess) {
    fprintf(stderr, "PE %d: allocation failed\n", me);
    return 1;
  }
  // The largest grid of kThreads-thread CTAs that is resident at once on this GPU; every PE
  // must launch the same grid here (the slots line up), so take the smallest over the PEs.
  void* args[] = {&gathered, &stage, &out};
  int blocks = 0;
  int st = gshmemx_collective_launch_query_gridsize((const void*)allgather_sum, dim3(kThreads), args, 0, &blocks);
  blocks = blocks < kMaxBlocks ? blocks : kMaxBlocks;
  cudaMemcpy(grids, &blocks, sizeof(int), cudaMemcpyHostToDevice);
  if (st == GSHMEM_SUCCESS) st = gshmem_int_min_reduce(GSHMEM_TEAM_WORLD, grids + 1, grids, 1);
  cudaMemcpy(&blocks, grids + 1, sizeof(int), cudaMemcpyDeviceToHost);
  if (st != GSHMEM_SUCCESS || blocks < 1) {
    fprintf(stderr, "PE %d: grid size query FAILED (%s, %d blocks)\n", me, gshmemx_status_string(st), blocks);
    return 1;
  }
  cudaMemset(gathered, 0xA5, npes * slots * sizeof(int));  // poison: unwritten slots fail the check
  cudaMemset(out, 0, slots * sizeof(int));                 // an accumulator starts at zero
  cudaDeviceSynchronize();
  gshmem_barrier_all();  // every PE poisoned before anyone puts

  st = gshmemx_collective_launch((const void*)allgather_sum, dim3(blocks), dim3(kThreads), args, 0, 0);
  const cudaError_t err = cudaDeviceSynchronize();
  gshmem_barrier_all();
  // out[b][i] = sum over rounds and PEs; gathered[p][b][i]: PE p's slice of the last round.
  const size_t used = static_cast<size_t>(blocks) * kSlice;
  std::vector<int> h_out(used), h_gat(npes * used);
  cudaMemcpy(h_out.data(), out, used * sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(h_gat.data(), gathered, h_gat.size() * sizeof(int), cudaMemcpyDeviceToHost);
  size_t bad = 0;
  for (int b = 0; b < blocks; ++b)
    for (int i = 0; i < kSlice; ++i) {
      int expect = 0;
      for (int p = 0; p < npes; ++p) {
        for (int r = 0; r < kRounds; ++r) expect += value(p, b, i, r);
        bad += h_gat[(static_cast<size_t>(p) * blocks + b) * kSlice + i] != value(p, b, i, kRounds - 1);
      }
      bad += h_out[static_cast<size_t>(b) * kSlice + i] != expect;
    }
  if (st != GSHMEM_SUCCESS || err != cudaSuccess || bad != 0) {
    fprintf(stderr, "PE %d: collective_launch FAILED (launch: %s, kernel: %s, %zu wrong elements of %zu)\n", me,
            gshmemx_status_string(st), cudaGetErrorString(err), bad, used * (npes + 1));
    return 1;
  }
  printf("PE %d/%d: %d CTAs x %d rounds, all-gather + sum verified\n", me, npes, blocks, kRounds);
  gshmem_barrier_all();
  if (me == 0) printf("collective_launch OK on %d PEs (grid of %d CTAs per PE)\n", npes, blocks);
  cudaFree(stage);
  cudaFree(out);
  gshmem_free(grids);
  gshmem_free(gathered);
  gshmem_finalize();
  return 0;
}
