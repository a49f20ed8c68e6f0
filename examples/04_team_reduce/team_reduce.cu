// SPDX-License-Identifier: BSD-3-Clause
// 04_team_reduce: split the world into teams and reduce over each team.
//   1. gshmem_team_split_strided: the even PEs {0, 2, ...} and the odd PEs {1, 3, ...};
//   2. a kernel (one block per PE) reduces kN ints over its PE's parity team: a sum with
//      the C name, a max with the C++ template, where the scope is a type;
//   3. gshmem_team_split_2d with xrange 2: rows {0, 1}, {2, 3}, ...; the host sum-reduces
//      over each row (the host form of the same call);
// every result is checked against values computed on the host. With an odd number of PEs
// some teams have one member (at 3 PEs: odd = {1}, the second row = {2}): that works too.
//   gshmrun -n 3 ./team_reduce
#include <gshmem/gshmem.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

constexpr int kN = 4099;  // elements reduced; more than the small-message path takes
constexpr int kThreads = 256;

__host__ __device__ int contribution(int pe, int i) { return (pe + 1) * 100003 + i * 13; }

__global__ void parity_reduce(gshmem_team_t team, int* sum_dest, int* max_dest, const int* src, int* status) {
  // Every thread of the block calls with the same arguments; the block does the work.
  const int rc1 = gshmemx_int_sum_reduce_block(team, sum_dest, src, kN);
  // The same family as a C++ template: operator and scope are types (gshmem::op::sum,
  // prod, min, max, and_, or_, xor_; gshmem::thread_scope, warp_scope, block_scope).
  const int rc2 = gshmem::reduce<gshmem::op::max, gshmem::block_scope>(team, max_dest, src, kN);
  if (threadIdx.x == 0) *status = rc1 != 0 ? rc1 : rc2;
}

// The demo needs one GPU per PE on this node. Exit code 77 tells ctest "skipped".
static void require_gpus() {
  int count = 0;
  const char* local = getenv("GSHMEM_LOCAL_SIZE");
  const int needed = local ? atoi(local) : 1;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count < needed) {
    fprintf(stderr, "team_reduce: needs one CUDA GPU per PE (%d on this node) but %d %s visible\n", needed, count,
            count == 1 ? "is" : "are");
    exit(77);
  }
}

static int failures = 0;
// Checks dest[0, kN) on this PE against op over contribution(p, i) of the world PEs
// first, first + stride, ... (count of them).
static void check(const char* what, const int* dest, int first, int stride, int count, bool is_max) {
  std::vector<int> h(kN);
  cudaMemcpy(h.data(), dest, kN * sizeof(int), cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int i = 0; i < kN; ++i) {
    int expect = is_max ? contribution(first, i) : 0;
    for (int m = 0; m < count; ++m) {
      const int v = contribution(first + m * stride, i);
      expect = is_max ? (v > expect ? v : expect) : expect + v;
    }
    if (h[i] != expect && bad++ == 0)
      fprintf(stderr, "PE %d: %s: element %d is %d, expected %d\n", gshmem_my_pe(), what, i, h[i], expect);
  }
  if (bad) fprintf(stderr, "PE %d: %s FAILED: %d of %d elements wrong\n", gshmem_my_pe(), what, bad, kN);
  failures += bad != 0;
}

