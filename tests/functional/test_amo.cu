// SPDX-License-Identifier: BSD-3-Clause
// Atomic memory operations.
//   1. Every AMO of every type class (standard, extended, bitwise, and the _nbi
//      fetching forms), through the C names on the device, the C++ templates on
//      the device, and the C names from host code. Thread t of PE p runs a fixed
//      sequence on slot t of PE p+1 (one writer per slot, so every fetched value
//      is known); the issuer checks each returned/fetched value, the owner checks
//      the final value of every slot after a barrier.
//   2. Concurrent fetch_add / fetch_inc from every thread of every PE onto one
//      word of one PE: the final value is exact and the fetched values are
//      exactly {0 .. total-1} (every one distinct), gathered on the target.
//   3. compare_swap contention: in each round every thread of every PE tries to
//      move the word from r-1 to r; exactly one wins (counted with atomic_add on
//      the target), the losers read r.
#include <algorithm>
#include <type_traits>
#include <vector>

#include "common.cuh"

using namespace gt;

namespace {

constexpr int kSeqThreads = 128;

template <class T>
GT_HD T wadd(T a, T b) {  // a + b with wrap-around, also for signed and floating types
  if constexpr (std::is_integral<T>::value) {
    using U = typename std::make_unsigned<T>::type;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}

// ------------------------------------------------------------------ type tags (C names)
#define GT_AMO_COMMON(NAME, TYPE)                                                                       \
  using T = TYPE;                                                                                       \
  static constexpr const char* name = #NAME;                                                            \
  static GT_HD T fetch(const T* s, int pe) { return gshmem_##NAME##_atomic_fetch(s, pe); }              \
  static GT_HD void set(T* d, T v, int pe) { gshmem_##NAME##_atomic_set(d, v, pe); }                    \
  static GT_HD T swap(T* d, T v, int pe) { return gshmem_##NAME##_atomic_swap(d, v, pe); }              \
  static GT_HD void fetch_nbi(T* f, const T* s, int pe) { gshmem_##NAME##_atomic_fetch_nbi(f, s, pe); } \
  static GT_HD void swap_nbi(T* f, T* d, T v, int pe) { gshmem_##NAME##_atomic_swap_nbi(f, d, v, pe); }

#define GT_AMO_STANDARD(NAME)                                                                                      \
  static GT_HD T compare_swap(T* d, T c, T v, int pe) { return gshmem_##NAME##_atomic_compare_swap(d, c, v, pe); } \
  static GT_HD T fetch_inc(T* d, int pe) { return gshmem_##NAME##_atomic_fetch_inc(d, pe); }                       \
  static GT_HD void inc(T* d, int pe) { gshmem_##NAME##_atomic_inc(d, pe); }                                       \
  static GT_HD T fetch_add(T* d, T v, int pe) { return gshmem_##NAME##_atomic_fetch_add(d, v, pe); }               \
  static GT_HD void add(T* d, T v, int pe) { gshmem_##NAME##_atomic_add(d, v, pe); }                               \
  static GT_HD void compare_swap_nbi(T* f, T* d, T c, T v, int pe) {                                               \
    gshmem_##NAME##_atomic_compare_swap_nbi(f, d, c, v, pe);                                                       \
  }                                                                                                                \
  static GT_HD void fetch_inc_nbi(T* f, T* d, int pe) { gshmem_##NAME##_atomic_fetch_inc_nbi(f, d, pe); }          \
  static GT_HD void fetch_add_nbi(T* f, T* d, T v, int pe) { gshmem_##NAME##_atomic_fetch_add_nbi(f, d, v, pe); }

#define GT_AMO_BITWISE(NAME)                                                                                      \
  static GT_HD T fetch_and(T* d, T v, int pe) { return gshmem_##NAME##_atomic_fetch_and(d, v, pe); }              \
  static GT_HD void and_(T* d, T v, int pe) { gshmem_##NAME##_atomic_and(d, v, pe); }                             \
  static GT_HD T fetch_or(T* d, T v, int pe) { return gshmem_##NAME##_atomic_fetch_or(d, v, pe); }                \
  static GT_HD void or_(T* d, T v, int pe) { gshmem_##NAME##_atomic_or(d, v, pe); }                               \
  static GT_HD T fetch_xor(T* d, T v, int pe) { return gshmem_##NAME##_atomic_fetch_xor(d, v, pe); }              \
  static GT_HD void xor_(T* d, T v, int pe) { gshmem_##NAME##_atomic_xor(d, v, pe); }                             \
  static GT_HD void fetch_and_nbi(T* f, T* d, T v, int pe) { gshmem_##NAME##_atomic_fetch_and_nbi(f, d, v, pe); } \
  static GT_HD void fetch_or_nbi(T* f, T* d, T v, int pe) { gshmem_##NAME##_atomic_fetch_or_nbi(f, d, v, pe); }   \
  static GT_HD void fetch_xor_nbi(T* f, T* d, T v, int pe) { gshmem_##NAME##_atomic_fetch_xor_nbi(f, d, v, pe); }

#define GT_AMO_STD_TYPE(NAME, TYPE)                         \
  struct amo_##NAME {                                       \
    static constexpr bool standard = true, bitwise = false; \
    GT_AMO_COMMON(NAME, TYPE) GT_AMO_STANDARD(NAME)         \
  }
#define GT_AMO_BIT_TYPE(NAME, TYPE)                                      \
  struct amo_##NAME {                                                    \
    static constexpr bool standard = true, bitwise = true;               \
    GT_AMO_COMMON(NAME, TYPE) GT_AMO_STANDARD(NAME) GT_AMO_BITWISE(NAME) \
  }
#define GT_AMO_EXT_TYPE(NAME, TYPE)                          \
  struct amo_##NAME {                                        \
    static constexpr bool standard = false, bitwise = false; \
    GT_AMO_COMMON(NAME, TYPE)                                \
  }

GT_AMO_STD_TYPE(int, int);
GT_AMO_STD_TYPE(long, long);
GT_AMO_STD_TYPE(longlong, long long);
GT_AMO_BIT_TYPE(uint, unsigned int);
GT_AMO_BIT_TYPE(ulong, unsigned long);
GT_AMO_BIT_TYPE(ulonglong, unsigned long long);
GT_AMO_BIT_TYPE(int32, int32_t);
GT_AMO_BIT_TYPE(int64, int64_t);
GT_AMO_BIT_TYPE(uint32, uint32_t);
GT_AMO_BIT_TYPE(uint64, uint64_t);
GT_AMO_STD_TYPE(size, size_t);
GT_AMO_STD_TYPE(ptrdiff, ptrdiff_t);
GT_AMO_EXT_TYPE(float, float);
GT_AMO_EXT_TYPE(double, double);

// The same operations through the C++ templates (device only).
template <class Ty>
struct amo_cpp {
  using T = typename Ty::T;
  static constexpr bool standard = Ty::standard, bitwise = Ty::bitwise;
  static __device__ T fetch(const T* s, int pe) { return gshmem::atomic_fetch(s, pe); }
  static __device__ void set(T* d, T v, int pe) { gshmem::atomic_set(d, v, pe); }
  static __device__ T swap(T* d, T v, int pe) { return gshmem::atomic_swap(d, v, pe); }
  static __device__ void fetch_nbi(T* f, const T* s, int pe) { gshmem::atomic_fetch_nbi(f, s, pe); }
  static __device__ void swap_nbi(T* f, T* d, T v, int pe) { gshmem::atomic_swap_nbi(f, d, v, pe); }
  static __device__ T compare_swap(T* d, T c, T v, int pe) { return gshmem::atomic_compare_swap(d, c, v, pe); }
  static __device__ T fetch_inc(T* d, int pe) { return gshmem::atomic_fetch_inc(d, pe); }
  static __device__ void inc(T* d, int pe) { gshmem::atomic_inc(d, pe); }
  static __device__ T fetch_add(T* d, T v, int pe) { return gshmem::atomic_fetch_add(d, v, pe); }
  static __device__ void add(T* d, T v, int pe) { gshmem::atomic_add(d, v, pe); }
  static __device__ void compare_swap_nbi(T* f, T* d, T c, T v, int pe) {
    gshmem::atomic_compare_swap_nbi(f, d, c, v, pe);
  }
  static __device__ void fetch_inc_nbi(T* f, T* d, int pe) { gshmem::atomic_fetch_inc_nbi(f, d, pe); }
  static __device__ void fetch_add_nbi(T* f, T* d, T v, int pe) { gshmem::atomic_fetch_add_nbi(f, d, v, pe); }
  static __device__ T fetch_and(T* d, T v, int pe) { return gshmem::atomic_fetch_and(d, v, pe); }
  static __device__ void and_(T* d, T v, int pe) { gshmem::atomic_and(d, v, pe); }
  static __device__ T fetch_or(T* d, T v, int pe) { return gshmem::atomic_fetch_or(d, v, pe); }
  static __device__ void or_(T* d, T v, int pe) { gshmem::atomic_or(d, v, pe); }
  static __device__ T fetch_xor(T* d, T v, int pe) { return gshmem::atomic_fetch_xor(d, v, pe); }
  static __device__ void xor_(T* d, T v, int pe) { gshmem::atomic_xor(d, v, pe); }
  static __device__ void fetch_and_nbi(T* f, T* d, T v, int pe) { gshmem::atomic_fetch_and_nbi(f, d, v, pe); }
  static __device__ void fetch_or_nbi(T* f, T* d, T v, int pe) { gshmem::atomic_fetch_or_nbi(f, d, v, pe); }
  static __device__ void fetch_xor_nbi(T* f, T* d, T v, int pe) { gshmem::atomic_fetch_xor_nbi(f, d, v, pe); }
};

// ------------------------------------------------------------------ 1. the sequence
// Operand k of slot `slot` written by PE `src` (distinct, never 0).
template <class T>
GT_HD T operand(int src, int slot, int k, uint64_t salt) {
  return value<T>(src, static_cast<uint64_t>(slot), salt * 64 + static_cast<uint64_t>(k));
}

// Runs the sequence on *x (symmetric, slot `slot` on PE `pe`) as PE `me`;
// sink(step, expected, got) for every returned value; returns the final value.
#pragma nv_exec_check_disable
template <class Ops, class Sink>
GT_HD typename Ops::T run_sequence(typename Ops::T* x, int pe, int me, int slot, uint64_t salt, Sink& sink) {
  using T = typename Ops::T;
  const T a = operand<T>(me, slot, 0, salt), b = operand<T>(me, slot, 1, salt);
  T c = operand<T>(me, slot, 2, salt);
  if (c == b) c = static_cast<T>(c + T(3));
  const T d = operand<T>(me, slot, 3, salt), e = operand<T>(me, slot, 4, salt);
  T f = T();
  Ops::set(x, a, pe);
  sink(1, a, Ops::fetch(x, pe));
  sink(2, a, Ops::swap(x, b, pe));
  Ops::fetch_nbi(&f, x, pe);
  sink(3, b, f);
  Ops::swap_nbi(&f, x, c, pe);
  sink(4, b, f);
  T v = c;
  if constexpr (Ops::standard) {
    sink(10, v, Ops::compare_swap(x, b, d, pe));  // cond b != c: no swap
    sink(11, v, Ops::compare_swap(x, c, d, pe));  // swaps to d
    v = d;
    sink(12, v, Ops::fetch_inc(x, pe));
    Ops::inc(x, pe);
    v = wadd(v, T(2));
    sink(13, v, Ops::fetch_add(x, e, pe));
    v = wadd(v, e);
    Ops::add(x, a, pe);
    v = wadd(v, a);
    Ops::compare_swap_nbi(&f, x, a, b, pe);  // cond a != v: no swap
    sink(14, v, f);
    Ops::compare_swap_nbi(&f, x, v, b, pe);
    sink(15, v, f);
    v = b;
    Ops::fetch_inc_nbi(&f, x, pe);
    sink(16, v, f);
    v = wadd(v, T(1));
    Ops::fetch_add_nbi(&f, x, c, pe);
    sink(17, v, f);
    v = wadd(v, c);
  }
  if constexpr (Ops::bitwise) {
    const T m1 = static_cast<T>(d | e), m2 = static_cast<T>(~a), m3 = static_cast<T>(b & c);
    sink(20, v, Ops::fetch_and(x, m1, pe));
    v = static_cast<T>(v & m1);
    Ops::or_(x, m3, pe);
    v = static_cast<T>(v | m3);
    sink(21, v, Ops::fetch_xor(x, m2, pe));
    v = static_cast<T>(v ^ m2);
    Ops::and_(x, m2, pe);
    v = static_cast<T>(v & m2);
    sink(22, v, Ops::fetch_or(x, a, pe));
    v = static_cast<T>(v | a);
    Ops::xor_(x, e, pe);
    v = static_cast<T>(v ^ e);
    Ops::fetch_and_nbi(&f, x, m3, pe);
    sink(23, v, f);
    v = static_cast<T>(v & m3);
    Ops::fetch_or_nbi(&f, x, d, pe);
    sink(24, v, f);
    v = static_cast<T>(v | d);
    Ops::fetch_xor_nbi(&f, x, b, pe);
    sink(25, v, f);
    v = static_cast<T>(v ^ b);
  }
  sink(30, v, Ops::fetch(x, pe));
  return v;
}

template <class T>
GT_HD unsigned long long bits_of(T v) {
  unsigned long long u = 0;
  memcpy(&u, &v, sizeof(T));
  return u;
}

template <class T>
struct DevSink {
  DevErrors* err;
  int slot;
  __device__ void operator()(int step, T expected, T got) {
    if (bits_of(expected) != bits_of(got))
      dev_fail(err, static_cast<unsigned long long>(step), slot, bits_of(expected), bits_of(got));
  }
};
template <class T>
struct HostSink {
  void operator()(int step, T expected, T got) {
    if (!GT_CHECK_EQ(expected, got)) emit(stderr, "PE %d:   (at step %d)\n", log_pe(), step);
  }
};

// slots: symmetric T[kSeqThreads]; the final values go to finals (local).
template <class Ops>
__global__ void k_sequence(typename Ops::T* slots, uint64_t salt, DevErrors* err) {
  using T = typename Ops::T;
  const int me = gshmem_my_pe(), npes = gshmem_n_pes(), t = threadIdx.x;
  DevSink<T> sink{err, t};
  run_sequence<Ops>(slots + t, (me + 1) % npes, me, t, salt, sink);
}

// A host-side model of the word: the same operations on a local variable.
template <class Ty>
struct amo_model {
  using T = typename Ty::T;
  static constexpr bool standard = Ty::standard, bitwise = Ty::bitwise;
  static T fetch(const T* s, int) { return *s; }
  static void set(T* d, T v, int) { *d = v; }
  static T swap(T* d, T v, int) {
    T o = *d;
    *d = v;
    return o;
  }
  static void fetch_nbi(T* f, const T* s, int) { *f = *s; }
  static void swap_nbi(T* f, T* d, T v, int) { *f = swap(d, v, 0); }
  static T compare_swap(T* d, T c, T v, int) {
    T o = *d;
    if (o == c) *d = v;
    return o;
  }
  static T fetch_inc(T* d, int) {
    T o = *d;
    *d = wadd(o, T(1));
    return o;
  }
  static void inc(T* d, int) { *d = wadd(*d, T(1)); }
  static T fetch_add(T* d, T v, int) {
    T o = *d;
    *d = wadd(o, v);
    return o;
  }
  static void add(T* d, T v, int) { *d = wadd(*d, v); }
  static void compare_swap_nbi(T* f, T* d, T c, T v, int) { *f = compare_swap(d, c, v, 0); }
  static void fetch_inc_nbi(T* f, T* d, int) { *f = fetch_inc(d, 0); }
  static void fetch_add_nbi(T* f, T* d, T v, int) { *f = fetch_add(d, v, 0); }
  static T fetch_and(T* d, T v, int) {
    T o = *d;
    *d = static_cast<T>(o & v);
    return o;
  }
  static void and_(T* d, T v, int) { fetch_and(d, v, 0); }
  static T fetch_or(T* d, T v, int) {
    T o = *d;
    *d = static_cast<T>(o | v);
    return o;
  }
  static void or_(T* d, T v, int) { fetch_or(d, v, 0); }
  static T fetch_xor(T* d, T v, int) {
    T o = *d;
    *d = static_cast<T>(o ^ v);
    return o;
  }
  static void xor_(T* d, T v, int) { fetch_xor(d, v, 0); }
  static void fetch_and_nbi(T* f, T* d, T v, int) { *f = fetch_and(d, v, 0); }
  static void fetch_or_nbi(T* f, T* d, T v, int) { *f = fetch_or(d, v, 0); }
  static void fetch_xor_nbi(T* f, T* d, T v, int) { *f = fetch_xor(d, v, 0); }
};

template <class T>
struct NullSink {
  void operator()(int, T, T) {}
};

// Final value of slot `slot` written by `src`: the sequence replayed on the model.
template <class Ty>
typename Ty::T expected_final(int src, int slot, uint64_t salt) {
  NullSink<typename Ty::T> null;
  typename Ty::T word{};
  return run_sequence<amo_model<Ty>>(&word, 0, src, slot, salt, null);
}

template <class Ty>
void check_finals(typename Ty::T* slots, int nslots, uint64_t salt) {
  using T = typename Ty::T;
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int src = (me + npes - 1) % npes;
  std::vector<T> got(nslots);
  CUDA_CHECK(cudaMemcpy(got.data(), slots, nslots * sizeof(T), cudaMemcpyDeviceToHost));
  GT_VERIFY("final value", got.data(), static_cast<size_t>(nslots),
            [&](size_t i) { return expected_final<Ty>(src, static_cast<int>(i), salt); });
}

uint64_t g_salt = 100;

template <class Ty>
void all_ops(void* buf) {
  using T = typename Ty::T;
  T* slots = static_cast<T*>(buf);
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  DevErrorsHost err;
  for (int api = 0; api < 3; ++api) {
    const uint64_t salt = ++g_salt;
    const char* how = api == 0   ? "C names on the device"
                      : api == 1 ? "C++ templates on the device"
                                 : "C names from the host";
    set_context("%s AMOs, %s", Ty::name, how);
    CUDA_CHECK(cudaMemset(slots, 0, kSeqThreads * sizeof(T)));
    gshmem_barrier_all();
    int nslots = kSeqThreads;
    if (api == 0) {
      k_sequence<Ty><<<1, kSeqThreads>>>(slots, salt, err.d);
    } else if (api == 1) {
      k_sequence<amo_cpp<Ty>><<<1, kSeqThreads>>>(slots, salt, err.d);
    } else {
      nslots = 3;  // every host AMO is a kernel launch: a few slots suffice
      for (int t = 0; t < nslots; ++t) {
        HostSink<T> sink;
        run_sequence<Ty>(slots + t, (me + 1) % npes, me, t, salt, sink);
      }
    }
    KERNEL_CHECK();
    if (api < 2) err.check("step", "slot", __FILE__, __LINE__);
    err.reset();
    gshmem_barrier_all();
    check_finals<Ty>(slots, nslots, salt);
    gshmem_barrier_all();
  }
}

void every_op_every_type() {
  void* buf = gshmem_calloc(kSeqThreads, sizeof(uint64_t));
  GT_CHECK(buf != nullptr);
  if (!buf) return;
  all_ops<amo_int>(buf);
  all_ops<amo_long>(buf);
  all_ops<amo_longlong>(buf);
  all_ops<amo_uint>(buf);
  all_ops<amo_ulong>(buf);
  all_ops<amo_ulonglong>(buf);
  all_ops<amo_int32>(buf);
  all_ops<amo_int64>(buf);
  all_ops<amo_uint32>(buf);
  all_ops<amo_uint64>(buf);
  all_ops<amo_size>(buf);
  all_ops<amo_ptrdiff>(buf);
  all_ops<amo_float>(buf);
  all_ops<amo_double>(buf);
  gshmem_free(buf);
}

// ------------------------------------------------------------------ 2. contended fetch_add
constexpr int kAddBlocks = 8, kAddThreads = 256, kAddIters = 4;
constexpr size_t kAddPerPe = static_cast<size_t>(kAddBlocks) * kAddThreads * kAddIters;

// api 0: gshmem_uint64_atomic_fetch_add(c, 1); api 1: gshmem::atomic_fetch_inc on a 32-bit int.
__global__ void k_contend(void* counter, uint64_t* fetched, int target, int api) {
  const size_t tid = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  for (int k = 0; k < kAddIters; ++k) {
    uint64_t v;
    if (api == 0)
      v = gshmem_uint64_atomic_fetch_add(static_cast<uint64_t*>(counter), 1, target);
    else
      v = static_cast<uint64_t>(gshmem::atomic_fetch_inc(static_cast<int*>(counter), target));
    fetched[tid * kAddIters + k] = v;
  }
}

void contended_fetch_add() {
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const size_t total = kAddPerPe * static_cast<size_t>(npes);
  uint64_t* counter = static_cast<uint64_t*>(gshmem_calloc(1, sizeof(uint64_t)));
  uint64_t* gather = static_cast<uint64_t*>(gshmem_malloc(total * sizeof(uint64_t)));  // on the target
  uint64_t* fetched = nullptr;
  GT_CHECK(counter != nullptr && gather != nullptr);
  if (!counter || !gather) return;
  CUDA_CHECK(cudaMalloc(&fetched, kAddPerPe * sizeof(uint64_t)));
  for (int api = 0; api < 2; ++api) {
    for (int target : {0, npes - 1}) {
      set_context("%s from %d threads x %d PEs onto PE %d",
                  api ? "gshmem::atomic_fetch_inc<int>" : "gshmem_uint64_atomic_fetch_add", kAddBlocks * kAddThreads,
                  npes, target);
      CUDA_CHECK(cudaMemset(counter, 0, sizeof(uint64_t)));
      poison_device(gather, total * sizeof(uint64_t));
      gshmem_barrier_all();
      k_contend<<<kAddBlocks, kAddThreads>>>(counter, fetched, target, api);
      KERNEL_CHECK();
      gshmem_barrier_all();  // every PE's AMOs are complete
      gshmem_putmem(gather + me * kAddPerPe, fetched, kAddPerPe * sizeof(uint64_t), target);
      gshmem_barrier_all();
      if (me != target) continue;
      uint64_t final_value = 0;
      CUDA_CHECK(cudaMemcpy(&final_value, counter, api ? sizeof(int) : sizeof(uint64_t), cudaMemcpyDeviceToHost));
      GT_CHECK_EQ(static_cast<uint64_t>(total), final_value);
      std::vector<uint64_t> all(total);
      CUDA_CHECK(cudaMemcpy(all.data(), gather, total * sizeof(uint64_t), cudaMemcpyDeviceToHost));
      std::vector<unsigned char> seen(total, 0);
      size_t out_of_range = 0, duplicates = 0;
      for (uint64_t v : all) {
        if (v >= total)
          ++out_of_range;
        else if (seen[v]++)
          ++duplicates;
      }
      GT_CHECK_EQ(static_cast<size_t>(0), out_of_range);
      GT_CHECK_EQ(static_cast<size_t>(0), duplicates);
      GT_CHECK_EQ(total, static_cast<size_t>(std::count(seen.begin(), seen.end(), 1)));
    }
  }
  gshmem_barrier_all();
  CUDA_CHECK(cudaFree(fetched));
  gshmem_free(gather);
  gshmem_free(counter);
}

// ------------------------------------------------------------------ 3. compare_swap contention
constexpr int kRounds = 200, kCasThreads = 256;

// word: symmetric long long (on target); wins: symmetric unsigned int[kRounds + 1] (on target).
__global__ void k_cas_rounds(long long* word, unsigned int* wins, int target, DevErrors* err) {
  for (int r = 1; r <= kRounds; ++r) {
    const long long old = gshmem_longlong_atomic_compare_swap(word, r - 1, r, target);
    if (old == r - 1)
      gshmem_uint_atomic_add(&wins[r], 1u, target);
    else if (old != r)
      dev_fail(err, r, threadIdx.x, r, static_cast<unsigned long long>(old));
    gshmemx_barrier_all_block();  // the round is over on every PE (and its AMOs complete)
  }
}

void compare_swap_contention() {
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  long long* word = static_cast<long long*>(gshmem_calloc(1, sizeof(long long)));
  unsigned int* wins = static_cast<unsigned int*>(gshmem_calloc(kRounds + 1, sizeof(unsigned int)));
  GT_CHECK(word != nullptr && wins != nullptr);
  if (!word || !wins) return;
  DevErrorsHost err;
  const int target = npes > 2 ? 1 : 0;
  set_context("compare_swap contention: %d rounds, %d threads x %d PEs on PE %d", kRounds, kCasThreads, npes, target);
  gshmem_barrier_all();
  DevErrors* e = err.d;
  int tgt = target;
  void* args[] = {&word, &wins, &tgt, &e};
  GT_CHECK_STATUS(gshmemx_collective_launch((const void*)k_cas_rounds, dim3(1), dim3(kCasThreads), args, 0, 0));
  KERNEL_CHECK();
  err.check("round", "thread", __FILE__, __LINE__);
  gshmem_barrier_all();
  if (me == target) {
    long long final_word = 0;
    CUDA_CHECK(cudaMemcpy(&final_word, word, sizeof(final_word), cudaMemcpyDeviceToHost));
    GT_CHECK_EQ(static_cast<long long>(kRounds), final_word);
    std::vector<unsigned int> w(kRounds + 1);
    CUDA_CHECK(cudaMemcpy(w.data(), wins, w.size() * sizeof(unsigned int), cudaMemcpyDeviceToHost));
    GT_VERIFY("winners per round", w.data() + 1, static_cast<size_t>(kRounds), [](size_t) { return 1u; });
  }
  gshmem_barrier_all();
  gshmem_free(wins);
  gshmem_free(word);
}

}  // namespace

int main() {
  test_main_prologue(2, 0);
  every_op_every_type();
  contended_fetch_add();
  compare_swap_contention();
  return test_main_epilogue("amo");
}
