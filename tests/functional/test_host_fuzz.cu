// SPDX-License-Identifier: BSD-3-Clause
// host_fuzz (issue 56, item 7): seeded invalid host calls - PEs out of range, addresses outside
// the heap or off by a byte, lengths of 2^63 and SIZE_MAX, strides of 0 and -1, NULL buffers
// with lengths, comparisons and signal operations that do not exist, team handles that are not
// teams, misaligned AMOs, impossible allocations (collective: every PE makes the same bad call) -
// under a watchdog: no call may crash the process, hang (no progress for 10 s: the watchdog
// names the call and the seed and exits 3), or break the library (after the fuzz, a put/get
// round trip, an AMO, a reduction and a barrier must still be right).
// Only arguments the library can check: local buffers are real (a garbage host pointer is the
// caller's segfault, as with memcpy). Calls: GSHMEM_HOST_FUZZ_CALLS (default 2,000; the issue's
// full length 100,000), seed GSHMEM_HOST_FUZZ_SEED (default 56). Exits 77 without a GPU per PE.
// The environment half (every GSHMEM_* variable of the config table with bad values, one line
// each) is the CPU test config_fuzz (tests/unit/test_config_fuzz.cpp).
#include <atomic>
#include <chrono>
#include <climits>
#include <cstdint>
#include <random>
#include <thread>
#include <vector>

#include "common.h"

namespace {

std::atomic<long> g_progress{0};
std::atomic<const char*> g_call{"(none)"};
std::atomic<bool> g_done{false};

void watchdog(uint64_t seed) {
  long last = -1;
  auto since = std::chrono::steady_clock::now();
  while (!g_done.load()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const long p = g_progress.load();
    if (p != last) {
      last = p;
      since = std::chrono::steady_clock::now();
    } else if (std::chrono::steady_clock::now() - since > std::chrono::seconds(10)) {
      fprintf(stdout, "host_fuzz: HANG: call %ld (%s) made no progress for 10 s (seed %llu)\n", p, g_call.load(),
              static_cast<unsigned long long>(seed));
      fflush(nullptr);
      _exit(3);
    }
  }
}

}  // namespace

