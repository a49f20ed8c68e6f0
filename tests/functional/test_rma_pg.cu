// SPDX-License-Identifier: BSD-3-Clause
// Single-element and host-initiated RMA.
//   1. Device p/g for every standard C type name (gshmem_<type>_p/_g) and the C++
//      gshmem::p/g: each thread of a 256-thread block writes its own element into
//      every PE; after a device barrier every element of every PE is checked; then
//      each thread reads an element of every PE with g.
//   2. The same names called from host code (a CUDA TU: the inline wrappers
//      dispatch to the library), long double included.
//   3. Host putmem/getmem, typed and sized host put/get, blocking and _nbi
//      (+ gshmem_quiet), from/to pageable, pinned and device memory.
//   4. gshmemx_putmem_on_stream / getmem_on_stream (and typed forms) on a user
//      stream, ordered with kernels on that stream, followed by
//      gshmemx_barrier_all_on_stream + cudaStreamSynchronize.
#include <vector>

#include "common.cuh"

using namespace gt;

namespace {

constexpr int kThreads = 256;
uint64_t g_salt = 9000;

// Host-only tag for the long double names (no device forms exist).
struct ty_longdouble {
  using T = long double;
  static constexpr const char* name = "longdouble";
  static void p(T* d, T v, int pe) { gshmem_longdouble_p(d, v, pe); }
  static T g(const T* s, int pe) { return gshmem_longdouble_g(s, pe); }
  static void host_put(T* d, const T* s, size_t n, int pe, bool nbi) {
    if (nbi)
      gshmem_longdouble_put_nbi(d, s, n, pe);
    else
      gshmem_longdouble_put(d, s, n, pe);
  }
  static void host_get(T* d, const T* s, size_t n, int pe, bool nbi) {
    if (nbi)
      gshmem_longdouble_get_nbi(d, s, n, pe);
    else
      gshmem_longdouble_get(d, s, n, pe);
  }
};

// ------------------------------------------------------------------ 1. device p/g
// dst: symmetric [n_pes][kThreads]; src: symmetric [kThreads]; got: local [n_pes][kThreads].
template <class Ty>
__global__ void k_pg(typename Ty::T* dst, const typename Ty::T* src, typename Ty::T* got, uint64_t salt, int api) {
  using T = typename Ty::T;
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int t = threadIdx.x;
  for (int k = 0; k < npes; ++k) {
    const int pe = (me + k) % npes;  // staggered: not everybody hits PE 0 first
    if (api == 0)
      Ty::p(&dst[me * kThreads + t], value<T>(me, t, salt), pe);
    else
      gshmem::p(&dst[me * kThreads + t], value<T>(me, t, salt), pe);
  }
  gshmemx_barrier_all_block();
  for (int k = 0; k < npes; ++k) {
    const int pe = (me + npes - k) % npes;
    got[pe * kThreads + t] = api == 0 ? Ty::g(&src[t], pe) : gshmem::g(&src[t], pe);
  }
  gshmemx_barrier_all_block();  // src is refilled by the next case
}

struct PgBufs {
  Guarded dst;  // symmetric
  Guarded src;  // symmetric
  Guarded got;  // local
};

template <class Ty>
void device_pg(PgBufs& b) {
  using T = typename Ty::T;
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  for (int api = 0; api < 2; ++api) {
    const uint64_t salt = ++g_salt;
    set_context("device p/g %s via %s", Ty::name, api ? "gshmem::p/g" : "C names");
    const size_t n = static_cast<size_t>(npes) * kThreads;
    poison_device(b.dst.base, b.dst.bytes);
    poison_device(b.got.base, b.got.bytes);
    fill_device(b.src.at<T>(0), kThreads, me, salt + 1);
    gshmem_barrier_all();
    k_pg<Ty><<<1, kThreads>>>(b.dst.at<T>(0), b.src.at<T>(0), b.got.at<T>(0), salt, api);
    KERNEL_CHECK();
    // dst[src_pe][t] was written by src_pe's thread t.
    GT_VERIFY_GUARDED(T, b.dst, 0, n,
                      [&](size_t i) { return value<T>(static_cast<int>(i / kThreads), i % kThreads, salt); });
    // got[pe][t] was read from pe's src[t].
    GT_VERIFY_GUARDED(T, b.got, 0, n,
                      [&](size_t i) { return value<T>(static_cast<int>(i / kThreads), i % kThreads, salt + 1); });
  }
}

// ------------------------------------------------------------------ 2. host p/g
template <class Ty>
void host_pg(PgBufs& b) {
  using T = typename Ty::T;
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  constexpr int kElems = 5;
  const uint64_t salt = ++g_salt;
  set_context("host p/g %s", Ty::name);
  poison_device(b.dst.base, b.dst.bytes);
  std::vector<T> mine(kElems);
  for (int i = 0; i < kElems; ++i) mine[i] = hvalue<T>(me, i, salt + 1);
  CUDA_CHECK(cudaMemcpy(b.src.at<T>(0), mine.data(), kElems * sizeof(T), cudaMemcpyHostToDevice));
  gshmem_barrier_all();
  for (int k = 0; k < npes; ++k) {
    const int pe = (me + k) % npes;
    for (int i = 0; i < kElems; ++i) Ty::p(b.dst.at<T>(me * kElems + i), hvalue<T>(me, i, salt), pe);
  }
  gshmem_barrier_all();
  GT_VERIFY_GUARDED(T, b.dst, 0, static_cast<size_t>(npes) * kElems,
                    [&](size_t i) { return hvalue<T>(static_cast<int>(i / kElems), i % kElems, salt); });
  for (int k = 0; k < npes; ++k) {
    const int pe = (me + npes - k) % npes;
    for (int i = 0; i < kElems; ++i) GT_CHECK_EQ(hvalue<T>(pe, i, salt + 1), Ty::g(b.src.at<T>(i), pe));
  }
  gshmem_barrier_all();
}

// ------------------------------------------------------------------ 3. host put/get
template <class Ty>
void host_put_get(PgBufs& b, HostSideBuf& local, size_t n, size_t soff, size_t doff, bool nbi) {
  using T = typename Ty::T;
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  // put: local (any memory) -> next PE's symmetric dst
  uint64_t salt = ++g_salt;
  set_context("host put %s %s n=%zu src_off=%zu dst_off=%zu from %s memory", Ty::name, nbi ? "nbi" : "blocking", n,
              soff, doff, mem_name(local.kind));
  local.template fill<T>(soff, n, me, salt);
  poison_device(b.dst.base, b.dst.bytes);
  gshmem_barrier_all();
  Ty::host_put(b.dst.at<T>(doff), local.template at<T>(soff), n, next, nbi);
  if (nbi) gshmem_quiet();
  gshmem_barrier_all();
  verify_guarded<T>(
      b.dst, doff, n, [&](size_t i) { return hvalue<T>(prev, i, salt); }, __FILE__, __LINE__);

  // get: previous PE's symmetric src -> local (any memory)
  salt = ++g_salt;
  set_context("host get %s %s n=%zu src_off=%zu dst_off=%zu into %s memory", Ty::name, nbi ? "nbi" : "blocking", n,
              soff, doff, mem_name(local.kind));
  fill_device(b.src.at<T>(soff), n, me, salt);
  local.poison();
  gshmem_barrier_all();
  Ty::host_get(local.template at<T>(doff), b.src.at<T>(soff), n, prev, nbi);
  if (nbi) gshmem_quiet();
  local.template verify<T>(
      doff, n, [&](size_t i) { return hvalue<T>(prev, i, salt); }, __FILE__, __LINE__);
  gshmem_barrier_all();  // sources stay until every PE has read them
}

void host_rma(PgBufs& b) {
  const size_t cap = b.dst.capacity();
  for (Mem kind : {Mem::pageable, Mem::pinned, Mem::device}) {
    HostSideBuf local(kind, cap);
    const size_t sizes[] = {0, 1, 7, 4097, (1u << 20) + 3};
    const size_t pairs[][2] = {{0, 0}, {3, 5}, {8, 1}};
    for (size_t n : sizes)
      for (auto& p : pairs)
        for (int nbi = 0; nbi < 2; ++nbi) host_put_get<ty_mem>(b, local, n, p[0], p[1], nbi != 0);
    for (int nbi = 0; nbi < 2; ++nbi) {
      host_put_get<ty_int>(b, local, 1001, 1, 2, nbi != 0);
      host_put_get<ty_double>(b, local, 777, 3, 0, nbi != 0);
      host_put_get<ty_uint64>(b, local, 4097, 0, 1, nbi != 0);
      host_put_get<ty_char>(b, local, 33, 1, 0, nbi != 0);
      host_put_get<ty_short>(b, local, 1000, 1, 3, nbi != 0);
      host_put_get<ty_float>(b, local, 65, 2, 1, nbi != 0);
      host_put_get<ty_longdouble>(b, local, 100, 1, 2, nbi != 0);
      host_put_get<ty_bits8>(b, local, 19, 1, 0, nbi != 0);
      host_put_get<ty_bits16>(b, local, 19, 1, 2, nbi != 0);
      host_put_get<ty_bits32>(b, local, 1000, 3, 1, nbi != 0);
      host_put_get<ty_bits64>(b, local, 1000, 2, 0, nbi != 0);
      host_put_get<ty_bits128>(b, local, 257, 1, 3, nbi != 0);
    }
  }
}

// ------------------------------------------------------------------ 4. on stream
template <class T>
__global__ void k_check_on_stream(const T* p, size_t n, int pe, uint64_t salt, DevErrors* err) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    if (!(p[i] == value<T>(pe, i, salt))) dev_fail(err, i, static_cast<unsigned long long>(pe), 0, 0);
}

