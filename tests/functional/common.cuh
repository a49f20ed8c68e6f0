// SPDX-License-Identifier: BSD-3-Clause
// Device side of the GPU test harness (see common.h for the host side):
//   - pattern fill / poison helpers,
//   - one "type tag" per C type name of the API (ty_int, ty_uint64, ...), giving
//     uniform access to gshmem_<name>_p/_g/_put/_get(_nbi) and the
//     gshmemx_<name>_put_warp/_block... forms, the sized forms (gshmem_put8 ...
//     put128: ty_bits8 ...) and the untyped forms (gshmem_putmem ...: ty_mem),
//   - the same operations through the C++ templates (gshmem::put<Scope> ...),
//   - guarded symmetric buffers and their host-side verification, and guarded local
//     buffers in pageable, pinned or device memory (HostSideBuf).
#pragma once

#include <cuda_runtime.h>

#include <type_traits>
#include <vector>

#include "common.h"

namespace gt {

// ---------------------------------------------------------------- scopes
template <class S>
constexpr bool is_thread_v = std::is_same<S, gshmem::thread_scope>::value;
template <class S>
constexpr bool is_warp_v = std::is_same<S, gshmem::warp_scope>::value;
template <class S>
inline const char* scope_name() {
  return is_thread_v<S> ? "thread" : is_warp_v<S> ? "warp" : "block";
}

// Barrier at scope S through the C names (api 0) or the C++ template (api 1).
template <class S>
__device__ inline void barrier_all_scope(int api) {
  if (api == 0) {
    if constexpr (is_thread_v<S>)
      gshmem_barrier_all();
    else if constexpr (is_warp_v<S>)
      gshmemx_barrier_all_warp();
    else
      gshmemx_barrier_all_block();
  } else {
    gshmem::barrier_all<S>();
  }
}
template <class S>
__device__ inline void sync_all_scope(int api) {
  if (api == 0) {
    if constexpr (is_thread_v<S>)
      gshmem_sync_all();
    else if constexpr (is_warp_v<S>)
      gshmemx_sync_all_warp();
    else
      gshmemx_sync_all_block();
  } else {
    gshmem::sync_all<S>();
  }
}

// ---------------------------------------------------------------- type tags
// Ty::put<S, NBI>(dst, src, nelems, pe) etc. call the C names; the cpp_* free
// functions below call the C++ templates for the same Ty.
#define GT_SCOPED_CALL(S, NBI, thread_fn, thread_nbi_fn, warp_fn, warp_nbi_fn, block_fn, block_nbi_fn, ...) \
  do {                                                                                                      \
    if constexpr (::gt::is_thread_v<S>) {                                                                   \
      if constexpr (NBI)                                                                                    \
        thread_nbi_fn(__VA_ARGS__);                                                                         \
      else                                                                                                  \
        thread_fn(__VA_ARGS__);                                                                             \
    } else if constexpr (::gt::is_warp_v<S>) {                                                              \
      if constexpr (NBI)                                                                                    \
        warp_nbi_fn(__VA_ARGS__);                                                                           \
      else                                                                                                  \
        warp_fn(__VA_ARGS__);                                                                               \
    } else {                                                                                                \
      if constexpr (NBI)                                                                                    \
        block_nbi_fn(__VA_ARGS__);                                                                          \
      else                                                                                                  \
        block_fn(__VA_ARGS__);                                                                              \
    }                                                                                                       \
  } while (0)

#define GT_DEFINE_TYPED(NAME, TYPE)                                                                                   \
  struct ty_##NAME {                                                                                                  \
    using T = TYPE;                                                                                                   \
    static constexpr bool is_mem = false;                                                                             \
    static constexpr const char* name = #NAME;                                                                        \
    static __host__ __device__ void p(T* d, T v, int pe) { gshmem_##NAME##_p(d, v, pe); }                             \
    static __host__ __device__ T g(const T* s, int pe) { return gshmem_##NAME##_g(s, pe); }                           \
    template <class S, bool NBI>                                                                                      \
    static __device__ void put(T* d, const T* s, size_t n, int pe) {                                                  \
      GT_SCOPED_CALL(S, NBI, gshmem_##NAME##_put, gshmem_##NAME##_put_nbi, gshmemx_##NAME##_put_warp,                 \
                     gshmemx_##NAME##_put_nbi_warp, gshmemx_##NAME##_put_block, gshmemx_##NAME##_put_nbi_block, d, s, \
                     n, pe);                                                                                          \
    }                                                                                                                 \
    template <class S, bool NBI>                                                                                      \
    static __device__ void get(T* d, const T* s, size_t n, int pe) {                                                  \
      GT_SCOPED_CALL(S, NBI, gshmem_##NAME##_get, gshmem_##NAME##_get_nbi, gshmemx_##NAME##_get_warp,                 \
                     gshmemx_##NAME##_get_nbi_warp, gshmemx_##NAME##_get_block, gshmemx_##NAME##_get_nbi_block, d, s, \
                     n, pe);                                                                                          \
    }                                                                                                                 \
    static void host_put(T* d, const T* s, size_t n, int pe, bool nbi) {                                              \
      if (nbi)                                                                                                        \
        gshmem_##NAME##_put_nbi(d, s, n, pe);                                                                         \
      else                                                                                                            \
        gshmem_##NAME##_put(d, s, n, pe);                                                                             \
    }                                                                                                                 \
    static void host_get(T* d, const T* s, size_t n, int pe, bool nbi) {                                              \
      if (nbi)                                                                                                        \
        gshmem_##NAME##_get_nbi(d, s, n, pe);                                                                         \
      else                                                                                                            \
        gshmem_##NAME##_get(d, s, n, pe);                                                                             \
    }                                                                                                                 \
    static void put_on_stream(T* d, const T* s, size_t n, int pe, cudaStream_t st) {                                  \
      gshmemx_##NAME##_put_on_stream(d, s, n, pe, st);                                                                \
    }                                                                                                                 \
    static void get_on_stream(T* d, const T* s, size_t n, int pe, cudaStream_t st) {                                  \
      gshmemx_##NAME##_get_on_stream(d, s, n, pe, st);                                                                \
    }                                                                                                                 \
  }

// Sized forms: gshmem_put<BITS>(void*, const void*, nelems, pe); element type TYPE.
#define GT_DEFINE_BITS(BITS, TYPE)                                                                                    \
  struct ty_bits##BITS {                                                                                              \
    using T = TYPE;                                                                                                   \
    static constexpr bool is_mem = false;                                                                             \
    static constexpr const char* name = "bits" #BITS;                                                                 \
    template <class S, bool NBI>                                                                                      \
    static __device__ void put(T* d, const T* s, size_t n, int pe) {                                                  \
      GT_SCOPED_CALL(S, NBI, gshmem_put##BITS, gshmem_put##BITS##_nbi, gshmemx_put##BITS##_warp,                      \
                     gshmemx_put##BITS##_nbi_warp, gshmemx_put##BITS##_block, gshmemx_put##BITS##_nbi_block, d, s, n, \
                     pe);                                                                                             \
    }                                                                                                                 \
    template <class S, bool NBI>                                                                                      \
    static __device__ void get(T* d, const T* s, size_t n, int pe) {                                                  \
      GT_SCOPED_CALL(S, NBI, gshmem_get##BITS, gshmem_get##BITS##_nbi, gshmemx_get##BITS##_warp,                      \
                     gshmemx_get##BITS##_nbi_warp, gshmemx_get##BITS##_block, gshmemx_get##BITS##_nbi_block, d, s, n, \
                     pe);                                                                                             \
    }                                                                                                                 \
    static void host_put(T* d, const T* s, size_t n, int pe, bool nbi) {                                              \
      if (nbi)                                                                                                        \
        gshmem_put##BITS##_nbi(d, s, n, pe);                                                                          \
      else                                                                                                            \
        gshmem_put##BITS(d, s, n, pe);                                                                                \
    }                                                                                                                 \
    static void host_get(T* d, const T* s, size_t n, int pe, bool nbi) {                                              \
      if (nbi)                                                                                                        \
        gshmem_get##BITS##_nbi(d, s, n, pe);                                                                          \
      else                                                                                                            \
        gshmem_get##BITS(d, s, n, pe);                                                                                \
    }                                                                                                                 \
    static void put_on_stream(T* d, const T* s, size_t n, int pe, cudaStream_t st) {                                  \
      gshmemx_put##BITS##_on_stream(d, s, n, pe, st);                                                                 \
    }                                                                                                                 \
    static void get_on_stream(T* d, const T* s, size_t n, int pe, cudaStream_t st) {                                  \
      gshmemx_get##BITS##_on_stream(d, s, n, pe, st);                                                                 \
    }                                                                                                                 \
  }

GT_DEFINE_TYPED(char, char);
GT_DEFINE_TYPED(schar, signed char);
GT_DEFINE_TYPED(short, short);
GT_DEFINE_TYPED(int, int);
GT_DEFINE_TYPED(long, long);
GT_DEFINE_TYPED(longlong, long long);
GT_DEFINE_TYPED(uchar, unsigned char);
GT_DEFINE_TYPED(ushort, unsigned short);
GT_DEFINE_TYPED(uint, unsigned int);
GT_DEFINE_TYPED(ulong, unsigned long);
GT_DEFINE_TYPED(ulonglong, unsigned long long);
GT_DEFINE_TYPED(int8, int8_t);
GT_DEFINE_TYPED(int16, int16_t);
GT_DEFINE_TYPED(int32, int32_t);
GT_DEFINE_TYPED(int64, int64_t);
GT_DEFINE_TYPED(uint8, uint8_t);
GT_DEFINE_TYPED(uint16, uint16_t);
GT_DEFINE_TYPED(uint32, uint32_t);
GT_DEFINE_TYPED(uint64, uint64_t);
GT_DEFINE_TYPED(size, size_t);
GT_DEFINE_TYPED(ptrdiff, ptrdiff_t);
GT_DEFINE_TYPED(float, float);
GT_DEFINE_TYPED(double, double);

GT_DEFINE_BITS(8, uint8_t);
GT_DEFINE_BITS(16, uint16_t);
GT_DEFINE_BITS(32, uint32_t);
GT_DEFINE_BITS(64, uint64_t);
GT_DEFINE_BITS(128, u128);

// Untyped: gshmem_putmem & co.; sizes in bytes.
struct ty_mem {
  using T = unsigned char;
  static constexpr bool is_mem = true;
  static constexpr const char* name = "mem";
  template <class S, bool NBI>
  static __device__ void put(T* d, const T* s, size_t n, int pe) {
    GT_SCOPED_CALL(S, NBI, gshmem_putmem, gshmem_putmem_nbi, gshmemx_putmem_warp, gshmemx_putmem_nbi_warp,
                   gshmemx_putmem_block, gshmemx_putmem_nbi_block, d, s, n, pe);
  }
  template <class S, bool NBI>
  static __device__ void get(T* d, const T* s, size_t n, int pe) {
    GT_SCOPED_CALL(S, NBI, gshmem_getmem, gshmem_getmem_nbi, gshmemx_getmem_warp, gshmemx_getmem_nbi_warp,
                   gshmemx_getmem_block, gshmemx_getmem_nbi_block, d, s, n, pe);
  }
  static void host_put(T* d, const T* s, size_t n, int pe, bool nbi) {
    if (nbi)
      gshmem_putmem_nbi(d, s, n, pe);
    else
      gshmem_putmem(d, s, n, pe);
  }
  static void host_get(T* d, const T* s, size_t n, int pe, bool nbi) {
    if (nbi)
      gshmem_getmem_nbi(d, s, n, pe);
    else
      gshmem_getmem(d, s, n, pe);
  }
  static void put_on_stream(T* d, const T* s, size_t n, int pe, cudaStream_t st) {
    gshmemx_putmem_on_stream(d, s, n, pe, st);
  }
  static void get_on_stream(T* d, const T* s, size_t n, int pe, cudaStream_t st) {
    gshmemx_getmem_on_stream(d, s, n, pe, st);
  }
};

// The same operations through the C++ templates.
template <class Ty, class S, bool NBI>
__device__ inline void cpp_put(typename Ty::T* d, const typename Ty::T* s, size_t n, int pe) {
  if constexpr (Ty::is_mem) {
    if constexpr (NBI)
      gshmem::putmem_nbi<S>(d, s, n, pe);
    else
      gshmem::putmem<S>(d, s, n, pe);
  } else {
    if constexpr (NBI)
      gshmem::put_nbi<S>(d, s, n, pe);
    else
      gshmem::put<S>(d, s, n, pe);
  }
}
template <class Ty, class S, bool NBI>
__device__ inline void cpp_get(typename Ty::T* d, const typename Ty::T* s, size_t n, int pe) {
  if constexpr (Ty::is_mem) {
    if constexpr (NBI)
      gshmem::getmem_nbi<S>(d, s, n, pe);
    else
      gshmem::getmem<S>(d, s, n, pe);
  } else {
    if constexpr (NBI)
      gshmem::get_nbi<S>(d, s, n, pe);
    else
      gshmem::get<S>(d, s, n, pe);
  }
}

// ---------------------------------------------------------------- fill / poison
template <class T>
__global__ void k_fill(T* p, size_t n, int pe, uint64_t salt) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += stride)
    p[i] = value<T>(pe, i, salt);
}

