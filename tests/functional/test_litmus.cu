// SPDX-License-Identifier: BSD-3-Clause
// Memory-model litmus tests (docs/memory-model.md). Every PE produces messages
// for the next PE and consumes the previous PE's (a ring; at 2 PEs a pair in
// both directions), producer and consumer in two concurrently running blocks
// of one long kernel. A consumer that has seen a message's flag reads the
// message; a stale element is a FORBIDDEN outcome and is counted (must be 0).
// Messages rotate through kSlots slots; the consumer acks each message so the
// producer never overwrites a slot that is still being read.
//   fence       putmem(data); fence; int_p(flag)        -> int_wait_until(flag)
//   put_signal  putmem_signal_nbi(data, sig, SET)        -> signal_wait_until(sig)
//   quiet       putmem_nbi(data); quiet; int_p(flag)    -> int_wait_until(flag)
//   amo         putmem(data); fence; int_atomic_inc(cnt) -> int_wait_until(cnt, GE)
//   barrier     putmem_nbi(data); barrier(a team of one); int_p(flag) -> int_wait_until(flag)
//               (a barrier quiets even when its team has no other member)
// 10^5 messages each, message lengths 1..61 ints. Then at warp and block scope
// (the data written by all threads of the scope, checked by every thread of the
// consumer block), 2053-int messages:
//   put_signal  putmem_signal_nbi_<scope>                       2*10^4 messages
//   quiet       putmem_nbi_<scope>; quiet<scope>; int_p(flag)   10^4 messages
//   barrier     putmem_nbi_<scope>; barrier<scope>(a team of one); int_p(flag)
// where int_p is by the scope's LAST thread (another warp than the one that
// fences, in a block): the scope's quiet covers every thread after it.
// Longer runs (issue 56: 10^6): GT_LITMUS_ITERS sets the thread tests' count,
// GT_LITMUS_SCOPE_ITERS the scoped put_signal count (the others take half).
#include "common.cuh"

using namespace gt;