template <class Ty>
void stream_put_get(PgBufs& b, Guarded& local_src, Guarded& local_dst, cudaStream_t s, DevErrorsHost& err, size_t n,
                    size_t soff, size_t doff) {
  using T = typename Ty::T;
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  const unsigned blocks = static_cast<unsigned>(n / 256 + 1 > 256 ? 256 : n / 256 + 1);

  // put: everything ordered on `s`, nothing synchronised by the host until the end.
  uint64_t salt = ++g_salt;
  set_context("put_on_stream %s n=%zu src_off=%zu dst_off=%zu", Ty::name, n, soff, doff);
  err.reset();
  k_fill<T><<<blocks, 256, 0, s>>>(local_src.at<T>(soff), n, me, salt);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemsetAsync(b.dst.base, kPoison, b.dst.bytes, s));
  gshmemx_barrier_all_on_stream(s);  // everyone poisoned before anyone puts
  Ty::put_on_stream(b.dst.at<T>(doff), local_src.at<T>(soff), n, next, s);
  gshmemx_barrier_all_on_stream(s);  // every put delivered
  k_check_on_stream<T><<<blocks, 256, 0, s>>>(b.dst.at<T>(doff), n, prev, salt, err.d);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaStreamSynchronize(s));
  CUDA_CHECK(cudaDeviceSynchronize());
  err.check("index", "pe", __FILE__, __LINE__);
  GT_VERIFY_GUARDED(T, b.dst, doff, n, [&](size_t i) { return value<T>(prev, i, salt); });

  // get
  salt = ++g_salt;
  set_context("get_on_stream %s n=%zu src_off=%zu dst_off=%zu", Ty::name, n, soff, doff);
  err.reset();
  k_fill<T><<<blocks, 256, 0, s>>>(b.src.at<T>(soff), n, me, salt);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemsetAsync(local_dst.base, kPoison, local_dst.bytes, s));
  gshmemx_barrier_all_on_stream(s);  // every source filled before anyone reads
  Ty::get_on_stream(local_dst.at<T>(doff), b.src.at<T>(soff), n, prev, s);
  k_check_on_stream<T><<<blocks, 256, 0, s>>>(local_dst.at<T>(doff), n, prev, salt, err.d);
  CUDA_CHECK(cudaGetLastError());
  gshmemx_barrier_all_on_stream(s);  // sources stay until everyone has read them
  CUDA_CHECK(cudaStreamSynchronize(s));
  CUDA_CHECK(cudaDeviceSynchronize());
  err.check("index", "pe", __FILE__, __LINE__);
  GT_VERIFY_GUARDED(T, local_dst, doff, n, [&](size_t i) { return value<T>(prev, i, salt); });
}

