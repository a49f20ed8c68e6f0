// SPDX-License-Identifier: BSD-3-Clause
// Host calls while the application's GPU is busy. Every PE fills its GPU with a kernel of
// many waves of blocks (two 1024-thread blocks fill an SM; each spins 2 ms, 60 waves: about
// 120 ms), lets its first wave start (5 ms), and then makes one blocking host call:
//   barrier     gshmem_barrier_all                         (a kernel)
//   amo         gshmem_int_atomic_fetch_add into PE next   (a kernel; the old value returned)
//   reduce      gshmem_int_sum_reduce over the world       (the reduction kernel)
//   reduce_ld   gshmem_longdouble_sum_reduce               (copies, the CPU adds; team syncs)
//   broadcast   gshmem_int_broadcast from PE 0             (the collective kernel)
//   put         gshmem_putmem of 1 MiB into PE next        (a copy, from device memory)
//   put_pageable, get_pageable                             (copies from / to malloc'ed memory)
//   iput_pageable  gshmem_int_iput from malloc'ed memory   (a 2D copy, strides 2 and 3)
//   p, g        gshmem_int_p / gshmem_int_g with PE next   (a copy from / to the caller's variable)
//   wait        gshmem_int_wait_until, already satisfied   (a kernel; the result comes back)
// The call must return while the application's kernel still runs. Every case runs twice:
// with the application's kernel on a stream of its own and on the legacy default stream
// (`kernel<<<grid, block>>>`, as most applications launch), which every synchronous CUDA call
// (cudaMemcpy, cudaMemset) and every cudaFree would wait for. What makes the calls return:
//  - the internal stream has the GPU's greatest priority (GSHMEM_HIGH_PRIORITY_STREAM, default
//    on), so its kernels take the first free SM slots instead of queuing behind every remaining
//    wave (off: the cases that launch a kernel fail; on one GPU even the put from device
//    memory, whose local copy the driver runs as a kernel);
//  - gshmem_init has loaded every kernel a host call launches: under CUDA's lazy loading the
//    first launch loads it, and the load waits for the running kernels;
//  - no host call makes a synchronous CUDA call or frees memory: the checks of
//    GSHMEM_DEBUG_CHECKS (ctest host_busy_checks-N) bring their findings back through the
//    library's pinned memory.
// Each round's data is checked afterwards, the destinations poisoned before it.
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
  cudaStream_t own = nullptr;
  cudaStream_t stream = nullptr;  // own, or cudaStreamLegacy
  unsigned* blocks_done = nullptr;
  int grid = 0;

  Busy() {
    int dev = 0, sms = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k_occupy, kThreads, 0));
    grid = kWaves * sms * std::max(per_sm, 1);
    CUDA_CHECK(cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking));
    stream = own;
    CUDA_CHECK(cudaMalloc(&blocks_done, sizeof(unsigned)));
  }
  ~Busy() {
    cudaStreamDestroy(own);
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

constexpr size_t kRed = 1000;      // ints reduced / broadcast
constexpr size_t kRedLd = 77;      // long doubles reduced
constexpr size_t kStrided = 1001;  // elements of the iput: destination stride 2, source stride 3
constexpr ptrdiff_t kDst = 2, kSst = 3;

// The symmetric objects of the cases and the caller's own host memory.
struct Buffers {
  int* words;                                      // [0] AMO counter, [1] g source, [2] p target
  int* put_dst;                                    // put from device memory
  int* page_dst;                                   // put from pageable memory
  int* get_src;                                    // what get_pageable reads from PE next
  int* iput_dst;                                   // kStrided elements kDst apart
  int* red;                                        // [0, kRed) sources, [kRed, 2 kRed) results
  int* bcast;                                      // [0, kRed) PE 0's source, [kRed, 2 kRed) every PE's destination
  long double* ld;                                 // [0, kRedLd) sources, [kRedLd, 2 kRedLd) results
  int* put_src;                                    // cudaMalloc'ed
  std::vector<int> host_src, host_dst, host_isrc;  // pageable
};

int round_salt(int round, int base) { return base + 100 * round; }

// Sources of this round filled, destinations poisoned.
void prepare(Buffers& b, int me, int round) {
  poison_device(b.put_dst, kPutInts * sizeof(int));
  poison_device(b.page_dst, kPutInts * sizeof(int));
  poison_device(b.iput_dst, kStrided * kDst * sizeof(int));
  poison_device(b.red + kRed, kRed * sizeof(int));
  poison_device(b.bcast + kRed, kRed * sizeof(int));
  poison_device(b.ld + kRedLd, kRedLd * sizeof(long double));
  fill_device(b.put_src, kPutInts, me, round_salt(round, 7));
  fill_device(b.get_src, kPutInts, me, round_salt(round, 13));
  fill_device(b.red, kRed, me, round_salt(round, 11));
  fill_device(b.bcast, kRed, me, round_salt(round, 19));
  fill_device(b.ld, kRedLd, me, round_salt(round, 23));
  for (size_t i = 0; i < kPutInts; ++i) b.host_src[i] = hvalue<int>(me, i, round_salt(round, 17));
  for (size_t i = 0; i < b.host_isrc.size(); ++i) b.host_isrc[i] = hvalue<int>(me, i, round_salt(round, 29));
  std::fill(b.host_dst.begin(), b.host_dst.end(), -1);
}

std::vector<int> read_ints(const int* p, size_t n) {
  std::vector<int> h(n);
  CUDA_CHECK(cudaMemcpy(h.data(), p, n * sizeof(int), cudaMemcpyDeviceToHost));
  return h;
}

// What the round's calls moved.
void check_round(const Buffers& b, int me, int npes, int round, int fetched, int got_g) {
  const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  // Round r's add to next's counter (by me, +me+1) found next's start value plus my earlier adds.
  set_context("round %d, amo: value fetched from PE %d", round, next);
  GT_CHECK_EQ(1000 + 17 * next + round * (me + 1), fetched);
  const std::vector<int> words = read_ints(b.words, 3);
  set_context("round %d, amo: my counter after PE %d's adds", round, prev);
  GT_CHECK_EQ(1000 + 17 * me + (round + 1) * (prev + 1), words[0]);
  set_context("round %d, g from PE %d", round, next);
  GT_CHECK_EQ(777 + 3 * next, got_g);
  set_context("round %d, p from PE %d", round, prev);
  GT_CHECK_EQ(4242 + prev + round, words[2]);

  set_context("round %d, reduce: sum over %d PEs", round, npes);
  std::vector<int> sums = read_ints(b.red + kRed, kRed);
  GT_VERIFY("sum_reduce", sums.data(), sums.size(), [&](size_t i) {
    unsigned s = 0;  // int sums wrap as two's complement: add as unsigned
    for (int pe = 0; pe < npes; ++pe) s += static_cast<unsigned>(hvalue<int>(pe, i, round_salt(round, 11)));
    return static_cast<int>(s);
  });
  set_context("round %d, long double reduce: sum over %d PEs", round, npes);
  std::vector<long double> ld(kRedLd);
  CUDA_CHECK(cudaMemcpy(ld.data(), b.ld + kRedLd, kRedLd * sizeof(long double), cudaMemcpyDeviceToHost));
  GT_VERIFY("longdouble_sum_reduce", ld.data(), ld.size(), [&](size_t i) {
    long double s = hvalue<long double>(0, i, round_salt(round, 23));  // the CPU's order: team PE 0, 1, ...
    for (int pe = 1; pe < npes; ++pe) s += hvalue<long double>(pe, i, round_salt(round, 23));
    return s;
  });
  set_context("round %d, broadcast from PE 0", round);
  std::vector<int> bc = read_ints(b.bcast + kRed, kRed);
  GT_VERIFY("broadcast", bc.data(), bc.size(), [&](size_t i) { return hvalue<int>(0, i, round_salt(round, 19)); });

  set_context("round %d, put from PE %d's device memory", round, prev);
  std::vector<int> v = read_ints(b.put_dst, kPutInts);
  GT_VERIFY("putmem", v.data(), v.size(), [&](size_t i) { return hvalue<int>(prev, i, round_salt(round, 7)); });
  set_context("round %d, put from PE %d's pageable memory", round, prev);
  v = read_ints(b.page_dst, kPutInts);
  GT_VERIFY("putmem", v.data(), v.size(), [&](size_t i) { return hvalue<int>(prev, i, round_salt(round, 17)); });
  set_context("round %d, get from PE %d into pageable memory", round, next);
  GT_VERIFY("getmem", b.host_dst.data(), b.host_dst.size(),
            [&](size_t i) { return hvalue<int>(next, i, round_salt(round, 13)); });
  set_context("round %d, iput from PE %d's pageable memory (dst %td, sst %td)", round, prev, kDst, kSst);
  v = read_ints(b.iput_dst, kStrided * kDst);
  GT_VERIFY("int_iput", v.data(), v.size(), [&](size_t i) {
    if (i % kDst != 0) return static_cast<int>(0x01010101u * kPoison);  // untouched between the elements
    return hvalue<int>(prev, (i / kDst) * kSst, round_salt(round, 29));
  });
}

const char* const kCases[] = {"barrier",      "amo",          "reduce",        "reduce_ld", "broadcast", "put",
                              "put_pageable", "get_pageable", "iput_pageable", "p",         "g",         "wait"};

// One blocking host call of case c (a status returned is checked).
void run_case(const char* c, Buffers& b, int me, int next, int round, int* fetched, int* got_g) {
  if (!strcmp(c, "barrier"))
    gshmem_barrier_all();
  else if (!strcmp(c, "amo"))
    *fetched = gshmem_int_atomic_fetch_add(b.words, me + 1, next);
  else if (!strcmp(c, "reduce"))
    GT_CHECK_EQ(0, gshmem_int_sum_reduce(GSHMEM_TEAM_WORLD, b.red + kRed, b.red, kRed));
  else if (!strcmp(c, "reduce_ld"))
    GT_CHECK_EQ(0, gshmem_longdouble_sum_reduce(GSHMEM_TEAM_WORLD, b.ld + kRedLd, b.ld, kRedLd));
  else if (!strcmp(c, "broadcast"))
    GT_CHECK_EQ(0, gshmem_int_broadcast(GSHMEM_TEAM_WORLD, b.bcast + kRed, b.bcast, kRed, 0));
  else if (!strcmp(c, "put"))
    gshmem_putmem(b.put_dst, b.put_src, kPutInts * sizeof(int), next);
  else if (!strcmp(c, "put_pageable"))
    gshmem_putmem(b.page_dst, b.host_src.data(), kPutInts * sizeof(int), next);
  else if (!strcmp(c, "get_pageable"))
    gshmem_getmem(b.host_dst.data(), b.get_src, kPutInts * sizeof(int), next);
  else if (!strcmp(c, "iput_pageable"))
    gshmem_int_iput(b.iput_dst, b.host_isrc.data(), kDst, kSst, kStrided, next);
  else if (!strcmp(c, "p"))
    gshmem_int_p(b.words + 2, 4242 + me + round, next);
  else if (!strcmp(c, "g"))
    *got_g = gshmem_int_g(b.words + 1, next);
  else
    gshmem_int_wait_until(b.words, GSHMEM_CMP_GE, 1000 + 17 * me);
}

}  // namespace