namespace {

constexpr int kSlots = 8;
constexpr int kMaxLen = 61;
constexpr int kIters = 100000;
constexpr int kScopeIters = 20000;
constexpr int kScopeLen = 2053;  // ints per scoped message (odd)

enum Kind { kFence = 0, kPutSignal = 1, kQuiet = 2, kAmo = 3, kBarrierSelf = 4 };
const char* kind_name(int k) {
  return k == kFence       ? "putmem; fence; int_p -> wait_until"
         : k == kPutSignal ? "putmem_signal_nbi -> signal_wait_until"
         : k == kQuiet     ? "putmem_nbi; quiet; int_p -> wait_until"
         : k == kAmo       ? "putmem; fence; atomic_inc -> wait_until(GE)"
                           : "putmem_nbi; barrier(team of one); int_p -> wait_until";
}

__host__ __device__ inline int msg_len(int it) { return 1 + (it * 13) % kMaxLen; }
__host__ __device__ inline int stamp(int pe, int it, int i) {
  return static_cast<int>(value<uint32_t>(pe, static_cast<uint64_t>(it) * 4096 + i, 31337) | 1u);
}

struct Bufs {
  int* data;                      // symmetric [kSlots][len]
  int* flags;                     // symmetric [kSlots]
  uint64_t* sigs;                 // symmetric [kSlots]
  int* ack;                       // symmetric: last message the next PE consumed
  int* count;                     // symmetric: messages received (amo)
  int* scratch;                   // local [kSlots][len]
  unsigned long long* forbidden;  // local counter
  DevErrors* err;
  gshmem_team_t self;  // a team of one: this PE
};

__device__ void count_forbidden(const Bufs& b, int it, int bad, int first_bad, int expected, int got) {
  atomicAdd(b.forbidden, static_cast<unsigned long long>(bad));
  dev_fail(b.err, static_cast<unsigned long long>(it), static_cast<unsigned long long>(first_bad),
           static_cast<unsigned>(expected), static_cast<unsigned>(got));
}

// Block 0: producer (thread 0); block 1: consumer (thread 0).
__global__ void k_litmus(int kind, Bufs b, int iters) {
  if (threadIdx.x != 0) return;
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  if (blockIdx.x == 0) {
    for (int it = 1; it <= iters; ++it) {
      const int slot = it % kSlots, m = msg_len(it);
      if (it > kSlots) gshmem_int_wait_until(b.ack, GSHMEM_CMP_GE, it - kSlots);
      int* src = b.scratch + slot * kMaxLen;
      for (int i = 0; i < m; ++i) src[i] = stamp(me, it, i);
      int* dst = b.data + slot * kMaxLen;
      switch (kind) {
        case kFence:
          gshmem_putmem(dst, src, m * sizeof(int), next);
          gshmem_fence();
          gshmem_int_p(&b.flags[slot], it, next);
          break;
        case kPutSignal:
          gshmem_putmem_signal_nbi(dst, src, m * sizeof(int), &b.sigs[slot], it, GSHMEM_SIGNAL_SET, next);
          break;
        case kQuiet:
          gshmem_putmem_nbi(dst, src, m * sizeof(int), next);
          gshmem_quiet();
          gshmem_int_p(&b.flags[slot], it, next);
          break;
        case kBarrierSelf:
          gshmem_putmem_nbi(dst, src, m * sizeof(int), next);
          gshmem_barrier(b.self);
          gshmem_int_p(&b.flags[slot], it, next);
          break;
        default:
          gshmem_putmem(dst, src, m * sizeof(int), next);
          gshmem_fence();
          gshmem_int_atomic_inc(b.count, next);
          break;
      }
    }
    gshmem_quiet();
  } else {
    for (int it = 1; it <= iters; ++it) {
      const int slot = it % kSlots, m = msg_len(it);
      if (kind == kPutSignal)
        gshmem_signal_wait_until(&b.sigs[slot], GSHMEM_CMP_EQ, static_cast<uint64_t>(it));
      else if (kind == kAmo)
        gshmem_int_wait_until(b.count, GSHMEM_CMP_GE, it);
      else
        gshmem_int_wait_until(&b.flags[slot], GSHMEM_CMP_EQ, it);
      const int* d = b.data + slot * kMaxLen;
      int bad = 0, first = -1, e = 0, g = 0;
      for (int i = m - 1; i >= 0; --i) {  // last element first: the one most likely to be late
        const int v = gshmem::detail::ld_volatile(d + i);
        if (v != stamp(prev, it, i)) {
          if (bad++ == 0) {
            first = i;
            e = stamp(prev, it, i);
            g = v;
          }
        }
      }
      if (bad) count_forbidden(b, it, bad, first, e, g);
      gshmem_int_p(b.ack, it, prev);
    }
    gshmem_quiet();
  }
}

// Warp/block scope: block 0 produces, block 1 consumes, all threads of each.
enum Publish { kPubSignal = 0, kPubQuiet = 1, kPubBarrierSelf = 2 };
const char* publish_name(int p) {
  return p == kPubSignal  ? "putmem_signal_nbi_%s (%d ints) -> signal_wait_until, %s readers"
         : p == kPubQuiet ? "putmem_nbi_%s (%d ints); quiet; int_p by the last thread -> wait_until, %s readers"
                          : "putmem_nbi_%s (%d ints); barrier(team of one); int_p by the last thread -> wait_until, "
                            "%s readers";
}

template <class S>
__device__ void put_nbi_scoped(int* dst, const int* src, size_t bytes, int pe) {
  if constexpr (gt::is_warp_v<S>)
    gshmemx_putmem_nbi_warp(dst, src, bytes, pe);
  else
    gshmemx_putmem_nbi_block(dst, src, bytes, pe);
}

template <class S, int Pub>
__global__ void k_litmus_scoped(Bufs b, int iters) {
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  if (blockIdx.x == 0) {
    for (int it = 1; it <= iters; ++it) {
      const int slot = it % kSlots;
      if (threadIdx.x == 0 && it > kSlots) gshmem_int_wait_until(b.ack, GSHMEM_CMP_GE, it - kSlots);
      S::sync();
      int* src = b.scratch + slot * kScopeLen;
      for (int i = threadIdx.x; i < kScopeLen; i += blockDim.x) src[i] = stamp(me, it, i);
      S::sync();
      int* dst = b.data + slot * kScopeLen;
      const size_t bytes = kScopeLen * sizeof(int);
      if constexpr (Pub == kPubSignal) {
        if constexpr (gt::is_warp_v<S>)
          gshmemx_putmem_signal_nbi_warp(dst, src, bytes, &b.sigs[slot], it, GSHMEM_SIGNAL_SET, next);
        else
          gshmemx_putmem_signal_nbi_block(dst, src, bytes, &b.sigs[slot], it, GSHMEM_SIGNAL_SET, next);
      } else {
        put_nbi_scoped<S>(dst, src, bytes, next);
        if constexpr (Pub == kPubQuiet)
          gshmem::quiet<S>();
        else
          gshmem::barrier<S>(b.self);
        if (threadIdx.x == blockDim.x - 1) gshmem_int_p(&b.flags[slot], it, next);
      }
    }
    gshmem::quiet<S>();
  } else {
    for (int it = 1; it <= iters; ++it) {
      const int slot = it % kSlots;
      if (threadIdx.x == 0) {
        if constexpr (Pub == kPubSignal)
          gshmem_signal_wait_until(&b.sigs[slot], GSHMEM_CMP_EQ, static_cast<uint64_t>(it));
        else
          gshmem_int_wait_until(&b.flags[slot], GSHMEM_CMP_EQ, it);
      }
      S::sync();  // the other threads' reads are ordered after thread 0's acquire
      const int* d = b.data + slot * kScopeLen;
      for (int i = threadIdx.x; i < kScopeLen; i += blockDim.x) {
        const int v = gshmem::detail::ld_volatile(d + i);
        if (v != stamp(prev, it, i)) count_forbidden(b, it, 1, i, stamp(prev, it, i), v);
      }
      S::sync();
      if (threadIdx.x == 0) gshmem_int_p(b.ack, it, prev);
    }
    gshmem::quiet<S>();
  }
}

struct Run {
  Bufs b{};
  DevErrorsHost err;
  unsigned long long* forbidden = nullptr;
  size_t data_ints = static_cast<size_t>(kSlots) * kScopeLen;

