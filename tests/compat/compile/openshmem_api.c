/* SPDX-License-Identifier: BSD-3-Clause */
/* Compile test (C99, -pedantic): the OpenSHMEM and NVSHMEM dialect headers together in a plain
 * C TU, their types and constants, and the link of their host names. Runs without a GPU: it only
 * queries the library before initialisation. */
#include <shmem.h>
#include <nvshmem.h>
#include <nvshmemx.h>

#include <stdio.h>

/* Types are gshmem's. */
typedef char check_team_t[sizeof(shmem_team_t) == sizeof(gshmem_team_t) ? 1 : -1];
typedef char check_nv_team_t[sizeof(nvshmem_team_t) == sizeof(gshmem_team_t) ? 1 : -1];
typedef char check_attr_t[sizeof(nvshmemx_init_attr_t) == sizeof(gshmemx_init_attr_t) ? 1 : -1];

/* Host names of both dialects resolve to library symbols (link check). */
typedef void (*any_fn)(void);
static any_fn const host_names[] = {
    (any_fn)shmem_init,
    (any_fn)shmem_finalize,
    (any_fn)shmem_my_pe,
    (any_fn)shmem_n_pes,
    (any_fn)shmem_malloc,
    (any_fn)shmem_calloc,
    (any_fn)shmem_align,
    (any_fn)shmem_free,
    (any_fn)shmem_global_exit,
    (any_fn)shmem_info_get_version,
    (any_fn)shmem_info_get_name,
    (any_fn)shmem_ptr,
    (any_fn)shmem_putmem,
    (any_fn)shmem_int_p,
    (any_fn)shmem_long_g,
    (any_fn)shmem_double_put,
    (any_fn)shmem_get64_nbi,
    (any_fn)shmem_quiet,
    (any_fn)shmem_fence,
    (any_fn)shmem_barrier_all,
    (any_fn)shmem_sync_all,
    (any_fn)shmem_team_my_pe,
    (any_fn)shmem_team_n_pes,
    (any_fn)shmem_team_translate_pe,
    (any_fn)shmem_team_split_strided,
    (any_fn)shmem_team_split_2d,
    (any_fn)shmem_team_get_config,
    (any_fn)shmem_team_destroy,
    (any_fn)shmem_team_sync,
    (any_fn)shmem_sync,
    (any_fn)shmem_barrier,
    (any_fn)shmem_int_atomic_fetch_add,
    (any_fn)shmem_ulong_atomic_xor,
    (any_fn)shmem_putmem_signal,
    (any_fn)shmem_signal_fetch,
    (any_fn)shmem_signal_wait_until,
    (any_fn)shmem_uint64_wait_until_all,
    (any_fn)shmem_int_test_some,
    (any_fn)shmem_int_broadcast,
    (any_fn)shmem_int_alltoall,
    (any_fn)shmem_long_fcollect,
    (any_fn)shmem_int_sum_reduce,
    (any_fn)shmem_double_max_reduce,
    (any_fn)shmem_int_iput,
    (any_fn)nvshmem_init,
    (any_fn)nvshmemx_init_attr,
    (any_fn)nvshmemx_get_uniqueid,
    (any_fn)nvshmemx_set_attr_uniqueid_args,
    (any_fn)nvshmem_finalize,
    (any_fn)nvshmem_global_exit,
    (any_fn)nvshmem_malloc,
    (any_fn)nvshmem_free,
    (any_fn)nvshmem_ptr,
    (any_fn)nvshmem_int_p,
    (any_fn)nvshmemx_putmem_on_stream,
    (any_fn)nvshmemx_barrier_all_on_stream,
    (any_fn)nvshmemx_quiet_on_stream,
    (any_fn)nvshmemx_collective_launch,
    (any_fn)nvshmemx_collective_launch_query_gridsize,
    (any_fn)nvshmemx_signal_op,
    (any_fn)nvshmemx_int_alltoall_on_stream,
    (any_fn)nvshmemx_signal_wait_until_on_stream,
    (any_fn)nvshmemx_team_sync_on_stream,
    (any_fn)nvshmemx_float_sum_reduce_on_stream,
    (any_fn)nvshmem_team_split_strided,
    (any_fn)nvshmem_sync,
};

int main(void) {
  nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
  nvshmemx_uniqueid_t id = NVSHMEMX_UNIQUEID_INITIALIZER;
  shmem_team_config_t cfg;
  int bad = 0;
  cfg.num_contexts = 0;
  (void)id;
  (void)cfg;
  if (attr.mpi_comm != NULL || attr.version != GSHMEMX_INIT_ATTR_VERSION) bad |= 1;
  if (NVSHMEMX_INIT_WITH_MPI_COMM == NVSHMEMX_INIT_WITH_UNIQUEID) bad |= 2;
  if (SHMEM_TEAM_WORLD != NVSHMEM_TEAM_WORLD || SHMEM_TEAM_INVALID != -1 || NVSHMEM_CMP_GE != SHMEM_CMP_GE) bad |= 4;
  if (nvshmemx_init_status() != NVSHMEM_STATUS_NOT_INITIALIZED) bad |= 8;
  if (shmem_my_pe() != -1 || nvshmem_n_pes() != -1) bad |= 16; /* not initialised */
  for (size_t i = 0; i < sizeof(host_names) / sizeof(host_names[0]); ++i)
    if (!host_names[i]) bad |= 32;
  printf("compat C compile test: %s (0x%x)\n", bad ? "FAILED" : "ok", bad);
  return bad ? 1 : 0;
}
