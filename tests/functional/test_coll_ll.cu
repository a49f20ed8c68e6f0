// SPDX-License-Identifier: BSD-3-Clause
// The LL path of the tiny collectives (device/impl/coll_ll.cuh) under reuse pressure.
// Every member makes thousands of calls on one team back to back, with no barrier in
// between: alltoall, fcollect and broadcast (rotating root) of 1..M bytes (M: the LL
// message size of these teams, GSHMEM_LL_MAX_BYTES, 256 by default, at most 1 KiB here;
// every other round of them at most 16 bytes) and sum reductions of 4..M bytes (int,
// double), which all share the team's two LL buffers, with a push-path alltoall or
// reduction every sixth call (coll_ll_4k-N: GSHMEM_LL_MAX_BYTES=4K, so M is 1 KiB - a lone
// thread's many lines and their remainders - and those take the LL path too). Members are skewed by
// PE-dependent sleeps and run in different forms at once: device thread / warp / block
// scope, and one member through the on-stream or the host C names.
// Call i reads source slot i and writes dest slot i, and every slot's data depends on
// i, so a word taken from the wrong call (a stale one, or one overwritten before it was
// read) shows as a wrong byte. The host checks every byte of every dest slot, including
// that the bytes after each result still hold the poison. Teams: WORLD, and world PEs
// 1..N-1 (at 3 PEs and more).
// Tags across their wrap (ll_refresh): on a new team, whose LL words are all zero, every
// member's count of LL calls is moved to just before call j * 2^31 (j = 1, 2, ...), and
// calls j * 2^31 + 0, 1, 2 follow (the first two rewrite the words of each parity). One
// member enters each call at once, the others 2 ms late, so it polls words its peers have
// not yet written: a word still zero, or left by call (j - 2) * 2^31 + i, would carry the
// call's tag without the rewrite, and the early member would take it.
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "coll_test.cuh"

using namespace gt;