void on_stream(PgBufs& b) {
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  DevErrorsHost err;
  Guarded src = make_local(b.dst.capacity());
  Guarded dst = make_local(b.dst.capacity());
  const size_t sizes[] = {1, 17, 4097, (1u << 20) + 5};
  const size_t pairs[][2] = {{0, 0}, {3, 1}, {4, 12}};
  for (size_t n : sizes)
    for (auto& p : pairs) stream_put_get<ty_mem>(b, src, dst, s, err, n, p[0], p[1]);
  stream_put_get<ty_int>(b, src, dst, s, err, 1001, 1, 3);
  stream_put_get<ty_double>(b, src, dst, s, err, 4097, 2, 0);
  stream_put_get<ty_uint64>(b, src, dst, s, err, 33, 0, 1);
  stream_put_get<ty_short>(b, src, dst, s, err, 999, 1, 0);
  stream_put_get<ty_bits32>(b, src, dst, s, err, 1000, 3, 2);
  stream_put_get<ty_bits128>(b, src, dst, s, err, 100, 1, 0);
  // Host barrier after stream barriers: one sequence, so this must neither hang nor run ahead.
  gshmem_barrier_all();
  release(src);
  release(dst);
  CUDA_CHECK(cudaStreamDestroy(s));
}

}  // namespace

