// SPDX-License-Identifier: BSD-3-Clause
// Host time of the blocking host collectives and reductions (broadcast, fcollect, alltoall,
// int64 sum reduce and reducescatter; one element or 8 B, and sizes that take several CTAs),
// against barrier_all (done word since b102fc6) and the on-stream broadcast + a stream
// synchronisation (unchanged): median and p90 of 11 runs of `calls` calls, host time per call,
// in us. After each row one more call of the row's operation on fresh data is checked element
// by element on every PE (dest poisoned first); a mismatch prints "VERIFY FAILED" and the
// program exits 1 at the end.
// Built by hand against the build tree:
//   nvcc -arch=sm_90 -O2 -I include coll_cost.cu -L lib -lgshmem -Xlinker -rpath,'$ORIGIN/../lib'
#include <gshmem/gshmem.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

namespace {
using clk = std::chrono::steady_clock;
int me = 0, npes = 1, failures = 0;
constexpr size_t kBig = 1u << 20;   // bytes per PE of the large rows
constexpr size_t kHeap = 16u << 20; // each of src, dst

template <class F>
void time_it(const char* what, int calls, F&& f) {
  for (int i = 0; i < calls / 10; ++i) f();  // warm-up
  std::vector<double> per_call;
  for (int run = 0; run < 11; ++run) {
    gshmem_barrier_all();
    const auto t0 = clk::now();
    for (int i = 0; i < calls; ++i) f();
    per_call.push_back(std::chrono::duration<double, std::micro>(clk::now() - t0).count() / calls);
  }
  std::sort(per_call.begin(), per_call.end());
  std::printf("PE %d %-52s median %8.3f us  p90 %8.3f us\n", me, what, per_call[5], per_call[9]);
  std::fflush(stdout);
}

uint8_t byte_of(int pe, size_t i, int round) { return static_cast<uint8_t>(pe * 131 + i * 7 + round * 17 + 3); }

struct Bufs {
  uint8_t *src, *dst;
  std::vector<uint8_t> h;
};

void fill(Bufs& b, size_t bytes, int round) {
  for (size_t i = 0; i < bytes; ++i) b.h[i] = byte_of(me, i, round);
  cudaMemcpy(b.src, b.h.data(), bytes, cudaMemcpyHostToDevice);
  cudaMemset(b.dst, 0xEE, bytes * npes);
  cudaDeviceSynchronize();
  gshmem_barrier_all();
}

void report(const char* what, size_t bad, size_t first) {
  if (bad == 0) return;
  ++failures;
  std::printf("PE %d VERIFY FAILED %s: %zu wrong bytes, first at %zu\n", me, what, bad, first);
}

// expect(i) for i < bytes; counts mismatches of dst.
template <class E>
void check(const char* what, Bufs& b, size_t bytes, E expect) {
  std::vector<uint8_t> got(bytes);
  cudaMemcpy(got.data(), b.dst, bytes, cudaMemcpyDeviceToHost);
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < bytes; ++i)
    if (got[i] != expect(i) && bad++ == 0) first = i;
  report(what, bad, first);
}

void verify_bcast(Bufs& b, size_t bytes, int round) {
  fill(b, bytes, round);
  gshmem_broadcastmem(GSHMEM_TEAM_WORLD, b.dst, b.src, bytes, 0);
  if (me != 0) check("broadcast", b, bytes, [&](size_t i) { return byte_of(0, i, round); });
}
void verify_fcollect(Bufs& b, size_t bytes, int round) {
  fill(b, bytes, round);
  gshmem_fcollectmem(GSHMEM_TEAM_WORLD, b.dst, b.src, bytes);
  check("fcollect", b, bytes * npes, [&](size_t i) { return byte_of(static_cast<int>(i / bytes), i % bytes, round); });
}
void verify_alltoall(Bufs& b, size_t bytes, int round) {  // bytes per pair
  fill(b, bytes * npes, round);
  gshmem_alltoallmem(GSHMEM_TEAM_WORLD, b.dst, b.src, bytes);
  // block j of dst = block me of PE j's source
  check("alltoall", b, bytes * npes,
        [&](size_t i) { return byte_of(static_cast<int>(i / bytes), me * bytes + i % bytes, round); });
}
void verify_reduce(Bufs& b, size_t n, bool scatter) {  // n int64 results per PE
  const size_t in = scatter ? n * npes : n;
  std::vector<int64_t> h(in);
  for (size_t i = 0; i < in; ++i) h[i] = static_cast<int64_t>(me) * 1000003 + static_cast<int64_t>(i) * (me + 1);
  cudaMemcpy(b.src, h.data(), in * 8, cudaMemcpyHostToDevice);
  cudaMemset(b.dst, 0xEE, n * 8);
  cudaDeviceSynchronize();
  gshmem_barrier_all();
  auto* d = reinterpret_cast<int64_t*>(b.dst);
  auto* s = reinterpret_cast<int64_t*>(b.src);
  if (scatter) gshmem_int64_sum_reducescatter(GSHMEM_TEAM_WORLD, d, s, n);
  else gshmem_int64_sum_reduce(GSHMEM_TEAM_WORLD, d, s, n);
  std::vector<int64_t> got(n);
  cudaMemcpy(got.data(), d, n * 8, cudaMemcpyDeviceToHost);
  size_t bad = 0, first = 0;
  for (size_t k = 0; k < n; ++k) {
    const int64_t i = static_cast<int64_t>(scatter ? me * n + k : k);
    int64_t want = 0;
    for (int p = 0; p < npes; ++p) want += static_cast<int64_t>(p) * 1000003 + i * (p + 1);
    if (got[k] != want && bad++ == 0) first = k;
  }
  report(scatter ? "reducescatter" : "reduce", bad, first);
}
}  // namespace

