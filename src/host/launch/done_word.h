// SPDX-License-Identifier: BSD-3-Clause
// How a blocking host call learns that its kernel on the internal stream is done: the kernel's
// last store writes the call's number into a word of mapped pinned memory (a release at system
// scope, after everything else it wrote), and the host, which polls that word for a while
// before it falls back to cudaStreamSynchronize, returns once it reads the number. The store
// reaches the host before a stream synchronisation returns for the same kernel: on H200 a
// 32-thread kernel launched and waited for took 8.8 us by its word, 11.0-11.2 by
// cudaStreamSynchronize (bench/results/2026-11-25_h200_1gpu-done-word/). Used by the host
// forms of the waits and tests, AMOs, signal fetches and waits, barriers and syncs.
//
// When the call returns, its kernel may still be retiring: it stores nothing after the word,
// and whatever is queued on the internal stream next runs after it. A kernel that never stores
// the word (one that traps, e.g. a wait's timeout) is waited for by the synchronisation, which
// reports its error as before.
//
//   next_done_word()        the word and this call's number, or {} when polling is off
//                           (GSHMEM_HOST_SPIN_US, host_spin_us()): the kernel then stores
//                           nothing and await_done synchronises at once
//   await_done(stream, d)   polls d for up to host_spin_us(), then cudaStreamSynchronize(stream)
//   store_done(d)           (device) the kernel's last store, by one thread, once the writes of
//                           the others are ordered before it (__syncwarp / __syncthreads)
#pragma once

#include <cuda_runtime.h>

namespace gshmem {

struct Runtime;

// Kernel parameter: where to store and what (word nullptr: nothing).
struct DoneWord {
  unsigned long long* word;
  unsigned long long seq;
};

DoneWord next_done_word();
cudaError_t await_done(cudaStream_t stream, DoneWord d);

// The polling budget of this process, in microseconds, set by gshmem_init (tune_host_spin) from
// GSHMEM_HOST_SPIN_US: -1 picks 100 where a node has two CPUs per PE on it and the application
// asked for no blocking or yielding synchronisation (cudaSetDeviceFlags), else 0. Polling holds
// the CPU no longer than CUDA's own spinning synchronisation would.
int host_spin_us();
void tune_host_spin(const Runtime& r);

#ifdef __CUDACC__
__device__ __forceinline__ void store_done(DoneWord d) {
  if (d.word) asm volatile("st.release.sys.u64 [%0], %1;" ::"l"(d.word), "l"(d.seq) : "memory");
}
#endif

}  // namespace gshmem
