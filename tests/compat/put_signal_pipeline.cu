// SPDX-License-Identifier: BSD-3-Clause
// NVSHMEM-dialect program: a put-with-signal pipeline around the ring of PEs.
// Every PE streams kChunks chunks to the next PE through kSlots receive slots:
//   sender   waits (nvshmem_signal_wait_until on its ack word) until the receiver has freed
//            the slot, then nvshmem_putmem_signal_nbi (pass 0, one thread) or
//            nvshmemx_putmem_signal_nbi_block (pass 1, whole block) with signal = chunk + 1 (SET);
//   receiver waits until the slot's signal equals chunk + 1, copies the chunk out, and frees
//            the slot with nvshmemx_signal_op(ack, 1, NVSHMEM_SIGNAL_ADD, sender).
// A chunk read before its signal, a signal that overtakes its data, or a slot overwritten before
// it was freed shows up as wrong bytes: the host checks every received byte of every chunk.
#include <nvshmem.h>
#include <nvshmemx.h>

#include <stdint.h>

#include "compat_check.h"

constexpr int kChunks = 96;
constexpr int kSlots = 4;
constexpr size_t kChunkBytes = 12347;  // odd: unaligned tails in every chunk
constexpr int kThreads = 512;

__host__ __device__ inline unsigned char chunk_byte(int pe, int chunk, size_t j, int pass) {
  uint32_t x = (uint32_t)(pe + 1) * 2654435761u ^ (uint32_t)chunk * 40503u ^ (uint32_t)j * 2246822519u ^
               (uint32_t)pass * 3266489917u;
  x ^= x >> 15;
  return (unsigned char)(x ^ (x >> 8));
}

__global__ void fill_source(unsigned char* src, int pe, int pass) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < kChunks * kChunkBytes;
       i += (size_t)gridDim.x * blockDim.x)
    src[i] = chunk_byte(pe, (int)(i / kChunkBytes), i % kChunkBytes, pass);
}

__global__ void pipeline(unsigned char* slots, uint64_t* data_sig, uint64_t* ack_sig, const unsigned char* src,
                         unsigned char* out, int pass) {
  const int me = nvshmem_my_pe(), npes = nvshmem_n_pes();
  const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  for (int k = 0; k < kChunks; ++k) {
    const int slot = k % kSlots;
    unsigned char* slot_buf = slots + slot * kChunkBytes;
    // Send chunk k once the next PE has consumed the previous k / kSlots chunks of this slot.
    if (threadIdx.x == 0) nvshmem_signal_wait_until(&ack_sig[slot], NVSHMEM_CMP_GE, (uint64_t)(k / kSlots));
    __syncthreads();
    if (pass == 0) {
      if (threadIdx.x == 0)
        nvshmem_putmem_signal_nbi(slot_buf, src + k * kChunkBytes, kChunkBytes, &data_sig[slot], (uint64_t)k + 1,
                                  NVSHMEM_SIGNAL_SET, next);
    } else {
      nvshmemx_putmem_signal_nbi_block(slot_buf, src + k * kChunkBytes, kChunkBytes, &data_sig[slot], (uint64_t)k + 1,
                                       NVSHMEM_SIGNAL_SET, next);
    }
    // Receive chunk k from the previous PE.
    if (threadIdx.x == 0) {
      const uint64_t v = nvshmem_signal_wait_until(&data_sig[slot], NVSHMEM_CMP_EQ, (uint64_t)k + 1);
      if (v != (uint64_t)k + 1)
        printf("PE %d: signal_wait_until returned %llu, expected %d\n", me, (unsigned long long)v, k + 1);
    }
    __syncthreads();
    for (size_t j = threadIdx.x; j < kChunkBytes; j += blockDim.x) out[k * kChunkBytes + j] = slot_buf[j];
    __syncthreads();  // every read of the slot is done before it is handed back
    if (threadIdx.x == 0) nvshmemx_signal_op(&ack_sig[slot], 1, NVSHMEM_SIGNAL_ADD, prev);
  }
  nvshmem_quiet();
}

