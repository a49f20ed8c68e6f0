// SPDX-License-Identifier: BSD-3-Clause
// Strided RMA: gshmem_TYPE_iput/iget, gshmem_iputN/igetN (N = 8..128) and gshmem::iput/iget.
//   1. Device, PE me -> PE (me+1)%n and to itself: thread, warp (full and a 20-thread
//      warp) and block (256 and 33 threads) scope, through the C names and the C++
//      templates; destination/source strides 1, 2, 3, 7 in both roles; 0, 1, odd and
//      large element counts. A blocking iput's source is overwritten right after the call
//      (it may be reused on return).
//   2. Host iput/iget (blocking) from/to device, pinned and pageable memory.
//   3. gshmemx_*_iput/iget_on_stream ordered with kernels on a user stream.
//   4. (argument "bigpitch") a stride whose pitch exceeds cudaDevAttrMaxPitch: the host
//      forms fall back to a kernel (device memory) or element-wise copies (pageable).
// Every element of every written range is checked, and so is every gap between strided
// elements (still the poison byte) and the guard zones around the range.
#include <vector>

#include "rma_cases.cuh"

using namespace gt;
using gshmem::block_scope;
using gshmem::thread_scope;
using gshmem::warp_scope;

namespace {

constexpr size_t kMaxBytes = (1u << 20) + 4096;
uint64_t g_salt = 31000;

}  // namespace

// Type tags live outside the anonymous namespace: not every tag uses every member.
namespace st_tags {

// ---------------------------------------------------------------- type tags (strided names)
#define ST_SCOPED(S, thread_fn, warp_fn, block_fn, ...) \
  do {                                                  \
    if constexpr (::gt::is_thread_v<S>)                 \
      thread_fn(__VA_ARGS__);                           \
    else if constexpr (::gt::is_warp_v<S>)              \
      warp_fn(__VA_ARGS__);                             \
    else                                                \
      block_fn(__VA_ARGS__);                            \
  } while (0)

#define ST_TYPED(NAME, TYPE)                                                                                       \
  struct st_##NAME {                                                                                               \
    using T = TYPE;                                                                                                \
    static constexpr const char* name = #NAME;                                                                     \
    template <class S>                                                                                             \
    static __device__ void iput(T* d, const T* s, ptrdiff_t ds, ptrdiff_t ss, size_t n, int pe) {                  \
      ST_SCOPED(S, gshmem_##NAME##_iput, gshmemx_##NAME##_iput_warp, gshmemx_##NAME##_iput_block, d, s, ds, ss, n, \
                pe);                                                                                               \
    }                                                                                                              \
    template <class S>                                                                                             \
    static __device__ void iget(T* d, const T* s, ptrdiff_t ds, ptrdiff_t ss, size_t n, int pe) {                  \
      ST_SCOPED(S, gshmem_##NAME##_iget, gshmemx_##NAME##_iget_warp, gshmemx_##NAME##_iget_block, d, s, ds, ss, n, \
                pe);                                                                                               \
    }                                                                                                              \
    static void host_iput(T* d, const T* s, ptrdiff_t ds, ptrdiff_t ss, size_t n, int pe) {                        \
      gshmem_##NAME##_iput(d, s, ds, ss, n, pe);                                                                   \
    }                                                                                                              \
    static void host_iget(T* d, const T* s, ptrdiff_t ds, ptrdiff_t ss, size_t n, int pe) {                        \
      gshmem_##NAME##_iget(d, s, ds, ss, n, pe);                                                                   \
    }                                                                                                              \
    static void iput_on_stream(T* d, const T* s, ptrdiff_t ds, ptrdiff_t ss, size_t n, int pe, cudaStream_t st) {  \
      gshmemx_##NAME##_iput_on_stream(d, s, ds, ss, n, pe, st);                                                    \
    }                                                                                                              \
    static void iget_on_stream(T* d, const T* s, ptrdiff_t ds, ptrdiff_t ss, size_t n, int pe, cudaStream_t st) {  \
      gshmemx_##NAME##_iget_on_stream(d, s, ds, ss, n, pe, st);                                                    \
    }                                                                                                              \
  }

