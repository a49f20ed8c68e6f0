// SPDX-License-Identifier: BSD-3-Clause
// A PE on another node dies while this one waits for it through the proxy (issue 52).
// usage: proxy_kill CASE, under gshmrun -n 2 --sim-nodes 2 (every peer through the proxy), CASE
//   barrier  PE 0 waits in a device gshmem_barrier_all (its signal to PE 1 goes by the proxy)
//   get      PE 0 loops on blocking device gets from PE 1 (each waits for the proxy's reply)
// PE 1 SIGKILLs itself 1 s after the first host barrier. PE 0 must learn it on its own (its
// proxy's transport and its bootstrap links), release its kernel (the abort word), print which
// call stopped and that PE 1 failed, and be ended by the library 3 s later. It ignores SIGTERM,
// so that gshmrun's (which follows PE 1's death at once) does not end it before it reports; the
// driver gives gshmrun a longer kill grace. It prints when its kernel ended; alive 20 s later it
// exits 5. Driven by proxy_kill.sh. Exits 77 without a GPU.
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <cstring>

#include "common.h"

__global__ void k_barrier() { gshmem_barrier_all(); }
__global__ void k_get(int* local, const int* remote, unsigned long long* rounds) {
  for (unsigned long long k = 0; k < (1ull << 40); ++k) {
    gshmem_int_get(local, remote, 7, 1);
    *rounds = k + 1;
  }
}

static long long realtime_ns() {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<long long>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char** argv) {
  const char* c = argc > 1 ? argv[1] : "";
  if (strcmp(c, "barrier") != 0 && strcmp(c, "get") != 0) {
    fprintf(stderr, "usage: proxy_kill barrier|get\n");
    return 2;
  }
  gt::test_main_prologue(2, 2);
  const int me = gshmem_my_pe();
  int* remote = static_cast<int*>(gshmem_calloc(7, sizeof(int)));
  int* local = nullptr;
  unsigned long long* rounds = nullptr;
  CUDA_CHECK(cudaMalloc(&local, 7 * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&rounds, sizeof(*rounds)));
  CUDA_CHECK(cudaMemset(rounds, 0, sizeof(*rounds)));
  if (remote == nullptr) {
    gt::emit(stdout, "proxy_kill: PE %d: allocation failed\n", me);
    return 1;
  }
  gshmem_barrier_all();  // everyone is up
  if (me == 1) {
    sleep(1);  // PE 0 is inside its kernel by then
    gt::emit(stdout, "proxy_kill: PE 1 raising SIGKILL at %lld ns\n", realtime_ns());
    raise(SIGKILL);
    return 3;  // not reached
  }
  signal(SIGTERM, SIG_IGN);
  gt::emit(stdout, "proxy_kill: PE %d entering %s\n", me, c);
  if (strcmp(c, "barrier") == 0)
    k_barrier<<<1, 1>>>();
  else
    k_get<<<1, 1>>>(local, remote, rounds);
  CUDA_CHECK(cudaGetLastError());
  const cudaError_t e = cudaDeviceSynchronize();
  gt::emit(stdout, "proxy_kill: PE %d: %s ended at %lld ns (%s)\n", me, c, realtime_ns(), cudaGetErrorString(e));
  fflush(nullptr);
  sleep(20);  // the library ends this PE (GSHMEM_PEER_FAILURE_ABORT)
  gt::emit(stdout, "proxy_kill: PE %d STILL RUNNING 20 s after its kernel ended\n", me);
  return 5;
}
