// SPDX-License-Identifier: BSD-3-Clause
// 02_ring: each PE puts a message into the next PE's buffer from inside a
// kernel, signals it, waits for the message from its predecessor, and checks
// every element. Several rounds, all inside one kernel, with no CPU in between.
//   gshmrun ./ring          (one PE per visible GPU)
#include <gshmem/gshmem.h>

#include <cstdio>
#include <cstdlib>

constexpr int kInts = (1 << 18) + 3;  // odd on purpose: exercises the unaligned tail
constexpr int kRounds = 5;
constexpr int kThreads = 512;

__host__ __device__ int pattern(int pe, int i, int round) { return (pe + 1) * 1000003 + i * 7 + round * 31; }

__global__ void ring(int* inbox, int* flag, int* outbox, int* errors) {
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  for (int round = 1; round <= kRounds; ++round) {
    for (int i = threadIdx.x; i < kInts; i += blockDim.x) outbox[i] = pattern(me, i, round);
    __syncthreads();
    // The whole block copies the message into `inbox` on the next PE.
    gshmemx_int_put_nbi_block(inbox, outbox, kInts, next);
    gshmem_quiet();  // each thread's share of the message is delivered ...
    __syncthreads();
    if (threadIdx.x == 0) gshmem_int_p(flag, round, next);  // ... before the flag
    if (threadIdx.x == 0) gshmem_int_wait_until(flag, GSHMEM_CMP_EQ, round);
    __syncthreads();
    for (int i = threadIdx.x; i < kInts; i += blockDim.x)
      if (inbox[i] != pattern(prev, i, round)) atomicAdd(errors, 1);
    // Nobody overwrites an inbox before its owner has checked it.
    gshmemx_barrier_all_block();
  }
}

// The demo needs one GPU per PE on this node. Exit code 77 tells ctest "skipped".
static void require_gpus() {
  int count = 0;
  const char* local = getenv("GSHMEM_LOCAL_SIZE");
  const int needed = local ? atoi(local) : 1;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count < needed) {
    fprintf(stderr, "ring: needs one CUDA GPU per PE (%d on this node) but %d %s visible\n", needed, count,
            count == 1 ? "is" : "are");
    exit(77);
  }
}

int main() {
  require_gpus();
  gshmem_init();
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  int* inbox = static_cast<int*>(gshmem_malloc(kInts * sizeof(int)));
  int* flag = static_cast<int*>(gshmem_calloc(1, sizeof(int)));
  int *outbox = nullptr, *errors = nullptr;
  if (!inbox || !flag || cudaMalloc(&outbox, kInts * sizeof(int)) != cudaSuccess ||
      cudaMalloc(&errors, sizeof(int)) != cudaSuccess) {
    fprintf(stderr, "PE %d: allocation failed\n", me);
    return 1;
  }
  cudaMemset(inbox, 0xA5, kInts * sizeof(int));  // poison: unwritten elements fail the check
  cudaMemset(errors, 0, sizeof(int));
  gshmem_barrier_all();

  void* args[] = {&inbox, &flag, &outbox, &errors};
  int st = gshmemx_collective_launch((const void*)ring, dim3(1), dim3(kThreads), args, 0, 0);
  cudaError_t err = cudaDeviceSynchronize();
  int host_errors = -1;
  cudaMemcpy(&host_errors, errors, sizeof(int), cudaMemcpyDeviceToHost);
  if (st != GSHMEM_SUCCESS || err != cudaSuccess || host_errors != 0) {
    fprintf(stderr, "PE %d: ring FAILED (launch: %s, kernel: %s, %d wrong elements)\n", me, gshmemx_status_string(st),
            cudaGetErrorString(err), host_errors);
    return 1;
  }
  printf("PE %d/%d: %d rounds of %d ints from PE %d verified\n", me, npes, kRounds, kInts, (me + npes - 1) % npes);
  gshmem_barrier_all();
  if (me == 0) printf("ring OK on %d PEs\n", npes);
  gshmem_free(inbox);
  gshmem_free(flag);
  cudaFree(outbox);
  cudaFree(errors);
  gshmem_finalize();
  return 0;
}
