// SPDX-License-Identifier: BSD-3-Clause
// soak (issue 56, item 7): long-run evidence that nothing leaks or drifts.
//   1. init/finalize cycles (gshmem_init ... gshmem_finalize, a barrier and an allocation in each)
//   2. grow/free cycles: with GSHMEM_SYMMETRIC_SIZE=64M, 48 MiB and then 96 MiB allocated (the heap
//      grows), written by the next PE and checked, then freed
//   3. a seeded mix of operations - device puts of odd sizes to random PEs, host gets, host and
//      device AMOs, fcollects on a stream, barriers - each round checked by checksums: every
//      byte a PE received, every counter's total, every gathered value
// After phase 1's first cycles (the warm-up: CUDA's own first allocations) and at the end of each
// phase, this process's open fds, RSS and the GPU's free memory are sampled: the fds must not
// change, RSS and GPU memory stay within max(1 %, 2 MiB) of the warm-up sample.
// Lengths: GSHMEM_SOAK_CYCLES (init/finalize; default 20), GSHMEM_SOAK_GROWS (default 10),
// GSHMEM_SOAK_OPS (operations of the mix; default 20,000). The issue's full length: 10000, 1000,
// 1000000. Seed: GSHMEM_SOAK_SEED (default 56). Exits 77 without a GPU per PE.
#include <dirent.h>

#include <chrono>
#include <cstdio>
#include <random>
#include <vector>

#include "common.h"

namespace {

constexpr int kSlot = 4096;  // bytes each PE owns in every other PE's receive area
constexpr int kColl = 37;    // ints per PE in the fcollect (odd)

struct Sample {
  long fds;
  long rss_kib;
  size_t gpu_free;
};

Sample sample() {
  Sample s{0, 0, 0};
  if (DIR* d = opendir("/proc/self/fd")) {
    while (readdir(d) != nullptr) ++s.fds;
    closedir(d);
  }
  if (FILE* f = fopen("/proc/self/statm", "r")) {
    long pages = 0, res = 0;
    if (fscanf(f, "%ld %ld", &pages, &res) == 2) s.rss_kib = res * (sysconf(_SC_PAGESIZE) / 1024);
    fclose(f);
  }
  size_t total = 0;
  if (cudaMemGetInfo(&s.gpu_free, &total) != cudaSuccess) cudaGetLastError();
  return s;
}

bool within(double base, double now) {
  const double slack = std::max(0.01 * base, 2.0 * 1024 * 1024);
  return now <= base + slack && now >= base - slack;
}

void check_flat(const char* phase, const Sample& base, const Sample& now, int me) {
  gt::emit(stdout, "soak: PE %d after %s: fds %ld (%ld), RSS %ld KiB (%ld), GPU free %zu MiB (%zu)\n", me, phase,
           now.fds, base.fds, now.rss_kib, base.rss_kib, now.gpu_free >> 20, base.gpu_free >> 20);
  gt::set_context("soak: %s: resources against the warm-up sample", phase);
  GT_CHECK_EQ(base.fds, now.fds);
  GT_CHECK(within(static_cast<double>(base.rss_kib) * 1024, static_cast<double>(now.rss_kib) * 1024));
  GT_CHECK(within(static_cast<double>(base.gpu_free), static_cast<double>(now.gpu_free)));
}

__global__ void k_put(char* dst, const char* src, size_t n, int pe) {
  gshmemx_putmem_nbi_block(dst, src, n, pe);
  gshmem_quiet();
}
__global__ void k_add(unsigned long long* c, unsigned long long v, int pe) { gshmem_ulonglong_atomic_add(c, v, pe); }

// The bytes PE `from` puts into its slot at PE `to` in round `round`.
unsigned char pattern(int from, int to, uint64_t round, size_t i) {
  return static_cast<unsigned char>(gt::hash3(from * 4096 + to, i, round) | 1);
}

}  // namespace

