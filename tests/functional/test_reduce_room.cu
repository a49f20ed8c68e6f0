// SPDX-License-Identifier: BSD-3-Clause
// Team reductions whose members' kernels do not all fit on the GPU at once.
//
// The last PE ("crowded") fills its GPU with a kernel of its own that leaves a few SMs
// empty (GT_ROOM_FREE_SMS, default one per PE), then makes a blocking host call: the
// library's reduction kernel, one CTA per slot (128 slots here; GSHMEM_REDUCE_CTAS is set
// to GT_ROOM_CTAS on this PE, default 128), of which only a few CTAs have room at a time. Every other PE runs a device
// form in a kernel of one block, a lone participant that takes every slot: PE 0 at block scope, PE 1 at warp scope, PE
// 2 at thread scope. Were such a participant to wait for every slot's sources before signalling that it was done with
// any, while the crowded PE's running CTAs wait for that signal before making room for the others, they would hang
// (reduce_pull.cuh: progress).
//
// Cases: all-reduce and reducescatter of ints (sum), out of place and in place, sizes that
// fill 128 slots and leave a tail. The crowded PE waits until every other PE's kernel has
// started before its call (on one GPU shared under MPS, its CTAs would otherwise take the
// room those kernels need), and checks that its own kernel still held the GPU when the call
// returned. Results are checked on every PE, destinations poisoned first.
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "common.cuh"

using namespace gt;

namespace {

constexpr int kCrowdThreads = 1024;                                 // two blocks fill an SM's 2048 threads
constexpr unsigned long long kCrowdMaxNs = 120ull * 1000000000ull;  // the crowd never outlives a hung test

__device__ __forceinline__ unsigned long long globaltimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Each block counts itself in; one on SMs 0 .. free_sms - 1 leaves at once (words[3]
// counts those), the others hold their SM until *release (host memory) is set. Two blocks
// fill an SM, so those SMs are left empty and every other SM full, wherever the blocks land.
__global__ void __launch_bounds__(kCrowdThreads, 2)
    k_crowd(unsigned* started, const volatile unsigned* release, unsigned* ended_early, unsigned* left, int free_sms) {
  unsigned sm;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  if (sm < static_cast<unsigned>(free_sms)) {
    if (threadIdx.x == 0) atomicAdd_system(left, 1u);
    return;
  }
  if (threadIdx.x == 0) {
    atomicAdd_system(started, 1u);
    const unsigned long long t0 = globaltimer();
    while (*release == 0 && globaltimer() - t0 < kCrowdMaxNs) __nanosleep(10000);
    if (*release == 0) atomicAdd_system(ended_early, 1u);
  }
  __syncthreads();
}

// The crowded PE's own kernel and the host memory it reports through.
struct Crowd {
  cudaStream_t stream = nullptr;
  unsigned* words = nullptr;  // mapped pinned: [0] holding, [1] release, [2] ended early, [3] left
  int blocks = 0, sms = 0, free_sms = 0;

  explicit Crowd(int free) : free_sms(free) {
    int dev = 0, per_sm = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k_crowd, kCrowdThreads, 0));
    if (per_sm != 2) emit(stderr, "note: %d blocks of k_crowd fit an SM, not 2\n", per_sm);
    blocks = per_sm * sms;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaHostAlloc(&words, 4 * sizeof(unsigned), cudaHostAllocMapped));
  }
  ~Crowd() {
    cudaStreamDestroy(stream);
    cudaFreeHost(words);
  }
  // Launches the kernel; true once every block holds its SM or has left (within 10 s).
  bool fill() {
    volatile unsigned* w = words;
    w[0] = w[1] = w[2] = w[3] = 0;
    unsigned* dev_words = nullptr;
    CUDA_CHECK(cudaHostGetDevicePointer(&dev_words, words, 0));
    k_crowd<<<blocks, kCrowdThreads, 0, stream>>>(dev_words, dev_words + 1, dev_words + 2, dev_words + 3, free_sms);
    CUDA_CHECK(cudaGetLastError());
    const auto t0 = std::chrono::steady_clock::now();
    while (w[0] + w[3] < static_cast<unsigned>(blocks))
      if (std::chrono::steady_clock::now() - t0 > std::chrono::seconds(10)) return false;
    return true;
  }
  unsigned holding() const { return static_cast<volatile unsigned*>(words)[0]; }
  // Whether the blocks that held an SM still do (none had given up); then lets them go.
  bool held_then_release() {
    volatile unsigned* w = words;
    const bool held = w[0] + w[3] == static_cast<unsigned>(blocks) && w[2] == 0;
    w[1] = 1;
    CUDA_CHECK(cudaStreamSynchronize(stream));
    return held;
  }
};