int main() {
  require_gpus();
  gshmem_init();
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  // Symmetric arrays: a reduction's dest and source must be in the symmetric heap.
  int* src = static_cast<int*>(gshmem_malloc(kN * sizeof(int)));
  int* d_sum = static_cast<int*>(gshmem_malloc(kN * sizeof(int)));
  int* d_max = static_cast<int*>(gshmem_malloc(kN * sizeof(int)));
  int* d_row = static_cast<int*>(gshmem_malloc(kN * sizeof(int)));
  int* status = nullptr;
  if (!src || !d_sum || !d_max || !d_row || cudaMalloc(&status, sizeof(int)) != cudaSuccess) {
    fprintf(stderr, "PE %d: allocation failed\n", me);
    return 1;
  }
  std::vector<int> h(kN);
  for (int i = 0; i < kN; ++i) h[i] = contribution(me, i);
  cudaMemcpy(src, h.data(), kN * sizeof(int), cudaMemcpyHostToDevice);
  for (int* d : {d_sum, d_max, d_row}) cudaMemset(d, 0xA5, kN * sizeof(int));  // poison
  cudaMemset(status, 0xFF, sizeof(int));
  cudaDeviceSynchronize();

  // Collective over the parent (WORLD): every PE makes both calls; a PE outside a new
  // team gets GSHMEM_TEAM_INVALID for it. Arguments: parent, start, stride, size.
  gshmem_team_t even = GSHMEM_TEAM_INVALID, odd = GSHMEM_TEAM_INVALID;
  int rc = gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, nullptr, 0, &even);
  rc |= gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 1, 2, npes / 2, nullptr, 0, &odd);
  const gshmem_team_t parity = me % 2 ? odd : even;
  // Rows of 2 (x axis) and columns (y axis; here the same PEs as `parity`).
  gshmem_team_t row = GSHMEM_TEAM_INVALID, col = GSHMEM_TEAM_INVALID;
  rc |= gshmem_team_split_2d(GSHMEM_TEAM_WORLD, 2, nullptr, 0, &row, nullptr, 0, &col);
  const int parity_size = (npes - me % 2 + 1) / 2, row_size = (npes - me / 2 * 2) < 2 ? 1 : 2;
  if (rc != 0 || gshmem_team_my_pe(parity) != me / 2 || gshmem_team_n_pes(parity) != parity_size ||
      gshmem_team_my_pe(row) != me % 2 || gshmem_team_n_pes(row) != row_size) {
    fprintf(stderr,
            "PE %d: team split FAILED (rc %d; parity team: PE %d of %d, expected %d of %d; row: PE %d of "
            "%d, expected %d of %d)\n",
            me, rc, gshmem_team_my_pe(parity), gshmem_team_n_pes(parity), me / 2, parity_size, gshmem_team_my_pe(row),
            gshmem_team_n_pes(row), me % 2, row_size);
    return 1;
  }
  gshmem_barrier_all();  // every PE poisoned its dests before any reduction writes them

  // 2. Device, block scope. Both teams (even and odd) reduce at the same time.
  parity_reduce<<<1, kThreads>>>(parity, d_sum, d_max, src, status);
  cudaError_t err = cudaDeviceSynchronize();  // host calls are not ordered after our kernels
  int st = -1;
  cudaMemcpy(&st, status, sizeof(int), cudaMemcpyDeviceToHost);
  // 3. Host form: the same reduction from the host, on the row team.
  const int rc_row = gshmem_int_sum_reduce(row, d_row, src, kN);
  if (err != cudaSuccess || st != 0 || rc_row != 0) {
    fprintf(stderr, "PE %d: reduce FAILED (kernel: %s, device reduce returned %d, host reduce returned %d)\n", me,
            cudaGetErrorString(err), st, rc_row);
    return 1;
  }
  check("sum over the parity team (device)", d_sum, me % 2, 2, parity_size, false);
  check("max over the parity team (device)", d_max, me % 2, 2, parity_size, true);
  check("sum over the row team (host)", d_row, me / 2 * 2, 1, row_size, false);

  // Collective over each team's members; a no-op for GSHMEM_TEAM_INVALID.
  gshmem_team_destroy(even);
  gshmem_team_destroy(odd);
  gshmem_team_destroy(row);
  gshmem_team_destroy(col);
  if (failures) return 1;
  printf("PE %d/%d: parity team (%d PEs) sum and max, row team (%d PEs) sum verified\n", me, npes, parity_size,
         row_size);
  gshmem_barrier_all();
  if (me == 0) printf("team_reduce OK on %d PEs\n", npes);
  for (int* d : {d_row, d_max, d_sum, src}) gshmem_free(d);
  cudaFree(status);
  gshmem_finalize();
  return 0;
}
