// SPDX-License-Identifier: BSD-3-Clause
// Signals.
//   1. put_signal for every form: putmem, put8..put128 and every device-capable
//      typed name at thread scope, the untyped, sized and one typed name of each
//      size and kind also at warp and block scope; blocking and _nbi, with
//      GSHMEM_SIGNAL_SET and then GSHMEM_SIGNAL_ADD, odd sizes and one element
//      a thread. Each PE sends to the next; the receiver waits with
//      signal_wait_until (EQ on the exact expected value, returned value
//      checked), then checks every element in the kernel, and the host checks
//      the data and its guard zones.
//   2. Fan-in ADD: every PE put_signals its slot into PE 0 with ADD of a
//      distinct bit; PE 0 waits for the sum and checks every slot.
//   3. For every form again, from the host: the host put_signal (SET, blocking
//      and _nbi + quiet) with gshmem_signal_wait_until / gshmem_signal_fetch, then
//      the _on_stream / _nbi_on_stream form (ADD) with
//      gshmemx_signal_wait_until_on_stream; data and guards checked each time.
//      Host gshmemx_signal_op SET/ADD; device signal_op / signal_fetch.
//   4. Stream forms (p2p_signal_stream.cuh): signal_wait_until_on_stream for
//      every comparison (memop and kernel paths), and a stream-only pipeline of
//      kernels, put_signal_on_stream, waits and acks.
#include <type_traits>
#include <vector>

#include "common.cuh"

using namespace gt;
using gshmem::block_scope;
using gshmem::thread_scope;
using gshmem::warp_scope;