int main() {
  compat_skip_without_gpus("compat put-signal pipeline");
  nvshmem_init();
  const int me = nvshmem_my_pe(), npes = nvshmem_n_pes();
  compat_pe = me;
  const int prev = (me + npes - 1) % npes;

  unsigned char* slots = (unsigned char*)nvshmem_malloc(kSlots * kChunkBytes);
  uint64_t* data_sig = (uint64_t*)nvshmem_calloc(kSlots, sizeof(uint64_t));
  uint64_t* ack_sig = (uint64_t*)nvshmem_calloc(kSlots, sizeof(uint64_t));
  unsigned char *src = nullptr, *out = nullptr;
  COMPAT_CUDA(cudaMalloc(&src, kChunks * kChunkBytes));
  COMPAT_CUDA(cudaMalloc(&out, kChunks * kChunkBytes));
  COMPAT_CHECK(slots && data_sig && ack_sig, "symmetric allocation failed");
  if (!slots || !data_sig || !ack_sig) return 1;
  unsigned char* host = (unsigned char*)malloc(kChunks * kChunkBytes);

  for (int pass = 0; pass < 2; ++pass) {
    fill_source<<<64, 256>>>(src, me, pass);
    COMPAT_CUDA(cudaMemset(out, 0xA5, kChunks * kChunkBytes));
    COMPAT_CUDA(cudaMemset(slots, 0xA5, kSlots * kChunkBytes));
    COMPAT_CUDA(cudaMemset(data_sig, 0, kSlots * sizeof(uint64_t)));
    COMPAT_CUDA(cudaMemset(ack_sig, 0, kSlots * sizeof(uint64_t)));
    COMPAT_CUDA(cudaDeviceSynchronize());
    nvshmem_barrier_all();  // every PE reset its slots and signals before anyone sends

    void* args[] = {&slots, &data_sig, &ack_sig, &src, &out, &pass};
    const int st = nvshmemx_collective_launch((const void*)pipeline, dim3(1), dim3(kThreads), args, 0, 0);
    COMPAT_CHECK(st == 0, "nvshmemx_collective_launch returned %d", st);
    COMPAT_CUDA(cudaDeviceSynchronize());
    nvshmem_barrier_all();

    COMPAT_CUDA(cudaMemcpy(host, out, kChunks * kChunkBytes, cudaMemcpyDeviceToHost));
    for (int k = 0; k < kChunks; ++k) {
      size_t bad = 0, first = 0;
      for (size_t j = 0; j < kChunkBytes; ++j)
        if (host[k * kChunkBytes + j] != chunk_byte(prev, k, j, pass) && bad++ == 0) first = j;
      COMPAT_CHECK(bad == 0,
                   "pass %d (%s) chunk %d from PE %d: %zu of %zu bytes wrong, first at %zu (got 0x%02x, "
                   "expected 0x%02x)",
                   pass, pass ? "block" : "thread", k, prev, bad, kChunkBytes, first, host[k * kChunkBytes + first],
                   chunk_byte(prev, k, first, pass));
    }
    // Final signal values: the last chunk of each slot, and every chunk acknowledged.
    uint64_t sig[kSlots], ack[kSlots];
    COMPAT_CUDA(cudaMemcpy(sig, data_sig, sizeof(sig), cudaMemcpyDeviceToHost));
    COMPAT_CUDA(cudaMemcpy(ack, ack_sig, sizeof(ack), cudaMemcpyDeviceToHost));
    for (int s = 0; s < kSlots; ++s) {
      const int last = ((kChunks - 1 - s) / kSlots) * kSlots + s;  // last chunk that used slot s
      const uint64_t uses = (uint64_t)((kChunks - 1 - s) / kSlots + 1);
      COMPAT_CHECK(sig[s] == (uint64_t)last + 1, "pass %d slot %d: signal %llu, expected %d", pass, s,
                   (unsigned long long)sig[s], last + 1);
      COMPAT_CHECK(ack[s] == uses, "pass %d slot %d: ack count %llu, expected %llu", pass, s,
                   (unsigned long long)ack[s], (unsigned long long)uses);
    }
    nvshmem_barrier_all();
  }

  free(host);
  COMPAT_CUDA(cudaFree(src));
  COMPAT_CUDA(cudaFree(out));
  nvshmem_free(ack_sig);
  nvshmem_free(data_sig);
  nvshmem_free(slots);
  const int rc = compat_summary("compat put-signal pipeline");
  nvshmem_finalize();
  return rc;
}
