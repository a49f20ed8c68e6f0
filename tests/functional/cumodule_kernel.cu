// SPDX-License-Identifier: BSD-3-Clause
// Kernels of test_cumodule.cu, compiled by nvcc -cubin (no -rdc) at build time and loaded by
// the test through the CUDA driver API (cuModuleLoad), as JIT users load theirs: no host code
// of this file is ever compiled, so no registrar hands gshmem the module's device state;
// gshmemx_cumodule_init has to. Built three ways (cumodule.cmake):
//   (no macro)            cumodule_gshmem.cubin     uses gshmem: cumodule_query, cumodule_ring
//   CUMODULE_PLAIN        cumodule_plain.cubin      no gshmem at all: init must refuse it
//   CUMODULE_WRONG_SIZE   cumodule_wrong_size.cubin a gshmemi_tu_state of another size, as
//                                                   from other gshmem headers: init must refuse it
#if defined(CUMODULE_PLAIN)

extern "C" __global__ void cumodule_plain(int* out) { out[threadIdx.x] = static_cast<int>(threadIdx.x); }

#elif defined(CUMODULE_WRONG_SIZE)

static __constant__ int gshmemi_tu_state[24];  // 96 bytes; gshmem's state is larger

extern "C" __global__ void cumodule_wrong_size(int* out, int i) { out[0] = gshmemi_tu_state[i]; }

#else

#include <gshmem/gshmem.h>

// out[0..1] = what the module's copy of the state says: my_pe, n_pes (0, 0 while unfilled).
extern "C" __global__ void cumodule_query(int* out) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    out[0] = gshmem_my_pe();
    out[1] = gshmem_n_pes();
  }
}

// One block. Every thread puts its slice of src[0..n) into dst on the next PE and completes it
// (gshmem_quiet); then thread 0 raises the next PE's flag to `round` and waits until the
// previous PE has raised its own. Quiet before the flag means that whatever this PE reads
// after the flag is the previous PE's data: the block copies dst to `seen` right then (the
// host checks it). info[0..3]: my_pe, n_pes, and whether gshmem_ptr reaches dst on the next PE
// and dst's last element here - false for memory beyond the heap size the module's copy holds,
// so after a heap growth it proves that the copy was refilled.
extern "C" __global__ void cumodule_ring(int* dst, const int* src, int n, int* flag, int round, int* seen, int* info) {
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int next = (me + 1) % npes;
  const int per = (n + static_cast<int>(blockDim.x) - 1) / static_cast<int>(blockDim.x);
  const int begin = min(n, static_cast<int>(threadIdx.x) * per);
  const int end = min(n, begin + per);
  if (end > begin) gshmem_int_put(dst + begin, src + begin, static_cast<size_t>(end - begin), next);
  gshmem_quiet();
  __syncthreads();
  if (threadIdx.x == 0) {
    gshmem_int_p(flag, round, next);
    gshmem_int_wait_until(flag, GSHMEM_CMP_EQ, round);
    info[0] = me;
    info[1] = npes;
    info[2] = gshmem_ptr(dst, next) != nullptr;
    info[3] = gshmem_ptr(dst + n - 1, me) != nullptr;
  }
  __syncthreads();
  for (int i = static_cast<int>(threadIdx.x); i < n; i += static_cast<int>(blockDim.x))
    seen[i] = *static_cast<volatile const int*>(dst + i);
}

#endif
