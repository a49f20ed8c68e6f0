// SPDX-License-Identifier: BSD-3-Clause
// 03_put_signal: a producer/consumer pipeline around the ring of PEs, in one kernel.
// Each PE streams a message of kChunks chunks to the next PE through kSlots receive
// slots (a bounded buffer, so the producer may run at most kSlots chunks ahead):
//   producer  waits until the consumer has freed the slot (a credit counter, ADD),
//             then sends the chunk with gshmemx_putmem_signal_block: data + "chunk k
//             is in slot s" (SET ready[s] = k + 1) in one call;
//   consumer  waits for ready[s] == k + 1 (gshmem_signal_wait_until), consumes the
//             chunk, then returns a credit to the producer (gshmemx_signal_op, ADD).
// One step on from 02_ring: no separate quiet + flag, and chunks overlap with their use.
//   gshmrun -n 2 ./put_signal
#include <gshmem/gshmem.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

constexpr int kChunks = 64;
constexpr int kChunkInts = 4099;  // odd on purpose: every chunk has an unaligned tail
constexpr int kSlots = 3;
constexpr int kThreads = 256;
constexpr size_t kMsgInts = static_cast<size_t>(kChunks) * kChunkInts;

__host__ __device__ int pattern(int pe, int chunk, int i) { return (pe + 1) * 1000003 + chunk * 7919 + i * 7; }

// slots: symmetric [kSlots][kChunkInts]; ready: symmetric [kSlots]; credits: symmetric [1];
// src: this PE's message; out: what this PE consumed from its predecessor (local memory).
__global__ void pipeline(int* slots, uint64_t* ready, uint64_t* credits, const int* src, int* out) {
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  for (int k = 0; k < kChunks; ++k) {
    const int s = k % kSlots;
    int* slot = slots + static_cast<size_t>(s) * kChunkInts;
    // --- producer: slot s on `next` is free once `next` consumed chunk k - kSlots. One
    // thread waits, the barrier releases the block (a wait is a one-thread operation).
    if (threadIdx.x == 0 && k >= kSlots) gshmem_signal_wait_until(credits, GSHMEM_CMP_GE, k - kSlots + 1);
    __syncthreads();
    // The whole block copies the chunk into `next`'s slot s; then one thread sets ready[s]
    // there. Why the signal never arrives before its data: every thread's stores come
    // before the call's internal __syncthreads(), and the signal is written after it with
    // a *release* at system scope, which is cumulative: it publishes everything ordered
    // before it, i.e. the whole block's stores. The consumer reads the signal with an
    // *acquire*, so its later loads of the slot see all of the chunk (docs/memory-model.md).
    gshmemx_putmem_signal_block(slot, src + static_cast<size_t>(k) * kChunkInts, kChunkInts * sizeof(int), &ready[s],
                                k + 1, GSHMEM_SIGNAL_SET, next);
    // --- consumer: chunk k from `prev` lands in our slot s. Values k + 1 never repeat in
    // a slot, and `prev` cannot overwrite ready[s] before we return the credit below.
    if (threadIdx.x == 0) gshmem_signal_wait_until(&ready[s], GSHMEM_CMP_EQ, k + 1);
    __syncthreads();
    // "Consume": a real program would compute with the chunk here.
    for (int i = threadIdx.x; i < kChunkInts; i += blockDim.x) out[static_cast<size_t>(k) * kChunkInts + i] = slot[i];
    __syncthreads();  // every thread is done reading the slot ...
    if (threadIdx.x == 0) {
      // ... before the credit tells `prev` it may refill it. signal_op is relaxed (like an
      // AMO): the fence before it orders the block's earlier accesses before the credit.
      gshmem_fence();
      gshmemx_signal_op(credits, 1, GSHMEM_SIGNAL_ADD, prev);
    }
  }
  if (threadIdx.x == 0) gshmem_quiet();  // the last credits are delivered before the kernel ends
}

// The demo needs one GPU per PE on this node. Exit code 77 tells ctest "skipped".
static void require_gpus() {
  int count = 0;
  const char* local = getenv("GSHMEM_LOCAL_SIZE");
  const int needed = local ? atoi(local) : 1;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count < needed) {
    fprintf(stderr, "put_signal: needs one CUDA GPU per PE (%d on this node) but %d %s visible\n", needed, count,
            count == 1 ? "is" : "are");
    exit(77);
  }
}

int main() {
  require_gpus();
  gshmem_init();
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int prev = (me + npes - 1) % npes;
  int* slots = static_cast<int*>(gshmem_malloc(kSlots * kChunkInts * sizeof(int)));
  uint64_t* ready = static_cast<uint64_t*>(gshmem_calloc(kSlots, sizeof(uint64_t)));
  uint64_t* credits = static_cast<uint64_t*>(gshmem_calloc(1, sizeof(uint64_t)));
  int *src = nullptr, *out = nullptr;
  if (!slots || !ready || !credits || cudaMalloc(&src, kMsgInts * sizeof(int)) != cudaSuccess ||
      cudaMalloc(&out, kMsgInts * sizeof(int)) != cudaSuccess) {
    fprintf(stderr, "PE %d: allocation failed\n", me);
    return 1;
  }
  std::vector<int> host(kMsgInts);
  for (int k = 0; k < kChunks; ++k)
    for (int i = 0; i < kChunkInts; ++i) host[static_cast<size_t>(k) * kChunkInts + i] = pattern(me, k, i);
  cudaMemcpy(src, host.data(), kMsgInts * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemset(slots, 0xA5, kSlots * kChunkInts * sizeof(int));  // poison: unwritten data fails the check
  cudaMemset(out, 0xA5, kMsgInts * sizeof(int));
  cudaDeviceSynchronize();
  gshmem_barrier_all();  // every PE poisoned its slots before anyone sends

  pipeline<<<1, kThreads>>>(slots, ready, credits, src, out);  // one block: resident on its own
  cudaError_t err = cudaDeviceSynchronize();
  gshmem_barrier_all();  // every PE's credits have landed
  uint64_t credits_seen = 0;
  cudaMemcpy(host.data(), out, kMsgInts * sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(&credits_seen, credits, sizeof(credits_seen), cudaMemcpyDeviceToHost);
  size_t bad = 0, first = 0;
  for (size_t j = 0; j < kMsgInts; ++j)
    if (host[j] != pattern(prev, static_cast<int>(j / kChunkInts), static_cast<int>(j % kChunkInts)) && bad++ == 0)
      first = j;
  if (err != cudaSuccess || bad != 0 || credits_seen != kChunks) {
    fprintf(stderr,
            "PE %d: put_signal FAILED (kernel: %s; %zu of %zu ints from PE %d wrong, first at chunk %zu "
            "int %zu; %llu credits, expected %d)\n",
            me, cudaGetErrorString(err), bad, kMsgInts, prev, first / kChunkInts, first % kChunkInts,
            static_cast<unsigned long long>(credits_seen), kChunks);
    return 1;
  }
  printf("PE %d/%d: %d chunks of %d ints from PE %d verified through %d slots\n", me, npes, kChunks, kChunkInts, prev,
         kSlots);
  gshmem_barrier_all();
  if (me == 0) printf("put_signal OK on %d PEs\n", npes);
  gshmem_free(credits);
  gshmem_free(ready);
  gshmem_free(slots);
  cudaFree(src);
  cudaFree(out);
  gshmem_finalize();
  return 0;
}