namespace {

#define GT_SIG_ARGS d, s, n, sig, v, op, pe
#define GT_SIG_TYPED(NAME, TYPE)                                                                                      \
  struct sig_##NAME {                                                                                                 \
    using T = TYPE;                                                                                                   \
    static constexpr const char* name = #NAME;                                                                        \
    template <class S, bool NBI>                                                                                      \
    static __device__ void put(T* d, const T* s, size_t n, uint64_t* sig, uint64_t v, int op, int pe) {               \
      GT_SCOPED_CALL(S, NBI, gshmem_##NAME##_put_signal, gshmem_##NAME##_put_signal_nbi,                              \
                     gshmemx_##NAME##_put_signal_warp, gshmemx_##NAME##_put_signal_nbi_warp,                          \
                     gshmemx_##NAME##_put_signal_block, gshmemx_##NAME##_put_signal_nbi_block, GT_SIG_ARGS);          \
    }                                                                                                                 \
    static void host_put(T* d, const T* s, size_t n, uint64_t* sig, uint64_t v, int op, int pe, bool nbi) {           \
      if (nbi)                                                                                                        \
        gshmem_##NAME##_put_signal_nbi(GT_SIG_ARGS);                                                                  \
      else                                                                                                            \
        gshmem_##NAME##_put_signal(GT_SIG_ARGS);                                                                      \
    }                                                                                                                 \
    static void put_on_stream(T* d, const T* s, size_t n, uint64_t* sig, uint64_t v, int op, int pe, cudaStream_t st, \
                              bool nbi) {                                                                             \
      if (nbi)                                                                                                        \
        gshmemx_##NAME##_put_signal_nbi_on_stream(GT_SIG_ARGS, st);                                                   \
      else                                                                                                            \
        gshmemx_##NAME##_put_signal_on_stream(GT_SIG_ARGS, st);                                                       \
    }                                                                                                                 \
  }
#define GT_SIG_BITS(BITS, TYPE)                                                                                       \
  struct sig_bits##BITS {                                                                                             \
    using T = TYPE;                                                                                                   \
    static constexpr const char* name = "put" #BITS;                                                                  \
    template <class S, bool NBI>                                                                                      \
    static __device__ void put(T* d, const T* s, size_t n, uint64_t* sig, uint64_t v, int op, int pe) {               \
      GT_SCOPED_CALL(S, NBI, gshmem_put##BITS##_signal, gshmem_put##BITS##_signal_nbi,                                \
                     gshmemx_put##BITS##_signal_warp, gshmemx_put##BITS##_signal_nbi_warp,                            \
                     gshmemx_put##BITS##_signal_block, gshmemx_put##BITS##_signal_nbi_block, GT_SIG_ARGS);            \
    }                                                                                                                 \
    static void host_put(T* d, const T* s, size_t n, uint64_t* sig, uint64_t v, int op, int pe, bool nbi) {           \
      if (nbi)                                                                                                        \
        gshmem_put##BITS##_signal_nbi(GT_SIG_ARGS);                                                                   \
      else                                                                                                            \
        gshmem_put##BITS##_signal(GT_SIG_ARGS);                                                                       \
    }                                                                                                                 \
    static void put_on_stream(T* d, const T* s, size_t n, uint64_t* sig, uint64_t v, int op, int pe, cudaStream_t st, \
                              bool nbi) {                                                                             \
      if (nbi)                                                                                                        \
        gshmemx_put##BITS##_signal_nbi_on_stream(GT_SIG_ARGS, st);                                                    \
      else                                                                                                            \
        gshmemx_put##BITS##_signal_on_stream(GT_SIG_ARGS, st);                                                        \
    }                                                                                                                 \
  }
struct sig_mem {
  using T = unsigned char;
  static constexpr const char* name = "putmem";
  template <class S, bool NBI>
  static __device__ void put(T* d, const T* s, size_t n, uint64_t* sig, uint64_t v, int op, int pe) {
    GT_SCOPED_CALL(S, NBI, gshmem_putmem_signal, gshmem_putmem_signal_nbi, gshmemx_putmem_signal_warp,
                   gshmemx_putmem_signal_nbi_warp, gshmemx_putmem_signal_block, gshmemx_putmem_signal_nbi_block,
                   GT_SIG_ARGS);
  }
  static void host_put(T* d, const T* s, size_t n, uint64_t* sig, uint64_t v, int op, int pe, bool nbi) {
    if (nbi)
      gshmem_putmem_signal_nbi(GT_SIG_ARGS);
    else
      gshmem_putmem_signal(GT_SIG_ARGS);
  }
  static void put_on_stream(T* d, const T* s, size_t n, uint64_t* sig, uint64_t v, int op, int pe, cudaStream_t st,
                            bool nbi) {
    if (nbi)
      gshmemx_putmem_signal_nbi_on_stream(GT_SIG_ARGS, st);
    else
      gshmemx_putmem_signal_on_stream(GT_SIG_ARGS, st);
  }
};

// long double: host and stream forms only (no device long double).
struct sig_longdouble {
  using T = long double;
  static constexpr const char* name = "longdouble";
  static void host_put(T* d, const T* s, size_t n, uint64_t* sig, uint64_t v, int op, int pe, bool nbi) {
    if (nbi)
      gshmem_longdouble_put_signal_nbi(GT_SIG_ARGS);
    else
      gshmem_longdouble_put_signal(GT_SIG_ARGS);
  }
  static void put_on_stream(T* d, const T* s, size_t n, uint64_t* sig, uint64_t v, int op, int pe, cudaStream_t st,
                            bool nbi) {
    if (nbi)
      gshmemx_longdouble_put_signal_nbi_on_stream(GT_SIG_ARGS, st);
    else
      gshmemx_longdouble_put_signal_on_stream(GT_SIG_ARGS, st);
  }
};

GT_SIG_TYPED(float, float);
GT_SIG_TYPED(double, double);
GT_SIG_TYPED(char, char);
GT_SIG_TYPED(schar, signed char);
GT_SIG_TYPED(short, short);
GT_SIG_TYPED(int, int);
GT_SIG_TYPED(long, long);
GT_SIG_TYPED(longlong, long long);
GT_SIG_TYPED(uchar, unsigned char);
GT_SIG_TYPED(ushort, unsigned short);
GT_SIG_TYPED(uint, unsigned int);
GT_SIG_TYPED(ulong, unsigned long);
GT_SIG_TYPED(ulonglong, unsigned long long);
GT_SIG_TYPED(int8, int8_t);
GT_SIG_TYPED(int16, int16_t);
GT_SIG_TYPED(int32, int32_t);
GT_SIG_TYPED(int64, int64_t);
GT_SIG_TYPED(uint8, uint8_t);
GT_SIG_TYPED(uint16, uint16_t);
GT_SIG_TYPED(uint32, uint32_t);
GT_SIG_TYPED(uint64, uint64_t);
GT_SIG_TYPED(size, size_t);
GT_SIG_TYPED(ptrdiff, ptrdiff_t);
GT_SIG_BITS(8, uint8_t);
GT_SIG_BITS(16, uint16_t);
GT_SIG_BITS(32, uint32_t);
GT_SIG_BITS(64, uint64_t);
GT_SIG_BITS(128, u128);

template <class... Tys>
struct type_list {};
using all_sig_types = type_list<sig_mem, sig_bits8, sig_bits16, sig_bits32, sig_bits64, sig_bits128, sig_float,
                                sig_double, sig_char, sig_schar, sig_short, sig_int, sig_long, sig_longlong, sig_uchar,
                                sig_ushort, sig_uint, sig_ulong, sig_ulonglong, sig_int8, sig_int16, sig_int32,
                                sig_int64, sig_uint8, sig_uint16, sig_uint32, sig_uint64, sig_size, sig_ptrdiff>;
// The host and stream forms also exist for long double.
using host_sig_types =
    type_list<sig_mem, sig_bits8, sig_bits16, sig_bits32, sig_bits64, sig_bits128, sig_float, sig_double,
              sig_longdouble, sig_char, sig_schar, sig_short, sig_int, sig_long, sig_longlong, sig_uchar, sig_ushort,
              sig_uint, sig_ulong, sig_ulonglong, sig_int8, sig_int16, sig_int32, sig_int64, sig_uint8, sig_uint16,
              sig_uint32, sig_uint64, sig_size, sig_ptrdiff>;
// Calls Test<Ty>::run(args...) for every Ty of the list.
template <template <class> class Test, class... Tys, class... Args>
void for_each_type(type_list<Tys...>, Args&&... args) {
  (Test<Tys>::run(args...), ...);
}

// One element, read so that the compiler cannot reuse an earlier load (u128 in two halves).
template <class T>
__device__ T load_elem(const T* p) {
  if constexpr (std::is_same<T, u128>::value) {
    const uint64_t* q = reinterpret_cast<const uint64_t*>(p);
    return u128{gshmem::detail::ld_volatile(q), gshmem::detail::ld_volatile(q + 1)};
  } else {
    return gshmem::detail::ld_volatile(p);
  }
}
// Elements of p[0..n) (this thread's share of the block) that differ from value<T>(pe, i, salt).
template <class T>
__device__ unsigned long long block_mismatches(const T* p, size_t n, int pe, uint64_t salt) {
  unsigned long long bad = 0;
  for (size_t i = threadIdx.x; i < n; i += blockDim.x)
    if (!(load_elem(p + i) == value<T>(pe, i, salt))) ++bad;
  return bad;
}

// ------------------------------------------------------------------ 1. every form
constexpr uint64_t kAdd = 0x10000001ull;
__host__ __device__ inline uint64_t set_value(int src, uint64_t salt) { return value<uint64_t>(src, 0, salt) >> 4; }

template <class S>
constexpr int threads_of() {
  return is_thread_v<S> ? 1 : is_warp_v<S> ? 32 : 256;
}
template <class S>
constexpr size_t elems_of() {
  return is_thread_v<S> ? 37 : is_warp_v<S> ? 333 : 4099;
}

// Round 0: SET, round 1: ADD (data salt + round). dst: symmetric [n] (guarded), src: local, sig: symmetric.
template <class Ty, class S, bool NBI>
__global__ void k_put_signal(typename Ty::T* dst, typename Ty::T* src, uint64_t* sig, size_t n, uint64_t salt,
                             DevErrors* err) {
  using T = typename Ty::T;
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  __shared__ uint64_t seen;
  for (int round = 0; round < 2; ++round) {
    for (size_t i = threadIdx.x; i < n; i += blockDim.x) src[i] = value<T>(me, i, salt + round);
    gshmemx_barrier_all_block();  // the receiver finished reading the previous round
    const int op = round == 0 ? GSHMEM_SIGNAL_SET : GSHMEM_SIGNAL_ADD;
    const uint64_t v = round == 0 ? set_value(me, salt) : kAdd;
    Ty::template put<S, NBI>(dst, src, n, sig, v, op, next);
    const uint64_t expect = set_value(prev, salt) + (round ? kAdd : 0);
    if (threadIdx.x == 0) seen = gshmem_signal_wait_until(sig, GSHMEM_CMP_EQ, expect);
    __syncthreads();
    if (threadIdx.x == 0 && seen != expect) dev_fail(err, 1000 + round, 0, expect, seen);
    const unsigned long long bad = block_mismatches(dst, n, prev, salt + round);
    if (bad) dev_fail(err, static_cast<unsigned long long>(round), threadIdx.x, 0, bad);
    if (NBI) gshmem::quiet<gshmem::block_scope>();
  }
  gshmemx_barrier_all_block();
}

uint64_t g_salt = 5000;

template <class Ty, class S, bool NBI>
void one_form(Guarded& dst, typename Ty::T* src, uint64_t* sig, size_t n) {
  using T = typename Ty::T;
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const uint64_t salt = (g_salt += 4);
  set_context("%s_put_signal%s at %s scope, %zu elements, SET then ADD", Ty::name, NBI ? "_nbi" : "", scope_name<S>(),
              n);
  poison_device(dst.base, dst.bytes);
  CUDA_CHECK(cudaMemset(sig, 0, sizeof(uint64_t)));
  CUDA_CHECK(cudaDeviceSynchronize());
  gshmem_barrier_all();
  DevErrorsHost err;
  T* d = dst.at<T>(0);
  DevErrors* e = err.d;
  size_t nn = n;
  uint64_t sl = salt;
  void* args[] = {&d, &src, &sig, &nn, &sl, &e};
  GT_CHECK_STATUS(
      gshmemx_collective_launch((const void*)k_put_signal<Ty, S, NBI>, dim3(1), dim3(threads_of<S>()), args, 0, 0));
  KERNEL_CHECK();
  err.check("round", "thread", __FILE__, __LINE__);
  const int prev = (me + npes - 1) % npes;
  GT_VERIFY_GUARDED(T, dst, 0, n, [&](size_t i) { return value<T>(prev, i, salt + 1); });
}

// Each form with an odd count, and with one element a thread (a lone thread's one
// element; the copy's one-unit-a-thread path).
template <class Ty, class S>
void both_sizes(Guarded& dst, typename Ty::T* src, uint64_t* sig) {
  const size_t odd = elems_of<S>() * (sizeof(typename Ty::T) == 1 ? 3 : 1);
  const size_t short_n = static_cast<size_t>(threads_of<S>());
  for (size_t n : {odd, short_n}) {
    one_form<Ty, S, false>(dst, src, sig, n);
    one_form<Ty, S, true>(dst, src, sig, n);
  }
}

// The forms whose _warp and _block names run too: the untyped and sized ones and one
// typed name of each element size and kind. Every typed name is one line of the generated
// table (tools/gen_c_api.py) calling putmem_signal with nelems * sizeof(T), and the
// spec-names test compiles each; a kernel per name and scope inlines the whole
// put_signal, and every name at every scope was a third of this file's build.
template <class Ty>
constexpr bool kSigEveryScope =
    std::is_same_v<Ty, sig_mem> || std::is_same_v<Ty, sig_bits8> || std::is_same_v<Ty, sig_bits16> ||
    std::is_same_v<Ty, sig_bits32> || std::is_same_v<Ty, sig_bits64> || std::is_same_v<Ty, sig_bits128> ||
    std::is_same_v<Ty, sig_char> || std::is_same_v<Ty, sig_short> || std::is_same_v<Ty, sig_int> ||
    std::is_same_v<Ty, sig_long> || std::is_same_v<Ty, sig_float> || std::is_same_v<Ty, sig_double>;

template <class Ty>
struct AllScopes {
  static void run(Guarded& dst, void* src, uint64_t* sig) {
    using T = typename Ty::T;
    both_sizes<Ty, thread_scope>(dst, static_cast<T*>(src), sig);
    if constexpr (kSigEveryScope<Ty>) {
      both_sizes<Ty, warp_scope>(dst, static_cast<T*>(src), sig);
      both_sizes<Ty, block_scope>(dst, static_cast<T*>(src), sig);
    }
  }
};

void every_form() {
  const size_t max_bytes = 4099 * 16 * 3;
  Guarded dst = make_symmetric(max_bytes);
  uint64_t* sig = static_cast<uint64_t*>(gshmem_calloc(1, sizeof(uint64_t)));
  void* src = nullptr;
  CUDA_CHECK(cudaMalloc(&src, max_bytes));
  GT_CHECK(sig != nullptr);
  for_each_type<AllScopes>(all_sig_types{}, dst, src, sig);
  gshmem_barrier_all();
  CUDA_CHECK(cudaFree(src));
  gshmem_free(sig);
  release(dst);
}

// ------------------------------------------------------------------ 2. fan-in ADD
constexpr size_t kSlot = 1021;  // ints per PE

__global__ void k_fan_in(int* slots, int* src, uint64_t* sig, uint64_t salt, DevErrors* err) {
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  for (size_t i = threadIdx.x; i < kSlot; i += blockDim.x) src[i] = value<int>(me, i, salt);
  __syncthreads();
  gshmemx_putmem_signal_nbi_block(slots + me * kSlot, src, kSlot * sizeof(int), sig, 1ull << me, GSHMEM_SIGNAL_ADD, 0);
  if (me == 0) {
    __shared__ uint64_t got;
    if (threadIdx.x == 0) got = gshmem_signal_wait_until(sig, GSHMEM_CMP_EQ, (1ull << npes) - 1);
    __syncthreads();
    for (int p = 0; p < npes; ++p) {
      const unsigned long long bad = block_mismatches(slots + p * kSlot, kSlot, p, salt);
      if (bad) dev_fail(err, p, threadIdx.x, 0, bad);
    }
    if (threadIdx.x == 0 && got != (1ull << npes) - 1) dev_fail(err, 99, 0, (1ull << npes) - 1, got);
  }
  gshmem::quiet<gshmem::block_scope>();
}

void fan_in() {
  const int npes = gshmem_n_pes();
  int* slots = static_cast<int*>(gshmem_calloc(npes * kSlot, sizeof(int)));
  uint64_t* sig = static_cast<uint64_t*>(gshmem_calloc(1, sizeof(uint64_t)));
  int* src = nullptr;
  CUDA_CHECK(cudaMalloc(&src, kSlot * sizeof(int)));
  DevErrorsHost err;
  set_context("fan-in: every PE putmem_signal_nbi_block into PE 0 with ADD of its bit");
  gshmem_barrier_all();
  k_fan_in<<<1, 256>>>(slots, src, sig, 777, err.d);
  KERNEL_CHECK();
  err.check("pe", "thread", __FILE__, __LINE__);
  gshmem_barrier_all();
  CUDA_CHECK(cudaFree(src));
  gshmem_free(sig);
  gshmem_free(slots);
}

// ------------------------------------------------------------------ 3. host forms, signal_op/fetch
// Host forms (round 0: SET, blocking or _nbi + quiet) and stream forms (round 1:
// ADD, gshmemx_*_put_signal[_nbi]_on_stream + signal_wait_until_on_stream).
template <class Ty>
struct HostAndStream {
  static void run(Guarded& dst, uint64_t* sig, cudaStream_t st) {
    using T = typename Ty::T;
    const int me = gshmem_my_pe(), npes = gshmem_n_pes();
    const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
    const size_t n = 1 + 13 * sizeof(T) % 11 + 257;
    for (int nbi = 0; nbi < 2; ++nbi) {
      const uint64_t salt = (g_salt += 4);
      set_context("host %s_put_signal%s (SET), then %s_put_signal%s_on_stream (ADD), %zu elements", Ty::name,
                  nbi ? "_nbi" : "", Ty::name, nbi ? "_nbi" : "", n);
      poison_device(dst.base, dst.bytes);
      CUDA_CHECK(cudaMemset(sig, 0, sizeof(uint64_t)));
      CUDA_CHECK(cudaDeviceSynchronize());
      std::vector<T> src(n);
      T* dsrc = nullptr;
      CUDA_CHECK(cudaMalloc(&dsrc, n * sizeof(T)));
      for (int round = 0; round < 2; ++round) {
        for (size_t i = 0; i < n; ++i) src[i] = hvalue<T>(me, i, salt + round);
        gshmem_barrier_all();  // the receiver checked the previous round
        const uint64_t expect = set_value(prev, salt) + (round ? kAdd : 0);
        if (round == 0) {
          Ty::host_put(dst.at<T>(0), src.data(), n, sig, set_value(me, salt), GSHMEM_SIGNAL_SET, next, nbi);
          if (nbi) gshmem_quiet();
          GT_CHECK_EQ(expect, gshmem_signal_wait_until(sig, GSHMEM_CMP_EQ, expect));
          GT_CHECK_EQ(expect, gshmem_signal_fetch(sig));
        } else {
          CUDA_CHECK(cudaMemcpyAsync(dsrc, src.data(), n * sizeof(T), cudaMemcpyHostToDevice, st));
          Ty::put_on_stream(dst.at<T>(0), dsrc, n, sig, kAdd, GSHMEM_SIGNAL_ADD, next, st, nbi);
          gshmemx_signal_wait_until_on_stream(sig, GSHMEM_CMP_EQ, expect, st);
          CUDA_CHECK(cudaStreamSynchronize(st));
          GT_CHECK_EQ(expect, gshmem_signal_fetch(sig));
        }
        GT_VERIFY_GUARDED(T, dst, 0, n, [&](size_t i) { return hvalue<T>(prev, i, salt + round); });
      }
      gshmem_barrier_all();
      CUDA_CHECK(cudaFree(dsrc));
    }
  }
};

// signal_op SET/ADD and signal_fetch on the device: each PE bumps the next PE's word.
__global__ void k_signal_op(uint64_t* sig, DevErrors* err) {
  const int me = gshmem_my_pe(), npes = gshmem_n_pes(), next = (me + 1) % npes;
  gshmemx_signal_op(sig, 1000 + me, GSHMEM_SIGNAL_SET, next);
  gshmem_quiet();
  gshmemx_barrier_all_block();
  const uint64_t prev = (me + npes - 1) % npes;
  if (gshmem_signal_fetch(sig) != 1000 + prev) dev_fail(err, 1, 0, 1000 + prev, gshmem_signal_fetch(sig));
  gshmemx_barrier_all_block();
  for (int k = 0; k < 5; ++k) gshmem::signal_op(sig, 3, GSHMEM_SIGNAL_ADD, next);
  const uint64_t got = gshmem::signal_wait_until(sig, gshmem::cmp::ge, 1015 + prev);
  if (got != 1015 + prev) dev_fail(err, 2, 0, 1015 + prev, got);
  gshmemx_barrier_all_block();
}

void host_forms() {
  Guarded dst = make_symmetric(4096 * 16);
  uint64_t* sig = static_cast<uint64_t*>(gshmem_calloc(1, sizeof(uint64_t)));
  cudaStream_t st;
  CUDA_CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  for_each_type<HostAndStream>(host_sig_types{}, dst, sig, st);
  CUDA_CHECK(cudaStreamDestroy(st));
  const int me = gshmem_my_pe(), npes = gshmem_n_pes(), next = (me + 1) % npes;
  const uint64_t prev = (me + npes - 1) % npes;
  set_context("host gshmemx_signal_op SET/ADD, gshmem_signal_fetch, gshmem_signal_wait_until");
  CUDA_CHECK(cudaMemset(sig, 0, sizeof(uint64_t)));
  CUDA_CHECK(cudaDeviceSynchronize());
  gshmem_barrier_all();
  gshmemx_signal_op(sig, 50 + me, GSHMEM_SIGNAL_SET, next);
  gshmem_barrier_all();
  GT_CHECK_EQ(50 + prev, gshmem_signal_fetch(sig));
  gshmem_barrier_all();
  gshmemx_signal_op(sig, 7, GSHMEM_SIGNAL_ADD, next);
  gshmemx_signal_op(sig, 7, GSHMEM_SIGNAL_ADD, next);
  GT_CHECK_EQ(64 + prev, gshmem_signal_wait_until(sig, GSHMEM_CMP_GT, 63 + prev));
  gshmem_barrier_all();
  set_context("device gshmemx_signal_op / gshmem::signal_op, signal_fetch, signal_wait_until");
  CUDA_CHECK(cudaMemset(sig, 0, sizeof(uint64_t)));
  CUDA_CHECK(cudaDeviceSynchronize());
  gshmem_barrier_all();
  DevErrorsHost err;
  DevErrors* e = err.d;
  void* args[] = {&sig, &e};
  GT_CHECK_STATUS(gshmemx_collective_launch((const void*)k_signal_op, dim3(1), dim3(1), args, 0, 0));
  KERNEL_CHECK();
  err.check("step", "-", __FILE__, __LINE__);
  gshmem_barrier_all();
  gshmem_free(sig);
  release(dst);
}

}  // namespace

#include "p2p_signal_stream.cuh"  // part 4

int main() {
  test_main_prologue(2, 0);
  every_form();
  fan_in();
  host_forms();
  stream_comparisons();
  stream_pipeline();
  return test_main_epilogue("signal");
}