int main() {
  gt::test_main_prologue(1, 0);
  const int me = gshmem_my_pe(), n = gshmem_n_pes();
  const long calls = gt::env_int("GSHMEM_HOST_FUZZ_CALLS", 2000);
  const uint64_t seed = static_cast<uint64_t>(gt::env_int("GSHMEM_HOST_FUZZ_SEED", 56));
  std::thread dog(watchdog, seed);

  const size_t kBuf = 4096;
  char* sym = static_cast<char*>(gshmem_malloc(kBuf));
  int* ivar = static_cast<int*>(gshmem_calloc(16, sizeof(int)));
  uint64_t* sig = static_cast<uint64_t*>(gshmem_calloc(4, sizeof(uint64_t)));
  int* red = static_cast<int*>(gshmem_malloc(16 * sizeof(int)));
  GT_CHECK(sym && ivar && sig && red);
  if (!(sym && ivar && sig && red)) return gt::test_main_epilogue("host_fuzz");
  std::vector<char> local(kBuf, 7);
  int* dev_nonsym = nullptr;
  CUDA_CHECK(cudaMalloc(&dev_nonsym, 64));
  gshmem_barrier_all();

  std::mt19937_64 rng(seed * 7919 + me);  // this PE's own calls
  std::mt19937_64 all(seed);              // collective calls: the same on every PE
  const int bad_pes[] = {-1, n, n + 7, INT_MAX, INT_MIN};
  const size_t bad_sizes[] = {size_t{1} << 63, SIZE_MAX, SIZE_MAX / 2 + 1, SIZE_MAX - 4096};
  auto bad_pe = [&] { return bad_pes[rng() % 5]; };
  auto good_pe = [&] { return static_cast<int>(rng() % n); };
  // An address that is not symmetric: in the first 4 MiB of the address space, non-symmetric
  // device memory, a host address, or far above everything. Never one below `sym`: that may be
  // the heap's own (the library's flags), which a release build's bounds check lets through.
  auto bad_addr = [&]() -> char* {
    switch (rng() % 4) {
      case 0:
        return reinterpret_cast<char*>(uintptr_t{4096} * (1 + rng() % 1024));
      case 1:
        return reinterpret_cast<char*>(dev_nonsym);
      case 2:
        return local.data();
      default:
        return reinterpret_cast<char*>(uintptr_t{1} << 62);
    }
  };
  long made = 0;
  for (long i = 0; i < calls; ++i, ++made, g_progress.store(made)) {
    // Every 16th call is collective, on every PE at the same iteration (the count of calls is
    // the same everywhere): the others are this PE's own.
    switch (i % 16 == 15 ? 11 : static_cast<int>(rng() % 11)) {
      case 0:
        g_call = "gshmem_putmem (bad PE)";
        gshmem_putmem(sym, local.data(), 1 + rng() % kBuf, bad_pe());
        break;
      case 1:
        g_call = "gshmem_putmem (bad address)";
        gshmem_putmem(bad_addr(), local.data(), 1 + rng() % kBuf, good_pe());
        break;
      case 2:
        g_call = "gshmem_getmem (bad length)";  // lengths no heap holds (a merely long one would overrun `local`)
        gshmem_getmem(local.data(), sym + rng() % kBuf, bad_sizes[rng() % 4], good_pe());
        break;
      case 3:
        g_call = "gshmem_putmem (NULL source)";
        gshmem_putmem(sym, nullptr, 1 + rng() % kBuf, good_pe());
        break;
      case 4: {
        g_call = "gshmem_int_iput (bad stride)";
        const ptrdiff_t strides[] = {0, -1, PTRDIFF_MIN, PTRDIFF_MAX};
        gshmem_int_iput(ivar, reinterpret_cast<const int*>(local.data()), strides[rng() % 4], 1 + rng() % 2,
                        1 + rng() % 8, good_pe());
        break;
      }
      case 5:
        g_call = "gshmem_int_p / _g (bad PE or address)";
        if (rng() % 2)
          gshmem_int_p(ivar, 1, bad_pe());
        else
          (void)gshmem_int_g(reinterpret_cast<int*>(bad_addr()), good_pe());
        break;
      case 6:
        g_call = "gshmem_int_atomic_add (misaligned, bad PE or address)";
        switch (rng() % 3) {
          case 0:
            gshmem_int_atomic_add(reinterpret_cast<int*>(sym + 1 + rng() % 3), 1, good_pe());
            break;
          case 1:
            gshmem_int_atomic_add(ivar, 1, bad_pe());
            break;
          default:
            gshmem_int_atomic_add(reinterpret_cast<int*>(bad_addr()), 1, good_pe());
        }
        break;
      case 7:
        g_call = "gshmem_int_wait_until (bad comparison)";
        gshmem_int_wait_until(ivar, static_cast<int>(6 + rng() % 1000), 0);
        break;
      case 8:
        g_call = "gshmem_putmem_signal (bad sig_op)";
        gshmem_putmem_signal(sym, local.data(), 8, sig, 1, static_cast<int>(2 + rng() % 100), good_pe());
        break;
      case 9:
        g_call = "gshmem_team_my_pe (not a team)";
        (void)gshmem_team_my_pe(static_cast<gshmem_team_t>(1000 + rng() % 100000));
        break;
      case 10:
        g_call = "gshmem_signal_wait_until (bad comparison)";
        (void)gshmem_signal_wait_until(sig, static_cast<int>(-1 - static_cast<int>(rng() % 100)), 0);
        break;
      default: {
        // Collective and bad alike on every PE: an allocation that cannot succeed, a bad
        // alignment, a reduction on a team that does not exist.
        const uint64_t k = all() % 3;
        if (k == 0) {
          g_call = "gshmem_malloc (impossible size)";
          GT_CHECK(gshmem_malloc(bad_sizes[all() % 2]) == nullptr);
        } else if (k == 1) {
          g_call = "gshmem_align (bad alignment)";
          GT_CHECK(gshmem_align(3 + 2 * (all() % 100), 64) == nullptr);
        } else {
          g_call = "gshmem_int_sum_reduce (not a team)";
          GT_CHECK(gshmem_int_sum_reduce(static_cast<gshmem_team_t>(5000 + all() % 100), red, red, 4) != 0);
        }
      }
    }
  }
  g_call = "the check after the fuzz";
  CUDA_CHECK(cudaDeviceSynchronize());  // no call may have broken the context
  gshmem_barrier_all();
  // The library still works: a put/get round trip, an AMO and a reduction, checked.
  const int next = (me + 1) % n, prev = (me + n - 1) % n;
  std::vector<int> v(16), back(16);
  for (int i = 0; i < 16; ++i) v[i] = gt::value<int>(me, i, 7);
  CUDA_CHECK(cudaMemset(ivar, 0, 16 * sizeof(int)));
  gshmem_barrier_all();
  gshmem_putmem(ivar, v.data(), sizeof(int) * 16, next);
  gshmem_barrier_all();
  gshmem_getmem(back.data(), ivar, sizeof(int) * 16, me);
  for (int i = 0; i < 16; ++i) GT_CHECK_EQ(gt::value<int>(prev, i, 7), back[i]);
  gshmem_barrier_all();
  gshmem_int_atomic_add(ivar, 5, next);
  gshmem_barrier_all();
  GT_CHECK_EQ(gt::value<int>(prev, 0, 7) + 5, gshmem_int_g(ivar, me));
  int one = 1;
  CUDA_CHECK(cudaMemcpy(red, &one, sizeof(int), cudaMemcpyHostToDevice));
  gshmem_barrier_all();
  GT_CHECK_EQ(0, gshmem_int_sum_reduce(GSHMEM_TEAM_WORLD, red + 1, red, 1));
  int sum = 0;
  CUDA_CHECK(cudaMemcpy(&sum, red + 1, sizeof(int), cudaMemcpyDeviceToHost));
  GT_CHECK_EQ(n, sum);
  g_done = true;
  dog.join();
  gt::emit(stdout, "host_fuzz: PE %d: %ld seeded bad calls (seed %llu): no crash, no hang, the library still works\n",
           me, made, static_cast<unsigned long long>(seed));
  CUDA_CHECK(cudaFree(dev_nonsym));
  return gt::test_main_epilogue("host_fuzz");
}
