// SPDX-License-Identifier: BSD-3-Clause
// A PE stops (SIGSTOP: its process and sockets stay, no TCP close ever comes) while the others
// wait for it. usage: stuck_pe CASE, CASE one of
//   barrier    a device gshmem_barrier_all
//   wait       a device gshmem_int_wait_until on a flag only the stopped PE would set
//   fcollect   a device gshmem_int_fcollect over the world
//   host_wait  the host's gshmem_int_wait_until on such a flag
// The victim (STUCK_PE_VICTIM, default 1) prints its pid and the time, then stops itself after
// the first host barrier. The survivors enter the case's wait at once. What must happen, with
// the default environment but a short GSHMEM_HEARTBEAT_TIMEOUT: the victim's tree neighbours
// see no byte from it for the bound and flood its failure, every survivor's library sets its
// abort word, the wait ends with a device report naming the call, the PE it waited for and the
// stopped PE, the host log names the stopped PE, and the library ends the process (exit 1)
// 3 s later. The survivors print when their wait ended and then wait for that exit; one that is
// still alive 20 s later exits 5. Driven by stuck_pe.sh. Exits 77 without enough GPUs.
#include <cstring>

#include "common.h"
#include "fault.h"

__global__ void k_barrier() { gshmem_barrier_all(); }
__global__ void k_wait(int* flag) { gshmem_int_wait_until(flag, GSHMEM_CMP_EQ, 1); }
__global__ void k_fcollect(int* dest, const int* src) { gshmem_int_fcollect(GSHMEM_TEAM_WORLD, dest, src, 3); }

int main(int argc, char** argv) {
  const char* c = argc > 1 ? argv[1] : "";
  if (strcmp(c, "barrier") != 0 && strcmp(c, "wait") != 0 && strcmp(c, "fcollect") != 0 &&
      strcmp(c, "host_wait") != 0) {
    fprintf(stderr, "usage: stuck_pe barrier|wait|fcollect|host_wait\n");
    return 2;
  }
  gt::test_main_prologue(2, 0);
  const int me = gshmem_my_pe(), victim = gt::env_int("STUCK_PE_VICTIM", 1) % gshmem_n_pes();
  int* flag = static_cast<int*>(gshmem_calloc(1, sizeof(int)));
  int* src = static_cast<int*>(gshmem_malloc(3 * sizeof(int)));
  int* dest = static_cast<int*>(gshmem_malloc(3 * sizeof(int) * gshmem_n_pes()));
  if (!flag || !src || !dest) {
    gt::emit(stdout, "stuck_pe: PE %d: allocation failed\n", me);
    return 1;
  }
  gshmem_barrier_all();  // everyone is up
  if (me == victim) {
    fault::raise_now("stuck_pe", me, SIGSTOP, "stopping");
    gt::emit(stdout, "stuck_pe: PE %d continued\n", me);
    return 0;
  }
  gt::emit(stdout, "stuck_pe: PE %d entering %s\n", me, c);
  cudaError_t e = cudaSuccess;
  if (strcmp(c, "host_wait") == 0) {
    gshmem_int_wait_until(flag, GSHMEM_CMP_EQ, 1);
    e = cudaGetLastError();
  } else {
    if (strcmp(c, "barrier") == 0)
      k_barrier<<<1, 1>>>();
    else if (strcmp(c, "wait") == 0)
      k_wait<<<1, 1>>>(flag);
    else
      k_fcollect<<<1, 1>>>(dest, src);
    CUDA_CHECK(cudaGetLastError());
    e = cudaDeviceSynchronize();
  }
  return fault::survivor_ended("stuck_pe", me, c, cudaGetErrorString(e));  // the library ends this PE
}
