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
#include <vector>

#include "common.cuh"

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

template <class Ty, class S, bool NBI>
__global__ void __launch_bounds__(1024) k_get(typename Ty::T* dst, const typename Ty::T* src, size_t n, int pe, int api, uint64_t salt,
                      DevErrors* err) {
  using T = typename Ty::T;
  if (api == 0) Ty::template get<S, NBI>(dst, src, n, pe);
  else cpp_get<Ty, S, NBI>(dst, src, n, pe);
  if constexpr (NBI) {
    if (api == 0) {
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
  barrier_all_scope<S>(api);
}

template <class S> int default_threads() { return is_thread_v<S> ? 1 : is_warp_v<S> ? 32 : 256; }

struct Case {
  size_t n;
  size_t soff, doff;
  bool nbi;
  int api;
  bool from_self;
  int threads;
  bool dst_symmetric;
};

template <class Ty, class S>
void run_case(Bufs& b, const Case& c) {
  using T = typename Ty::T;
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int from = c.from_self ? me : (me + npes - 1) % npes;
  const int threads = c.threads ? c.threads : default_threads<S>();
  const uint64_t salt = ++g_salt;
  set_context("get %s scope=%s threads=%d %s %s n=%zu src_off=%zu dst_off=%zu dst=%s <- %s", Ty::name,
              scope_name<S>(), threads, c.nbi ? "nbi" : "blocking", c.api ? "c++" : "C", c.n, c.soff, c.doff,
              c.dst_symmetric ? "symmetric" : "local", c.from_self ? "self" : "previous PE");
  Guarded& d = c.dst_symmetric ? b.dst_sym : b.dst;
  fill_device(b.src.at<T>(c.soff), c.n, me, salt);
  poison_device(d.base, kGuard + (c.doff + c.n) * sizeof(T) + kGuard);
  b.err->reset();
  gshmem_barrier_all();  // every source is filled before anyone reads
  if (c.nbi) k_get<Ty, S, true><<<1, threads>>>(d.at<T>(c.doff), b.src.at<T>(c.soff), c.n, from, c.api, salt, b.err->d);
  else k_get<Ty, S, false><<<1, threads>>>(d.at<T>(c.doff), b.src.at<T>(c.soff), c.n, from, c.api, salt, b.err->d);
  KERNEL_CHECK();
  b.err->check("index", "pe", __FILE__, __LINE__);
  GT_VERIFY_GUARDED(T, d, c.doff, c.n, [&](size_t i) { return value<T>(from, i, salt); });
}

template <class Ty>
void run_all_scopes(Bufs& b, Case c) {
  run_case<Ty, thread_scope>(b, c);
  run_case<Ty, warp_scope>(b, c);
  run_case<Ty, block_scope>(b, c);
}

void getmem_matrix(Bufs& b) {
  // 1-16 and 4096 bytes: one unit, and one unit a thread of a 256-thread block, when aligned.
  const size_t sizes[] = {0, 1, 2, 3, 4, 8, 15, 16, 17, 31, 32, 1000, 4096, 4097, 65537, (1u << 20) + 7};
  const size_t offs[] = {0, 1, 2, 3, 4, 7, 8, 12};
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

void getmem_variants(Bufs& b) {
  const size_t sizes[] = {0, 1, 3, 15, 16, 17, 31, 1000, 4097, 65537, (1u << 20) + 7};
  const size_t pairs[][2] = {{0, 0}, {1, 0}, {0, 7}, {3, 12}, {8, 4}, {2, 1}};
  for (size_t n : sizes)
    for (int nbi = 0; nbi < 2; ++nbi)
      for (auto& p : pairs) run_all_scopes<ty_mem>(b, Case{n, p[0], p[1], nbi != 0, 1, false, 0, false});
  for (size_t n : sizes)
    for (int nbi = 0; nbi < 2; ++nbi)
      for (int api = 0; api < 2; ++api) {
        run_all_scopes<ty_mem>(b, Case{n, 3, 5, nbi != 0, api, true, 0, false});    // from self
        run_all_scopes<ty_mem>(b, Case{n, 12, 1, nbi != 0, api, false, 0, true});  // symmetric destination
      }
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

template <class Ty>
void typed_full(Bufs& b) {
  const size_t sizes[] = {0, 1, 3, 17, 1000, 4097, 65537};
  const size_t pairs[][2] = {{0, 0}, {1, 2}, {3, 1}};
  for (size_t n : sizes)
    for (int nbi = 0; nbi < 2; ++nbi)
      for (int api = 0; api < 2; ++api)
        for (auto& p : pairs) run_all_scopes<Ty>(b, Case{n, p[0], p[1], nbi != 0, api, false, 0, false});
  run_all_scopes<Ty>(b, Case{1000, 1, 0, false, 0, true, 0, false});
  run_all_scopes<Ty>(b, Case{1000, 2, 1, true, 1, true, 0, true});
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
__global__ void k_get_slices(unsigned char* dst, const unsigned char* src, size_t slice, size_t nslices, int pe) {
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
    if constexpr (is_thread_v<S>) gshmem_getmem_nbi(dst + s * slice, src + s * slice, slice, pe);
    else if constexpr (is_warp_v<S>) gshmemx_getmem_warp(dst + s * slice, src + s * slice, slice, pe);
    else gshmemx_getmem_nbi_block(dst + s * slice, src + s * slice, slice, pe);
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
  k_get_slices<S><<<blocks, threads>>>(b.dst.at<unsigned char>(doff), b.src.at<unsigned char>(soff), slice, nslices,
                                       prev);
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

  getmem_matrix(b);
  getmem_variants(b);

  typed_full<ty_char>(b);
  typed_full<ty_short>(b);
  typed_full<ty_int>(b);
  typed_full<ty_longlong>(b);
  typed_full<ty_float>(b);
  typed_full<ty_double>(b);
  typed_full<ty_uint64>(b);
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

  release(b.dst);
  release(b.dst_sym);
  release(b.src);
  return test_main_epilogue("rma_get");
}
