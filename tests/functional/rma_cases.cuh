// SPDX-License-Identifier: BSD-3-Clause
// The cases test_rma_put.cu and test_rma_get.cu both run: sizes, source and destination
// offsets (every copy unit width), blocking and _nbi, C names and C++ templates, to or from
// the PE itself, symmetric or local buffers, odd thread counts, every C type name (at
// thread scope; one of each size and kind at every scope) and the sized forms. A test
// supplies one case's run (poison, copy, check) as
//   struct Test { using Bufs = ...; template <class Ty, class S> static void run(Bufs&, const RmaCase&); };
// and calls RmaCases<Test>::all(bufs). Also: rma_threads, rma_grid_unit (test_rma_strided.cu
// uses the first).
#pragma once

#include <cstddef>
#include <type_traits>

#include "common.cuh"

namespace gt {

struct RmaCase {
  size_t n;           // elements
  size_t soff, doff;  // element offsets of source and destination
  bool nbi;
  int api;      // 0: C names, 1: C++ templates
  bool self;    // the PE itself instead of its neighbour
  int threads;  // 0: the scope's default (rma_threads)
  bool sym;     // the buffer on this PE's side symmetric (put: source; get: destination), else local
};

// The threads a case of scope S runs with: `threads`, or if 0 the scope's default.
template <class S>
int rma_threads(int threads) {
  return threads ? threads : is_thread_v<S> ? 1 : is_warp_v<S> ? 32 : 256;
}

// Each scope's slice of several slices copied at once by a grid: a thread, a warp or a
// block each (*unit of *units).
template <class S>
__device__ inline void rma_grid_unit(size_t* unit, size_t* units) {
  if constexpr (is_thread_v<S>) {
    *unit = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
    *units = static_cast<size_t>(gridDim.x) * blockDim.x;
  } else if constexpr (is_warp_v<S>) {
    *unit = (blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x) / 32;
    *units = static_cast<size_t>(gridDim.x) * blockDim.x / 32;
  } else {
    *unit = blockIdx.x;
    *units = gridDim.x;
  }
}

// The types whose C++ templates the typed sweep runs (api 1): the untyped forms and the
// types of the full sweep (RmaCases::all). The tests compile their kernels' C++ call only
// for these (with_api): each kernel, one per type, scope and nbi, inlines the copy once per
// form; with the other types' _warp and _block kernels (typed_quick) they were 40 % of
// test_rma_get.cu's build.
template <class Ty>
constexpr bool kRmaCppTyped =
    Ty::is_mem || std::is_same_v<Ty, ty_char> || std::is_same_v<Ty, ty_short> || std::is_same_v<Ty, ty_int> ||
    std::is_same_v<Ty, ty_longlong> || std::is_same_v<Ty, ty_float> || std::is_same_v<Ty, ty_double> ||
    std::is_same_v<Ty, ty_uint64>;

// Calls launch(std::integral_constant<int, api>{}) for case c's api (0: C names, 1: C++
// templates). A C++ case asked of a type without that kernel fails the test.
template <class Ty, class Launch>
void with_api(const RmaCase& c, Launch launch) {
  if (c.api == 0) {
    launch(std::integral_constant<int, 0>{});
  } else if constexpr (kRmaCppTyped<Ty>) {
    launch(std::integral_constant<int, 1>{});
  } else {
    GT_CHECK(kRmaCppTyped<Ty>);
  }
}

template <class Test>
struct RmaCases {
  using Bufs = typename Test::Bufs;

  template <class Ty>
  static void all_scopes(Bufs& b, const RmaCase& c) {
    Test::template run<Ty, gshmem::thread_scope>(b, c);
    Test::template run<Ty, gshmem::warp_scope>(b, c);
    Test::template run<Ty, gshmem::block_scope>(b, c);
  }

  // Untyped, C names: every source offset against every destination offset up to 4097
  // bytes; above, pairs covering every unit width (rel = dst - src: 0 -> 16, 8 -> 8, 4 -> 4,
  // 2 -> 2, odd -> 1). 1-16 and 4096 bytes: one unit, and one unit a thread of a 256-thread
  // block, when aligned. 8192, 65536 and 1 MiB, aligned: a block's in-line loop of 16-byte
  // units (puts; gets of two units a thread) and its out-of-line get (impl/copy.cuh).
  static void mem_matrix(Bufs& b) {
    const size_t sizes[] = {
        0, 1, 2, 3, 4, 8, 15, 16, 17, 31, 32, 1000, 4096, 4097, 8192, 65536, 65537, 1u << 20, (1u << 20) + 7};
    const size_t offs[] = {0, 1, 2, 3, 4, 7, 8, 12};
    const size_t big_pairs[][2] = {{0, 0}, {8, 0}, {4, 12}, {1, 3}, {3, 2}, {7, 7}, {12, 4}, {2, 8}};
    for (size_t n : sizes)
      for (int nbi = 0; nbi < 2; ++nbi) {
        if (n <= 4097) {
          for (size_t so : offs)
            for (size_t dof : offs) all_scopes<ty_mem>(b, RmaCase{n, so, dof, nbi != 0, 0, false, 0, false});
        } else {
          for (auto& p : big_pairs) all_scopes<ty_mem>(b, RmaCase{n, p[0], p[1], nbi != 0, 0, false, 0, false});
        }
      }
  }

