// SPDX-License-Identifier: BSD-3-Clause
// half / bfloat16 RMA (NVSHMEM's gshmem_half_*, gshmem_bfloat16_* names) and the stream forms
// added with them for every type:
//   1. Device p/g: each of 256 threads writes its element into every PE and reads one from
//      every PE (C names and gshmem::p/g).
//   2. Device put/get, blocking and _nbi, thread/warp/block, C names and C++ templates; odd
//      counts and offsets; the blocking put's source is overwritten right after the call.
//   3. Device iput/iget at every scope (strides 1, 2, 3, 7).
//   4. Host p/g, put/get (blocking and _nbi), iput/iget.
//   5. Stream forms: p/g_on_stream, put/get[_nbi]_on_stream, iput/iget_on_stream for half,
//      bfloat16, int, double, char, long double; putN/getN_nbi_on_stream and
//      putmem/getmem_nbi_on_stream.
// half/bfloat16 values are arbitrary 16-bit patterns (NaN payloads included): RMA moves bits,
// so every element is compared bit for bit; destinations are poisoned and guard zones checked.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <vector>

#include "common.cuh"

using namespace gt;
using gshmem::block_scope;
using gshmem::thread_scope;
using gshmem::warp_scope;

namespace {

constexpr size_t kMaxBytes = (1u << 18) + 4096;
constexpr int kThreads = 256;
uint64_t g_salt = 52000;

// ---------------------------------------------------------------- values as bit patterns
template <class T>
struct bits_of {
  using type = T;
};
template <>
struct bits_of<__half> {
  using type = uint16_t;
};
template <>
struct bits_of<__nv_bfloat16> {
  using type = uint16_t;
};
template <class T>
using B = typename bits_of<T>::type;

// Element i of `pe`'s pattern `salt`, as a T.
template <class T>
GT_HD inline T hv(int pe, uint64_t i, uint64_t salt) {
  if constexpr (std::is_same<T, __half>::value) {
    __half_raw r;
    r.x = value<uint16_t>(pe, i, salt);
    return __half(r);
  } else if constexpr (std::is_same<T, __nv_bfloat16>::value) {
    __nv_bfloat16_raw r;
    r.x = value<uint16_t>(pe, i, salt);
    return __nv_bfloat16(r);
  } else {
    return value<T>(pe, i, salt);
  }
}
// The same as the bit pattern verify_* compares.
template <class T>
inline B<T> hb(int pe, uint64_t i, uint64_t salt) {
  if constexpr (std::is_same<T, long double>::value)
    return hvalue<T>(pe, i, salt);
  else
    return value<B<T>>(pe, i, salt);
}
template <class T>
inline T host_hv(int pe, uint64_t i, uint64_t salt) {
  if constexpr (std::is_same<T, long double>::value)
    return hvalue<T>(pe, i, salt);
  else
    return hv<T>(pe, i, salt);
}

template <class T>
__global__ void k_fill_hv(T* p, size_t n, int pe, uint64_t salt) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    p[i] = hv<T>(pe, i, salt);
}
template <class T>
void fill_hv(T* p, size_t n, int pe, uint64_t salt, cudaStream_t s = 0) {
  if (n == 0) return;
  if constexpr (std::is_same<T, long double>::value) {
    std::vector<T> h(n);
    for (size_t i = 0; i < n; ++i) h[i] = hvalue<T>(pe, i, salt);
    CUDA_CHECK(cudaMemcpyAsync(p, h.data(), n * sizeof(T), cudaMemcpyHostToDevice, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
  } else {
    k_fill_hv<T><<<64, 256, 0, s>>>(p, n, pe, salt);
    CUDA_CHECK(cudaGetLastError());
  }
}

// Strided check (stride 1: contiguous): element k*stride == expected(k), the rest poison.
template <class T, class Expected>
void verify_bits(const Guarded& g, size_t off, size_t n, ptrdiff_t stride, Expected expected, const char* file,
                 int line) {
  using W = B<T>;
  const size_t span = n ? (n - 1) * static_cast<size_t>(stride) + 1 : 0;
  const size_t before = kGuard + off * sizeof(T);
  const size_t total = before + span * sizeof(T) + kGuard;
  unsigned char* h = staging(total);
  CUDA_CHECK(cudaMemcpy(h, g.base, total, cudaMemcpyDeviceToHost));
  W poison;
  memset(static_cast<void*>(&poison), kPoison, sizeof(W));
  verify_array(
      "guard before", h, before, [](size_t) { return kPoison; }, file, line);
  verify_array(
      "data", reinterpret_cast<const W*>(h + before), span,
      [&](size_t k) { return k % static_cast<size_t>(stride) == 0 ? expected(k / stride) : poison; }, file, line);
  verify_array(
      "guard after", h + before + span * sizeof(T), kGuard, [](size_t) { return kPoison; }, file, line);
}
#define VERIFY_BITS(T, g, off, n, stride, fn) verify_bits<T>((g), (off), (n), (stride), (fn), __FILE__, __LINE__)

}  // namespace

// Type tags live outside the anonymous namespace: not every tag uses every member.
namespace ht_tags {

// ---------------------------------------------------------------- type tags
#define HT_HOST_PART(NAME)                                                                                      \
  static void host_p(T* d, T v, int pe) { gshmem_##NAME##_p(d, v, pe); }                                        \
  static T host_g(const T* s, int pe) { return gshmem_##NAME##_g(s, pe); }                                      \
  static void host_put(T* d, const T* s, size_t n, int pe, bool nbi) {                                          \
    if (nbi)                                                                                                    \
      gshmem_##NAME##_put_nbi(d, s, n, pe);                                                                     \
    else                                                                                                        \
      gshmem_##NAME##_put(d, s, n, pe);                                                                         \
  }                                                                                                             \
  static void host_get(T* d, const T* s, size_t n, int pe, bool nbi) {                                          \
    if (nbi)                                                                                                    \
      gshmem_##NAME##_get_nbi(d, s, n, pe);                                                                     \
    else                                                                                                        \
      gshmem_##NAME##_get(d, s, n, pe);                                                                         \
  }                                                                                                             \
  static void host_iput(T* d, const T* s, ptrdiff_t ds, ptrdiff_t ss, size_t n, int pe) {                       \
    gshmem_##NAME##_iput(d, s, ds, ss, n, pe);                                                                  \
  }                                                                                                             \
  static void host_iget(T* d, const T* s, ptrdiff_t ds, ptrdiff_t ss, size_t n, int pe) {                       \
    gshmem_##NAME##_iget(d, s, ds, ss, n, pe);                                                                  \
  }                                                                                                             \
  static void p_on_stream(T* d, T v, int pe, cudaStream_t st) { gshmemx_##NAME##_p_on_stream(d, v, pe, st); }   \
  static T g_on_stream(const T* s, int pe, cudaStream_t st) { return gshmemx_##NAME##_g_on_stream(s, pe, st); } \
  static void put_on_stream(T* d, const T* s, size_t n, int pe, cudaStream_t st, bool nbi) {                    \
    if (nbi)                                                                                                    \
      gshmemx_##NAME##_put_nbi_on_stream(d, s, n, pe, st);                                                      \
    else                                                                                                        \
      gshmemx_##NAME##_put_on_stream(d, s, n, pe, st);                                                          \
  }                                                                                                             \
  static void get_on_stream(T* d, const T* s, size_t n, int pe, cudaStream_t st, bool nbi) {                    \
    if (nbi)                                                                                                    \
      gshmemx_##NAME##_get_nbi_on_stream(d, s, n, pe, st);                                                      \
    else                                                                                                        \
      gshmemx_##NAME##_get_on_stream(d, s, n, pe, st);                                                          \
  }                                                                                                             \
  static void iput_on_stream(T* d, const T* s, ptrdiff_t ds, ptrdiff_t ss, size_t n, int pe, cudaStream_t st) { \
    gshmemx_##NAME##_iput_on_stream(d, s, ds, ss, n, pe, st);                                                   \
  }                                                                                                             \
  static void iget_on_stream(T* d, const T* s, ptrdiff_t ds, ptrdiff_t ss, size_t n, int pe, cudaStream_t st) { \
    gshmemx_##NAME##_iget_on_stream(d, s, ds, ss, n, pe, st);                                                   \
  }

#define HT_SCOPED(S, thread_fn, warp_fn, block_fn, ...) \
  do {                                                  \
    if constexpr (::gt::is_thread_v<S>)                 \
      thread_fn(__VA_ARGS__);                           \
    else if constexpr (::gt::is_warp_v<S>)              \
      warp_fn(__VA_ARGS__);                             \
    else                                                \
      block_fn(__VA_ARGS__);                            \
  } while (0)

#define HT_DEVICE_PART(NAME)                                                                                           \
  static __device__ void p(T* d, T v, int pe) { gshmem_##NAME##_p(d, v, pe); }                                         \
  static __device__ T g(const T* s, int pe) { return gshmem_##NAME##_g(s, pe); }                                       \
  template <class S, bool NBI>                                                                                         \
  static __device__ void put(T* d, const T* s, size_t n, int pe) {                                                     \
    GT_SCOPED_CALL(S, NBI, gshmem_##NAME##_put, gshmem_##NAME##_put_nbi, gshmemx_##NAME##_put_warp,                    \
                   gshmemx_##NAME##_put_nbi_warp, gshmemx_##NAME##_put_block, gshmemx_##NAME##_put_nbi_block, d, s, n, \
                   pe);                                                                                                \
  }                                                                                                                    \
  template <class S, bool NBI>                                                                                         \
  static __device__ void get(T* d, const T* s, size_t n, int pe) {                                                     \
    GT_SCOPED_CALL(S, NBI, gshmem_##NAME##_get, gshmem_##NAME##_get_nbi, gshmemx_##NAME##_get_warp,                    \
                   gshmemx_##NAME##_get_nbi_warp, gshmemx_##NAME##_get_block, gshmemx_##NAME##_get_nbi_block, d, s, n, \
                   pe);                                                                                                \
  }                                                                                                                    \
  template <class S>                                                                                                   \
  static __device__ void iput(T* d, const T* s, ptrdiff_t ds, ptrdiff_t ss, size_t n, int pe) {                        \
    HT_SCOPED(S, gshmem_##NAME##_iput, gshmemx_##NAME##_iput_warp, gshmemx_##NAME##_iput_block, d, s, ds, ss, n, pe);  \
  }                                                                                                                    \
  template <class S>                                                                                                   \
  static __device__ void iget(T* d, const T* s, ptrdiff_t ds, ptrdiff_t ss, size_t n, int pe) {                        \
    HT_SCOPED(S, gshmem_##NAME##_iget, gshmemx_##NAME##_iget_warp, gshmemx_##NAME##_iget_block, d, s, ds, ss, n, pe);  \
  }

#define HT(NAME, TYPE)                         \
  struct ht_##NAME {                           \
    using T = TYPE;                            \
    static constexpr const char* name = #NAME; \
    HT_HOST_PART(NAME)                         \
    HT_DEVICE_PART(NAME)                       \
  }

HT(half, __half);
HT(bfloat16, __nv_bfloat16);
HT(int, int);
HT(double, double);
HT(char, char);
struct ht_longdouble {
  using T = long double;
  static constexpr const char* name = "longdouble";
  HT_HOST_PART(longdouble)
};

}  // namespace ht_tags
using namespace ht_tags;

namespace {

// ---------------------------------------------------------------- 1. device p/g
struct Bufs {
  Guarded dst;    // symmetric
  Guarded src;    // symmetric
  Guarded local;  // local
};

template <class Ty>
__global__ void k_pg(typename Ty::T* dst, const typename Ty::T* src, typename Ty::T* got, uint64_t salt, int api) {
  using T = typename Ty::T;
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int t = threadIdx.x;
  for (int k = 0; k < npes; ++k) {
    const int pe = (me + k) % npes;
    if (api == 0)
      Ty::p(&dst[me * kThreads + t], hv<T>(me, t, salt), pe);
    else
      gshmem::p(&dst[me * kThreads + t], hv<T>(me, t, salt), pe);
  }
  gshmemx_barrier_all_block();
  for (int k = 0; k < npes; ++k) {
    const int pe = (me + npes - k) % npes;
    got[pe * kThreads + t] = api == 0 ? Ty::g(&src[t], pe) : gshmem::g(&src[t], pe);
  }
  gshmemx_barrier_all_block();
}

template <class Ty>
void device_pg(Bufs& b) {
  using T = typename Ty::T;
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  for (int api = 0; api < 2; ++api) {
    const uint64_t salt = ++g_salt;
    set_context("device p/g %s via %s", Ty::name, api ? "gshmem::p/g" : "C names");
    const size_t n = static_cast<size_t>(npes) * kThreads;
    poison_device(b.dst.base, b.dst.bytes);
    poison_device(b.local.base, b.local.bytes);
    fill_hv(b.src.at<T>(0), kThreads, me, salt + 1);
    CUDA_CHECK(cudaDeviceSynchronize());
    gshmem_barrier_all();
    k_pg<Ty><<<1, kThreads>>>(b.dst.at<T>(0), b.src.at<T>(0), b.local.at<T>(0), salt, api);
    KERNEL_CHECK();
    VERIFY_BITS(T, b.dst, 0, n, 1, [&](size_t i) { return hb<T>(static_cast<int>(i / kThreads), i % kThreads, salt); });
    VERIFY_BITS(T, b.local, 0, n, 1,
                [&](size_t i) { return hb<T>(static_cast<int>(i / kThreads), i % kThreads, salt + 1); });
    gshmem_barrier_all();
  }
}

// ---------------------------------------------------------------- 2. device put/get
template <class Ty, class S, bool NBI>
__global__ void __launch_bounds__(1024)
    k_put(typename Ty::T* dst, typename Ty::T* src, size_t n, int pe, int api, int me, uint64_t clobber) {
  using T = typename Ty::T;
  if (api == 0)
    Ty::template put<S, NBI>(dst, src, n, pe);
  else if constexpr (NBI)
    gshmem::put_nbi<S>(dst, src, n, pe);
  else
    gshmem::put<S>(dst, src, n, pe);
  if constexpr (!NBI)
    for (size_t i = S::rank(); i < n; i += S::size()) src[i] = hv<T>(me, i, clobber);
  if (api == 0)
    gshmem_quiet();
  else
    gshmem::quiet<S>();
  barrier_all_scope<S>(api);
}

template <class Ty, class S, bool NBI>
__global__ void __launch_bounds__(1024)
    k_get(typename Ty::T* dst, const typename Ty::T* src, size_t n, int pe, int api) {
  if (api == 0)
    Ty::template get<S, NBI>(dst, src, n, pe);
  else if constexpr (NBI)
    gshmem::get_nbi<S>(dst, src, n, pe);
  else
    gshmem::get<S>(dst, src, n, pe);
  if (api == 0)
    gshmem_quiet();
  else
    gshmem::quiet<S>();
}

template <class S>
int threads_of() {
  return is_thread_v<S> ? 1 : is_warp_v<S> ? 32 : 256;
}

template <class Ty, class S, bool NBI>
void device_put_get(Bufs& b, size_t n, size_t soff, size_t doff, int api) {
  using T = typename Ty::T;
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  uint64_t salt = ++g_salt;
  set_context("device put %s scope=%s %s %s n=%zu soff=%zu doff=%zu", Ty::name, scope_name<S>(),
              NBI ? "nbi" : "blocking", api ? "c++" : "C", n, soff, doff);
  fill_hv(b.local.at<T>(soff), n, me, salt);
  poison_device(b.dst.base, b.dst.bytes);
  gshmem_barrier_all();
  k_put<Ty, S, NBI><<<1, threads_of<S>()>>>(b.dst.at<T>(doff), b.local.at<T>(soff), n, next, api, me, salt + 99);
  KERNEL_CHECK();
  VERIFY_BITS(T, b.dst, doff, n, 1, [&](size_t i) { return hb<T>(prev, i, salt); });
  gshmem_barrier_all();

  salt = ++g_salt;
  set_context("device get %s scope=%s %s %s n=%zu soff=%zu doff=%zu", Ty::name, scope_name<S>(),
              NBI ? "nbi" : "blocking", api ? "c++" : "C", n, soff, doff);
  fill_hv(b.src.at<T>(soff), n, me, salt);
  poison_device(b.local.base, b.local.bytes);
  gshmem_barrier_all();
  k_get<Ty, S, NBI><<<1, threads_of<S>()>>>(b.local.at<T>(doff), b.src.at<T>(soff), n, prev, api);
  KERNEL_CHECK();
  VERIFY_BITS(T, b.local, doff, n, 1, [&](size_t i) { return hb<T>(prev, i, salt); });
  gshmem_barrier_all();
}

template <class Ty, class S>
void device_put_get_all(Bufs& b) {
  const size_t counts[] = {0, 1, 17, 1001};
  for (size_t n : counts)
    for (int api = 0; api < 2; ++api) {
      device_put_get<Ty, S, false>(b, n, 1, 2, api);
      device_put_get<Ty, S, true>(b, n, 3, 0, api);
    }
}

// ---------------------------------------------------------------- 3. device iput/iget
template <class Ty, class S>
__global__ void __launch_bounds__(1024)
    k_iput(typename Ty::T* dst, const typename Ty::T* src, ptrdiff_t ds, ptrdiff_t ss, size_t n, int pe, int api) {
  if (api == 0)
    Ty::template iput<S>(dst, src, ds, ss, n, pe);
  else
    gshmem::iput<S>(dst, src, ds, ss, n, pe);
  if (api == 0)
    gshmem_quiet();
  else
    gshmem::quiet<S>();
  barrier_all_scope<S>(api);
}
template <class Ty, class S>
__global__ void __launch_bounds__(1024)
    k_iget(typename Ty::T* dst, const typename Ty::T* src, ptrdiff_t ds, ptrdiff_t ss, size_t n, int pe, int api) {
  if (api == 0)
    Ty::template iget<S>(dst, src, ds, ss, n, pe);
  else
    gshmem::iget<S>(dst, src, ds, ss, n, pe);
}

template <class Ty, class S>
void device_strided(Bufs& b, size_t n, ptrdiff_t ds, ptrdiff_t ss, int api) {
  using T = typename Ty::T;
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  const size_t sspan = n ? (n - 1) * static_cast<size_t>(ss) + 1 : 0;
  uint64_t salt = ++g_salt;
  set_context("device iput %s scope=%s %s n=%zu dst=%td sst=%td", Ty::name, scope_name<S>(), api ? "c++" : "C", n, ds,
              ss);
  fill_hv(b.local.at<T>(0), sspan, me, salt);
  poison_device(b.dst.base, b.dst.bytes);
  gshmem_barrier_all();
  k_iput<Ty, S><<<1, threads_of<S>()>>>(b.dst.at<T>(1), b.local.at<T>(0), ds, ss, n, next, api);
  KERNEL_CHECK();
  VERIFY_BITS(T, b.dst, 1, n, ds, [&](size_t i) { return hb<T>(prev, i * ss, salt); });
  gshmem_barrier_all();

  salt = ++g_salt;
  set_context("device iget %s scope=%s %s n=%zu dst=%td sst=%td", Ty::name, scope_name<S>(), api ? "c++" : "C", n, ds,
              ss);
  fill_hv(b.src.at<T>(2), sspan, me, salt);
  poison_device(b.local.base, b.local.bytes);
  gshmem_barrier_all();
  k_iget<Ty, S><<<1, threads_of<S>()>>>(b.local.at<T>(0), b.src.at<T>(2), ds, ss, n, prev, api);
  KERNEL_CHECK();
  VERIFY_BITS(T, b.local, 0, n, ds, [&](size_t i) { return hb<T>(prev, i * ss, salt); });
  gshmem_barrier_all();
}

template <class Ty>
void device_all(Bufs& b) {
  device_pg<Ty>(b);
  device_put_get_all<Ty, thread_scope>(b);
  device_put_get_all<Ty, warp_scope>(b);
  device_put_get_all<Ty, block_scope>(b);
  const ptrdiff_t pairs[][2] = {{1, 1}, {2, 3}, {7, 1}, {1, 7}, {3, 2}};
  for (auto& st : pairs)
    for (int api = 0; api < 2; ++api) {
      device_strided<Ty, thread_scope>(b, 33, st[0], st[1], api);
      device_strided<Ty, warp_scope>(b, 77, st[0], st[1], api);
      device_strided<Ty, block_scope>(b, 1001, st[0], st[1], api);
    }
}

// ---------------------------------------------------------------- 4. host forms
template <class Ty>
void host_all(Bufs& b) {
  using T = typename Ty::T;
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  // p / g
  uint64_t salt = ++g_salt;
  set_context("host p/g %s", Ty::name);
  poison_device(b.dst.base, b.dst.bytes);
  fill_hv(b.src.at<T>(0), 5, me, salt + 1);
  CUDA_CHECK(cudaDeviceSynchronize());
  gshmem_barrier_all();
  for (int k = 0; k < npes; ++k)
    for (int i = 0; i < 5; ++i) Ty::host_p(b.dst.at<T>(me * 5 + i), host_hv<T>(me, i, salt), (me + k) % npes);
  gshmem_barrier_all();
  VERIFY_BITS(T, b.dst, 0, static_cast<size_t>(npes) * 5, 1,
              [&](size_t i) { return hb<T>(static_cast<int>(i / 5), i % 5, salt); });
  for (int k = 0; k < npes; ++k)
    for (int i = 0; i < 5; ++i) {
      const int pe = (me + k) % npes;
      const T v = Ty::host_g(b.src.at<T>(i), pe);
      B<T> got;
      memcpy(static_cast<void*>(&got), &v, sizeof(got));
      GT_CHECK_EQ(hb<T>(pe, i, salt + 1), got);
    }
  gshmem_barrier_all();
  // put / get, blocking and nbi, from/to device and pageable memory
  std::vector<T> host(1001);
  for (int nbi = 0; nbi < 2; ++nbi) {
    salt = ++g_salt;
    set_context("host put %s %s", Ty::name, nbi ? "nbi" : "blocking");
    for (size_t i = 0; i < host.size(); ++i) host[i] = host_hv<T>(me, i, salt);
    poison_device(b.dst.base, b.dst.bytes);
    gshmem_barrier_all();
    Ty::host_put(b.dst.at<T>(1), host.data(), host.size(), next, nbi != 0);
    if (nbi) gshmem_quiet();
    gshmem_barrier_all();
    VERIFY_BITS(T, b.dst, 1, host.size(), 1, [&](size_t i) { return hb<T>(prev, i, salt); });
    gshmem_barrier_all();

    salt = ++g_salt;
    set_context("host get %s %s", Ty::name, nbi ? "nbi" : "blocking");
    fill_hv(b.src.at<T>(0), 1001, me, salt);
    CUDA_CHECK(cudaDeviceSynchronize());
    poison_device(b.local.base, b.local.bytes);
    gshmem_barrier_all();
    Ty::host_get(b.local.at<T>(2), b.src.at<T>(0), 1001, prev, nbi != 0);
    if (nbi) gshmem_quiet();
    VERIFY_BITS(T, b.local, 2, 1001, 1, [&](size_t i) { return hb<T>(prev, i, salt); });
    gshmem_barrier_all();
  }
  // iput / iget
  const ptrdiff_t pairs[][2] = {{2, 3}, {7, 1}, {1, 7}};
  for (auto& st : pairs) {
    const size_t n = 33, sspan = (n - 1) * static_cast<size_t>(st[1]) + 1;
    salt = ++g_salt;
    set_context("host iput %s dst=%td sst=%td", Ty::name, st[0], st[1]);
    std::vector<T> src(sspan);
    for (size_t i = 0; i < sspan; ++i) src[i] = host_hv<T>(me, i, salt);
    poison_device(b.dst.base, b.dst.bytes);
    gshmem_barrier_all();
    Ty::host_iput(b.dst.at<T>(0), src.data(), st[0], st[1], n, next);
    gshmem_barrier_all();
    VERIFY_BITS(T, b.dst, 0, n, st[0], [&](size_t i) { return hb<T>(prev, i * st[1], salt); });
    gshmem_barrier_all();

    salt = ++g_salt;
    set_context("host iget %s dst=%td sst=%td", Ty::name, st[0], st[1]);
    fill_hv(b.src.at<T>(1), sspan, me, salt);
    CUDA_CHECK(cudaDeviceSynchronize());
    poison_device(b.local.base, b.local.bytes);
    gshmem_barrier_all();
    Ty::host_iget(b.local.at<T>(3), b.src.at<T>(1), st[0], st[1], n, prev);
    VERIFY_BITS(T, b.local, 3, n, st[0], [&](size_t i) { return hb<T>(prev, i * st[1], salt); });
    gshmem_barrier_all();
  }
}

// ---------------------------------------------------------------- 5. stream forms
template <class Ty>
void stream_all(Bufs& b, cudaStream_t s) {
  using T = typename Ty::T;
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  // p_on_stream: every PE stores 7 elements into every PE, ordered on s.
  uint64_t salt = ++g_salt;
  set_context("p_on_stream %s", Ty::name);
  CUDA_CHECK(cudaMemsetAsync(b.dst.base, kPoison, b.dst.bytes, s));
  gshmemx_barrier_all_on_stream(s);
  for (int k = 0; k < npes; ++k)
    for (int i = 0; i < 7; ++i) Ty::p_on_stream(b.dst.at<T>(me * 7 + i), host_hv<T>(me, i, salt), (me + k) % npes, s);
  gshmemx_barrier_all_on_stream(s);
  CUDA_CHECK(cudaStreamSynchronize(s));
  VERIFY_BITS(T, b.dst, 0, static_cast<size_t>(npes) * 7, 1,
              [&](size_t i) { return hb<T>(static_cast<int>(i / 7), i % 7, salt); });
  gshmem_barrier_all();
  // g_on_stream: ordered after a fill on s (returns the value, so it waits).
  salt = ++g_salt;
  set_context("g_on_stream %s", Ty::name);
  fill_hv(b.src.at<T>(0), 7, me, salt, s);
  gshmemx_barrier_all_on_stream(s);
  for (int k = 0; k < npes; ++k)
    for (int i = 0; i < 7; ++i) {
      const int pe = (me + k) % npes;
      const T v = Ty::g_on_stream(b.src.at<T>(i), pe, s);
      B<T> got;
      memcpy(static_cast<void*>(&got), &v, sizeof(got));
      GT_CHECK_EQ(hb<T>(pe, i, salt), got);
    }
  gshmemx_barrier_all_on_stream(s);
  CUDA_CHECK(cudaStreamSynchronize(s));
  // put/get[_nbi]_on_stream
  for (int nbi = 0; nbi < 2; ++nbi) {
    const size_t n = 1001;
    salt = ++g_salt;
    set_context("put%s_on_stream %s", nbi ? "_nbi" : "", Ty::name);
    fill_hv(b.local.at<T>(1), n, me, salt, s);
    CUDA_CHECK(cudaMemsetAsync(b.dst.base, kPoison, b.dst.bytes, s));
    gshmemx_barrier_all_on_stream(s);
    Ty::put_on_stream(b.dst.at<T>(2), b.local.at<T>(1), n, next, s, nbi != 0);
    gshmemx_barrier_all_on_stream(s);
    CUDA_CHECK(cudaStreamSynchronize(s));
    VERIFY_BITS(T, b.dst, 2, n, 1, [&](size_t i) { return hb<T>(prev, i, salt); });
    gshmem_barrier_all();

    salt = ++g_salt;
    set_context("get%s_on_stream %s", nbi ? "_nbi" : "", Ty::name);
    fill_hv(b.src.at<T>(3), n, me, salt, s);
    CUDA_CHECK(cudaMemsetAsync(b.local.base, kPoison, b.local.bytes, s));
    gshmemx_barrier_all_on_stream(s);
    Ty::get_on_stream(b.local.at<T>(0), b.src.at<T>(3), n, prev, s, nbi != 0);
    gshmemx_barrier_all_on_stream(s);
    CUDA_CHECK(cudaStreamSynchronize(s));
    VERIFY_BITS(T, b.local, 0, n, 1, [&](size_t i) { return hb<T>(prev, i, salt); });
  }
  // iput/iget_on_stream
  const ptrdiff_t pairs[][2] = {{3, 2}, {1, 7}};
  for (auto& st : pairs) {
    const size_t n = 65, sspan = (n - 1) * static_cast<size_t>(st[1]) + 1;
    salt = ++g_salt;
    set_context("iput_on_stream %s dst=%td sst=%td", Ty::name, st[0], st[1]);
    fill_hv(b.local.at<T>(0), sspan, me, salt, s);
    CUDA_CHECK(cudaMemsetAsync(b.dst.base, kPoison, b.dst.bytes, s));
    gshmemx_barrier_all_on_stream(s);
    Ty::iput_on_stream(b.dst.at<T>(1), b.local.at<T>(0), st[0], st[1], n, next, s);
    gshmemx_barrier_all_on_stream(s);
    CUDA_CHECK(cudaStreamSynchronize(s));
    VERIFY_BITS(T, b.dst, 1, n, st[0], [&](size_t i) { return hb<T>(prev, i * st[1], salt); });
    gshmem_barrier_all();

    salt = ++g_salt;
    set_context("iget_on_stream %s dst=%td sst=%td", Ty::name, st[0], st[1]);
    fill_hv(b.src.at<T>(0), sspan, me, salt, s);
    CUDA_CHECK(cudaMemsetAsync(b.local.base, kPoison, b.local.bytes, s));
    gshmemx_barrier_all_on_stream(s);
    Ty::iget_on_stream(b.local.at<T>(2), b.src.at<T>(0), st[0], st[1], n, prev, s);
    gshmemx_barrier_all_on_stream(s);
    CUDA_CHECK(cudaStreamSynchronize(s));
    VERIFY_BITS(T, b.local, 2, n, st[0], [&](size_t i) { return hb<T>(prev, i * st[1], salt); });
  }
}

// putN/getN_nbi_on_stream and putmem/getmem_nbi_on_stream: element type T, call through fn pointers.
template <class T>
void stream_nbi_sized(Bufs& b, cudaStream_t s, const char* what,
                      void (*put)(void*, const void*, size_t, int, cudaStream_t),
                      void (*get)(void*, const void*, size_t, int, cudaStream_t), size_t count_scale) {
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  const size_t n = 999;
  uint64_t salt = ++g_salt;
  set_context("%s put", what);
  fill_device(b.local.at<T>(1), n, me, salt);
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaMemsetAsync(b.dst.base, kPoison, b.dst.bytes, s));
  gshmemx_barrier_all_on_stream(s);
  put(b.dst.at<T>(0), b.local.at<T>(1), n * count_scale, next, s);
  gshmemx_barrier_all_on_stream(s);
  CUDA_CHECK(cudaStreamSynchronize(s));
  GT_VERIFY_GUARDED(T, b.dst, 0, n, [&](size_t i) { return value<T>(prev, i, salt); });
  gshmem_barrier_all();
  salt = ++g_salt;
  set_context("%s get", what);
  fill_device(b.src.at<T>(2), n, me, salt);
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaMemsetAsync(b.local.base, kPoison, b.local.bytes, s));
  gshmemx_barrier_all_on_stream(s);
  get(b.local.at<T>(3), b.src.at<T>(2), n * count_scale, prev, s);
  gshmemx_barrier_all_on_stream(s);
  CUDA_CHECK(cudaStreamSynchronize(s));
  GT_VERIFY_GUARDED(T, b.local, 3, n, [&](size_t i) { return value<T>(prev, i, salt); });
}

}  // namespace

int main() {
  test_main_prologue(1, 0);
  Bufs b;
  b.dst = make_symmetric(kMaxBytes);
  b.src = make_symmetric(kMaxBytes);
  b.local = make_local(kMaxBytes);

  device_all<ht_half>(b);
  device_all<ht_bfloat16>(b);
  host_all<ht_half>(b);
  host_all<ht_bfloat16>(b);
  host_all<ht_longdouble>(b);

  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  stream_all<ht_half>(b, s);
  stream_all<ht_bfloat16>(b, s);
  stream_all<ht_int>(b, s);
  stream_all<ht_double>(b, s);
  stream_all<ht_char>(b, s);
  stream_all<ht_longdouble>(b, s);
  stream_nbi_sized<uint8_t>(b, s, "put8/get8_nbi_on_stream", gshmemx_put8_nbi_on_stream, gshmemx_get8_nbi_on_stream, 1);
  stream_nbi_sized<uint16_t>(b, s, "put16/get16_nbi_on_stream", gshmemx_put16_nbi_on_stream,
                             gshmemx_get16_nbi_on_stream, 1);
  stream_nbi_sized<uint32_t>(b, s, "put32/get32_nbi_on_stream", gshmemx_put32_nbi_on_stream,
                             gshmemx_get32_nbi_on_stream, 1);
  stream_nbi_sized<uint64_t>(b, s, "put64/get64_nbi_on_stream", gshmemx_put64_nbi_on_stream,
                             gshmemx_get64_nbi_on_stream, 1);
  stream_nbi_sized<u128>(b, s, "put128/get128_nbi_on_stream", gshmemx_put128_nbi_on_stream,
                         gshmemx_get128_nbi_on_stream, 1);
  stream_nbi_sized<uint32_t>(b, s, "putmem/getmem_nbi_on_stream", gshmemx_putmem_nbi_on_stream,
                             gshmemx_getmem_nbi_on_stream, sizeof(uint32_t));
  gshmem_barrier_all();
  CUDA_CHECK(cudaStreamDestroy(s));

  release(b.local);
  release(b.src);
  release(b.dst);
  return test_main_epilogue("rma_half");
}
