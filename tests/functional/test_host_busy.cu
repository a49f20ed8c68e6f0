// SPDX-License-Identifier: BSD-3-Clause
// Host calls while the application's GPU is busy. Every PE fills its GPU with a kernel of
// many waves of blocks on a stream of its own (two 1024-thread blocks fill an SM; each spins
// 2 ms, 60 waves: about 120 ms), lets its first wave start (5 ms), and then makes one
// blocking host call whose work runs on the library's internal stream:
//   barrier     gshmem_barrier_all                         (a kernel)
//   amo         gshmem_int_atomic_fetch_add into PE next   (a kernel; the old value returned)
//   reduce      gshmem_int_sum_reduce over the world       (the reduction kernel)
//   put         gshmem_putmem of 1 MiB into PE next        (a copy, from device memory)
//   p, g        gshmem_int_p / gshmem_int_g with PE next   (a copy from / to the caller's variable)
//   wait        gshmem_int_wait_until, already satisfied   (a kernel; the result comes back)
// The call must return while the application's kernel still runs. Three things make it:
//  - the internal stream has the GPU's greatest priority (GSHMEM_HIGH_PRIORITY_STREAM, default
//    on), so its kernels take the first free SM slots instead of queuing behind every remaining
//    wave (off: every case but p and g fails; on one GPU even the put, whose local copy the
//    driver runs as a kernel);
//  - no call copies into or out of pageable memory (the caller's variable), which waits for all
//    the GPU's kernels: results come back through the library's pinned memory;
//  - gshmem_init has loaded every kernel a host call launches: under CUDA's lazy loading the
//    first launch loads it, and the load waits for the running kernels.
// Each case's data is checked afterwards.
#include <algorithm>
#include <chrono>
#include <vector>

#include "common.cuh"

using namespace gt;

namespace {

constexpr int kThreads = 1024;  // two blocks fill an SM's 2048 threads
constexpr int kWaves = 60;
constexpr unsigned long long kBlockNs = 2000000;  // 2 ms a block: the kernel takes ~120 ms
constexpr size_t kPutInts = 256 * 1024;

__device__ __forceinline__ unsigned long long globaltimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Each block spins for kBlockNs and counts itself.
__global__ void __launch_bounds__(kThreads) k_occupy(unsigned* blocks_done) {
  const unsigned long long t0 = globaltimer();
  while (globaltimer() - t0 < kBlockNs) {
  }
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(blocks_done, 1u);
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

struct Busy {
  cudaStream_t stream = nullptr;
  unsigned* blocks_done = nullptr;
  int grid = 0;

  Busy() {
    int dev = 0, sms = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k_occupy, kThreads, 0));
    grid = kWaves * sms * std::max(per_sm, 1);
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMalloc(&blocks_done, sizeof(unsigned)));
  }
  ~Busy() {
    cudaStreamDestroy(stream);
    cudaFree(blocks_done);
  }

  // Launches the application kernel and returns once its first wave runs. False: the kernel
  // had ended by then already, and the case would prove nothing.
  bool start() {
    launch();
    const auto t0 = std::chrono::steady_clock::now();  // the first wave starts within microseconds
    while (std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(5)) {
    }
    const cudaError_t q = cudaStreamQuery(stream);
    if (q != cudaSuccess && q != cudaErrorNotReady) CUDA_CHECK(q);
    return q == cudaErrorNotReady;
  }
  void launch() {
    CUDA_CHECK(cudaMemsetAsync(blocks_done, 0, sizeof(unsigned), stream));
    k_occupy<<<grid, kThreads, 0, stream>>>(blocks_done);
    CUDA_CHECK(cudaGetLastError());  // not KERNEL_CHECK: that waits for the kernel
  }
  // Whether it still ran when asked; then waits for it and checks that every block ran.
  bool still_running_then_finish() {
    const cudaError_t q = cudaStreamQuery(stream);
    if (q != cudaSuccess && q != cudaErrorNotReady) CUDA_CHECK(q);
    CUDA_CHECK(cudaStreamSynchronize(stream));
    unsigned done = 0;
    CUDA_CHECK(cudaMemcpy(&done, blocks_done, sizeof done, cudaMemcpyDeviceToHost));
    GT_CHECK_EQ(static_cast<unsigned>(grid), done);
    return q == cudaErrorNotReady;
  }
};

}  // namespace