int main() {
  gt::require_gpus(1, 0);
  const int cycles = gt::env_int("GSHMEM_SOAK_CYCLES", 20), grows = gt::env_int("GSHMEM_SOAK_GROWS", 10);
  const long ops = gt::env_int("GSHMEM_SOAK_OPS", 20000);
  const uint64_t seed = static_cast<uint64_t>(gt::env_int("GSHMEM_SOAK_SEED", 56));
  const auto t0 = std::chrono::steady_clock::now();
  Sample base{};
  int me = 0, n = 1;

  // 1. init/finalize cycles
  for (int c = 0; c < cycles; ++c) {
    gshmem_init();
    me = gshmem_my_pe();
    n = gshmem_n_pes();
    gt::stats().me = me;
    int* x = static_cast<int*>(gshmem_malloc(sizeof(int) * 64));
    GT_CHECK(x != nullptr);
    gshmem_barrier_all();
    gshmem_free(x);
    gshmem_finalize();
    if (c == std::min(2, cycles - 1)) base = sample();  // the warm-up's end
  }
  check_flat("init/finalize cycles", base, sample(), me);

  gshmem_init();
  me = gshmem_my_pe();
  n = gshmem_n_pes();
  const int next = (me + 1) % n, prev = (me + n - 1) % n;

  // 2. grow/free cycles. The heap keeps the chunks it grew (never unmapped): GPU memory is
  // compared from the end of the first cycle, which grew it.
  Sample grow_base{};
  for (int g = 0; g < grows; ++g) {
    const size_t sizes[2] = {48u << 20, 96u << 20};
    char* p[2] = {nullptr, nullptr};
    for (int k = 0; k < 2; ++k) {
      p[k] = static_cast<char*>(gshmem_malloc(sizes[k]));
      gt::set_context("soak: grow cycle %d, allocation %d", g, k);
      GT_CHECK(p[k] != nullptr);
    }
    if (p[0] == nullptr || p[1] == nullptr) break;
    gshmem_barrier_all();
    for (int k = 0; k < 2; ++k) gshmem_int_p(reinterpret_cast<int*>(p[k] + sizes[k] - 4), g * 10 + k + me, next);
    gshmem_barrier_all();
    for (int k = 0; k < 2; ++k)
      GT_CHECK_EQ(g * 10 + k + prev, gshmem_int_g(reinterpret_cast<int*>(p[k] + sizes[k] - 4), me));
    gshmem_barrier_all();
    gshmem_free(p[1]);
    gshmem_free(p[0]);
    if (g == 0) grow_base = sample();
  }
  if (grows > 0) check_flat("grow/free cycles", grow_base, sample(), me);

  // 3. the seeded mix
  char* recv = static_cast<char*>(gshmem_malloc(static_cast<size_t>(kSlot) * n));
  char* send = static_cast<char*>(gshmem_malloc(kSlot));
  auto* counter = static_cast<unsigned long long*>(gshmem_calloc(1, sizeof(unsigned long long)));
  int* csrc = static_cast<int*>(gshmem_malloc(sizeof(int) * kColl));
  int* cdst = static_cast<int*>(gshmem_malloc(sizeof(int) * kColl * n));
  GT_CHECK(recv && send && counter && csrc && cdst);
  if (!(recv && send && counter && csrc && cdst)) return gt::test_main_epilogue("soak");
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreate(&s));
  std::mt19937_64 rng(seed * 1000 + me);  // this PE's own choices
  std::mt19937_64 common_rng(seed);       // choices every PE makes alike (collectives, rounds)
  unsigned long long added = 0;           // what this PE added to every PE's counter
  std::vector<unsigned char> h(kSlot);
  const Sample mix_base = sample();
  long done = 0;
  uint64_t round = 0;
  while (done < ops) {
    ++round;
    const int per_round = 50 + static_cast<int>(common_rng() % 50);
    // puts: this round's slot of this PE on a seeded set of PEs (odd sizes), device or host
    const size_t len = 1 + common_rng() % kSlot;
    for (size_t i = 0; i < len; ++i) h[i] = pattern(me, 0, round, i);
    CUDA_CHECK(cudaMemcpy(send, h.data(), len, cudaMemcpyHostToDevice));
    for (int k = 0; k < per_round; ++k, ++done) {
      const int pe = static_cast<int>(rng() % n);
      switch (rng() % 4) {
        case 0:
          k_put<<<1, 128>>>(recv + static_cast<size_t>(me) * kSlot, send, len, pe);
          CUDA_CHECK(cudaGetLastError());
          break;
        case 1:
          gshmem_putmem(recv + static_cast<size_t>(me) * kSlot, h.data(), len, pe);
          break;
        case 2: {
          const unsigned long long v = 1 + rng() % 1000;
          gshmem_ulonglong_atomic_add(counter, v, pe);
          added += v;
          break;
        }
        default: {
          const unsigned long long v = 1 + rng() % 1000;
          k_add<<<1, 1>>>(counter, v, pe);
          CUDA_CHECK(cudaGetLastError());
          added += v;
        }
      }
    }
    // and one to every PE, so that every slot must hold this round's data
    for (int pe = 0; pe < n; ++pe) gshmem_putmem(recv + static_cast<size_t>(me) * kSlot, h.data(), len, pe);
    CUDA_CHECK(cudaDeviceSynchronize());
    gshmem_barrier_all();
    // every slot, byte by byte: the same data from every put of its PE this round
    std::vector<unsigned char> got(static_cast<size_t>(kSlot) * n);
    CUDA_CHECK(cudaMemcpy(got.data(), recv, got.size(), cudaMemcpyDeviceToHost));
    for (int from = 0; from < n; ++from) {
      const unsigned char* g = got.data() + static_cast<size_t>(from) * kSlot;
      size_t bad = 0;
      for (size_t i = 0; i < len; ++i) bad += g[i] != pattern(from, 0, round, i);
      gt::set_context("soak: round %llu, slot of PE %d (%zu bytes)", static_cast<unsigned long long>(round), from, len);
      GT_CHECK_EQ(size_t{0}, bad);
    }
    // an fcollect on a stream every round, checked whole
    int hc[kColl];
    for (int i = 0; i < kColl; ++i) hc[i] = gt::value<int>(me, i, round);
    CUDA_CHECK(cudaMemcpy(csrc, hc, sizeof(hc), cudaMemcpyHostToDevice));
    GT_CHECK_EQ(0, gshmemx_int_fcollect_on_stream(GSHMEM_TEAM_WORLD, cdst, csrc, kColl, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    std::vector<int> all(static_cast<size_t>(kColl) * n);
    CUDA_CHECK(cudaMemcpy(all.data(), cdst, sizeof(int) * all.size(), cudaMemcpyDeviceToHost));
    size_t wrong = 0;
    for (int p = 0; p < n; ++p)
      for (int i = 0; i < kColl; ++i) wrong += all[static_cast<size_t>(p) * kColl + i] != gt::value<int>(p, i, round);
    gt::set_context("soak: round %llu, fcollect", static_cast<unsigned long long>(round));
    GT_CHECK_EQ(size_t{0}, wrong);
    done += 1;
  }
  // the counters: every PE's total is the sum of what all PEs added to it - each PE adds to
  // random PEs, so the check is global: the sum over PEs of the counters equals the sum of adds
  gshmem_barrier_all();
  unsigned long long total = 0;
  for (int p = 0; p < n; ++p) total += gshmem_ulonglong_g(counter, p);
  unsigned long long* sums = static_cast<unsigned long long*>(gshmem_calloc(n, sizeof(unsigned long long)));
  for (int p = 0; p < n; ++p) gshmem_ulonglong_p(sums + me, added, p);
  gshmem_barrier_all();
  std::vector<unsigned long long> hs(n);
  CUDA_CHECK(cudaMemcpy(hs.data(), sums, sizeof(unsigned long long) * n, cudaMemcpyDeviceToHost));
  unsigned long long expect = 0;
  for (unsigned long long v : hs) expect += v;
  gt::set_context("soak: AMO totals");
  GT_CHECK_EQ(expect, total);
  check_flat("the operation mix", mix_base, sample(), me);
  CUDA_CHECK(cudaStreamDestroy(s));
  gshmem_barrier_all();
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  gt::emit(stdout, "soak: PE %d: %d init/finalize cycles, %d grow/free cycles, %ld operations in %llu rounds, %.1f s\n",
           me, cycles, grows, done, static_cast<unsigned long long>(round), secs);
  gshmem_free(sums);
  return gt::test_main_epilogue("soak");
}
