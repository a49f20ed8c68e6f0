// SPDX-License-Identifier: BSD-3-Clause
// NVSHMEM-dialect program (builds against gshmem through the compat headers only): a ring.
// Every PE writes a buffer element by element into the next PE with nvshmem_int_p from a
// kernel, ordered by nvshmemx_barrier_all_on_stream; then a single int from the host with
// nvshmem_int_p / nvshmem_barrier_all, read back with nvshmem_int_g. Several rounds with
// fresh values; destinations are poisoned before every round and every element is checked.
#include <nvshmem.h>
#include <nvshmemx.h>

#include "compat_check.h"

constexpr int kElems = 100003;  // odd: no size happens to be a multiple of anything
constexpr int kRounds = 4;
constexpr int kPoison = (int)0xA5A5A5A5;

__host__ __device__ inline int ring_value(int pe, int i, int round) { return (pe + 1) * 1000003 + i * 7 + round * 131; }

__global__ void ring_put(int* dest, int n, int round) {
  const int me = nvshmem_my_pe();
  const int peer = (me + 1) % nvshmem_n_pes();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    nvshmem_int_p(dest + i, ring_value(me, i, round), peer);
}

int main() {
  compat_skip_without_gpus("compat ring");
  nvshmem_init();
  const int me = nvshmem_my_pe(), npes = nvshmem_n_pes();
  compat_pe = me;
  const int mype_node = nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE);
  COMPAT_CHECK(mype_node >= 0 && mype_node < nvshmem_team_n_pes(NVSHMEMX_TEAM_NODE), "node rank %d", mype_node);
  // What NVSHMEM programs do (modulo the GPU count, as PEs may share GPUs); gshmem already chose
  // this GPU: the node-local rank's, modulo the count, where the program chose none before init.
  COMPAT_CUDA(cudaSetDevice(mype_node % compat_gpu_count()));
  cudaStream_t stream;
  COMPAT_CUDA(cudaStreamCreate(&stream));

  int* dest = (int*)nvshmem_malloc(kElems * sizeof(int));
  int* word = (int*)nvshmem_malloc(sizeof(int));
  COMPAT_CHECK(dest != nullptr && word != nullptr, "nvshmem_malloc returned NULL");
  if (!dest || !word) return 1;
  int* host = (int*)malloc(kElems * sizeof(int));
  const int prev = (me + npes - 1) % npes;

  for (int round = 1; round <= kRounds; ++round) {
    // Device: element-wise puts into the next PE, bracketed by stream-ordered barriers.
    COMPAT_CUDA(cudaMemsetAsync(dest, 0xA5, kElems * sizeof(int), stream));
    nvshmemx_barrier_all_on_stream(stream);  // every PE poisoned its buffer before anyone puts
    ring_put<<<48, 256, 0, stream>>>(dest, kElems, round);
    COMPAT_CUDA(cudaGetLastError());
    nvshmemx_barrier_all_on_stream(stream);  // all puts complete and visible
    COMPAT_CUDA(cudaMemcpyAsync(host, dest, kElems * sizeof(int), cudaMemcpyDeviceToHost, stream));
    COMPAT_CUDA(cudaStreamSynchronize(stream));
    long long bad = 0, first = -1;
    for (int i = 0; i < kElems; ++i)
      if (host[i] != ring_value(prev, i, round) && bad++ == 0) first = i;
    COMPAT_CHECK(bad == 0, "round %d: %lld of %d elements from PE %d wrong, first at %lld (got %d, expected %d%s)",
                 round, bad, kElems, prev, first, first >= 0 ? host[first] : 0,
                 first >= 0 ? ring_value(prev, (int)first, round) : 0,
                 first >= 0 && host[first] == kPoison ? ", poison: never written" : "");

    // Host: one int into the next PE, then a host barrier.
    const int v = ring_value(me, -1, round);
    nvshmem_int_p(word, v, (me + 1) % npes);
    nvshmem_barrier_all();
    const int got = nvshmem_int_g(word, me);
    COMPAT_CHECK(got == ring_value(prev, -1, round), "round %d: host nvshmem_int_p from PE %d: got %d, expected %d",
                 round, prev, got, ring_value(prev, -1, round));
    nvshmem_barrier_all();  // nobody overwrites `word` before its owner read it
  }

  free(host);
  nvshmem_free(word);
  nvshmem_free(dest);
  COMPAT_CUDA(cudaStreamDestroy(stream));
  const int rc = compat_summary("compat ring");
  nvshmem_finalize();
  return rc;
}
