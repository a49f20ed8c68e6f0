// SPDX-License-Identifier: BSD-3-Clause
// C wrappers of gshmem's device API for Triton: compiled to LLVM bitcode by clang
// (gshmem/triton/_bitcode.py) and linked into Triton kernels through `extern_libs`; the
// Triton side is gshmem/triton/__init__.py. Every thread of a Triton program calls each of
// them with the same arguments, which is what the block-scope calls expect; the one call with a
// thread's effect that must happen once (signal_op) is made by the program's first thread. Addresses travel as
// uint64_t (Triton's extern calls key their signatures by hashable scalar types, which pointer
// types are not in every Triton version). Functions without a result return 0: Triton's
// extern calls need one.
#include <gshmem/gshmem.h>

#include <cstdint>

extern "C" {

__device__ int gshmem_triton_my_pe() { return gshmem_my_pe(); }

__device__ int gshmem_triton_n_pes() { return gshmem_n_pes(); }

#define GSHMEM_TRITON_P(T, a) reinterpret_cast<T>(static_cast<uintptr_t>(a))

__device__ int gshmem_triton_putmem_block(uint64_t dest, uint64_t source, uint64_t nbytes, int pe) {
  gshmemx_putmem_block(GSHMEM_TRITON_P(void*, dest), GSHMEM_TRITON_P(const void*, source), nbytes, pe);
  return 0;
}

__device__ int gshmem_triton_putmem_signal_block(uint64_t dest, uint64_t source, uint64_t nbytes, uint64_t sig,
                                                 uint64_t value, int sig_op, int pe) {
  gshmemx_putmem_signal_block(GSHMEM_TRITON_P(void*, dest), GSHMEM_TRITON_P(const void*, source), nbytes,
                              GSHMEM_TRITON_P(uint64_t*, sig), value, sig_op, pe);
  return 0;
}

// Once per program, not once per thread: every thread of a Triton program runs an extern call, and
// a signal ADD by each of them added num_warps x 32 times (seen on 2 x H200: 128 where 1 was
// added). The block barrier first orders every thread's earlier operations (a fence or a quiet
// each ran) before the first thread's signal, as a block-scope call would.
__device__ int gshmem_triton_signal_op(uint64_t sig, uint64_t value, int sig_op, int pe) {
  __syncthreads();
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0)
    gshmemx_signal_op(GSHMEM_TRITON_P(uint64_t*, sig), value, sig_op, pe);
  return 0;
}

__device__ uint64_t gshmem_triton_signal_wait_until(uint64_t sig, int cmp, uint64_t value) {
  return gshmem_signal_wait_until(GSHMEM_TRITON_P(uint64_t*, sig), cmp, value);
}

__device__ int gshmem_triton_fence() {
  gshmem_fence();
  return 0;
}

__device__ int gshmem_triton_quiet() {
  gshmem_quiet();
  return 0;
}

__device__ int gshmem_triton_barrier_all_block() {
  gshmemx_barrier_all_block();
  return 0;
}

__device__ uint64_t gshmem_triton_ptr(uint64_t dest, int pe) {
  return reinterpret_cast<uintptr_t>(gshmem_ptr(GSHMEM_TRITON_P(const void*, dest), pe));
}

}  // extern "C"