enum class Scope { block, warp, thread };
const char* scope_name(Scope s) { return s == Scope::block ? "block" : s == Scope::warp ? "warp" : "thread"; }
Scope scope_of(int pe) { return pe == 0 ? Scope::block : pe == 1 ? Scope::warp : Scope::thread; }

// A kernel of one block: tells the crowded PE it started, then the device form at scope S.
template <class S>
__global__ void k_lone(int crowded, int* entered, int* dest, const int* source, size_t n, int scatter, int* status) {
  if (S::rank() == 0) gshmem_int_atomic_add(entered, 1, crowded);
  const int st = scatter ? gshmem::reducescatter<gshmem::op::sum, S>(GSHMEM_TEAM_WORLD, dest, source, n)
                         : gshmem::reduce<gshmem::op::sum, S>(GSHMEM_TEAM_WORLD, dest, source, n);
  if (S::rank() == 0) *status = st;
}

void launch_lone(Scope s, int crowded, int* entered, int* dest, const int* source, size_t n, bool scatter,
                 int* status) {
  const int sc = scatter ? 1 : 0;
  switch (s) {
    case Scope::block:
      k_lone<gshmem::block_scope><<<1, 256>>>(crowded, entered, dest, source, n, sc, status);
      break;
    case Scope::warp:
      k_lone<gshmem::warp_scope><<<1, 32>>>(crowded, entered, dest, source, n, sc, status);
      break;
    case Scope::thread:
      k_lone<gshmem::thread_scope><<<1, 1>>>(crowded, entered, dest, source, n, sc, status);
      break;
  }
  CUDA_CHECK(cudaGetLastError());
}

struct Case {
  bool scatter;
  bool in_place;
};

}  // namespace