int main() {
  test_main_prologue(1, 0);
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int next = (me + 1) % npes;
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

  Buffers b;
  b.words = static_cast<int*>(gshmem_malloc(3 * sizeof(int)));
  b.put_dst = static_cast<int*>(gshmem_malloc(kPutInts * sizeof(int)));
  b.page_dst = static_cast<int*>(gshmem_malloc(kPutInts * sizeof(int)));
  b.get_src = static_cast<int*>(gshmem_malloc(kPutInts * sizeof(int)));
  b.iput_dst = static_cast<int*>(gshmem_malloc(kStrided * kDst * sizeof(int)));
  b.red = static_cast<int*>(gshmem_malloc(2 * kRed * sizeof(int)));
  b.bcast = static_cast<int*>(gshmem_malloc(2 * kRed * sizeof(int)));
  b.ld = static_cast<long double*>(gshmem_malloc(2 * kRedLd * sizeof(long double)));
  CUDA_CHECK(cudaMalloc(&b.put_src, kPutInts * sizeof(int)));
  b.host_src.resize(kPutInts);
  b.host_dst.resize(kPutInts);
  b.host_isrc.resize((kStrided - 1) * kSst + 1);
  const int init_words[3] = {1000 + 17 * me, 777 + 3 * me, -1};
  CUDA_CHECK(cudaMemcpy(b.words, init_words, sizeof init_words, cudaMemcpyHostToDevice));

  const char* const where[2] = {"a stream of its own", "the legacy default stream"};
  for (int round = 0; round < 2; ++round) {
    busy.stream = round == 0 ? busy.own : cudaStreamLegacy;
    prepare(b, me, round);
    gshmem_barrier_all();
    int fetched = 0, got_g = 0;
    for (const char* c : kCases) {
      set_context("round %d (the application's kernel on %s), case %s", round, where[round], c);
      if (!GT_CHECK(busy.start())) {
        emit(stderr, "PE %d: the application's kernel (%d blocks) had ended 5 ms after its launch\n", me, busy.grid);
        CUDA_CHECK(cudaStreamSynchronize(busy.stream));
      }
      const auto t0 = std::chrono::steady_clock::now();
      run_case(c, b, me, next, round, &fetched, &got_g);
      const double call_ms = ms_since(t0);
      const bool overlapped = busy.still_running_then_finish();
      const double kernel_ms = ms_since(t0);
      if (!GT_CHECK(overlapped))
        emit(stderr,
             "PE %d: host %s took %.1f ms and returned only after the application's kernel on %s (%d blocks, %.0f "
             "ms from the call) had finished: the library's work waited for it\n",
             me, c, call_ms, where[round], busy.grid, kernel_ms);
      else if (me == 0)
        emit(stdout, "PE 0: host %s returned in %.2f ms while the application's kernel on %s ran (%.0f ms)\n", c,
             call_ms, where[round], kernel_ms);
      gshmem_barrier_all();
    }
    check_round(b, me, npes, round, fetched, got_g);
    gshmem_barrier_all();
  }

  CUDA_CHECK(cudaFree(b.put_src));
  for (void* p : {static_cast<void*>(b.ld), static_cast<void*>(b.bcast), static_cast<void*>(b.red),
                  static_cast<void*>(b.iput_dst), static_cast<void*>(b.get_src), static_cast<void*>(b.page_dst),
                  static_cast<void*>(b.put_dst), static_cast<void*>(b.words)})
    gshmem_free(p);
  return test_main_epilogue("host_busy");
}
