// SPDX-License-Identifier: BSD-3-Clause
// Device-initiated puts: PE me -> PE (me+1)%n and PE me -> itself.
//   - putmem at thread, warp (full and partial warp) and block scope, blocking and
//     _nbi (+ quiet), through the C names and the C++ templates;
//   - sizes 0 .. 1 MiB+7 with source and destination misaligned independently
//     (every copy unit width: 16, 8, 4, 2, 1);
//   - typed puts for every C type name, the sized forms put8..put128;
//   - blocking puts: the source is overwritten right after the call returns
//     (the contract says it may be reused), the target must still get the old data;
//   - several blocks / warps / threads at once, each putting its own slice.
// After each put: quiet + device barrier_all at the same scope; the target then
// checks every element against its predecessor's pattern and the guard zones
// around the destination against the poison byte.
// The cases (sizes, offsets, forms, types) are rma_cases.cuh's, shared with test_rma_get.cu.
#include "rma_cases.cuh"

using namespace gt;
using gshmem::block_scope;
using gshmem::thread_scope;
using gshmem::warp_scope;

namespace {

constexpr size_t kMaxBytes = (1u << 20) + 1024;  // largest data range any case uses
uint64_t g_salt = 1000;                          // advances identically on every PE

struct Bufs {
  Guarded dst;         // symmetric, receives the puts
  unsigned char* src;  // local (cudaMalloc) source
  Guarded src_sym;     // symmetric source (some cases)
};

template <class Ty, class S, bool NBI, int Api>
__global__ void __launch_bounds__(1024)
    k_put(typename Ty::T* dst, typename Ty::T* src, size_t n, int pe, int me, uint64_t clobber_salt) {
  using T = typename Ty::T;
  if constexpr (Api == 0)
    Ty::template put<S, NBI>(dst, src, n, pe);
  else
    cpp_put<Ty, S, NBI>(dst, src, n, pe);
  if constexpr (!NBI) {
    // A blocking put returns when the source may be reused: reuse it at once.
    for (size_t i = S::rank(); i < n; i += S::size()) src[i] = value<T>(me, i, clobber_salt);
  }
  if constexpr (Api == 0)
    gshmem_quiet();
  else
    gshmem::quiet<S>();
  barrier_all_scope<S>(Api);
}

template <class Ty, class S>
void run_case(Bufs& b, const RmaCase& c) {
  using T = typename Ty::T;
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int target = c.self ? me : (me + 1) % npes;
  const int from = c.self ? me : (me + npes - 1) % npes;  // who writes into my buffer
  const int threads = rma_threads<S>(c.threads);
  const uint64_t salt = ++g_salt;
  set_context("put %s scope=%s threads=%d %s %s n=%zu src_off=%zu dst_off=%zu src=%s -> %s", Ty::name, scope_name<S>(),
              threads, c.nbi ? "nbi" : "blocking", c.api ? "c++" : "C", c.n, c.soff, c.doff,
              c.sym ? "symmetric" : "local", c.self ? "self" : "next PE");
  T* src = c.sym ? b.src_sym.at<T>(c.soff) : reinterpret_cast<T*>(b.src) + c.soff;
  T* dst = b.dst.at<T>(c.doff);
  fill_device(src, c.n, me, salt);
  poison_device(b.dst.base, kGuard + (c.doff + c.n) * sizeof(T) + kGuard);
  gshmem_barrier_all();  // every target is poisoned before anyone writes
  with_api<Ty>(c, [&](auto api) {
    if (c.nbi)
      k_put<Ty, S, true, decltype(api)::value><<<1, threads>>>(dst, src, c.n, target, me, salt + 7777);
    else
      k_put<Ty, S, false, decltype(api)::value><<<1, threads>>>(dst, src, c.n, target, me, salt + 7777);
  });
  KERNEL_CHECK();
  GT_VERIFY_GUARDED(T, b.dst, c.doff, c.n, [&](size_t i) { return value<T>(from, i, salt); });
}

struct PutTest {
  using Bufs = ::Bufs;
  template <class Ty, class S>
  static void run(Bufs& b, const RmaCase& c) {
    run_case<Ty, S>(b, c);
  }
};

// ---- several blocks / warps / threads at once, each its own slice
template <class S>
__global__ void k_put_slices(unsigned char* dst, const unsigned char* src, size_t slice, size_t nslices, int pe) {
  size_t unit, units;
  rma_grid_unit<S>(&unit, &units);
  for (size_t s = unit; s < nslices; s += units) {
    if constexpr (is_thread_v<S>)
      gshmem_putmem_nbi(dst + s * slice, src + s * slice, slice, pe);
    else if constexpr (is_warp_v<S>)
      gshmemx_putmem_warp(dst + s * slice, src + s * slice, slice, pe);
    else
      gshmemx_putmem_nbi_block(dst + s * slice, src + s * slice, slice, pe);
  }
  gshmem_quiet();
}

template <class S>
void slices_case(Bufs& b, unsigned blocks, unsigned threads, size_t slice, size_t nslices, size_t soff, size_t doff) {
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  const uint64_t salt = ++g_salt;
  const size_t n = slice * nslices;
  set_context("put slices scope=%s grid=%ux%u slice=%zu x %zu src_off=%zu dst_off=%zu", scope_name<S>(), blocks,
              threads, slice, nslices, soff, doff);
  unsigned char* src = b.src + soff;
  fill_device(src, n, me, salt);
  poison_device(b.dst.base, kGuard + doff + n + kGuard);
  gshmem_barrier_all();
  k_put_slices<S><<<blocks, threads>>>(b.dst.at<unsigned char>(doff), src, slice, nslices, next);
  KERNEL_CHECK();
  gshmem_barrier_all();  // host barrier: completes and publishes every PE's puts
  GT_VERIFY_GUARDED(unsigned char, b.dst, doff, n, [&](size_t i) { return value<unsigned char>(prev, i, salt); });
  gshmem_barrier_all();  // nobody re-poisons before everyone checked
}

}  // namespace

int main() {
  test_main_prologue(1, 0);
  Bufs b;
  b.dst = make_symmetric(kMaxBytes);
  b.src_sym = make_symmetric(kMaxBytes);
  CUDA_CHECK(cudaMalloc(&b.src, kMaxBytes));

  RmaCases<PutTest>::all(b);

  slices_case<block_scope>(b, 16, 256, 4099, 48, 3, 5);
  slices_case<block_scope>(b, 7, 96, 16384, 21, 0, 0);
  slices_case<warp_scope>(b, 4, 128, 1031, 64, 1, 6);
  slices_case<thread_scope>(b, 2, 128, 97, 1000, 2, 7);

  CUDA_CHECK(cudaFree(b.src));
  release(b.src_sym);
  release(b.dst);
  return test_main_epilogue("rma_put");
}
