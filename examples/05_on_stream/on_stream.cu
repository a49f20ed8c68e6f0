// SPDX-License-Identifier: BSD-3-Clause
// 05_on_stream: communication driven by the host but ordered on a CUDA stream, mixed
// with the program's own kernels. Each round enqueues, on one stream, without waiting:
//   produce<<<>>>                         our kernel writes a message (local memory)
//   gshmemx_int_put_on_stream             the message into the next PE's inbox
//   gshmemx_signal_op_on_stream           "round r is there" (SET) on the next PE
//   gshmemx_signal_wait_until_on_stream   the stream waits for our own inbox
//   consume<<<>>>                         our kernel weights what arrived
//   gshmemx_int_sum_reduce_on_stream      all-reduce of the weighted inboxes
//   gshmemx_barrier_all_on_stream         nobody refills an inbox before it was consumed
// The host only enqueues; it synchronises once, at the end, and checks every element.
//   gshmrun -n 2 ./on_stream
#include <gshmem/gshmem.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

constexpr int kN = 10007;  // ints per message (odd on purpose)
constexpr int kRounds = 4;
constexpr int kThreads = 256, kBlocks = (kN + kThreads - 1) / kThreads;

__host__ __device__ int pattern(int pe, int round, int i) { return (pe + 1) * 1000003 + round * 7919 + i * 7; }

__global__ void produce(int* msg, int pe, int round) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < kN) msg[i] = pattern(pe, round, i);
}
__global__ void consume(int* contrib, const int* inbox, int me) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < kN) contrib[i] = inbox[i] * (me + 1);  // weighted by the receiver: order matters
}

// The demo needs one GPU per PE on this node. Exit code 77 tells ctest "skipped".
static void require_gpus() {
  int count = 0;
  const char* local = getenv("GSHMEM_LOCAL_SIZE");
  const int needed = local ? atoi(local) : 1;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count < needed) {
    fprintf(stderr, "on_stream: needs one CUDA GPU per PE (%d on this node) but %d %s visible\n", needed, count,
            count == 1 ? "is" : "are");
    exit(77);
  }
}

int main() {
  require_gpus();
  gshmem_init();
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  int* inbox = static_cast<int*>(gshmem_malloc(kN * sizeof(int)));
  int* contrib = static_cast<int*>(gshmem_malloc(kN * sizeof(int)));
  int* total = static_cast<int*>(gshmem_malloc(kRounds * kN * sizeof(int)));  // one result per round
  uint64_t* sig = static_cast<uint64_t*>(gshmem_calloc(1, sizeof(uint64_t)));
  int* msg = nullptr;
  cudaStream_t st = nullptr;
  if (!inbox || !contrib || !total || !sig || cudaMalloc(&msg, kN * sizeof(int)) != cudaSuccess ||
      cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking) != cudaSuccess) {
    fprintf(stderr, "PE %d: allocation failed\n", me);
    return 1;
  }
  cudaMemset(inbox, 0xA5, kN * sizeof(int));  // poison: unwritten elements fail the check
  cudaMemset(total, 0xA5, kRounds * kN * sizeof(int));
  cudaDeviceSynchronize();
  gshmem_barrier_all();  // every PE poisoned before anyone writes

  int rc = 0;
  for (int r = 0; r < kRounds; ++r) {
    produce<<<kBlocks, kThreads, 0, st>>>(msg, me, r);
    // Stream order is the ordering here: the put starts after `produce` finished, and the
    // signal is written after the put completed, with a release (docs/memory-model.md),
    // so the next PE that sees it also sees the data. No fence or quiet is needed.
    gshmemx_int_put_on_stream(inbox, msg, kN, next, st);
    gshmemx_signal_op_on_stream(sig, r + 1, GSHMEM_SIGNAL_SET, next, st);
    // Work after the wait on this stream starts only once `prev` delivered round r.
    gshmemx_signal_wait_until_on_stream(sig, GSHMEM_CMP_EQ, r + 1, st);
    consume<<<kBlocks, kThreads, 0, st>>>(contrib, inbox, me);
    // Reads `contrib` after `consume` on every PE; total + r*kN holds the sum afterwards.
    rc |= gshmemx_int_sum_reduce_on_stream(GSHMEM_TEAM_WORLD, total + r * kN, contrib, kN, st);
    // Before the next round: every PE has consumed its inbox (no put overwrites it early),
    // and `contrib` is free to be rewritten.
    gshmemx_barrier_all_on_stream(st);
  }
  const cudaError_t err = cudaStreamSynchronize(st);  // the only wait of the host

  // total[r][i] = sum over PEs p of (p + 1) * pattern(prev of p, r, i); inbox: the last round.
  std::vector<int> h(kRounds * kN), in(kN);
  uint64_t sig_seen = 0;
  cudaMemcpy(h.data(), total, h.size() * sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(in.data(), inbox, in.size() * sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(&sig_seen, sig, sizeof(sig_seen), cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int r = 0; r < kRounds; ++r)
    for (int i = 0; i < kN; ++i) {
      int expect = 0;
      for (int p = 0; p < npes; ++p) expect += (p + 1) * pattern((p + npes - 1) % npes, r, i);
      if (h[r * kN + i] != expect && bad++ == 0)
        fprintf(stderr, "PE %d: round %d total[%d] = %d, expected %d\n", me, r, i, h[r * kN + i], expect);
    }
  for (int i = 0; i < kN; ++i)
    if (in[i] != pattern(prev, kRounds - 1, i) && bad++ == 0)
      fprintf(stderr, "PE %d: inbox[%d] = %d, expected %d from PE %d\n", me, i, in[i], pattern(prev, kRounds - 1, i),
              prev);
  if (err != cudaSuccess || rc != 0 || bad != 0 || sig_seen != static_cast<uint64_t>(kRounds)) {
    fprintf(stderr,
            "PE %d: on_stream FAILED (stream: %s, reduce status %d, %d wrong elements, signal %llu, "
            "expected %d)\n",
            me, cudaGetErrorString(err), rc, bad, static_cast<unsigned long long>(sig_seen), kRounds);
    return 1;
  }
  printf("PE %d/%d: %d rounds of put + signal + reduce on one stream verified (%d ints each)\n", me, npes, kRounds, kN);
  gshmem_barrier_all();
  if (me == 0) printf("on_stream OK on %d PEs\n", npes);
  cudaStreamDestroy(st);
  cudaFree(msg);
  gshmem_free(sig);
  gshmem_free(total);
  gshmem_free(contrib);
  gshmem_free(inbox);
  gshmem_finalize();
  return 0;
}