namespace {

enum Kind : int { kAlltoall, kFcollect, kBroadcast, kIntSum, kDoubleSum };

struct Call {
  int kind;
  uint64_t bytes;  // per pair (alltoall), per member (fcollect), message or array bytes
  int root;        // broadcast
};

// M: GSHMEM_LL_MAX_BYTES as the library reads it (a power of two; suffix K; unset: the
// default), from 64 to 1 KiB.
uint64_t ll_max_of_env() {
  const char* v = getenv("GSHMEM_LL_MAX_BYTES");
  uint64_t m = v != nullptr ? strtoull(v, nullptr, 10) : gshmem::detail::kLLDefaultBytes;
  if (v != nullptr && strpbrk(v, "kK") != nullptr) m *= 1024;
  uint64_t p = 64;
  while (p < 1024 && 2 * p <= m) p *= 2;
  return p;
}

// Message bytes of LL call i: 1..16 in even rounds, 17..M in odd ones.
GT_HD inline uint64_t ll_bytes(uint64_t i, uint64_t mul, uint64_t m) {
  return (i / 6) % 2 ? 17 + (i * mul) % (m - 16) : 1 + (i * mul) % 16;
}

// Call i on a team of n members. Every sixth takes the push path (over the LL sizes).
GT_HD inline Call call_of(uint64_t i, int n, uint64_t m) {
  const uint64_t r = i / 6;
  switch (i % 6) {
    case 0:
      return Call{kAlltoall, ll_bytes(i, 7, m), 0};
    case 1:
      return Call{kFcollect, ll_bytes(i, 37, m), 0};
    case 2:
      return Call{kBroadcast, ll_bytes(i, 3, m), static_cast<int>(r % static_cast<uint64_t>(n))};
    case 3:
      return Call{kIntSum, 4 * (1 + (r * 13) % (m / 4)), 0};
    case 4:
      return Call{kDoubleSum, 8 * (1 + (r * 5) % (m / 8)), 0};
    default:
      return r % 2 ? Call{kAlltoall, m + 1 + r % 9, 0} : Call{kIntSum, m + 4 * (1 + r % 5), 0};
  }
}

// Bytes of one slot (the largest dest: a push-path alltoall of M + 9 bytes a pair).
uint64_t slot_bytes(int n, uint64_t m) { return (m + 16) * static_cast<uint64_t>(n); }

// Skew: some calls start late on some members (up to 6 us).
__device__ inline void skew(uint64_t i, int me) {
  const uint64_t h = mix64(i * 977 + static_cast<uint64_t>(me));
  if (h % 5 == 0) __nanosleep(static_cast<unsigned>(1000 + h % 5000));
}

template <class S>
__device__ int device_call(gshmem_team_t team, const Call& c, unsigned char* d, const unsigned char* s) {
  switch (c.kind) {
    case kAlltoall:
      return gshmem::alltoallmem<S>(team, d, s, c.bytes);
    case kFcollect:
      return gshmem::fcollectmem<S>(team, d, s, c.bytes);
    case kBroadcast:
      return gshmem::broadcastmem<S>(team, d, s, c.bytes, c.root);
    case kIntSum:
      return gshmem::reduce<gshmem::op::sum, S>(team, reinterpret_cast<int*>(d), reinterpret_cast<const int*>(s),
                                                c.bytes / 4);
    default:
      return gshmem::reduce<gshmem::op::sum, S>(team, reinterpret_cast<double*>(d), reinterpret_cast<const double*>(s),
                                                c.bytes / 8);
  }
}

// Calls first .. first+count-1 in one kernel, each call_of(i) after its skew; or, when
// one.kind >= 0, the one call `one` (slot first, count 1) after delay_ns. *errors counts
// nonzero return values. One kernel per scope for both phases: each inlines every
// collective, and a second kernel per scope doubled this file's compile time.
template <class S>
__global__ void __launch_bounds__(1024)
    k_calls(gshmem_team_t team, int n, int me, uint64_t m, unsigned char* dest, const unsigned char* src,
            uint64_t stride, uint64_t first, uint64_t count, Call one, uint64_t delay_ns, int* errors) {
  using gshmem::detail::global_timer_ns;
  for (const uint64_t t0 = global_timer_ns(); global_timer_ns() - t0 < delay_ns;) __nanosleep(10000);
  for (uint64_t i = first; i < first + count; ++i) {
    if (one.kind < 0) skew(i, me);
    const int r = device_call<S>(team, one.kind < 0 ? call_of(i, n, m) : one, dest + i * stride, src + i * stride);
    if (r != 0 && S::rank() == 0) atomicAdd(errors, 1);
  }
}

int host_call(gshmem_team_t team, const Call& c, unsigned char* d, const unsigned char* s, cudaStream_t st) {
  int* di = reinterpret_cast<int*>(d);
  double* dd = reinterpret_cast<double*>(d);
  const int* si = reinterpret_cast<const int*>(s);
  const double* sd = reinterpret_cast<const double*>(s);
  if (st != nullptr) {
    switch (c.kind) {
      case kAlltoall:
        return gshmemx_alltoallmem_on_stream(team, d, s, c.bytes, st);
      case kFcollect:
        return gshmemx_fcollectmem_on_stream(team, d, s, c.bytes, st);
      case kBroadcast:
        return gshmemx_broadcastmem_on_stream(team, d, s, c.bytes, c.root, st);
      case kIntSum:
        return gshmemx_int_sum_reduce_on_stream(team, di, si, c.bytes / 4, st);
      default:
        return gshmemx_double_sum_reduce_on_stream(team, dd, sd, c.bytes / 8, st);
    }
  }
  switch (c.kind) {
    case kAlltoall:
      return gshmem_alltoallmem(team, d, s, c.bytes);
    case kFcollect:
      return gshmem_fcollectmem(team, d, s, c.bytes);
    case kBroadcast:
      return gshmem_broadcastmem(team, d, s, c.bytes, c.root);
    case kIntSum:
      return gshmem_int_sum_reduce(team, di, si, c.bytes / 4);
    default:
      return gshmem_double_sum_reduce(team, dd, sd, c.bytes / 8);
  }
}

// Source data of world PE pe for call i: bytes, or ints / integer-valued doubles (exact sums).
unsigned char src_byte(int pe, uint64_t i, uint64_t k) {
  return static_cast<unsigned char>(hash3(pe, i * 65536 + k, 81000) % 251 + 1);
}
int src_int(int pe, uint64_t i, uint64_t k) {
  return static_cast<int>(hash3(pe, i * 65536 + k, 82000) % 1000001) - 500000;
}
double src_double(int pe, uint64_t i, uint64_t k) {
  return static_cast<double>(static_cast<int64_t>(hash3(pe, i * 65536 + k, 83000) % 2000000001) - 1000000000);
}

// Source slot i of world PE pe, as the call reads it.
void fill_slot(int pe, uint64_t i, const Call& c, unsigned char* slot, uint64_t bytes) {
  memset(slot, 0, bytes);
  if (c.kind == kIntSum) {
    for (uint64_t k = 0; k < c.bytes / 4; ++k) {
      const int v = src_int(pe, i, k);
      memcpy(slot + 4 * k, &v, 4);
    }
  } else if (c.kind == kDoubleSum) {
    for (uint64_t k = 0; k < c.bytes / 8; ++k) {
      const double v = src_double(pe, i, k);
      memcpy(slot + 8 * k, &v, 8);
    }
  } else {
    for (uint64_t k = 0; k < bytes; ++k) slot[k] = src_byte(pe, i, k);
  }
}

// Expected dest slot i of team PE me (world PEs in `world`); `len` gets the result's bytes.
void expect_slot(const TestTeam& t, uint64_t i, const Call& c, unsigned char* want, uint64_t* len) {
  const int n = t.size, me = t.me;
  switch (c.kind) {
    case kAlltoall:
      *len = c.bytes * n;
      for (int j = 0; j < n; ++j)
        for (uint64_t k = 0; k < c.bytes; ++k) want[j * c.bytes + k] = src_byte(t.world[j], i, me * c.bytes + k);
      break;
    case kFcollect:
      *len = c.bytes * n;
      for (int j = 0; j < n; ++j)
        for (uint64_t k = 0; k < c.bytes; ++k) want[j * c.bytes + k] = src_byte(t.world[j], i, k);
      break;
    case kBroadcast:
      *len = c.bytes;
      for (uint64_t k = 0; k < c.bytes; ++k) want[k] = src_byte(t.world[c.root], i, k);
      break;
    case kIntSum:
      *len = c.bytes;
      for (uint64_t k = 0; k < c.bytes / 4; ++k) {
        int s = 0;
        for (int j = 0; j < n; ++j) s += src_int(t.world[j], i, k);
        memcpy(want + 4 * k, &s, 4);
      }
      break;
    default:
      *len = c.bytes;
      for (uint64_t k = 0; k < c.bytes / 8; ++k) {
        double s = 0;
        for (int j = 0; j < n; ++j) s += src_double(t.world[j], i, k);
        memcpy(want + 8 * k, &s, 8);
      }
  }
}

// How this member takes part in a phase.
enum class Way { thread, warp, block, stream, host };
const char* way_name(Way w) {
  switch (w) {
    case Way::thread:
      return "device thread";
    case Way::warp:
      return "device warp";
    case Way::block:
      return "device block of 256";
    case Way::stream:
      return "on-stream";
    case Way::host:
      return "host";
  }
  return "?";
}

struct Bufs {
  uint64_t m = 64;  // M
  unsigned char* dest = nullptr;
  unsigned char* src = nullptr;
  uint64_t bytes = 0;
  int* errors = nullptr;
};

// Launches k_calls for device way w (thread, warp or block) on slots first..first+count-1.
void launch_calls(Way w, const Bufs& b, const TestTeam& t, uint64_t first, uint64_t count, const Call& one,
                  uint64_t delay_ns) {
  const uint64_t stride = slot_bytes(t.size, b.m);
  auto go = [&](auto kernel, unsigned threads) {
    kernel<<<1, threads>>>(t.team, t.size, t.me, b.m, b.dest, b.src, stride, first, count, one, delay_ns, b.errors);
  };
  if (w == Way::thread)
    go(k_calls<gshmem::thread_scope>, 1);
  else if (w == Way::warp)
    go(k_calls<gshmem::warp_scope>, 32);
  else
    go(k_calls<gshmem::block_scope>, 256);
}

// Fills this member's source slots first .. first+count-1 for the calls call_of_slot(i),
// poisons the dest slots and clears the error count.
template <class CallOf>
void prepare_slots(Bufs& b, const TestTeam& t, uint64_t first, uint64_t count, CallOf call_of_slot) {
  const uint64_t stride = slot_bytes(t.size, b.m);
  std::vector<unsigned char> h(count * stride);
  for (uint64_t i = first; i < first + count; ++i)
    fill_slot(t.world[t.me], i, call_of_slot(i), h.data() + (i - first) * stride, stride);
  CUDA_CHECK(cudaMemcpy(b.src + first * stride, h.data(), h.size(), cudaMemcpyHostToDevice));
  poison_device(b.dest + first * stride, count * stride);
  CUDA_CHECK(cudaMemset(b.errors, 0, sizeof(int)));
}

// Checks that no call returned an error (the kernels' count and host_errors), then every
// byte of dest slots first .. first+count-1 against expect_slot (slot i holds the result of
// call_of_slot(i), named in failures by name(i)) and the poison after it; then syncs the
// team, so that every member checked its slots before the next phase writes.
template <class CallOf, class Name>
void check_slots(const Bufs& b, const TestTeam& t, uint64_t first, uint64_t count, int host_errors, CallOf call_of_slot,
                 Name name) {
  int dev_errors = 0;
  CUDA_CHECK(cudaMemcpy(&dev_errors, b.errors, sizeof(int), cudaMemcpyDeviceToHost));
  GT_CHECK_EQ(0, dev_errors + host_errors);
  const uint64_t stride = slot_bytes(t.size, b.m);
  std::vector<unsigned char> h(count * stride), want(stride);
  CUDA_CHECK(cudaMemcpy(h.data(), b.dest + first * stride, h.size(), cudaMemcpyDeviceToHost));
  uint64_t bad = 0;
  for (uint64_t i = first; i < first + count; ++i) {
    const Call c = call_of_slot(i);
    uint64_t len = 0;
    expect_slot(t, i, c, want.data(), &len);
    const unsigned char* got = h.data() + (i - first) * stride;
    for (uint64_t k = 0; k < stride; ++k) {
      const unsigned char e = k < len ? want[k] : kPoison;
      if (got[k] != e && bad++ < 8)
        fail_line(__FILE__, __LINE__, "%s (kind %d, %llu bytes, root %d): dest byte %llu: expected 0x%02x, got 0x%02x",
                  name(i).c_str(), c.kind, static_cast<unsigned long long>(c.bytes), c.root,
                  static_cast<unsigned long long>(k), e, got[k]);
    }
  }
  stats().checks += static_cast<long long>(count * stride);
  stats().failures += static_cast<long long>(bad);
  gshmem_team_sync(t.team);
}

// Calls first .. first+count-1 on team t, this member taking part in way w; then checks
// every dest slot.
void phase(Bufs& b, const TestTeam& t, Way w, uint64_t first, uint64_t count) {
  const uint64_t stride = slot_bytes(t.size, b.m);
  set_context("LL stress, team %s, calls %llu..%llu, this member %s", t.name.c_str(),
              static_cast<unsigned long long>(first), static_cast<unsigned long long>(first + count - 1), way_name(w));
  prepare_slots(b, t, first, count, [&](uint64_t i) { return call_of(i, t.size, b.m); });
  gshmem_team_sync(t.team);

  int host_errors = 0;
  switch (w) {
    case Way::thread:
    case Way::warp:
    case Way::block:
      launch_calls(w, b, t, first, count, Call{-1, 0, 0}, 0);
      break;
    case Way::stream:
    case Way::host:
      for (uint64_t i = first; i < first + count; ++i)
        if (host_call(t.team, call_of(i, t.size, b.m), b.dest + i * stride, b.src + i * stride,
                      w == Way::stream ? test_stream() : nullptr) != 0)
          ++host_errors;
      break;
  }
  KERNEL_CHECK();
  CUDA_CHECK(cudaDeviceSynchronize());
  check_slots(
      b, t, first, count, host_errors, [&](uint64_t i) { return call_of(i, t.size, b.m); },
      [](uint64_t i) { return "call " + std::to_string(i); });
}

// ---------------------------------------------------------------- tags across the wrap

// Sets this member's count of LL calls on `team` (no LL call in flight on any member).
__global__ void k_set_ll_count(gshmem_team_t team, uint64_t count) {
  const gshmem::detail::ll_area a = gshmem::detail::ll_area_of(gshmem::detail::team_entry(team));
  if (a.count != nullptr) *a.count = count;
}

// The member that enters call `step` of the wrap phase at once (the others come late).
int wrap_early(uint64_t step, int n) { return static_cast<int>((step / 5) % static_cast<uint64_t>(n)); }

// Call `step` of the wrap phase on a team of n members (every size from 4 to M bytes).
Call wrap_call(uint64_t step, int n, uint64_t m) {
  const int early = wrap_early(step, n);
  const uint64_t bytes = 4 * (1 + (step * 29) % (m / 4));
  switch (step % 5) {
    case 0:
      return Call{kAlltoall, bytes, 0};
    case 1:
      return Call{kFcollect, bytes, 0};
    case 2:
      return Call{kBroadcast, bytes, (early + 1) % n};  // a late root: the early member receives
    case 3:
      return Call{kIntSum, bytes, 0};
    default:
      return Call{kDoubleSum, 8 * (1 + (step * 29) % (m / 8)), 0};
  }
}

// Calls first .. first+count-1 (first and count multiples of 3) of the wrap phase, this
// member taking part in way w; call 3j + i is call (j + 1) * 2^31 + i of the team's LL
// calls. Slots first.. of b's buffers.
void wrap_phase(Bufs& b, const TestTeam& t, Way w, uint64_t first, uint64_t count) {
  constexpr uint64_t kRefresh = gshmem::detail::kLLRefreshCalls, kLateNs = 2000000;
  const uint64_t stride = slot_bytes(t.size, b.m);
  set_context("LL tags across the wrap, team %s, calls %llu..%llu, this member %s", t.name.c_str(),
              static_cast<unsigned long long>(first), static_cast<unsigned long long>(first + count - 1), way_name(w));
  prepare_slots(b, t, first, count, [&](uint64_t s) { return wrap_call(s, t.size, b.m); });
  int host_errors = 0;
  for (uint64_t s = first; s < first + count; ++s) {
    const Call c = wrap_call(s, t.size, b.m);
    const bool late = t.me != wrap_early(s, t.size);
    unsigned char* d = b.dest + s * stride;
    const unsigned char* src = b.src + s * stride;
    if (s % 3 == 0) {
      gshmem_team_sync(t.team);  // every member is done with the previous call
      k_set_ll_count<<<1, 1>>>(t.team, (s / 3 + 1) * kRefresh - 1);
      KERNEL_CHECK();
      CUDA_CHECK(cudaDeviceSynchronize());
      gshmem_team_sync(t.team);  // every member's count is moved
    }
    const uint64_t delay = late ? kLateNs : 0;
    switch (w) {
      case Way::thread:
      case Way::warp:
      case Way::block:
        launch_calls(w, b, t, s, 1, c, delay);
        break;
      case Way::stream:
      case Way::host:
        if (late) std::this_thread::sleep_for(std::chrono::nanoseconds(delay));
        if (host_call(t.team, c, d, src, w == Way::stream ? test_stream() : nullptr) != 0) ++host_errors;
        break;
    }
    KERNEL_CHECK();
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  check_slots(
      b, t, first, count, host_errors, [&](uint64_t s) { return wrap_call(s, t.size, b.m); },
      [](uint64_t s) { return "call " + std::to_string(s / 3 + 1) + " * 2^31 + " + std::to_string(s % 3); });
}

}  // namespace

int main() {
  test_main_prologue(2, 0);
  const int npes = gshmem_n_pes();
  // Across simulated nodes (GT_SIM_QUICK=1) a tenth of the device calls: each crosses the proxy.
  const uint64_t kDevice = sim_quick() ? 300 : 3000, kStream = sim_quick() ? 60 : 300, kHost = 60;
  const uint64_t calls = 4 * kDevice + kStream + kHost;
  Bufs b;
  b.m = ll_max_of_env();
  b.bytes = calls * slot_bytes(npes, b.m);
  b.dest = static_cast<unsigned char*>(gshmem_malloc(b.bytes));
  b.src = static_cast<unsigned char*>(gshmem_malloc(b.bytes));
  GT_CHECK(b.dest != nullptr && b.src != nullptr);
  CUDA_CHECK(cudaMalloc(&b.errors, sizeof(int)));

  std::vector<TestTeam> teams = make_test_teams();
  const Way device_ways[] = {Way::thread, Way::warp, Way::block};
  for (size_t ti = 0; ti < 2 && ti < teams.size(); ++ti) {
    const TestTeam& t = teams[ti];
    if (t.member() && t.size >= 2) {
      uint64_t first = 0;
      // Every member in one device form, then each member in a different one.
      for (Way w : device_ways) {
        phase(b, t, w, first, kDevice);
        first += kDevice;
      }
      phase(b, t, device_ways[t.me % 3], first, kDevice);
      first += kDevice;
      // One member through the on-stream names, then one through the host names.
      phase(b, t, t.me == 0 ? Way::stream : device_ways[(t.me + 1) % 3], first, kStream);
      first += kStream;
      phase(b, t, t.me == t.size - 1 ? Way::host : device_ways[t.me % 3], first, kHost);
    }
    gshmem_barrier_all();
  }

  // Tags across the wrap, on a new team (its LL words all zero); every way in turn, then
  // each member in a different one.
  TestTeam fresh;
  fresh.name = "new team of every PE";
  fresh.created = true;
  GT_CHECK_STATUS(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 1, npes, nullptr, 0, &fresh.team));
  describe(fresh);
  constexpr uint64_t kWrapSteps = 18;  // a multiple of 3: calls j * 2^31 + 0, 1, 2
  uint64_t step = 0;
  for (Way w : {Way::thread, Way::warp, Way::block, Way::stream, Way::host}) {
    wrap_phase(b, fresh, w, step, kWrapSteps);
    step += kWrapSteps;
  }
  const Way mixed[] = {Way::thread, Way::warp, Way::block, Way::stream, Way::host};
  wrap_phase(b, fresh, mixed[fresh.me % 5], step, kWrapSteps);
  teams.push_back(fresh);
  destroy_test_teams(teams);
  gshmem_free(b.dest);
  gshmem_free(b.src);
  cudaFree(b.errors);
  return test_main_epilogue("coll_ll");
}
