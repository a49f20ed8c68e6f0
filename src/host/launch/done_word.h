// SPDX-License-Identifier: BSD-3-Clause
// How a blocking host call learns that its kernel on the internal stream is done: the kernel's
// last store writes the call's number into a word of mapped pinned memory (a release at system
// scope, after everything else it wrote), and the host, which polls that word for a while
// before it falls back to cudaStreamSynchronize, returns once it reads the number. The store
// reaches the host before a stream synchronisation returns for the same kernel, so a short
// call returns sooner by its word than by cudaStreamSynchronize. Used by the host
// forms of the waits and tests, AMOs, signal fetches and waits, barriers and syncs, and the
// data-movement collectives and reductions (kernels of several CTAs: the last CTA to finish
// stores the word, grid_done).
//
// When the call returns, its kernel may still be retiring: it stores nothing after the word,
// and whatever is queued on the internal stream next runs after it. A kernel that never stores
// the word (one that traps, e.g. a wait's timeout) is waited for by the synchronisation, which
// reports its error as it would without the word.
//
//   next_done_word()        the word and this call's number, or {} when polling is off
//                           (GSHMEM_HOST_SPIN_US, host_spin_us()): the kernel then stores
//                           nothing and await_done synchronises at once
//   await_done(stream, d)   polls d for up to host_spin_us(), then cudaStreamSynchronize(stream)
//   store_done(d)           (device) the kernel's last store, by one thread, once the writes of
//                           the others are ordered before it (__syncwarp / __syncthreads)
//   grid_done(d)            (device) the same for a kernel of one or several CTAs: every thread
//                           of every CTA calls it once, after its work; the last CTA to get
//                           there stores the word
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

namespace done_detail {
// CTAs of the current kernel through grid_done: one counter per translation unit (no -rdc),
// zero when its module loads, wrapped back to zero by each kernel's last CTA. The kernels that
// count run one at a time: they are the blocking host calls' kernels, on the internal stream,
// and one that starts early counts only after its predecessor is done
// (wait_for_stream_predecessors). A kernel that traps leaves the count behind, and the context
// with it.
static __device__ unsigned int ctas_through;
}  // namespace done_detail

__device__ __forceinline__ void grid_done(DoneWord d) {
  if (!d.word) return;
  __syncthreads();  // the CTA's writes before thread 0's release (cumulative)
  if (threadIdx.x != 0) return;
  const unsigned last = gridDim.x * gridDim.y * gridDim.z - 1;
  if (last != 0) {
    // inc wraps: a CTA that finds `last` leaves 0 for the next kernel. acq_rel: the CTAs that
    // counted in before are ordered before the word, and so are their writes.
    unsigned before;
    asm volatile("atom.acq_rel.gpu.inc.u32 %0, [%1], %2;"
                 : "=r"(before)
                 : "l"(&done_detail::ctas_through), "r"(last)
                 : "memory");
    if (before != last) return;
  }
  store_done(d);
}
#endif

}  // namespace gshmem
