// SPDX-License-Identifier: BSD-3-Clause
// libnordc_c.so: loaded with dlopen AFTER gshmem_init. Its translation unit
// registers its device state at load time, when the library is already
// initialised, so the state must be filled right then. See nordc.h.
#include <gshmem/gshmem.h>

#include "common.h"
#include "nordc.h"

namespace {

// One block: p into the next PE, barrier, check my copy, barrier.
__global__ void c_run(int* sym, size_t n, int salt, nordc_report* r) {
  if (threadIdx.x == 0) {
    r->my_pe = gshmem_my_pe();
    r->n_pes = gshmem_n_pes();
  }
  if (gshmem_n_pes() <= 0) return;  // late registration did not fill the state: reported, not crashed
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  const uint64_t s = static_cast<uint64_t>(salt);
  gshmemx_barrier_all_block();  // every PE is here: nobody still reads the buffer
  for (size_t i = threadIdx.x; i < n; i += blockDim.x) gshmem_int_p(sym + i, gt::value<int>(me, i, s), next);
  gshmemx_barrier_all_block();
  for (size_t i = threadIdx.x; i < n; i += blockDim.x) {
    const int v = sym[i];
    if (v != gt::value<int>(prev, i, s) && atomicAdd(&r->local_bad, 1ull) == 0) {
      r->first_bad_index = i;
      r->first_bad_value = v;
    }
  }
  gshmemx_barrier_all_block();
}

}  // namespace

extern "C" NORDC_API int nordc_c_run(int* sym, size_t n, int salt, nordc_report* out) {
  nordc_report* d = nullptr;
  cudaError_t e = cudaMalloc(&d, sizeof(*d));
  if (e != cudaSuccess) return e;
  nordc_report init{};
  init.my_pe = -1;
  init.n_pes = -1;
  cudaMemcpy(d, &init, sizeof(init), cudaMemcpyHostToDevice);
  c_run<<<1, 256>>>(sym, n, salt, d);
  e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e == cudaSuccess) e = cudaMemcpy(out, d, sizeof(*out), cudaMemcpyDeviceToHost);
  cudaFree(d);
  return e;
}
