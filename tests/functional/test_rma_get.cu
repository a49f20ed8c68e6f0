// SPDX-License-Identifier: BSD-3-Clause
// Device-initiated gets: PE me reads PE (me-1+n)%n's symmetric buffer (and its own),
// which that PE filled with its own pattern.
//   - getmem at thread, warp (full and partial warp) and block scope, blocking and
//     _nbi (+ quiet), through the C names and the C++ templates;
//   - sizes 0 .. 1 MiB+7 with source and destination misaligned independently;
//   - typed gets for every C type name and the sized forms get8..get128;
//   - destination local (cudaMalloc) or symmetric;
//   - several blocks / warps / threads at once, each getting its own slice.
// The kernel itself checks the destination right after a blocking get returns
// (or after quiet for _nbi) - the data must be there - and the host then checks
// every element and the guard zones around the destination.
// The cases (sizes, offsets, forms, types) are rma_cases.cuh's, shared with test_rma_put.cu.
#include "rma_cases.cuh"

using namespace gt;
using gshmem::block_scope;
using gshmem::thread_scope;
using gshmem::warp_scope;

namespace {

constexpr size_t kMaxBytes = (1u << 20) + 1024;
uint64_t g_salt = 5000;

struct Bufs {
  Guarded src;      // symmetric: read by the neighbours
  Guarded dst;      // local destination
  Guarded dst_sym;  // symmetric destination (some cases)
  DevErrorsHost* err;
};

template <class T>
__device__ unsigned long long bits_of(const T& v) {
  unsigned long long r = 0;
  memcpy(&r, &v, sizeof(T) < 8 ? sizeof(T) : 8);
  return r;
}

template <class Ty, class S, bool NBI, int Api>
__global__ void __launch_bounds__(1024)
    k_get(typename Ty::T* dst, const typename Ty::T* src, size_t n, int pe, uint64_t salt, DevErrors* err) {
  using T = typename Ty::T;
  if constexpr (Api == 0)
    Ty::template get<S, NBI>(dst, src, n, pe);
  else
    cpp_get<Ty, S, NBI>(dst, src, n, pe);
  if constexpr (NBI) {
    if constexpr (Api == 0) {
      gshmem_quiet();  // this thread's gets have landed ...
      S::sync();       // ... and so have the rest of the scope's
    } else {
      gshmem::quiet<S>();
    }
  }
  // The data is in dst now (blocking: on return; nbi: after quiet) - for every thread of the scope.
  for (size_t i = S::rank(); i < n; i += S::size()) {
    const T v = dst[i];
    const T e = value<T>(pe, i, salt);
    if (!(v == e)) dev_fail(err, i, static_cast<unsigned long long>(pe), bits_of(e), bits_of(v));
  }
  // Nobody refills its source before every PE's gets are done.
  barrier_all_scope<S>(Api);
}

template <class Ty, class S>
void run_case(Bufs& b, const RmaCase& c) {
  using T = typename Ty::T;
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int from = c.self ? me : (me + npes - 1) % npes;
  const int threads = rma_threads<S>(c.threads);
  const uint64_t salt = ++g_salt;
  set_context("get %s scope=%s threads=%d %s %s n=%zu src_off=%zu dst_off=%zu dst=%s <- %s", Ty::name, scope_name<S>(),
              threads, c.nbi ? "nbi" : "blocking", c.api ? "c++" : "C", c.n, c.soff, c.doff,
              c.sym ? "symmetric" : "local", c.self ? "self" : "previous PE");
  Guarded& d = c.sym ? b.dst_sym : b.dst;
  fill_device(b.src.at<T>(c.soff), c.n, me, salt);
  poison_device(d.base, kGuard + (c.doff + c.n) * sizeof(T) + kGuard);
  b.err->reset();
  gshmem_barrier_all();  // every source is filled before anyone reads
  with_api<Ty>(c, [&](auto api) {
    if (c.nbi)
      k_get<Ty, S, true, decltype(api)::value>
          <<<1, threads>>>(d.at<T>(c.doff), b.src.at<T>(c.soff), c.n, from, salt, b.err->d);
    else
      k_get<Ty, S, false, decltype(api)::value>
          <<<1, threads>>>(d.at<T>(c.doff), b.src.at<T>(c.soff), c.n, from, salt, b.err->d);
  });
  KERNEL_CHECK();
  b.err->check("index", "pe", __FILE__, __LINE__);
  GT_VERIFY_GUARDED(T, d, c.doff, c.n, [&](size_t i) { return value<T>(from, i, salt); });
}

struct GetTest {
  using Bufs = ::Bufs;
  template <class Ty, class S>
  static void run(Bufs& b, const RmaCase& c) {
    run_case<Ty, S>(b, c);
  }
};

// ---- several blocks / warps / threads at once, each its own slice
template <class S>
__global__ void k_get_slices(unsigned char* dst, const unsigned char* src, size_t slice, size_t nslices, int pe) {
  size_t unit, units;
  rma_grid_unit<S>(&unit, &units);
  for (size_t s = unit; s < nslices; s += units) {
    if constexpr (is_thread_v<S>)
      gshmem_getmem_nbi(dst + s * slice, src + s * slice, slice, pe);
    else if constexpr (is_warp_v<S>)
      gshmemx_getmem_warp(dst + s * slice, src + s * slice, slice, pe);
    else
      gshmemx_getmem_nbi_block(dst + s * slice, src + s * slice, slice, pe);
  }
  gshmem_quiet();
}

template <class S>
void slices_case(Bufs& b, unsigned blocks, unsigned threads, size_t slice, size_t nslices, size_t soff, size_t doff) {
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int prev = (me + npes - 1) % npes;
  const uint64_t salt = ++g_salt;
  const size_t n = slice * nslices;
  set_context("get slices scope=%s grid=%ux%u slice=%zu x %zu src_off=%zu dst_off=%zu", scope_name<S>(), blocks,
              threads, slice, nslices, soff, doff);
  fill_device(b.src.at<unsigned char>(soff), n, me, salt);
  poison_device(b.dst.base, kGuard + doff + n + kGuard);
  gshmem_barrier_all();
  k_get_slices<S>
      <<<blocks, threads>>>(b.dst.at<unsigned char>(doff), b.src.at<unsigned char>(soff), slice, nslices, prev);
  KERNEL_CHECK();
  GT_VERIFY_GUARDED(unsigned char, b.dst, doff, n, [&](size_t i) { return value<unsigned char>(prev, i, salt); });
  gshmem_barrier_all();  // sources stay until every PE has read them
}

}  // namespace

int main() {
  test_main_prologue(1, 0);
  DevErrorsHost err;
  Bufs b;
  b.src = make_symmetric(kMaxBytes);
  b.dst_sym = make_symmetric(kMaxBytes);
  b.dst = make_local(kMaxBytes);
  b.err = &err;

  RmaCases<GetTest>::all(b);

  slices_case<block_scope>(b, 16, 256, 4099, 48, 3, 5);
  slices_case<block_scope>(b, 7, 96, 16384, 21, 0, 0);
  slices_case<warp_scope>(b, 4, 128, 1031, 64, 1, 6);
  slices_case<thread_scope>(b, 2, 128, 97, 1000, 2, 7);

  release(b.dst);
  release(b.dst_sym);
  release(b.src);
  return test_main_epilogue("rma_get");
}
