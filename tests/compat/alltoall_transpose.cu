// SPDX-License-Identifier: BSD-3-Clause
// NVSHMEM-dialect program: distributed matrix transpose with an on-stream all-to-all.
// A is N x N (N = npes * kB), PE p owns rows [p*kB, (p+1)*kB). Transposing:
//   pack      send[q] = the kB x kB block of my rows and PE q's columns      (kernel)
//   exchange  nvshmemx_int_alltoall_on_stream(NVSHMEM_TEAM_WORLD, recv, send, kB*kB, stream)
//   unpack    my rows of A^T: T[i][q*kB + j] = recv[q][j][i]                  (kernel)
// all on one stream, then every element of T is checked against A's formula. Three rounds with
// fresh values; the receive buffer is poisoned before every exchange.
#include <nvshmem.h>
#include <nvshmemx.h>

#include "compat_check.h"

constexpr int kB = 37;  // rows per PE (odd, so that blocks are not a multiple of a vector width)
constexpr int kRounds = 3;
constexpr int kPoison = (int)0xA5A5A5A5;

__host__ __device__ inline int a_value(int row, int col, int round) {
  return row * 100003 + col * 17 + round * 7919 + 1;
}

__global__ void pack(int* send, int me, int npes, int round) {
  const int n = npes * kB;
  for (int e = blockIdx.x * blockDim.x + threadIdx.x; e < kB * n; e += gridDim.x * blockDim.x) {
    const int q = e / (kB * kB), i = (e / kB) % kB, j = e % kB;  // send[q][i][j] = A[me*kB+i][q*kB+j]
    send[e] = a_value(me * kB + i, q * kB + j, round);
  }
}

__global__ void unpack(int* t, const int* recv, int npes) {
  const int n = npes * kB;
  for (int e = blockIdx.x * blockDim.x + threadIdx.x; e < kB * n; e += gridDim.x * blockDim.x) {
    const int i = e / n, c = e % n, q = c / kB, j = c % kB;  // T[i][q*kB+j] = recv[q][j][i]
    t[e] = recv[(q * kB + j) * kB + i];
  }
}

int main() {
  compat_skip_without_gpus("compat alltoall transpose");
  nvshmem_init();
  const int me = nvshmem_my_pe(), npes = nvshmem_n_pes();
  compat_pe = me;
  const int n = npes * kB;
  const size_t elems = (size_t)kB * n;
  cudaStream_t stream;
  COMPAT_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  int* send = (int*)nvshmem_malloc(elems * sizeof(int));
  int* recv = (int*)nvshmem_malloc(elems * sizeof(int));
  int* t = nullptr;
  COMPAT_CUDA(cudaMalloc(&t, elems * sizeof(int)));
  COMPAT_CHECK(send && recv, "nvshmem_malloc returned NULL");
  if (!send || !recv) return 1;
  int* host = (int*)malloc(elems * sizeof(int));
  int* host_recv = (int*)malloc(elems * sizeof(int));

  for (int round = 0; round < kRounds; ++round) {
    COMPAT_CUDA(cudaMemsetAsync(recv, 0xA5, elems * sizeof(int), stream));
    COMPAT_CUDA(cudaMemsetAsync(t, 0xA5, elems * sizeof(int), stream));
    pack<<<32, 256, 0, stream>>>(send, me, npes, round);
    COMPAT_CUDA(cudaGetLastError());
    nvshmemx_barrier_all_on_stream(stream);  // every PE packed and is done with the last round
    const int st = nvshmemx_int_alltoall_on_stream(NVSHMEM_TEAM_WORLD, recv, send, (size_t)kB * kB, stream);
    COMPAT_CHECK(st == 0, "nvshmemx_int_alltoall_on_stream returned %d", st);
    unpack<<<32, 256, 0, stream>>>(t, recv, npes);
    COMPAT_CUDA(cudaGetLastError());
    COMPAT_CUDA(cudaMemcpyAsync(host, t, elems * sizeof(int), cudaMemcpyDeviceToHost, stream));
    COMPAT_CUDA(cudaMemcpyAsync(host_recv, recv, elems * sizeof(int), cudaMemcpyDeviceToHost, stream));
    COMPAT_CUDA(cudaStreamSynchronize(stream));

    // recv[q] is PE q's block for me: A[q*kB + i][me*kB + j].
    size_t bad = 0, first = 0;
    for (size_t e = 0; e < elems; ++e) {
      const int q = (int)(e / (kB * kB)), i = (int)(e / kB) % kB, j = (int)(e % kB);
      if (host_recv[e] != a_value(q * kB + i, me * kB + j, round) && bad++ == 0) first = e;
    }
    COMPAT_CHECK(bad == 0, "round %d: alltoall result: %zu of %zu wrong, first at %zu (block from PE %d): got %d%s",
                 round, bad, elems, first, (int)(first / (kB * kB)), host_recv[first],
                 host_recv[first] == kPoison ? " (poison: never written)" : "");
    // T = A^T, rows me*kB .. me*kB + kB - 1.
    bad = 0;
    for (size_t e = 0; e < elems; ++e) {
      const int i = (int)(e / n), c = (int)(e % n);
      if (host[e] != a_value(c, me * kB + i, round) && bad++ == 0) first = e;
    }
    COMPAT_CHECK(bad == 0, "round %d: transpose: %zu of %zu wrong, first at row %d col %d: got %d, expected %d", round,
                 bad, elems, (int)(first / n), (int)(first % n), host[first],
                 a_value((int)(first % n), me * kB + (int)(first / n), round));
  }

  nvshmemx_barrier_all_on_stream(stream);
  COMPAT_CUDA(cudaStreamSynchronize(stream));
  free(host);
  free(host_recv);
  COMPAT_CUDA(cudaFree(t));
  nvshmem_free(recv);
  nvshmem_free(send);
  COMPAT_CUDA(cudaStreamDestroy(stream));
  const int rc = compat_summary("compat alltoall transpose");
  nvshmem_finalize();
  return rc;
}
