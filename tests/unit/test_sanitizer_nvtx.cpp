// SPDX-License-Identifier: BSD-3-Clause
// The heap's description for compute-sanitizer (host/mem/sanitizer_nvtx.h) without a tool: the
// usual case. attach() must find no tool, register nothing and leave every later call a no-op,
// and cost next to nothing (it runs once per gshmem_init; the others at each malloc and free).
// With a tool (NVTX_INJECTION64_PATH set, e.g. under compute-sanitizer or nsys) the test is
// skipped: what the tool sees is checked on a GPU (sanitizer_nvtx-2).
#include "host/mem/sanitizer_nvtx.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

using gshmem::mem::SanitizerHeap;

namespace {

TEST(SanitizerHeap, WithoutAToolNothingIsRegisteredAndItCostsNothing) {
  if (getenv("NVTX_INJECTION64_PATH") || getenv("NVTX_INJECTION32_PATH")) GTEST_SKIP() << "an NVTX tool is attached";
  std::vector<char> mine(1 << 20), peer(1 << 20);
  const std::vector<char*> windows = {mine.data(), nullptr, peer.data()};
  const std::vector<gshmemi_live_range> live = {{0, 100}, {256, 1000}};
  SanitizerHeap h;
  EXPECT_FALSE(h.attach(windows, mine.size(), live));
  EXPECT_FALSE(h.active());
  h.add({4096, 10});  // no-ops: nothing to register with
  h.remove(4096);
  h.resize(2 << 20, live);
  EXPECT_FALSE(h.active());
  h.detach();

  using clock = std::chrono::steady_clock;
  constexpr int kAttach = 100000, kCalls = 1000000;
  auto t0 = clock::now();
  for (int i = 0; i < kAttach; ++i) h.attach(windows, mine.size(), live);
  const double attach_ns = std::chrono::duration<double, std::nano>(clock::now() - t0).count() / kAttach;
  t0 = clock::now();
  for (int i = 0; i < kCalls; ++i) {
    h.add({static_cast<uint64_t>(i) * 256, 100});
    h.remove(static_cast<uint64_t>(i) * 256);
  }
  const double call_ns = std::chrono::duration<double, std::nano>(clock::now() - t0).count() / (2.0 * kCalls);
  printf("without a tool: attach %.1f ns (once per gshmem_init), add/remove %.2f ns (each malloc/free)\n", attach_ns,
         call_ns);
  EXPECT_FALSE(h.active());
  EXPECT_LT(attach_ns, 10000.0);  // generous: a few ns are expected (the first NVTX call: its set-up)
  EXPECT_LT(call_ns, 100.0);
}

}  // namespace