#define ST_BITS(BITS, TYPE)                                                                                        \
  struct st_bits##BITS {                                                                                           \
    using T = TYPE;                                                                                                \
    static constexpr const char* name = "bits" #BITS;                                                              \
    template <class S>                                                                                             \
    static __device__ void iput(T* d, const T* s, ptrdiff_t ds, ptrdiff_t ss, size_t n, int pe) {                  \
      ST_SCOPED(S, gshmem_iput##BITS, gshmemx_iput##BITS##_warp, gshmemx_iput##BITS##_block, d, s, ds, ss, n, pe); \
    }                                                                                                              \
    template <class S>                                                                                             \
    static __device__ void iget(T* d, const T* s, ptrdiff_t ds, ptrdiff_t ss, size_t n, int pe) {                  \
      ST_SCOPED(S, gshmem_iget##BITS, gshmemx_iget##BITS##_warp, gshmemx_iget##BITS##_block, d, s, ds, ss, n, pe); \
    }                                                                                                              \
    static void host_iput(T* d, const T* s, ptrdiff_t ds, ptrdiff_t ss, size_t n, int pe) {                        \
      gshmem_iput##BITS(d, s, ds, ss, n, pe);                                                                      \
    }                                                                                                              \
    static void host_iget(T* d, const T* s, ptrdiff_t ds, ptrdiff_t ss, size_t n, int pe) {                        \
      gshmem_iget##BITS(d, s, ds, ss, n, pe);                                                                      \
    }                                                                                                              \
    static void iput_on_stream(T* d, const T* s, ptrdiff_t ds, ptrdiff_t ss, size_t n, int pe, cudaStream_t st) {  \
      gshmemx_iput##BITS##_on_stream(d, s, ds, ss, n, pe, st);                                                     \
    }                                                                                                              \
    static void iget_on_stream(T* d, const T* s, ptrdiff_t ds, ptrdiff_t ss, size_t n, int pe, cudaStream_t st) {  \
      gshmemx_iget##BITS##_on_stream(d, s, ds, ss, n, pe, st);                                                     \
    }                                                                                                              \
  }

ST_TYPED(char, char);
ST_TYPED(short, short);
ST_TYPED(int, int);
ST_TYPED(long, long);
ST_TYPED(uint64, uint64_t);
ST_TYPED(float, float);
ST_TYPED(double, double);
ST_TYPED(ptrdiff, ptrdiff_t);
ST_BITS(8, uint8_t);
ST_BITS(16, uint16_t);
ST_BITS(32, uint32_t);
ST_BITS(64, uint64_t);
ST_BITS(128, u128);

// Host-only long double names.
struct st_longdouble {
  using T = long double;
  static constexpr const char* name = "longdouble";
  static void host_iput(T* d, const T* s, ptrdiff_t ds, ptrdiff_t ss, size_t n, int pe) {
    gshmem_longdouble_iput(d, s, ds, ss, n, pe);
  }
  static void host_iget(T* d, const T* s, ptrdiff_t ds, ptrdiff_t ss, size_t n, int pe) {
    gshmem_longdouble_iget(d, s, ds, ss, n, pe);
  }
  static void iput_on_stream(T* d, const T* s, ptrdiff_t ds, ptrdiff_t ss, size_t n, int pe, cudaStream_t st) {
    gshmemx_longdouble_iput_on_stream(d, s, ds, ss, n, pe, st);
  }
  static void iget_on_stream(T* d, const T* s, ptrdiff_t ds, ptrdiff_t ss, size_t n, int pe, cudaStream_t st) {
    gshmemx_longdouble_iget_on_stream(d, s, ds, ss, n, pe, st);
  }
};

}  // namespace st_tags
using namespace st_tags;