// Fills p[0..n) (device memory, any alignment of T's size) with value<T>(pe, i, salt).
template <class T>
inline void fill_device(T* p, size_t n, int pe, uint64_t salt) {
  if (n == 0) return;
  if constexpr (std::is_same<T, long double>::value) {  // no device long double: fill on the host
    std::vector<T> h(n);
    for (size_t i = 0; i < n; ++i) h[i] = hvalue<T>(pe, i, salt);
    CUDA_CHECK(cudaMemcpy(p, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  } else {
    unsigned blocks = static_cast<unsigned>((n + 255) / 256);
    if (blocks > 1024) blocks = 1024;
    k_fill<T><<<blocks, 256>>>(p, n, pe, salt);
    KERNEL_CHECK();
  }
}

inline void poison_device(void* p, size_t bytes) {
  CUDA_CHECK(cudaMemset(p, kPoison, bytes));
  CUDA_CHECK(cudaDeviceSynchronize());
}

// Number of elements in p[0..n) that differ from value<T>(pe, i, salt); for in-kernel checks.
template <class T, class S>
__device__ inline unsigned long long count_mismatches(const T* p, size_t n, int pe, uint64_t salt) {
  unsigned long long bad = 0;
  for (size_t i = S::rank(); i < n; i += S::size()) {
    const T v = gshmem::detail::ld_volatile(p + i);
    if (!(v == value<T>(pe, i, salt))) ++bad;
  }
  return bad;
}

// ---------------------------------------------------------------- guarded buffers
// A buffer with kGuard poison bytes before and after each checked range:
// [0, kGuard) guard | data at kGuard + offset | guard after the range.
struct Guarded {
  unsigned char* base = nullptr;  // device address (symmetric or local)
  size_t bytes = 0;               // total
  bool symmetric = false;
  size_t capacity() const { return bytes - 2 * kGuard; }
  template <class T>
  T* at(size_t elem_off) const {
    return reinterpret_cast<T*>(base + kGuard) + elem_off;
  }
};

inline Guarded make_symmetric(size_t data_bytes) {
  Guarded g;
  g.bytes = data_bytes + 2 * kGuard;
  g.base = static_cast<unsigned char*>(gshmem_malloc(g.bytes));
  g.symmetric = true;
  if (!g.base) {
    emit(stderr, "PE %d: FAIL: gshmem_malloc(%zu) returned NULL\n", log_pe(), g.bytes);
    exit(1);
  }
  return g;
}
inline Guarded make_local(size_t data_bytes) {
  Guarded g;
  g.bytes = data_bytes + 2 * kGuard;
  CUDA_CHECK(cudaMalloc(&g.base, g.bytes));
  return g;
}
inline void release(Guarded& g) {
  if (!g.base) return;
  if (g.symmetric)
    gshmem_free(g.base);
  else
    CUDA_CHECK(cudaFree(g.base));
  g.base = nullptr;
}

// Host staging buffer for read-backs (pinned, grows on demand).
inline unsigned char* staging(size_t bytes) {
  static unsigned char* buf = nullptr;
  static size_t cap = 0;
  if (bytes > cap) {
    if (buf) CUDA_CHECK(cudaFreeHost(buf));
    cap = bytes + (bytes >> 2) + 4096;
    CUDA_CHECK(cudaMallocHost(&buf, cap));
  }
  return buf;
}

// Reads back [0, kGuard + off*sizeof(T) + n*sizeof(T) + kGuard) of g, checks the
// guard bytes before and after and every element against expected(i).
template <class T, class Expected>
inline bool verify_guarded(const Guarded& g, size_t elem_off, size_t n, Expected expected, const char* file, int line) {
  const size_t before = kGuard + elem_off * sizeof(T);
  const size_t data = n * sizeof(T);
  const size_t total = before + data + kGuard;
  if (total > g.bytes) {
    emit(stderr, "PE %d: test bug: verify range %zu exceeds buffer %zu\n", log_pe(), total, g.bytes);
    exit(1);
  }
  unsigned char* h = staging(total);
  CUDA_CHECK(cudaMemcpy(h, g.base, total, cudaMemcpyDeviceToHost));
  bool ok = verify_array(
      "guard before", h, before, [](size_t) { return kPoison; }, file, line);
  ok &= verify_array("data", reinterpret_cast<const T*>(h + before), n, expected, file, line);
  ok &= verify_array(
      "guard after", h + before + data, kGuard, [](size_t) { return kPoison; }, file, line);
  return ok;
}
#define GT_VERIFY_GUARDED(T, g, off, n, expected_fn) \
  ::gt::verify_guarded<T>((g), (off), (n), (expected_fn), __FILE__, __LINE__)

// A guarded buffer of this PE's in pageable, pinned or device memory: the local side of
// host-initiated puts and gets, which must take all three.
enum class Mem { pageable, pinned, device };
inline const char* mem_name(Mem m) { return m == Mem::pageable ? "pageable" : m == Mem::pinned ? "pinned" : "device"; }

struct HostSideBuf {
  Mem kind;
  unsigned char* base = nullptr;
  size_t bytes = 0;
  HostSideBuf(Mem k, size_t data_bytes) : kind(k), bytes(data_bytes + 2 * kGuard) {
    if (k == Mem::pageable)
      base = static_cast<unsigned char*>(malloc(bytes));
    else if (k == Mem::pinned)
      CUDA_CHECK(cudaMallocHost(&base, bytes));
    else
      CUDA_CHECK(cudaMalloc(&base, bytes));
    if (!base) {
      emit(stderr, "PE %d: out of host memory\n", log_pe());
      exit(1);
    }
  }
  HostSideBuf(const HostSideBuf&) = delete;
  HostSideBuf& operator=(const HostSideBuf&) = delete;
  ~HostSideBuf() {
    if (kind == Mem::pageable)
      free(base);
    else if (kind == Mem::pinned)
      cudaFreeHost(base);
    else
      cudaFree(base);
  }
  template <class T>
  T* at(size_t off) const {
    return reinterpret_cast<T*>(base + kGuard) + off;
  }
  void poison() {
    if (kind == Mem::device)
      poison_device(base, bytes);
    else
      memset(base, kPoison, bytes);
  }
  // Elements off .. off + n - 1 get PE pe's pattern (hvalue).
  template <class T>
  void fill(size_t off, size_t n, int pe, uint64_t salt) {
    if (kind == Mem::device) {
      fill_device(at<T>(off), n, pe, salt);
      return;
    }
    for (size_t i = 0; i < n; ++i) {
      const T v = hvalue<T>(pe, i, salt);
      memcpy(static_cast<void*>(at<T>(off) + i), &v, sizeof(T));
    }
  }
  // As verify_guarded: the guards around elements off .. off + n - 1 and each element.
  template <class T, class Expected>
  void verify(size_t off, size_t n, Expected expected, const char* file, int line) const {
    if (kind == Mem::device) {
      Guarded g;
      g.base = base;
      g.bytes = bytes;
      verify_guarded<T>(g, off, n, expected, file, line);
      return;
    }
    const size_t before = kGuard + off * sizeof(T);
    verify_array(
        "guard before", base, before, [](size_t) { return kPoison; }, file, line);
    verify_array("data", reinterpret_cast<const T*>(base + before), n, expected, file, line);
    verify_array(
        "guard after", base + before + n * sizeof(T), kGuard, [](size_t) { return kPoison; }, file, line);
  }
};

// Device-side error counter with the first failure's details.
struct DevErrors {
  unsigned long long count;
  unsigned long long first_a, first_b, expected, got;
};
__device__ inline void dev_fail(DevErrors* e, unsigned long long a, unsigned long long b, unsigned long long expected,
                                unsigned long long got) {
  if (atomicAdd(&e->count, 1ull) == 0) {
    e->first_a = a;
    e->first_b = b;
    e->expected = expected;
    e->got = got;
  }
}
struct DevErrorsHost {
  DevErrors* d = nullptr;
  DevErrorsHost() {
    CUDA_CHECK(cudaMalloc(&d, sizeof(DevErrors)));
    reset();
  }
  ~DevErrorsHost() { cudaFree(d); }
  void reset() { CUDA_CHECK(cudaMemset(d, 0, sizeof(DevErrors))); }
  DevErrors read() const {
    DevErrors h;
    CUDA_CHECK(cudaMemcpy(&h, d, sizeof(h), cudaMemcpyDeviceToHost));
    return h;
  }
  // One check: no device-side errors; prints the first one otherwise.
  bool check(const char* what_a, const char* what_b, const char* file, int line) {
    DevErrors h = read();
    // Each device-side mismatch counts as one failed check; a clean run as one passed check.
    stats().checks += h.count ? static_cast<long long>(h.count) : 1;
    if (h.count == 0) return true;
    stats().failures += static_cast<long long>(h.count);
    if (may_print_count())
      emit(stderr,
           "PE %d: FAIL %s:%d [%s] %llu device-side mismatches; first at %s=%llu %s=%llu: expected %llu (0x%llx), got "
           "%llu (0x%llx)\n",
           log_pe(), file, line, stats().context, h.count, what_a, h.first_a, what_b, h.first_b, h.expected, h.expected,
           h.got, h.got);
    return false;
  }
};

}  // namespace gt