int main() {
  test_main_prologue(1, 0);
  const int npes = gshmem_n_pes();
  PgBufs b;
  const size_t pg_bytes = static_cast<size_t>(npes) * kThreads * 16;
  b.dst = make_symmetric(pg_bytes > (1u << 20) + 1024 ? pg_bytes : (1u << 20) + 1024);
  b.src = make_symmetric(b.dst.capacity());
  b.got = make_local(pg_bytes);

  device_pg<ty_char>(b);
  device_pg<ty_schar>(b);
  device_pg<ty_short>(b);
  device_pg<ty_int>(b);
  device_pg<ty_long>(b);
  device_pg<ty_longlong>(b);
  device_pg<ty_uchar>(b);
  device_pg<ty_ushort>(b);
  device_pg<ty_uint>(b);
  device_pg<ty_ulong>(b);
  device_pg<ty_ulonglong>(b);
  device_pg<ty_int8>(b);
  device_pg<ty_int16>(b);
  device_pg<ty_int32>(b);
  device_pg<ty_int64>(b);
  device_pg<ty_uint8>(b);
  device_pg<ty_uint16>(b);
  device_pg<ty_uint32>(b);
  device_pg<ty_uint64>(b);
  device_pg<ty_size>(b);
  device_pg<ty_ptrdiff>(b);
  device_pg<ty_float>(b);
  device_pg<ty_double>(b);

  host_pg<ty_char>(b);
  host_pg<ty_schar>(b);
  host_pg<ty_short>(b);
  host_pg<ty_int>(b);
  host_pg<ty_long>(b);
  host_pg<ty_longlong>(b);
  host_pg<ty_uchar>(b);
  host_pg<ty_ushort>(b);
  host_pg<ty_uint>(b);
  host_pg<ty_ulong>(b);
  host_pg<ty_ulonglong>(b);
  host_pg<ty_int8>(b);
  host_pg<ty_int16>(b);
  host_pg<ty_int32>(b);
  host_pg<ty_int64>(b);
  host_pg<ty_uint8>(b);
  host_pg<ty_uint16>(b);
  host_pg<ty_uint32>(b);
  host_pg<ty_uint64>(b);
  host_pg<ty_size>(b);
  host_pg<ty_ptrdiff>(b);
  host_pg<ty_float>(b);
  host_pg<ty_double>(b);
  host_pg<ty_longdouble>(b);

  host_rma(b);
  on_stream(b);

  release(b.got);
  release(b.src);
  release(b.dst);
  return test_main_epilogue("rma_pg");
}