int main() {
  gshmem_init();
  me = gshmem_my_pe();
  npes = gshmem_n_pes();
  Bufs b;
  b.src = static_cast<uint8_t*>(gshmem_malloc(kHeap));
  b.dst = static_cast<uint8_t*>(gshmem_malloc(kHeap));
  b.h.resize(kHeap);
  fill(b, kHeap / npes, 0);
  cudaStream_t st;
  cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking);
  auto* d64 = reinterpret_cast<int64_t*>(b.dst);
  auto* s64 = reinterpret_cast<int64_t*>(b.src);
  const size_t big_pair = kBig / npes;  // alltoall: bytes per pair, kBig per PE in all
  char name[96];
  int round = 1;

  time_it("gshmem_barrier_all (host)", 2000, [] { gshmem_barrier_all(); });
  time_it("broadcastmem 8 B on stream + cudaStreamSynchronize", 2000, [&] {
    gshmemx_broadcastmem_on_stream(GSHMEM_TEAM_WORLD, b.dst, b.src, 8, 0, st);
    cudaStreamSynchronize(st);
  });
  for (size_t bytes : {size_t{8}, kBig}) {
    std::snprintf(name, sizeof name, "gshmem_broadcastmem %zu B (host)", bytes);
    time_it(name, bytes > 8 ? 500 : 2000, [&] { gshmem_broadcastmem(GSHMEM_TEAM_WORLD, b.dst, b.src, bytes, 0); });
    verify_bcast(b, bytes, round++);
    std::snprintf(name, sizeof name, "gshmem_fcollectmem %zu B per PE (host)", bytes);
    time_it(name, bytes > 8 ? 500 : 2000, [&] { gshmem_fcollectmem(GSHMEM_TEAM_WORLD, b.dst, b.src, bytes); });
    verify_fcollect(b, bytes, round++);
    const size_t pair = bytes > 8 ? big_pair : 8;
    std::snprintf(name, sizeof name, "gshmem_alltoallmem %zu B per pair (host)", pair);
    time_it(name, bytes > 8 ? 500 : 2000, [&] { gshmem_alltoallmem(GSHMEM_TEAM_WORLD, b.dst, b.src, pair); });
    verify_alltoall(b, pair, round++);
    const size_t n = bytes / 8;
    std::snprintf(name, sizeof name, "gshmem_int64_sum_reduce n=%zu (host)", n);
    time_it(name, bytes > 8 ? 500 : 2000, [&] { gshmem_int64_sum_reduce(GSHMEM_TEAM_WORLD, d64, s64, n); });
    verify_reduce(b, n, false);
    const size_t ns = bytes > 8 ? n / npes : 1;
    std::snprintf(name, sizeof name, "gshmem_int64_sum_reducescatter n=%zu (host)", ns);
    time_it(name, bytes > 8 ? 500 : 2000, [&] { gshmem_int64_sum_reducescatter(GSHMEM_TEAM_WORLD, d64, s64, ns); });
    verify_reduce(b, ns, true);
  }
  gshmem_barrier_all();
  if (me == 0) std::printf("verified: %s\n", failures ? "FAILED" : "all rows on every PE that printed no failure");
  gshmem_finalize();
  return failures ? 1 : 0;
}
