// SPDX-License-Identifier: BSD-3-Clause
// Compile test: the NVSHMEM-dialect headers in a plain C++ TU (no CUDA compiler): types,
// constants, initialisers and the link of the host names. Runs without a GPU: it only queries
// the library before initialisation.
#include <nvshmem.h>
#include <nvshmemx.h>

#include <cstdio>
#include <type_traits>

static_assert(std::is_same<nvshmem_team_t, gshmem_team_t>::value, "nvshmem_team_t");
static_assert(std::is_same<nvshmem_team_config_t, gshmem_team_config_t>::value, "nvshmem_team_config_t");
static_assert(std::is_same<nvshmemx_init_attr_t, gshmemx_init_attr_t>::value, "nvshmemx_init_attr_t");
static_assert(std::is_same<nvshmemx_uniqueid_t, gshmemx_uniqueid_t>::value, "nvshmemx_uniqueid_t");
static_assert(std::is_same<decltype(nvshmemx_init_attr_t{}.mpi_comm), void*>::value, "attr.mpi_comm");
static_assert(NVSHMEM_TEAM_INVALID == -1 && NVSHMEM_TEAM_WORLD == 0, "team handles");
static_assert(NVSHMEM_SIGNAL_SET != NVSHMEM_SIGNAL_ADD, "signal ops");
static_assert(NVSHMEMX_INIT_WITH_MPI_COMM != NVSHMEMX_INIT_WITH_UNIQUEID, "init flags");

// Signatures as NVSHMEM documents them.
static void (*const p_init)(void) = nvshmem_init;
static int (*const p_init_attr)(unsigned int, nvshmemx_init_attr_t*) = nvshmemx_init_attr;
static int (*const p_get_uniqueid)(nvshmemx_uniqueid_t*) = nvshmemx_get_uniqueid;
static int (*const p_set_uid)(int, int, const nvshmemx_uniqueid_t*,
                              nvshmemx_init_attr_t*) = nvshmemx_set_attr_uniqueid_args;
static void (*const p_finalize)(void) = nvshmem_finalize;
static void (*const p_global_exit)(int) = nvshmem_global_exit;
static void* (*const p_malloc)(size_t) = nvshmem_malloc;
static void* (*const p_calloc)(size_t, size_t) = nvshmem_calloc;
static void* (*const p_align)(size_t, size_t) = nvshmem_align;
static void (*const p_free)(void*) = nvshmem_free;
static void* (*const p_ptr)(const void*, int) = nvshmem_ptr;
static void (*const p_int_p)(int*, int, int) = nvshmem_int_p;
static void (*const p_putmem_on_stream)(void*, const void*, size_t, int, cudaStream_t) = nvshmemx_putmem_on_stream;
static void (*const p_barrier_on_stream)(cudaStream_t) = nvshmemx_barrier_all_on_stream;
static int (*const p_launch)(const void*, dim3, dim3, void**, size_t, cudaStream_t) = nvshmemx_collective_launch;
static int (*const p_query)(const void*, dim3, void**, size_t, int*) = nvshmemx_collective_launch_query_gridsize;

int main() {
  const void* names[] = {(const void*)p_init,
                         (const void*)p_init_attr,
                         (const void*)p_get_uniqueid,
                         (const void*)p_set_uid,
                         (const void*)p_finalize,
                         (const void*)p_global_exit,
                         (const void*)p_malloc,
                         (const void*)p_calloc,
                         (const void*)p_align,
                         (const void*)p_free,
                         (const void*)p_ptr,
                         (const void*)p_int_p,
                         (const void*)p_putmem_on_stream,
                         (const void*)p_barrier_on_stream,
                         (const void*)p_launch,
                         (const void*)p_query};
  int bad = 0;
  for (const void* n : names) bad |= n == nullptr;
  nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
  if (attr.mpi_comm != nullptr || attr.rank != -1) bad |= 2;
  if (nvshmemx_init_status() != NVSHMEM_STATUS_NOT_INITIALIZED) bad |= 4;
  if (nvshmem_my_pe() != -1) bad |= 8;
  // Without MPI loaded, MPI-communicator init fails with a status (no crash, no MPI link).
  int comm_placeholder = 0;
  attr.mpi_comm = &comm_placeholder;
  if (nvshmemx_init_attr(NVSHMEMX_INIT_WITH_MPI_COMM, &attr) == 0) bad |= 16;
  if (nvshmemx_init_status() != NVSHMEM_STATUS_NOT_INITIALIZED) bad |= 32;
  printf("compat C++ compile test: %s (0x%x)\n", bad ? "FAILED" : "ok", bad);
  return bad ? 1 : 0;
}