int main() {
  test_main_prologue(1, 0);
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  Busy busy;
  {  // the application kernel alone
    const auto t0 = std::chrono::steady_clock::now();
    busy.launch();
    CUDA_CHECK(cudaStreamSynchronize(busy.stream));
    const double alone_ms = ms_since(t0);
    if (!GT_CHECK(alone_ms > 50))
      emit(stderr, "PE %d: the application's kernel took only %.1f ms alone; the cases need it to last\n", me,
           alone_ms);
    else if (me == 0)
      emit(stdout, "PE 0: the application's kernel alone: %d blocks, %.0f ms\n", busy.grid, alone_ms);
  }

  int* words = static_cast<int*>(gshmem_malloc(3 * sizeof(int)));  // counter, g source, p target
  int* counter = words;
  int* put_dst = static_cast<int*>(gshmem_malloc(kPutInts * sizeof(int)));
  int* red = static_cast<int*>(gshmem_malloc(2 * 1000 * sizeof(int)));
  int* put_src = nullptr;
  CUDA_CHECK(cudaMalloc(&put_src, kPutInts * sizeof(int)));
  poison_device(put_dst, kPutInts * sizeof(int));
  fill_device(put_src, kPutInts, me, 7);
  fill_device(red, 1000, me, 11);                 // sources: red[0..1000)
  poison_device(red + 1000, 1000 * sizeof(int));  // destinations: red[1000..2000)
  gshmem_barrier_all();

  const int start_value = 1000 + 17 * me;  // what my counter holds before prev's add
  const int init_words[3] = {start_value, 777 + 3 * me, -1};
  CUDA_CHECK(cudaMemcpy(words, init_words, sizeof init_words, cudaMemcpyHostToDevice));
  gshmem_barrier_all();

  int fetched = 0, got_g = 0;
  const char* const cases[] = {"barrier", "amo", "reduce", "put", "p", "g", "wait"};
  for (const char* c : cases) {
    set_context("case %s", c);
    if (!GT_CHECK(busy.start())) {
      emit(stderr, "PE %d: the application's kernel (%d blocks) had ended 5 ms after its launch\n", me,
           busy.grid);
      CUDA_CHECK(cudaStreamSynchronize(busy.stream));
    }
    const auto t0 = std::chrono::steady_clock::now();
    if (!strcmp(c, "barrier")) gshmem_barrier_all();
    else if (!strcmp(c, "amo")) fetched = gshmem_int_atomic_fetch_add(counter, me + 1, next);
    else if (!strcmp(c, "reduce")) GT_CHECK_EQ(0, gshmem_int_sum_reduce(GSHMEM_TEAM_WORLD, red + 1000, red, 1000));
    else if (!strcmp(c, "put")) gshmem_putmem(put_dst, put_src, kPutInts * sizeof(int), next);
    else if (!strcmp(c, "p")) gshmem_int_p(words + 2, 4242 + me, next);
    else if (!strcmp(c, "g")) got_g = gshmem_int_g(words + 1, next);
    else gshmem_int_wait_until(counter, GSHMEM_CMP_GE, start_value);
    const double call_ms = ms_since(t0);
    const bool overlapped = busy.still_running_then_finish();
    const double kernel_ms = ms_since(t0);
    if (!GT_CHECK(overlapped))
      emit(stderr,
           "PE %d: host %s took %.1f ms and returned only after the application's kernel (%d blocks, %.0f ms "
           "from the call) had finished: the library's work queued behind it\n",
           me, c, call_ms, busy.grid, kernel_ms);
    else if (me == 0)
      emit(stdout, "PE 0: host %s returned in %.2f ms while the application's kernel ran (%.0f ms)\n", c, call_ms,
           kernel_ms);
    gshmem_barrier_all();
  }

  // The data the calls moved.
  set_context("amo: value fetched from PE %d", next);
  GT_CHECK_EQ(1000 + 17 * next, fetched);
  int got[3] = {};
  CUDA_CHECK(cudaMemcpy(got, words, sizeof got, cudaMemcpyDeviceToHost));
  set_context("amo: my counter after PE %d's add", prev);
  GT_CHECK_EQ(start_value + prev + 1, got[0]);
  set_context("g from PE %d", next);
  GT_CHECK_EQ(777 + 3 * next, got_g);
  set_context("p from PE %d", prev);
  GT_CHECK_EQ(4242 + prev, got[2]);
  set_context("reduce: sum over %d PEs", npes);
  std::vector<int> sums(1000);
  CUDA_CHECK(cudaMemcpy(sums.data(), red + 1000, sums.size() * sizeof(int), cudaMemcpyDeviceToHost));
  GT_VERIFY("sum_reduce", sums.data(), sums.size(), [&](size_t i) {
    unsigned s = 0;  // int sums wrap as two's complement: add as unsigned
    for (int pe = 0; pe < npes; ++pe) s += static_cast<unsigned>(hvalue<int>(pe, i, 11));
    return static_cast<int>(s);
  });
  set_context("put from PE %d", prev);
  std::vector<int> put(kPutInts);
  CUDA_CHECK(cudaMemcpy(put.data(), put_dst, put.size() * sizeof(int), cudaMemcpyDeviceToHost));
  GT_VERIFY("putmem", put.data(), put.size(), [&](size_t i) { return hvalue<int>(prev, i, 7); });

  gshmem_barrier_all();
  CUDA_CHECK(cudaFree(put_src));
  gshmem_free(red);
  gshmem_free(put_dst);
  gshmem_free(words);
  return test_main_epilogue("host_busy");
}