namespace {

// Elements spanned by n elements `stride` apart.
inline size_t span_of(size_t n, ptrdiff_t stride) { return n ? (n - 1) * static_cast<size_t>(stride) + 1 : 0; }

template <class T>
T poison_value() {
  T v;
  memset(static_cast<void*>(&v), kPoison, sizeof(T));
  return v;
}

// Checks [0, kGuard + (off + span) * sizeof(T) + kGuard) of a buffer whose base is `base`
// (device, pinned or pageable): guards, element k*stride == expected(k), every other element poison.
template <class T, class Expected>
void verify_strided(const unsigned char* base, bool on_device, size_t off, size_t n, ptrdiff_t stride,
                    Expected expected, const char* file, int line) {
  const size_t span = span_of(n, stride);
  const size_t before = kGuard + off * sizeof(T);
  const size_t total = before + span * sizeof(T) + kGuard;
  const unsigned char* h = base;
  if (on_device) {
    unsigned char* st = staging(total);
    CUDA_CHECK(cudaMemcpy(st, base, total, cudaMemcpyDeviceToHost));
    h = st;
  }
  const T poison = poison_value<T>();
  verify_array(
      "guard before", h, before, [](size_t) { return kPoison; }, file, line);
  verify_array(
      "strided data", reinterpret_cast<const T*>(h + before), span,
      [&](size_t k) { return k % static_cast<size_t>(stride) == 0 ? expected(k / stride) : poison; }, file, line);
  verify_array(
      "guard after", h + before + span * sizeof(T), kGuard, [](size_t) { return kPoison; }, file, line);
}

// ---------------------------------------------------------------- 1. device
struct Bufs {
  Guarded dst;      // symmetric: iput target
  Guarded src_sym;  // symmetric: iget source
  Guarded local;    // local: iput source / iget target
};

template <class Ty, class S>
__global__ void __launch_bounds__(1024) k_iput(typename Ty::T* dst, typename Ty::T* src, ptrdiff_t ds, ptrdiff_t ss,
                                               size_t n, int pe, int api, int me, uint64_t clobber_salt) {
  using T = typename Ty::T;
  if (api == 0)
    Ty::template iput<S>(dst, src, ds, ss, n, pe);
  else
    gshmem::iput<S>(dst, src, ds, ss, n, pe);
  // Blocking: the source may be reused at once.
  const size_t span = n ? (n - 1) * static_cast<size_t>(ss) + 1 : 0;
  for (size_t j = S::rank(); j < span; j += S::size()) src[j] = value<T>(me, j, clobber_salt);
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

struct Case {
  size_t n;
  ptrdiff_t ds, ss;   // destination and source strides
  size_t doff, soff;  // element offsets
  int api;            // 0: C names, 1: C++ templates
  bool to_self;
  int threads;  // 0: the scope's default
};

template <class Ty, class S>
void device_iput(Bufs& b, const Case& c) {
  using T = typename Ty::T;
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int target = c.to_self ? me : (me + 1) % npes;
  const int from = c.to_self ? me : (me + npes - 1) % npes;
  const int threads = rma_threads<S>(c.threads);
  const uint64_t salt = ++g_salt;
  set_context("device iput %s scope=%s threads=%d %s n=%zu dst=%td sst=%td doff=%zu soff=%zu -> %s", Ty::name,
              scope_name<S>(), threads, c.api ? "c++" : "C", c.n, c.ds, c.ss, c.doff, c.soff,
              c.to_self ? "self" : "next PE");
  T* src = b.local.at<T>(c.soff);
  fill_device(src, span_of(c.n, c.ss), me, salt);
  poison_device(b.dst.base, b.dst.bytes);
  gshmem_barrier_all();  // every target poisoned before anyone writes
  k_iput<Ty, S><<<1, threads>>>(b.dst.at<T>(c.doff), src, c.ds, c.ss, c.n, target, c.api, me, salt + 7777);
  KERNEL_CHECK();
  verify_strided<T>(
      b.dst.base, true, c.doff, c.n, c.ds, [&](size_t i) { return value<T>(from, i * c.ss, salt); }, __FILE__,
      __LINE__);
  gshmem_barrier_all();  // nobody re-poisons before everyone checked
}

template <class Ty, class S>
void device_iget(Bufs& b, const Case& c) {
  using T = typename Ty::T;
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int from = c.to_self ? me : (me + npes - 1) % npes;
  const int threads = rma_threads<S>(c.threads);
  const uint64_t salt = ++g_salt;
  set_context("device iget %s scope=%s threads=%d %s n=%zu dst=%td sst=%td doff=%zu soff=%zu <- %s", Ty::name,
              scope_name<S>(), threads, c.api ? "c++" : "C", c.n, c.ds, c.ss, c.doff, c.soff,
              c.to_self ? "self" : "previous PE");
  fill_device(b.src_sym.at<T>(c.soff), span_of(c.n, c.ss), me, salt);
  poison_device(b.local.base, b.local.bytes);
  gshmem_barrier_all();  // every source filled before anyone reads
  k_iget<Ty, S><<<1, threads>>>(b.local.at<T>(c.doff), b.src_sym.at<T>(c.soff), c.ds, c.ss, c.n, from, c.api);
  KERNEL_CHECK();
  verify_strided<T>(
      b.local.base, true, c.doff, c.n, c.ds, [&](size_t i) { return value<T>(from, i * c.ss, salt); }, __FILE__,
      __LINE__);
  gshmem_barrier_all();  // sources stay until everyone has read them
}

template <class Ty, class S>
void device_both(Bufs& b, const Case& c) {
  device_iput<Ty, S>(b, c);
  device_iget<Ty, S>(b, c);
}

template <class Ty>
void device_all_scopes(Bufs& b, const Case& c) {
  device_both<Ty, thread_scope>(b, c);
  device_both<Ty, warp_scope>(b, c);
  device_both<Ty, block_scope>(b, c);
}

const ptrdiff_t kStridePairs[][2] = {{1, 1}, {2, 1}, {1, 2}, {3, 3}, {7, 1}, {1, 7}, {2, 3}, {3, 7}, {7, 2}};

template <class Ty>
void device_full(Bufs& b) {
  const size_t counts[] = {0, 1, 5, 33, 1001};
  for (size_t n : counts)
    for (auto& st : kStridePairs)
      for (int api = 0; api < 2; ++api) device_all_scopes<Ty>(b, Case{n, st[0], st[1], 1, 2, api, false, 0});
  // To self, odd thread counts (a warp cut short at 20 threads, blocks of 33 and 1024).
  for (auto& st : kStridePairs) {
    device_all_scopes<Ty>(b, Case{77, st[0], st[1], 0, 3, 0, true, 0});
    device_both<Ty, warp_scope>(b, Case{133, st[0], st[1], 2, 0, 1, false, 20});
    device_both<Ty, block_scope>(b, Case{1001, st[0], st[1], 0, 1, 0, false, 33});
    device_both<Ty, block_scope>(b, Case{4097, st[0], st[1], 3, 0, 1, false, 1024});
  }
}

template <class Ty>
void device_quick(Bufs& b) {
  const ptrdiff_t pairs[][2] = {{1, 1}, {3, 2}, {2, 7}};
  for (auto& st : pairs)
    for (int api = 0; api < 2; ++api) device_all_scopes<Ty>(b, Case{33, st[0], st[1], 1, 0, api, false, 0});
}

// ---------------------------------------------------------------- 2. host (blocking)
template <class Ty>
void host_strided(Bufs& b, HostSideBuf& local, size_t n, ptrdiff_t ds, ptrdiff_t ss) {
  using T = typename Ty::T;
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  uint64_t salt = ++g_salt;
  set_context("host iput %s n=%zu dst=%td sst=%td from %s memory", Ty::name, n, ds, ss, mem_name(local.kind));
  local.template fill<T>(1, span_of(n, ss), me, salt);
  poison_device(b.dst.base, b.dst.bytes);
  gshmem_barrier_all();
  Ty::host_iput(b.dst.at<T>(2), local.template at<T>(1), ds, ss, n, next);
  gshmem_barrier_all();
  verify_strided<T>(
      b.dst.base, true, 2, n, ds, [&](size_t i) { return hvalue<T>(prev, i * ss, salt); }, __FILE__, __LINE__);

  salt = ++g_salt;
  set_context("host iget %s n=%zu dst=%td sst=%td into %s memory", Ty::name, n, ds, ss, mem_name(local.kind));
  std::vector<T> h(span_of(n, ss));
  for (size_t j = 0; j < h.size(); ++j) h[j] = hvalue<T>(me, j, salt);
  CUDA_CHECK(cudaMemcpy(b.src_sym.at<T>(3), h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  local.poison();
  gshmem_barrier_all();
  Ty::host_iget(local.template at<T>(0), b.src_sym.at<T>(3), ds, ss, n, prev);
  verify_strided<T>(
      local.base, local.kind == Mem::device, 0, n, ds, [&](size_t i) { return hvalue<T>(prev, i * ss, salt); },
      __FILE__, __LINE__);
  gshmem_barrier_all();
}

void host_all(Bufs& b) {
  for (Mem kind : {Mem::pageable, Mem::pinned, Mem::device}) {
    HostSideBuf local(kind, b.local.capacity());
    const size_t counts[] = {1, 5, 1001};
    for (size_t n : counts)
      for (auto& st : kStridePairs) {
        host_strided<st_int>(b, local, n, st[0], st[1]);
        host_strided<st_bits128>(b, local, n, st[0], st[1]);
      }
    for (auto& st : kStridePairs) {
      host_strided<st_char>(b, local, 33, st[0], st[1]);
      host_strided<st_double>(b, local, 33, st[0], st[1]);
      host_strided<st_bits8>(b, local, 17, st[0], st[1]);
      host_strided<st_bits16>(b, local, 17, st[0], st[1]);
      host_strided<st_bits32>(b, local, 17, st[0], st[1]);
      host_strided<st_bits64>(b, local, 17, st[0], st[1]);
      host_strided<st_longdouble>(b, local, 9, st[0], st[1]);
    }
  }
}

// ---------------------------------------------------------------- 3. on stream
template <class T>
__global__ void k_fill_on_stream(T* p, size_t n, int pe, uint64_t salt) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    p[i] = value<T>(pe, i, salt);
}

template <class Ty>
void stream_strided(Bufs& b, cudaStream_t s, size_t n, ptrdiff_t ds, ptrdiff_t ss) {
  using T = typename Ty::T;
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  const size_t sspan = span_of(n, ss);
  // iput: fill, poison, barrier, iput, barrier, all on `s`; the host waits only at the end.
  uint64_t salt = ++g_salt;
  set_context("iput_on_stream %s n=%zu dst=%td sst=%td", Ty::name, n, ds, ss);
  k_fill_on_stream<T><<<64, 256, 0, s>>>(b.local.at<T>(0), sspan, me, salt);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemsetAsync(b.dst.base, kPoison, b.dst.bytes, s));
  gshmemx_barrier_all_on_stream(s);
  Ty::iput_on_stream(b.dst.at<T>(1), b.local.at<T>(0), ds, ss, n, next, s);
  gshmemx_barrier_all_on_stream(s);
  CUDA_CHECK(cudaStreamSynchronize(s));
  verify_strided<T>(
      b.dst.base, true, 1, n, ds, [&](size_t i) { return value<T>(prev, i * ss, salt); }, __FILE__, __LINE__);
  // iget
  salt = ++g_salt;
  set_context("iget_on_stream %s n=%zu dst=%td sst=%td", Ty::name, n, ds, ss);
  k_fill_on_stream<T><<<64, 256, 0, s>>>(b.src_sym.at<T>(2), sspan, me, salt);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemsetAsync(b.local.base, kPoison, b.local.bytes, s));
  gshmemx_barrier_all_on_stream(s);
  Ty::iget_on_stream(b.local.at<T>(3), b.src_sym.at<T>(2), ds, ss, n, prev, s);
  gshmemx_barrier_all_on_stream(s);  // sources stay until everyone has read them
  CUDA_CHECK(cudaStreamSynchronize(s));
  verify_strided<T>(
      b.local.base, true, 3, n, ds, [&](size_t i) { return value<T>(prev, i * ss, salt); }, __FILE__, __LINE__);
}

void stream_all(Bufs& b) {
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  const size_t counts[] = {1, 5, 1001};
  for (size_t n : counts)
    for (auto& st : kStridePairs) {
      stream_strided<st_int>(b, s, n, st[0], st[1]);
      stream_strided<st_bits64>(b, s, n, st[0], st[1]);
    }
  for (auto& st : kStridePairs) {
    stream_strided<st_short>(b, s, 33, st[0], st[1]);
    stream_strided<st_float>(b, s, 33, st[0], st[1]);
    stream_strided<st_bits8>(b, s, 17, st[0], st[1]);
    stream_strided<st_bits16>(b, s, 17, st[0], st[1]);
    stream_strided<st_bits32>(b, s, 17, st[0], st[1]);
    stream_strided<st_bits128>(b, s, 17, st[0], st[1]);
  }
  gshmem_barrier_all();
  CUDA_CHECK(cudaStreamDestroy(s));
}

// ---------------------------------------------------------------- 4. pitch beyond the copy engines' limit
// Two elements `stride` apart where stride * sizeof(T) > cudaDevAttrMaxPitch: the host
// forms take the kernel path (device memory) or the element-wise path (pageable).
void big_pitch() {
  int max_pitch = 0, dev = 0;
  CUDA_CHECK(cudaGetDevice(&dev));
  CUDA_CHECK(cudaDeviceGetAttribute(&max_pitch, cudaDevAttrMaxPitch, dev));
  using T = uint64_t;
  const ptrdiff_t stride = static_cast<ptrdiff_t>(static_cast<size_t>(max_pitch) / sizeof(T) + 3);
  const size_t n = 2;
  const size_t span_bytes = span_of(n, stride) * sizeof(T);
  size_t free_b = 0, total_b = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  // Decided from the GPU's total memory, which is the same on every PE (the allocation is collective).
  if (span_bytes + 2 * kGuard > total_b / 4) {
    emit(stdout, "PE %d: SKIP big pitch: needs %zu bytes of symmetric heap\n", gshmem_my_pe(), span_bytes);
    return;
  }
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  Guarded big = make_symmetric(span_bytes);
  for (Mem kind : {Mem::device, Mem::pageable}) {
    HostSideBuf local(kind, 64 * sizeof(T));
    const uint64_t salt = ++g_salt;
    set_context("host iput/iget uint64 with pitch %zu > max pitch %d, local %s memory", stride * sizeof(T), max_pitch,
                mem_name(kind));
    // iput: contiguous local source -> elements 0 and `stride` of the symmetric target.
    local.fill<T>(0, n, me, salt);
    poison_device(big.base, big.bytes);
    gshmem_barrier_all();
    gshmem_uint64_iput(big.at<T>(0), local.at<T>(0), stride, 1, n, next);
    gshmem_barrier_all();
    T got[2];
    CUDA_CHECK(cudaMemcpy(&got[0], big.at<T>(0), sizeof(T), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&got[1], big.at<T>(stride), sizeof(T), cudaMemcpyDeviceToHost));
    GT_CHECK_EQ(value<T>(prev, 0, salt), got[0]);
    GT_CHECK_EQ(value<T>(prev, 1, salt), got[1]);
    unsigned char around[2 * 64];  // bytes on both sides of the second element stay poisoned
    CUDA_CHECK(
        cudaMemcpy(around, reinterpret_cast<unsigned char*>(big.at<T>(stride)) - 64, 64, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(around + 64, big.at<T>(stride + 1), 64, cudaMemcpyDeviceToHost));
    GT_VERIFY("around element 1", around, sizeof(around), [](size_t) { return kPoison; });
    // iget: each PE refills its elements 0 and `stride`; read the previous PE's two elements.
    gshmem_barrier_all();
    const T mine[2] = {value<T>(me, 10, salt), value<T>(me, 11, salt)};
    CUDA_CHECK(cudaMemcpy(big.at<T>(0), &mine[0], sizeof(T), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(big.at<T>(stride), &mine[1], sizeof(T), cudaMemcpyHostToDevice));
    local.poison();
    gshmem_barrier_all();
    gshmem_uint64_iget(local.at<T>(0), big.at<T>(0), 1, stride, n, prev);
    T back[3];
    if (kind == Mem::device)
      CUDA_CHECK(cudaMemcpy(back, local.at<T>(0), sizeof(back), cudaMemcpyDeviceToHost));
    else
      memcpy(back, local.at<T>(0), sizeof(back));
    GT_CHECK_EQ(value<T>(prev, 10, salt), back[0]);
    GT_CHECK_EQ(value<T>(prev, 11, salt), back[1]);
    GT_CHECK_EQ(poison_value<T>(), back[2]);
    gshmem_barrier_all();
  }
  release(big);
}

}  // namespace

int main(int argc, char** argv) {
  test_main_prologue(1, 0);
  if (argc > 1 && strcmp(argv[1], "bigpitch") == 0) {
    big_pitch();
    return test_main_epilogue("rma_strided bigpitch");
  }
  Bufs b;
  b.dst = make_symmetric(kMaxBytes);
  b.src_sym = make_symmetric(kMaxBytes);
  b.local = make_local(kMaxBytes);

  device_full<st_int>(b);
  device_full<st_char>(b);
  device_full<st_double>(b);
  device_full<st_bits32>(b);
  device_full<st_bits128>(b);
  device_quick<st_short>(b);
  device_quick<st_long>(b);
  device_quick<st_uint64>(b);
  device_quick<st_float>(b);
  device_quick<st_ptrdiff>(b);
  device_quick<st_bits8>(b);
  device_quick<st_bits16>(b);
  device_quick<st_bits64>(b);

  host_all(b);
  stream_all(b);

  release(b.local);
  release(b.src_sym);
  release(b.dst);
  return test_main_epilogue("rma_strided");
}