int main() {
  // The crowded PE's CTA count, before gshmem_init reads it.
  const int size = env_int("GSHMEM_SIZE", 1), rank = env_int("GSHMEM_RANK", 0);
  const int ctas = env_int("GT_ROOM_CTAS", 128);
  if (size > 1 && rank == size - 1) setenv("GSHMEM_REDUCE_CTAS", std::to_string(ctas).c_str(), 1);
  test_main_prologue(2, 4);
  const int me = gshmem_my_pe(), npes = gshmem_n_pes(), crowded = npes - 1;

  const size_t n_reduce = (size_t{1} << 20) + 5;                               // 4 MiB + 20 B: 128 slots
  const size_t n_scatter = (size_t{1} << 20) / static_cast<size_t>(npes) + 3;  // N chunks of it: 128 slots
  const size_t words = n_reduce > n_scatter * npes ? n_reduce : n_scatter * npes;
  int* source = static_cast<int*>(gshmem_malloc(words * sizeof(int)));
  int* dest = static_cast<int*>(gshmem_malloc(words * sizeof(int)));
  int* entered = static_cast<int*>(gshmem_calloc(1, sizeof(int)));
  int* status = nullptr;
  CUDA_CHECK(cudaMalloc(&status, sizeof(int)));
  GT_CHECK(source && dest && entered);
  // One SM for each kernel of the others (on one GPU shared under MPS they may take one each) and one more.
  Crowd crowd(env_int("GT_ROOM_FREE_SMS", npes));
  if (me == crowded)
    emit(stdout,
         "PE %d: its own kernel fills all but %d of its GPU's %d SMs: room for at most %d of the reduction "
         "kernel's %d CTAs at a time (their registers take an SM each)\n",
         me, crowd.free_sms, crowd.sms, crowd.free_sms, ctas);

  const Case cases[] = {{false, false}, {false, true}, {true, false}, {true, true}};
  int salt = 0;
  for (const Case& c : cases) {
    ++salt;
    const size_t n = c.scatter ? n_scatter : n_reduce, in = c.scatter ? n * npes : n;
    int* out = c.in_place ? source : dest;
    set_context("%s, %s, n=%zu, PE %d %s", c.scatter ? "reducescatter" : "reduce",
                c.in_place ? "in place" : "out of place", n, me,
                me == crowded ? "host form, crowded GPU" : scope_name(scope_of(me)));
    fill_device(source, in, me, salt);
    if (!c.in_place) poison_device(dest, words * sizeof(int));
    CUDA_CHECK(cudaMemset(status, 0xff, sizeof(int)));
    if (me == crowded) CUDA_CHECK(cudaMemset(entered, 0, sizeof(int)));
    CUDA_CHECK(cudaDeviceSynchronize());
    gshmem_barrier_all();

    if (me == crowded) {
      if (!GT_CHECK(crowd.fill())) {
        emit(stderr, "PE %d: only %u of %d blocks of its own kernel started within 10 s; the case needs them all\n", me,
             crowd.holding(), crowd.blocks);
        return test_main_epilogue("reduce_room", false);
      }
      int seen = 0;  // every other PE's kernel runs (a copy: no SM needed)
      const auto t0 = std::chrono::steady_clock::now();
      while (seen < npes - 1 && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(20)) {
        CUDA_CHECK(cudaMemcpy(&seen, entered, sizeof(int), cudaMemcpyDeviceToHost));
        std::this_thread::sleep_for(std::chrono::microseconds(100));
      }
      if (!GT_CHECK_EQ(npes - 1, seen)) return test_main_epilogue("reduce_room", false);
      const auto t1 = std::chrono::steady_clock::now();
      const int st = c.scatter ? gshmem_int_sum_reducescatter(GSHMEM_TEAM_WORLD, out, source, n)
                               : gshmem_int_sum_reduce(GSHMEM_TEAM_WORLD, out, source, n);
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t1).count();
      GT_CHECK_EQ(0, st);
      const unsigned held = crowd.holding();
      if (!GT_CHECK(crowd.held_then_release()))
        emit(stderr, "PE %d: its own kernel no longer held the GPU when the call returned; the case proves nothing\n",
             me);
      emit(stdout, "PE %d: %s returned in %.1f ms while %u blocks of its own kernel held %d of %d SMs\n", me,
           c.scatter ? "reducescatter" : "reduce", ms, held, crowd.sms - crowd.free_sms, crowd.sms);
    } else {
      launch_lone(scope_of(me), crowded, entered, out, source, n, c.scatter, status);
      CUDA_CHECK(cudaDeviceSynchronize());
      int st = -2;
      CUDA_CHECK(cudaMemcpy(&st, status, sizeof(int), cudaMemcpyDeviceToHost));
      GT_CHECK_EQ(0, st);
    }

    std::vector<int> got(n);
    CUDA_CHECK(cudaMemcpy(got.data(), out, n * sizeof(int), cudaMemcpyDeviceToHost));
    const size_t base = c.scatter ? static_cast<size_t>(me) * n : 0;
    GT_VERIFY("sum", got.data(), n, [&](size_t i) {
      unsigned s = 0;  // int sums wrap as two's complement: add as unsigned
      for (int pe = 0; pe < npes; ++pe) s += static_cast<unsigned>(hvalue<int>(pe, base + i, salt));
      return static_cast<int>(s);
    });
    if (!c.in_place) {  // nothing past the result
      std::vector<unsigned char> tail((words - n) * sizeof(int));
      CUDA_CHECK(cudaMemcpy(tail.data(), dest + n, tail.size(), cudaMemcpyDeviceToHost));
      size_t bad = 0;
      for (unsigned char b : tail) bad += b != kPoison;
      GT_CHECK_EQ(size_t{0}, bad);
    }
    gshmem_barrier_all();
  }

  CUDA_CHECK(cudaFree(status));
  gshmem_free(entered);
  gshmem_free(dest);
  gshmem_free(source);
  return test_main_epilogue("reduce_room");
}
