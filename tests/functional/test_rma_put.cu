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
#include <vector>

#include "common.cuh"

using namespace gt;
using gshmem::block_scope;
using gshmem::thread_scope;
using gshmem::warp_scope;

namespace {

constexpr size_t kMaxBytes = (1u << 20) + 1024;  // largest data range any case uses
uint64_t g_salt = 1000;                          // advances identically on every PE

struct Bufs {
  Guarded dst;            // symmetric, receives the puts
  unsigned char* src;     // local (cudaMalloc) source
  Guarded src_sym;        // symmetric source (some cases)
};

template <class Ty, class S, bool NBI>
__global__ void __launch_bounds__(1024) k_put(typename Ty::T* dst, typename Ty::T* src, size_t n, int pe, int api, int me,
                      uint64_t clobber_salt) {
  using T = typename Ty::T;
  if (api == 0) Ty::template put<S, NBI>(dst, src, n, pe);
  else cpp_put<Ty, S, NBI>(dst, src, n, pe);
  if constexpr (!NBI) {
    // A blocking put returns when the source may be reused: reuse it at once.
    for (size_t i = S::rank(); i < n; i += S::size()) src[i] = value<T>(me, i, clobber_salt);
  }
  if (api == 0) gshmem_quiet(); else gshmem::quiet<S>();
  barrier_all_scope<S>(api);
}

template <class S> int default_threads() { return is_thread_v<S> ? 1 : is_warp_v<S> ? 32 : 256; }

struct Case {
  size_t n;          // elements
  size_t soff, doff; // element offsets of source and destination
  bool nbi;
  int api;           // 0: C names, 1: C++ templates
  bool to_self;
  int threads;       // 0: the scope's default
  bool src_symmetric;
};

template <class Ty, class S>
void run_case(Bufs& b, const Case& c) {
  using T = typename Ty::T;
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int target = c.to_self ? me : (me + 1) % npes;
  const int from = c.to_self ? me : (me + npes - 1) % npes;  // who writes into my buffer
  const int threads = c.threads ? c.threads : default_threads<S>();
  const uint64_t salt = ++g_salt;
  set_context("put %s scope=%s threads=%d %s %s n=%zu src_off=%zu dst_off=%zu src=%s -> %s", Ty::name,
              scope_name<S>(), threads, c.nbi ? "nbi" : "blocking", c.api ? "c++" : "C", c.n, c.soff, c.doff,
              c.src_symmetric ? "symmetric" : "local", c.to_self ? "self" : "next PE");
  T* src = c.src_symmetric ? b.src_sym.at<T>(c.soff) : reinterpret_cast<T*>(b.src) + c.soff;
  T* dst = b.dst.at<T>(c.doff);
  fill_device(src, c.n, me, salt);
  poison_device(b.dst.base, kGuard + (c.doff + c.n) * sizeof(T) + kGuard);
  gshmem_barrier_all();  // every target is poisoned before anyone writes
  if (c.nbi) k_put<Ty, S, true><<<1, threads>>>(dst, src, c.n, target, c.api, me, salt + 7777);
  else k_put<Ty, S, false><<<1, threads>>>(dst, src, c.n, target, c.api, me, salt + 7777);
  KERNEL_CHECK();
  GT_VERIFY_GUARDED(T, b.dst, c.doff, c.n, [&](size_t i) { return value<T>(from, i, salt); });
}

template <class Ty>
void run_all_scopes(Bufs& b, Case c) {
  run_case<Ty, thread_scope>(b, c);
  run_case<Ty, warp_scope>(b, c);
  run_case<Ty, block_scope>(b, c);
}

// ---- untyped: the full misalignment matrix
void putmem_matrix(Bufs& b) {
  // 1-16 and 4096 bytes: one unit, and one unit a thread of a 256-thread block, when aligned.
  const size_t sizes[] = {0, 1, 2, 3, 4, 8, 15, 16, 17, 31, 32, 1000, 4096, 4097, 65537, (1u << 20) + 7};
  const size_t offs[] = {0, 1, 2, 3, 4, 7, 8, 12};
  // For the two large sizes: pairs covering every unit width (rel = dst-src: 0->16, 8->8, 4->4, 2->2, odd->1).
  const size_t big_pairs[][2] = {{0, 0}, {8, 0}, {4, 12}, {1, 3}, {3, 2}, {7, 7}, {12, 4}, {2, 8}};
  for (size_t n : sizes) {
    const bool big = n > 4097;
    for (int nbi = 0; nbi < 2; ++nbi) {
      if (!big) {
        for (size_t so : offs)
          for (size_t dof : offs) run_all_scopes<ty_mem>(b, Case{n, so, dof, nbi != 0, 0, false, 0, false});
      } else {
        for (auto& p : big_pairs) run_all_scopes<ty_mem>(b, Case{n, p[0], p[1], nbi != 0, 0, false, 0, false});
      }
    }
  }
}

// ---- untyped: C++ templates, put to self, symmetric source, odd thread counts
void putmem_variants(Bufs& b) {
  const size_t sizes[] = {0, 1, 3, 15, 16, 17, 31, 1000, 4097, 65537, (1u << 20) + 7};
  const size_t pairs[][2] = {{0, 0}, {1, 0}, {0, 7}, {3, 12}, {8, 4}, {2, 1}};
  for (size_t n : sizes)
    for (int nbi = 0; nbi < 2; ++nbi)
      for (auto& p : pairs) run_all_scopes<ty_mem>(b, Case{n, p[0], p[1], nbi != 0, 1, false, 0, false});
  for (size_t n : sizes)
    for (int nbi = 0; nbi < 2; ++nbi)
      for (int api = 0; api < 2; ++api) {
        run_all_scopes<ty_mem>(b, Case{n, 3, 5, nbi != 0, api, true, 0, false});    // to self
        run_all_scopes<ty_mem>(b, Case{n, 12, 1, nbi != 0, api, false, 0, true});  // symmetric source
      }
  // A warp cut short by the block size (20 threads), and blocks that are not a
  // multiple of 32 threads or use the maximum.
  // 320, 16000, 16384: one 16-byte unit a thread for 20, 1000 and 1024 threads, when aligned.
  const size_t odd_sizes[] = {17, 320, 1000, 16000, 16384, 65537};
  const size_t odd_pairs[][2] = {{0, 0}, {3, 1}, {7, 12}};
  for (size_t n : odd_sizes)
    for (int nbi = 0; nbi < 2; ++nbi)
      for (auto& p : odd_pairs)
        for (int api = 0; api < 2; ++api) {
          run_case<ty_mem, warp_scope>(b, Case{n, p[0], p[1], nbi != 0, api, false, 20, false});
          run_case<ty_mem, block_scope>(b, Case{n, p[0], p[1], nbi != 0, api, false, 1000, false});
          run_case<ty_mem, block_scope>(b, Case{n, p[0], p[1], nbi != 0, api, false, 1024, false});
          run_case<ty_mem, block_scope>(b, Case{n, p[0], p[1], nbi != 0, api, false, 33, false});
        }
}

// ---- typed
template <class Ty>
void typed_full(Bufs& b) {
  const size_t sizes[] = {0, 1, 3, 17, 1000, 4097, 65537};
  const size_t pairs[][2] = {{0, 0}, {1, 2}, {3, 1}};
  for (size_t n : sizes)
    for (int nbi = 0; nbi < 2; ++nbi)
      for (int api = 0; api < 2; ++api)
        for (auto& p : pairs) run_all_scopes<Ty>(b, Case{n, p[0], p[1], nbi != 0, api, false, 0, false});
  run_all_scopes<Ty>(b, Case{1000, 1, 0, false, 0, true, 0, false});
  run_all_scopes<Ty>(b, Case{1000, 2, 1, true, 1, true, 0, false});
}

template <class Ty>
void typed_quick(Bufs& b) {
  for (int nbi = 0; nbi < 2; ++nbi) {
    run_all_scopes<Ty>(b, Case{17, 1, 2, nbi != 0, 0, false, 0, false});
    run_all_scopes<Ty>(b, Case{1000, 0, 3, nbi != 0, 0, false, 0, false});
  }
}

template <class Ty>
void sized_forms(Bufs& b) {
  const size_t sizes[] = {0, 1, 17, 4097};
  const size_t pairs[][2] = {{0, 0}, {1, 3}};
  for (size_t n : sizes)
    for (int nbi = 0; nbi < 2; ++nbi)
      for (auto& p : pairs) run_all_scopes<Ty>(b, Case{n, p[0], p[1], nbi != 0, 0, false, 0, false});
}

// ---- several blocks / warps / threads at once, each its own slice
template <class S>
__global__ void k_put_slices(unsigned char* dst, const unsigned char* src, size_t slice, size_t nslices, int pe) {
  size_t unit, units;
  if constexpr (is_thread_v<S>) {
    unit = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
    units = static_cast<size_t>(gridDim.x) * blockDim.x;
  } else if constexpr (is_warp_v<S>) {
    unit = (blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x) / 32;
    units = static_cast<size_t>(gridDim.x) * blockDim.x / 32;
  } else {
    unit = blockIdx.x;
    units = gridDim.x;
  }
  for (size_t s = unit; s < nslices; s += units) {
    if constexpr (is_thread_v<S>) gshmem_putmem_nbi(dst + s * slice, src + s * slice, slice, pe);
    else if constexpr (is_warp_v<S>) gshmemx_putmem_warp(dst + s * slice, src + s * slice, slice, pe);
    else gshmemx_putmem_nbi_block(dst + s * slice, src + s * slice, slice, pe);
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

  putmem_matrix(b);
  putmem_variants(b);

  typed_full<ty_char>(b);
  typed_full<ty_short>(b);
  typed_full<ty_int>(b);
  typed_full<ty_longlong>(b);
  typed_full<ty_float>(b);
  typed_full<ty_double>(b);
  typed_full<ty_uint64>(b);
  // Every other C type name once per scope and form.
  typed_quick<ty_schar>(b);
  typed_quick<ty_long>(b);
  typed_quick<ty_uchar>(b);
  typed_quick<ty_ushort>(b);
  typed_quick<ty_uint>(b);
  typed_quick<ty_ulong>(b);
  typed_quick<ty_ulonglong>(b);
  typed_quick<ty_int8>(b);
  typed_quick<ty_int16>(b);
  typed_quick<ty_int32>(b);
  typed_quick<ty_int64>(b);
  typed_quick<ty_uint8>(b);
  typed_quick<ty_uint16>(b);
  typed_quick<ty_uint32>(b);
  typed_quick<ty_size>(b);
  typed_quick<ty_ptrdiff>(b);

  sized_forms<ty_bits8>(b);
  sized_forms<ty_bits16>(b);
  sized_forms<ty_bits32>(b);
  sized_forms<ty_bits64>(b);
  sized_forms<ty_bits128>(b);

  slices_case<block_scope>(b, 16, 256, 4099, 48, 3, 5);
  slices_case<block_scope>(b, 7, 96, 16384, 21, 0, 0);
  slices_case<warp_scope>(b, 4, 128, 1031, 64, 1, 6);
  slices_case<thread_scope>(b, 2, 128, 97, 1000, 2, 7);

  CUDA_CHECK(cudaFree(b.src));
  release(b.src_sym);
  release(b.dst);
  return test_main_epilogue("rma_put");
}