  // Untyped: C++ templates, the PE itself, the symmetric buffer, odd thread counts.
  static void mem_variants(Bufs& b) {
    const size_t sizes[] = {0, 1, 3, 15, 16, 17, 31, 1000, 4097, 65537, (1u << 20) + 7};
    const size_t pairs[][2] = {{0, 0}, {1, 0}, {0, 7}, {3, 12}, {8, 4}, {2, 1}};
    for (size_t n : sizes)
      for (int nbi = 0; nbi < 2; ++nbi)
        for (auto& p : pairs) all_scopes<ty_mem>(b, RmaCase{n, p[0], p[1], nbi != 0, 1, false, 0, false});
    for (size_t n : sizes)
      for (int nbi = 0; nbi < 2; ++nbi)
        for (int api = 0; api < 2; ++api) {
          all_scopes<ty_mem>(b, RmaCase{n, 3, 5, nbi != 0, api, true, 0, false});
          all_scopes<ty_mem>(b, RmaCase{n, 12, 1, nbi != 0, api, false, 0, true});
        }
    // A warp cut short by the block size (20 threads), and blocks that are not a multiple
    // of 32 threads or use the maximum. 320, 16000, 16384: one 16-byte unit a thread for 20,
    // 1000 and 1024 threads, when aligned.
    const size_t odd_sizes[] = {17, 320, 1000, 16000, 16384, 65537};
    const size_t odd_pairs[][2] = {{0, 0}, {3, 1}, {7, 12}};
    for (size_t n : odd_sizes)
      for (int nbi = 0; nbi < 2; ++nbi)
        for (auto& p : odd_pairs)
          for (int api = 0; api < 2; ++api) {
            Test::template run<ty_mem, gshmem::warp_scope>(b, RmaCase{n, p[0], p[1], nbi != 0, api, false, 20, false});
            for (int threads : {1000, 1024, 33})
              Test::template run<ty_mem, gshmem::block_scope>(
                  b, RmaCase{n, p[0], p[1], nbi != 0, api, false, threads, false});
          }
  }

  template <class Ty>
  static void typed_full(Bufs& b) {
    static_assert(kRmaCppTyped<Ty>, "the full sweep runs the C++ templates too");
    const size_t sizes[] = {0, 1, 3, 17, 1000, 4097, 65537};
    const size_t pairs[][2] = {{0, 0}, {1, 2}, {3, 1}};
    for (size_t n : sizes)
      for (int nbi = 0; nbi < 2; ++nbi)
        for (int api = 0; api < 2; ++api)
          for (auto& p : pairs) all_scopes<Ty>(b, RmaCase{n, p[0], p[1], nbi != 0, api, false, 0, false});
    all_scopes<Ty>(b, RmaCase{1000, 1, 0, false, 0, true, 0, false});
    all_scopes<Ty>(b, RmaCase{1000, 2, 1, true, 1, true, 0, false});
    all_scopes<Ty>(b, RmaCase{1000, 2, 1, true, 1, true, 0, true});
  }

  // Another C type name: its thread-scope names (blocking and _nbi). Its _warp and _block
  // names are lines of the same generated table (tools/gen_c_api.py) as those of the full
  // sweep's type of its size, which run at every scope; spec_names_cuda compiles them all.
  template <class Ty>
  static void typed_quick(Bufs& b) {
    for (int nbi = 0; nbi < 2; ++nbi) {
      Test::template run<Ty, gshmem::thread_scope>(b, RmaCase{17, 1, 2, nbi != 0, 0, false, 0, false});
      Test::template run<Ty, gshmem::thread_scope>(b, RmaCase{1000, 0, 3, nbi != 0, 0, false, 0, false});
    }
  }

  template <class Ty>
  static void sized_form(Bufs& b) {
    const size_t sizes[] = {0, 1, 17, 4097};
    const size_t pairs[][2] = {{0, 0}, {1, 3}};
    for (size_t n : sizes)
      for (int nbi = 0; nbi < 2; ++nbi)
        for (auto& p : pairs) all_scopes<Ty>(b, RmaCase{n, p[0], p[1], nbi != 0, 0, false, 0, false});
  }

  template <class... Ty>
  static void each_full(Bufs& b) {
    (typed_full<Ty>(b), ...);
  }
  template <class... Ty>
  static void each_quick(Bufs& b) {
    (typed_quick<Ty>(b), ...);
  }
  template <class... Ty>
  static void each_sized(Bufs& b) {
    (sized_form<Ty>(b), ...);
  }

  // Everything above: the untyped matrix, the full typed sweep for one type of each kind
  // and size, every other C type name's thread-scope forms, and the sized forms.
  static void all(Bufs& b) {
    mem_matrix(b);
    mem_variants(b);
    each_full<ty_char, ty_short, ty_int, ty_longlong, ty_float, ty_double, ty_uint64>(b);
    each_quick<ty_schar, ty_long, ty_uchar, ty_ushort, ty_uint, ty_ulong, ty_ulonglong, ty_int8, ty_int16, ty_int32,
               ty_int64, ty_uint8, ty_uint16, ty_uint32, ty_size, ty_ptrdiff>(b);
    each_sized<ty_bits8, ty_bits16, ty_bits32, ty_bits64, ty_bits128>(b);
  }
};

}  // namespace gt
