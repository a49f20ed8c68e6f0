// SPDX-License-Identifier: BSD-3-Clause
// Compile test: the NVSHMEM-dialect headers in a CUDA TU. A kernel uses device names of every
// family at thread, warp and block scope, host code the host and on-stream names; the kernel is
// never launched (building and linking is the test). Runs without a GPU: main only queries the
// library before initialisation.
#include <nvshmem.h>
#include <nvshmemx.h>

#include <cstdint>
#include <cstdio>

__global__ void uses_device_api(int* sym_int, double* sym_dbl, char* sym_bytes, uint64_t* sig, int pe) {
  // queries and pointers
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  int* peer = (int*)nvshmem_ptr(sym_int, pe);
  if (peer) *peer = me + n;
  // RMA at thread / warp / block scope, blocking and non-blocking, typed, sized and untyped
  nvshmem_int_p(sym_int, me, pe);
  sym_int[1] = nvshmem_int_g(sym_int, pe);
  nvshmem_double_put(sym_dbl, sym_dbl + 8, 4, pe);
  nvshmem_double_get_nbi(sym_dbl + 16, sym_dbl, 4, pe);
  nvshmem_putmem_nbi(sym_bytes, sym_bytes + 64, 3, pe);
  nvshmem_put64(sym_dbl + 32, sym_dbl, 2, pe);
  nvshmemx_int_put_warp(sym_int + 4, sym_int, 2, pe);
  nvshmemx_getmem_nbi_warp(sym_bytes + 128, sym_bytes, 5, pe);
  nvshmemx_double_put_nbi_block(sym_dbl + 40, sym_dbl, 4, pe);
  nvshmemx_putmem_block(sym_bytes + 256, sym_bytes, 7, pe);
  nvshmem_int_iput(sym_int + 8, sym_int, 2, 3, 2, pe);
  // signals
  nvshmem_putmem_signal_nbi(sym_bytes, sym_bytes + 512, 9, sig, 1, NVSHMEM_SIGNAL_SET, pe);
  nvshmemx_double_put_signal_nbi_block(sym_dbl, sym_dbl + 48, 3, sig + 1, 1, NVSHMEM_SIGNAL_ADD, pe);
  nvshmemx_signal_op(sig + 2, 5, NVSHMEM_SIGNAL_ADD, pe);
  sig[3] = nvshmem_signal_fetch(sig) + nvshmem_signal_wait_until(sig + 1, NVSHMEM_CMP_GE, 1);
  // atomics
  sym_int[5] = nvshmem_int_atomic_compare_swap(sym_int + 6, 0, me, pe);
  sig[4] = nvshmem_uint64_atomic_fetch_add(sig + 5, 1, pe);
  nvshmem_uint64_atomic_or(sig + 6, 2, pe);
  // waits and tests on arrays
  const int status[2] = {0, 1};
  nvshmem_uint64_wait_until_all(sig, 2, status, NVSHMEM_CMP_GE, 1);
  sig[7] = nvshmem_uint64_test_any(sig, 2, status, NVSHMEM_CMP_EQ, 3);
  // teams and team collectives
  const int node_pe = nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE);
  sym_int[7] = nvshmem_team_translate_pe(NVSHMEMX_TEAM_NODE, node_pe, NVSHMEM_TEAM_WORLD) +
               nvshmem_team_n_pes(NVSHMEM_TEAM_SHARED);
  nvshmemx_barrier_block(NVSHMEM_TEAM_WORLD);
  nvshmemx_team_sync_warp(NVSHMEMX_TEAM_NODE);
  nvshmem_sync(NVSHMEM_TEAM_WORLD);
  nvshmem_int_broadcast(NVSHMEM_TEAM_WORLD, sym_int + 16, sym_int, 4, 0);
  nvshmemx_int_fcollect_warp(NVSHMEM_TEAM_WORLD, sym_int + 32, sym_int, 1);
  nvshmemx_int_alltoall_block(NVSHMEM_TEAM_WORLD, sym_int + 64, sym_int, 1);
  nvshmemx_int_sum_reduce_block(NVSHMEM_TEAM_WORLD, sym_int + 96, sym_int, 4);
  nvshmem_double_max_reduce(NVSHMEM_TEAM_WORLD, sym_dbl + 64, sym_dbl, 2);
  // ordering and synchronisation
  nvshmem_fence();
  nvshmem_quiet();
  nvshmem_int_wait_until(sym_int + 2, NVSHMEM_CMP_NE, 0);
  sym_int[3] = nvshmem_int_test(sym_int + 2, NVSHMEM_CMP_GE, 1);
  nvshmem_barrier_all();
  nvshmemx_barrier_all_warp();
  nvshmemx_sync_all_block();
}

int main() {
  int bad = 0;
  // Host forms of the same names, with NVSHMEM's signatures (not called: not initialised here).
  void (*const host_p)(int*, int, int) = nvshmem_int_p;
  void (*const host_stream_put)(double*, const double*, size_t, int, cudaStream_t) = nvshmemx_double_put_on_stream;
  void (*const host_quiet_stream)(cudaStream_t) = nvshmemx_quiet_on_stream;
  int (*const host_split)(nvshmem_team_t, int, int, int, const nvshmem_team_config_t*, long, nvshmem_team_t*) =
      nvshmem_team_split_strided;
  int (*const host_alltoall)(nvshmem_team_t, int*, const int*, size_t, cudaStream_t) = nvshmemx_int_alltoall_on_stream;
  void (*const host_signal_wait)(uint64_t*, int, uint64_t, cudaStream_t) = nvshmemx_signal_wait_until_on_stream;
  (void)host_split;
  (void)host_alltoall;
  (void)host_signal_wait;
  (void)host_p;
  (void)host_stream_put;
  (void)host_quiet_stream;
  int grid = -1;
  // Needs no initialisation: a grid size on a GPU machine, an error status (no crash) without a GPU.
  if (nvshmemx_collective_launch_query_gridsize((const void*)uses_device_api, dim3(32), nullptr, 0, &grid) == 0 &&
      grid <= 0)
    bad |= 2;
  if (nvshmemx_init_status() != NVSHMEM_STATUS_NOT_INITIALIZED) bad |= 4;
  printf("compat CUDA compile test: %s (0x%x)\n", bad ? "FAILED" : "ok", bad);
  return bad ? 1 : 0;
}
