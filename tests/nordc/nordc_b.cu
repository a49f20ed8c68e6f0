// SPDX-License-Identifier: BSD-3-Clause
// libnordc_b.so: checks, from a kernel of its own (no -rdc), what libnordc_a's
// kernel delivered. See nordc.h.
#include <gshmem/gshmem.h>

#include "common.h"
#include "nordc.h"

namespace {

__device__ void note_bad(nordc_report* r, unsigned long long* counter, size_t i, int v) {
  if (atomicAdd(counter, 1ull) == 0) {
    r->first_bad_index = i;
    r->first_bad_value = v;
  }
}

// One block: B's own device barrier, then the checks, then a barrier again.
__global__ void b_check(const int* dst, size_t n, int salt, nordc_report* r) {
  if (threadIdx.x == 0) {
    r->my_pe = gshmem_my_pe();
    r->n_pes = gshmem_n_pes();
  }
  if (gshmem_n_pes() <= 0) return;  // device state never filled in this library: reported, not crashed
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  gshmemx_barrier_all_block();  // every PE's A kernel has finished (and quieted) its puts
  const uint64_t s = static_cast<uint64_t>(salt);
  for (size_t i = threadIdx.x; i < n; i += blockDim.x) {
    const int v = dst[i];
    if (v != gt::value<int>(prev, i, s)) note_bad(r, &r->local_bad, i, v);
  }
  // The next PE's copy holds what I put there: through g (a sample) and through ptr (all).
  for (size_t i = threadIdx.x * 97; i < n; i += blockDim.x * 97) {
    const int v = gshmem_int_g(dst + i, next);
    if (v != gt::value<int>(me, i, s)) note_bad(r, &r->g_bad, i, v);
  }
  const int* q = static_cast<const int*>(gshmem_ptr(dst, next));
  if (q == nullptr) {
    if (threadIdx.x == 0) r->ptr_null = 1;
  } else {
    for (size_t i = threadIdx.x; i < n; i += blockDim.x) {
      const int v = q[i];
      if (v != gt::value<int>(me, i, s)) note_bad(r, &r->ptr_bad, i, v);
    }
  }
  gshmemx_barrier_all_block();  // nobody overwrites a buffer before its owner checked it
}

}  // namespace

extern "C" NORDC_API int nordc_b_check(const int* dst_sym, size_t n, int salt, nordc_report* out) {
  nordc_report* d = nullptr;
  cudaError_t e = cudaMalloc(&d, sizeof(*d));
  if (e != cudaSuccess) return e;
  nordc_report init{};
  init.my_pe = -1;
  init.n_pes = -1;
  cudaMemcpy(d, &init, sizeof(init), cudaMemcpyHostToDevice);
  b_check<<<1, 512>>>(dst_sym, n, salt, d);
  e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e == cudaSuccess) e = cudaMemcpy(out, d, sizeof(*out), cudaMemcpyDeviceToHost);
  cudaFree(d);
  return e;
}