  Run() {
    b.data = static_cast<int*>(gshmem_calloc(data_ints, sizeof(int)));
    b.flags = static_cast<int*>(gshmem_calloc(kSlots + 2, sizeof(int)));
    b.sigs = static_cast<uint64_t*>(gshmem_calloc(kSlots, sizeof(uint64_t)));
    if (!b.data || !b.flags || !b.sigs) {
      emit(stderr, "PE %d: FAIL: gshmem_calloc returned NULL\n", log_pe());
      exit(1);
    }
    b.ack = b.flags + kSlots;
    b.count = b.flags + kSlots + 1;
    // Rows of one PE: every PE's x-axis team is a team of one.
    gshmem_team_t column = GSHMEM_TEAM_INVALID;
    GT_CHECK_STATUS(gshmem_team_split_2d(GSHMEM_TEAM_WORLD, 1, nullptr, 0, &b.self, nullptr, 0, &column));
    GT_CHECK_EQ(1, gshmem_team_n_pes(b.self));
    gshmem_team_destroy(column);
    CUDA_CHECK(cudaMalloc(&b.scratch, data_ints * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&forbidden, sizeof(unsigned long long)));
    b.forbidden = forbidden;
    b.err = err.d;
  }
  ~Run() {
    gshmem_team_destroy(b.self);
    cudaFree(forbidden);
    cudaFree(b.scratch);
    gshmem_free(b.sigs);
    gshmem_free(b.flags);
    gshmem_free(b.data);
  }
  void reset() {
    CUDA_CHECK(cudaMemset(b.data, 0, data_ints * sizeof(int)));
    CUDA_CHECK(cudaMemset(b.flags, 0, (kSlots + 2) * sizeof(int)));
    CUDA_CHECK(cudaMemset(b.sigs, 0, kSlots * sizeof(uint64_t)));
    CUDA_CHECK(cudaMemset(forbidden, 0, sizeof(unsigned long long)));
    CUDA_CHECK(cudaDeviceSynchronize());
    err.reset();
    gshmem_barrier_all();
  }
  void finish(int iters) {
    KERNEL_CHECK();
    unsigned long long f = 0;
    CUDA_CHECK(cudaMemcpy(&f, forbidden, sizeof(f), cudaMemcpyDeviceToHost));
    GT_CHECK_EQ(0ull, f);
    err.check("message", "first stale element", __FILE__, __LINE__);
    gshmem_barrier_all();  // every PE's consumer finished (and quieted its acks)
    int ack = 0;
    CUDA_CHECK(cudaMemcpy(&ack, b.ack, sizeof(ack), cudaMemcpyDeviceToHost));
    GT_CHECK_EQ(iters, ack);  // the next PE consumed every message
    emit(stdout, "PE %d: %s: %d messages, %llu forbidden outcomes\n", gshmem_my_pe(), stats().context, iters, f);
  }
};

void litmus_thread(Run& run, int kind) {
  set_context("%s", kind_name(kind));
  run.reset();
  int k = kind, iters = env_int("GT_LITMUS_ITERS", kIters);
  void* args[] = {&k, &run.b, &iters};
  GT_CHECK_STATUS(gshmemx_collective_launch((const void*)k_litmus, dim3(2), dim3(32), args, 0, 0));
  run.finish(iters);
  if (kind == kAmo) {
    int count = 0;
    CUDA_CHECK(cudaMemcpy(&count, run.b.count, sizeof(count), cudaMemcpyDeviceToHost));
    GT_CHECK_EQ(iters, count);
  }
}

template <class S, int Pub>
void litmus_scoped(Run& run) {
  set_context(publish_name(Pub), gt::scope_name<S>(), kScopeLen, gt::scope_name<S>());
  run.reset();
  const int n = env_int("GT_LITMUS_SCOPE_ITERS", kScopeIters);
  int iters = Pub == kPubSignal ? n : n / 2;
  void* args[] = {&run.b, &iters};
  GT_CHECK_STATUS(gshmemx_collective_launch((const void*)k_litmus_scoped<S, Pub>, dim3(2),
                                            dim3(gt::is_warp_v<S> ? 32 : 256), args, 0, 0));
  run.finish(iters);
}

}  // namespace

int main() {
  test_main_prologue(2, 0);
  {
    Run run;
    for (int kind = kFence; kind <= kBarrierSelf; ++kind) litmus_thread(run, kind);
    litmus_scoped<gshmem::warp_scope, kPubSignal>(run);
    litmus_scoped<gshmem::block_scope, kPubSignal>(run);
    litmus_scoped<gshmem::warp_scope, kPubQuiet>(run);
    litmus_scoped<gshmem::block_scope, kPubQuiet>(run);
    litmus_scoped<gshmem::warp_scope, kPubBarrierSelf>(run);
    litmus_scoped<gshmem::block_scope, kPubBarrierSelf>(run);
    gshmem_barrier_all();
  }
  return test_main_epilogue("litmus");
}
