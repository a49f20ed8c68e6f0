// SPDX-License-Identifier: BSD-3-Clause
// Team reductions: gshmem_TYPE_OP_reduce (this file) and, compiled with GT_REDUCESCATTER
// (test_reducescatter.cu), gshmem_TYPE_OP_reducescatter.
//   - every operator on a type of every class: signed and unsigned integers of 1, 2, 4
//     and 8 bytes, float, double, half, bfloat16 (+ complexd/complexf and long double
//     through the host forms of the all-reduce); values are chosen so that every result
//     is exact whatever the order of combination, and results are compared bit for bit
//     with a reference computed here;
//   - every form: device thread / warp (full and partial) / block scope through the C
//     names, warp / block through the C++ templates, host (blocking), on-stream;
//   - nreduce 1-7, 16, 17, 32, 33, 64 and 65 (the LL path for 4- and 8-byte elements up to
//     256 bytes, GSHMEM_LL_MAX_BYTES's default: 64 and 32 elements, the path's edges;
//     reduce_ll4k-N runs 65 and 255 by it too, with 4 KiB), 255, 4099, 40961, 65541, 2^20
//     (+ 16M+5 floats all-reduce, 4M+5
//     reducescatter), one after another so that the paths' epochs interleave,
//     misaligned arrays (element offset 1: the element-wise paths), in place;
//   - poisoned dest with guard zones before and after, checked on every PE; sources
//     checked unchanged; in-place reducescatter: the chunks the contract promises to
//     keep are unchanged;
//   - members calling the same reduction in different forms (device block / warp, host,
//     on-stream: one group for all slots against a CTA per slot);
//   - the world team and a team split off it (every other PE, and all but PE 0);
//   - float and double min / max with NaN in some members' arrays: ignored unless every
//     member has NaN there, in every path and form, forms mixed too;
//   - chains of calls with no barrier between them: reduce and reducescatter alternating,
//     sizes from 4 bytes (one inline proxy entry across nodes) to several rounds of the
//     spanning path's receive slots, in place and not, misaligned, each member in its own form
//     (device thread / warp / block, host, on-stream), so that a member runs ahead of others
//     into the next call; every result element, every source and the poison between checked;
//     on the world team and on the split teams (whose 1 MiB of scratch makes more rounds).
// Modes: no argument: the tests above. With GT_REDUCE_ERRORS (test_reduce_errors, built
// with GSHMEM_DEBUG_CHECKS): argv[1] names one invalid call; reduce_errors.sh checks the
// messages.
#include <algorithm>
#include <cmath>
#include <vector>

#include "common.cuh"
#include "reduce_values.cuh"

using namespace gt;
using gshmem::block_scope;
using gshmem::thread_scope;
using gshmem::warp_scope;

#if !defined(GT_REDUCE_ERRORS)
#if defined(GT_REDUCESCATTER)
#define GT_COLL reducescatter
constexpr bool kScatter = true;
#else
#define GT_COLL reduce
constexpr bool kScatter = false;
#endif
#define GT_CAT_(a, b) a##b
#define GT_CAT(a, b) GT_CAT_(a, b)
#define GT_CNAME(TN, OPN) GT_CAT(gshmem_##TN##_##OPN##_, GT_COLL)
#define GT_XNAME(TN, OPN, SUF) GT_CAT(GT_CAT(gshmemx_##TN##_##OPN##_, GT_COLL), SUF)

namespace {

using namespace gt_reduce;

// ------------------------------------------------------------------ the names under test
// Tag per (type, operator): dev<S> (C names at scope S), host, on_stream.
#define GT_RTAG(TN, TYPE, OPN, OPT)                                                                          \
  struct tag_##TN##_##OPN {                                                                                  \
    using T = TYPE;                                                                                          \
    using Op = rop::OPT;                                                                                     \
    static constexpr const char* name = #TN "_" #OPN;                                                        \
    static constexpr bool device = true, stream = true;                                                      \
    template <class S>                                                                                       \
    static __device__ int dev(gshmem_team_t tm, T* d, const T* s, size_t n) {                                \
      if constexpr (is_thread_v<S>)                                                                          \
        return GT_CNAME(TN, OPN)(tm, d, s, n);                                                               \
      else if constexpr (is_warp_v<S>)                                                                       \
        return GT_XNAME(TN, OPN, _warp)(tm, d, s, n);                                                        \
      else                                                                                                   \
        return GT_XNAME(TN, OPN, _block)(tm, d, s, n);                                                       \
    }                                                                                                        \
    static int host(gshmem_team_t tm, T* d, const T* s, size_t n) { return GT_CNAME(TN, OPN)(tm, d, s, n); } \
    static int on_stream(gshmem_team_t tm, T* d, const T* s, size_t n, cudaStream_t st) {                    \
      return GT_XNAME(TN, OPN, _on_stream)(tm, d, s, n, st);                                                 \
    }                                                                                                        \
  }
#define GT_RTAG4(TN, TYPE)     \
  GT_RTAG(TN, TYPE, max, max); \
  GT_RTAG(TN, TYPE, min, min); \
  GT_RTAG(TN, TYPE, sum, sum); \
  GT_RTAG(TN, TYPE, prod, prod)
#define GT_RTAG7(TN, TYPE)      \
  GT_RTAG4(TN, TYPE);           \
  GT_RTAG(TN, TYPE, and, and_); \
  GT_RTAG(TN, TYPE, or, or_);   \
  GT_RTAG(TN, TYPE, xor, xor_)

GT_RTAG4(int, int);
GT_RTAG4(longlong, long long);
GT_RTAG4(char, char);
GT_RTAG7(int8, int8_t);
GT_RTAG7(ushort, unsigned short);
GT_RTAG(uint32, uint32_t, and, and_);
GT_RTAG(uint32, uint32_t, xor, xor_);
GT_RTAG(uint32, uint32_t, min, min);
GT_RTAG7(uint64, uint64_t);
GT_RTAG(size, size_t, or, or_);
GT_RTAG4(float, float);
GT_RTAG4(double, double);
GT_RTAG4(half, __half);
GT_RTAG4(bfloat16, __nv_bfloat16);

#if !defined(GT_REDUCESCATTER)
// Host-only all-reductions (C types without device arithmetic or C++ spelling).
#define GT_HTAG(TN, TYPE, CTYPE, OPN, OPT, STREAM, STREAM_CALL)                                                   \
  struct tag_##TN##_##OPN {                                                                                       \
    using T = TYPE;                                                                                               \
    using Op = rop::OPT;                                                                                          \
    static constexpr const char* name = #TN "_" #OPN;                                                             \
    static constexpr bool device = false, stream = STREAM;                                                        \
    template <class S>                                                                                            \
    static __device__ int dev(gshmem_team_t, T*, const T*, size_t) {                                              \
      return -1;                                                                                                  \
    }                                                                                                             \
    static int host(gshmem_team_t tm, T* d, const T* s, size_t n) {                                               \
      return gshmem_##TN##_##OPN##_reduce(tm, reinterpret_cast<CTYPE*>(d), reinterpret_cast<const CTYPE*>(s), n); \
    }                                                                                                             \
    static int on_stream(gshmem_team_t tm, T* d, const T* s, size_t n, cudaStream_t st) {                         \
      (void)tm, (void)d, (void)s, (void)n, (void)st;                                                              \
      return STREAM_CALL;                                                                                         \
    }                                                                                                             \
  }
#define GT_HTAG_STREAM(TN, OPN, CTYPE) \
  gshmemx_##TN##_##OPN##_reduce_on_stream(tm, reinterpret_cast<CTYPE*>(d), reinterpret_cast<const CTYPE*>(s), n, st)
GT_HTAG(complexd, cplx_d, double _Complex, sum, sum, true, GT_HTAG_STREAM(complexd, sum, double _Complex));
GT_HTAG(complexd, cplx_d, double _Complex, prod, prod, true, GT_HTAG_STREAM(complexd, prod, double _Complex));
GT_HTAG(complexf, cplx_f, float _Complex, sum, sum, true, GT_HTAG_STREAM(complexf, sum, float _Complex));
GT_HTAG(complexf, cplx_f, float _Complex, prod, prod, true, GT_HTAG_STREAM(complexf, prod, float _Complex));
// long double: the CPU reduces it; the on-stream form waits for the stream first.
GT_HTAG(longdouble, long double, long double, sum, sum, true, GT_HTAG_STREAM(longdouble, sum, long double));
GT_HTAG(longdouble, long double, long double, prod, prod, true, GT_HTAG_STREAM(longdouble, prod, long double));
GT_HTAG(longdouble, long double, long double, min, min, true, GT_HTAG_STREAM(longdouble, min, long double));
GT_HTAG(longdouble, long double, long double, max, max, true, GT_HTAG_STREAM(longdouble, max, long double));
#endif

// ------------------------------------------------------------------ one call
enum Form { kThread, kWarp, kWarpPartial, kBlock, kWarpCpp, kBlockCpp, kHost, kStream, kForms };
const char* const kFormName[kForms] = {"thread",    "warp", "warp(20 threads)", "block(200 threads)", "warp C++",
                                       "block C++", "host", "on-stream"};

template <class Tag, class S, bool Cpp>
__global__ void k_call(gshmem_team_t team, typename Tag::T* d, const typename Tag::T* s, size_t n, int* ret) {
  int r;
  if constexpr (!Cpp)
    r = Tag::template dev<S>(team, d, s, n);
  else if constexpr (kScatter)
    r = gshmem::reducescatter<typename Tag::Op, S>(team, d, s, n);
  else
    r = gshmem::reduce<typename Tag::Op, S>(team, d, s, n);
  if (S::rank() == 0) *ret = r;
}

struct Env {
  Guarded src, dst;
  int* d_ret = nullptr;
  cudaStream_t stream = nullptr;
  uint64_t salt = 1;  // advances identically on every PE
};

template <class Tag, class S, bool Cpp>
int launch(Env& e, gshmem_team_t team, typename Tag::T* d, const typename Tag::T* s, size_t n, int threads) {
  CUDA_CHECK(cudaMemset(e.d_ret, 0xff, sizeof(int)));
  k_call<Tag, S, Cpp><<<1, threads>>>(team, d, s, n, e.d_ret);
  KERNEL_CHECK();
  int r = -2;
  CUDA_CHECK(cudaMemcpy(&r, e.d_ret, sizeof(int), cudaMemcpyDeviceToHost));
  return r;
}

// Tags run in every form; the others in block, host and on-stream forms only (every
// device form is the same template, so this keeps the test's compile time in bounds).
template <class Tag>
constexpr bool full_v = std::is_same<Tag, tag_int_sum>::value || std::is_same<Tag, tag_float_sum>::value ||
                        std::is_same<Tag, tag_half_sum>::value || std::is_same<Tag, tag_bfloat16_max>::value ||
                        std::is_same<Tag, tag_uint64_xor>::value || std::is_same<Tag, tag_int8_prod>::value ||
                        std::is_same<Tag, tag_double_min>::value || std::is_same<Tag, tag_float_max>::value;

// Tags of full_v that also run the C++ templates (kWarpCpp, kBlockCpp). gshmem::reduce and
// gshmem::reducescatter are one-line wrappers of the detail::reduce_call every device C name
// calls (impl/reduce.cuh), with the same operator, type and scope: the C++ kernels add only
// that line, and each inlines the whole reduction again.
template <class Tag>
constexpr bool cpp_v = std::is_same<Tag, tag_int_sum>::value || std::is_same<Tag, tag_half_sum>::value ||
                       std::is_same<Tag, tag_double_min>::value;

// Tags also run in the block form by their C names: every type and every operator at least
// once (each device name is a one-line wrapper of the C++ template, and spec_names_cuda
// compiles all of them). The others run the host and on-stream forms only, which are the same
// device template in the library's kernel: a block-form kernel per tag cost the test's
// translation unit 3-4 s of nvcc each.
template <class Tag>
constexpr bool block_v =
    full_v<Tag> || std::is_same<Tag, tag_longlong_prod>::value || std::is_same<Tag, tag_char_max>::value ||
    std::is_same<Tag, tag_ushort_or>::value || std::is_same<Tag, tag_ushort_min>::value ||
    std::is_same<Tag, tag_uint32_and>::value || std::is_same<Tag, tag_size_or>::value ||
    std::is_same<Tag, tag_float_min>::value || std::is_same<Tag, tag_double_prod>::value ||
    std::is_same<Tag, tag_half_prod>::value || std::is_same<Tag, tag_bfloat16_min>::value;

template <class Tag>
int invoke(Env& e, Form f, gshmem_team_t team, typename Tag::T* d, const typename Tag::T* s, size_t n) {
  if constexpr (Tag::device && block_v<Tag>) {
    if (f == kBlock) return launch<Tag, block_scope, false>(e, team, d, s, n, 200);
    if constexpr (full_v<Tag>) {
      switch (f) {
        case kThread:
          return launch<Tag, thread_scope, false>(e, team, d, s, n, 1);
        case kWarp:
          return launch<Tag, warp_scope, false>(e, team, d, s, n, 32);
        case kWarpPartial:
          return launch<Tag, warp_scope, false>(e, team, d, s, n, 20);
        default:
          break;
      }
      if constexpr (cpp_v<Tag>) {
        if (f == kWarpCpp) return launch<Tag, warp_scope, true>(e, team, d, s, n, 32);
        if (f == kBlockCpp) return launch<Tag, block_scope, true>(e, team, d, s, n, 256);
      }
    }
  }
  // A device form asked of a tag without that kernel is a mistake in this file, not a pass.
  GT_CHECK(f == kHost || f == kStream);
  if (f == kStream) {
    const int r = Tag::on_stream(team, d, s, n, e.stream);
    CUDA_CHECK(cudaStreamSynchronize(e.stream));
    return r;
  }
  return Tag::host(team, d, s, n);
}

// ------------------------------------------------------------------ checking
struct Team {
  gshmem_team_t handle;
  std::vector<int> members;  // world PEs, in team order
  int me;                    // this PE's team PE, -1: not a member
  const char* name;
};

// Reads back [0, kGuard + (off + count) elements + kGuard) of g: poison before and after,
// element i equal to want(i, got).
template <class C, class Want>
void verify_all(const char* what, const Guarded& g, size_t off, size_t count, Want want) {
  const size_t before = kGuard + off * sizeof(C), data = count * sizeof(C);
  unsigned char* h = staging(before + data + kGuard);
  CUDA_CHECK(cudaMemcpy(h, g.base, before + data + kGuard, cudaMemcpyDeviceToHost));
  verify_poison("guard before", h, before, __FILE__, __LINE__);
  const C* got = reinterpret_cast<const C*>(h + before);
  verify_array(
      what, got, count, [&](size_t i) { return want(i, got); }, __FILE__, __LINE__);
  verify_poison("guard after", h + before + data, kGuard, __FILE__, __LINE__);
}

struct Case {
  Form form;
  size_t n;
  size_t off;  // element offset of dest and source from their buffers' 256-byte aligned start
  bool in_place;
  int mix = -1;  // >= 0: world PE p calls in form kMixForms[(p + mix) % 4] instead of `form`
};
// Forms that run the protocol differently: one group for every slot (a device-scope call;
// it copies, waits and reduces all slots at once) and the library's kernel (a CTA per slot).
constexpr Form kMixForms[4] = {kBlock, kStream, kWarp, kHost};

// One call on team t (every world PE runs this; non-members only keep the barriers in step).
template <class Tag>
void run(Env& e, const Team& t, const Case& c) {
  using T = typename Tag::T;
  using Op = typename Tag::Op;
  using C = typename cmp_of<T>::type;
  const int wme = gshmem_my_pe();
  const size_t parts = kScatter ? t.members.size() : 1, n_in = c.n * parts;
  const uint64_t salt = ++e.salt;
  const Form form = c.mix >= 0 ? kMixForms[(wme + c.mix) % 4] : c.form;
  set_context("%s %s %s%s team %s n=%zu off=%zu%s", kScatter ? "reducescatter" : "reduce", Tag::name, kFormName[form],
              c.mix >= 0 ? " (forms mixed)" : "", t.name, c.n, c.off, c.in_place ? " in-place" : "");
  T* src = e.src.at<T>(c.off);
  T* dst = c.in_place ? src : e.dst.at<T>(c.off);
  poison_device(e.src.base, kGuard + (c.off + n_in) * sizeof(T) + kGuard);
  fill<T, Op>(src, n_in, wme, salt);
  if (!c.in_place) poison_device(e.dst.base, kGuard + (c.off + c.n) * sizeof(T) + kGuard);
  gshmem_barrier_all();  // every member's dest is ready before any member writes into it
  if (t.me < 0) return;
  GT_CHECK_EQ(0, invoke<Tag>(e, form, t.handle, dst, src, c.n));
  const uint64_t base = kScatter ? static_cast<uint64_t>(t.me) * c.n : 0;
  auto result = [&](size_t i, const C* got) { return matching(expect<T, Op>(t.members, base + i, salt), got[i]); };
  auto source = [&](size_t i) { return as_cmp(static_cast<T>(rval<T, Op>(wme, i, salt))); };
  if (!c.in_place) {
    verify_all<C>("dest", e.dst, c.off, c.n, [&](size_t i, const C* got) { return result(i, got); });
    if (n_in <= (1u << 20))
      verify_all<C>("source (unchanged)", e.src, c.off, n_in, [&](size_t i, const C*) { return source(i); });
  } else {
    // dest = the first n elements; reducescatter: my own chunk (staging) is unspecified,
    // the others are unchanged.
    verify_all<C>("dest (in place)", e.src, c.off, n_in, [&](size_t i, const C* got) {
      if (i < c.n) return result(i, got);
      if (i / c.n == static_cast<size_t>(t.me)) {
        C g;
        memcpy(&g, got + i, sizeof(C));
        return g;
      }
      return source(i);
    });
  }
}

// ------------------------------------------------------------------ the matrices
// Every operator on every type class: small sizes, block / host / on-stream forms.
template <class Tag>
void coverage_one(Env& e, const Team& t) {
  const std::vector<size_t> sizes =
      sim_quick() ? std::vector<size_t>{7, 4099} : std::vector<size_t>{1, 2, 7, 255, 4099};
  for (size_t n : sizes)
    for (Form f : {kHost, kBlock, kStream}) {
      if ((f == kBlock && !(Tag::device && block_v<Tag>)) || (f == kStream && !Tag::stream)) continue;
      run<Tag>(e, t, Case{f, n, n == 7 ? size_t{1} : 0, n == 255});
    }
}
template <class... Tags>
void coverage(Env& e, const Team& t) {
  (coverage_one<Tags>(e, t), ...);
}

// Every form, sizes up to 2^20, aligned and misaligned, separate and in place.
template <class Tag>
void forms_one(Env& e, const Team& t, std::initializer_list<Form> forms, const std::vector<size_t>& sizes) {
  for (size_t n : sizes)
    for (Form f : forms) {
      if (f == kThread && n > 65541) continue;  // one thread: minutes at 2^20
      if ((f == kWarpCpp || f == kBlockCpp) && !cpp_v<Tag>) continue;
      for (int variant = 0; variant < 4; ++variant) run<Tag>(e, t, Case{f, n, size_t(variant & 1), variant >= 2});
    }
}
template <class... Tags>
void forms(Env& e, const Team& t) {
  const auto all = {kThread, kWarp, kWarpPartial, kBlock, kWarpCpp, kBlockCpp, kHost, kStream};
  // 1-32: the LL path for 4- and 8-byte elements (at most 256 bytes by default), 33-64 for
  // 4-byte ones (8-byte ones and 65 on: push and pull).
  // With the default scratch the push path takes up to about 1 MiB / (2 N) bytes a member:
  // 40961 4-byte elements (160 KiB) and 65541 2-byte ones go by it with all 16 of its slots
  // at 2 and 3 PEs, by the pull path at 4.
  const std::vector<size_t> sizes =
      sim_quick() ? std::vector<size_t>{1, 33, 4099, 65541}
                  : std::vector<size_t>{1, 3, 4, 7, 16, 17, 32, 33, 64, 65, 255, 4099, 40961, 65541, size_t{1} << 20};
  (forms_one<Tags>(e, t, all, sizes), ...);
}

// Members calling in different forms: every size class of the push path (1, 2 and 16
// slots) and the pull path, each member's form rotating call by call.
void mixed(Env& e, const Team& t) {
  const std::vector<size_t> sizes =
      sim_quick() ? std::vector<size_t>{255, 40961} : std::vector<size_t>{255, 4099, 40961, 65541, size_t{1} << 20};
  for (size_t n : sizes)
    for (int mix = 0; mix < 4; ++mix) {
      run<tag_float_sum>(e, t, Case{kBlock, n, 0, false, mix});
      run<tag_half_sum>(e, t, Case{kBlock, n, 1, mix == 3, mix});
    }
}

// NaN in min and max: ignored unless every member has NaN there (fmin/fmax), whatever the
// path (LL, push, pull) and the form, and with members in different forms: the paths
// combine members in different orders, and a comparison does not commute with NaN. PE 0
// has NaN at every third element, every member at every seventh.
template <class T>
__host__ __device__ inline T nan_case_value(int pe, size_t i) {
  if ((pe == 0 && i % 3 == 0) || i % 7 == 0) return static_cast<T>(NAN);
  return static_cast<T>(static_cast<int>((i * 37 + static_cast<size_t>(pe) * 11) % 1000) - 500);
}
template <class T>
__global__ void k_fill_nan_case(T* p, size_t n, int pe) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    p[i] = nan_case_value<T>(pe, i);
}

template <class Tag>
void nan_one(Env& e, const Team& t, size_t n, Form form, int mix) {
  using T = typename Tag::T;
  constexpr bool is_min = std::is_same<typename Tag::Op, gshmem::op::min>::value;
  const int wme = gshmem_my_pe();
  const Form f = mix >= 0 ? kMixForms[(wme + mix) % 4] : form;
  set_context("reduce %s with NaN, %s%s, n=%zu", Tag::name, kFormName[f], mix >= 0 ? " (forms mixed)" : "", n);
  T* src = e.src.at<T>(0);
  T* dst = e.dst.at<T>(0);
  k_fill_nan_case<T><<<static_cast<unsigned>(std::min<size_t>((n + 255) / 256, 2048)), 256>>>(src, n, wme);
  KERNEL_CHECK();
  poison_device(e.dst.base, kGuard + n * sizeof(T) + kGuard);
  gshmem_barrier_all();
  GT_CHECK_EQ(0, invoke<Tag>(e, f, t.handle, dst, src, n));
  using C = typename cmp_of<T>::type;
  verify_all<C>("dest", e.dst, 0, n, [&](size_t i, const C* got) {
    bool any = false;
    T want = static_cast<T>(0);
    for (int pe : t.members) {
      const T v = nan_case_value<T>(pe, i);
      if (std::isnan(v)) continue;
      want = !any ? v : is_min ? std::min(want, v) : std::max(want, v);
      any = true;
    }
    if (any) return as_cmp(want);
    T g;
    memcpy(&g, got + i, sizeof(T));
    return std::isnan(g) ? as_cmp(g) : as_cmp(static_cast<T>(NAN));  // every member has NaN: any NaN will do
  });
}

void nan_cases(Env& e, const Team& t) {
  const std::vector<size_t> sizes =
      sim_quick() ? std::vector<size_t>{7, 4099} : std::vector<size_t>{7, 60, 4099, 65541, size_t{1} << 20};
  for (size_t n : sizes) {
    for (Form f : {kBlock, kHost, kStream}) {
      nan_one<tag_float_min>(e, t, n, f, -1);
      nan_one<tag_float_max>(e, t, n, f, -1);
    }
    for (Form f : {kThread, kWarp, kBlock}) {
      if (f == kThread && n > 65541) continue;
      nan_one<tag_double_min>(e, t, n, f, -1);
    }
    for (int mix = 0; mix < 4; ++mix) nan_one<tag_float_max>(e, t, n, kBlock, mix);
  }
}

// ------------------------------------------------------------------ chains without barriers
// One call of a chain: reduce or reducescatter (float sum) of n elements per member, its arrays
// at src_at / dst_at (elements of e.src / e.dst; in place: dest is the source).
struct ChainStep {
  bool scatter;
  size_t n, off;  // off: elements past a 256-byte boundary (misaligned arrays)
  bool in_place;
  size_t src_at = 0, dst_at = 0;  // element offsets of the arrays in e.src / e.dst (set by chain_layout)
  uint64_t salt = 0;
};
struct ChainCall {  // what the device forms get
  int scatter;
  size_t n;
  float* dst;
  const float* src;
};

template <class S>
__global__ void k_chain(gshmem_team_t team, const ChainCall* calls, int ncalls, int* ret) {
  int bad = 0;
  for (int c = 0; c < ncalls; ++c) {  // back to back: no barrier, no sync between the calls
    const ChainCall k = calls[c];
    const int r = k.scatter ? gshmem::reducescatter<rop::sum, S>(team, k.dst, k.src, k.n)
                            : gshmem::reduce<rop::sum, S>(team, k.dst, k.src, k.n);
    if (r != 0) bad = c + 1;
  }
  if (S::rank() == 0) *ret = bad;
}

// Forms a member may run a chain in; member p of run `mix` takes kChainForms[(p + mix) % 5].
constexpr Form kChainForms[5] = {kBlock, kThread, kHost, kWarp, kStream};

// Places the steps' arrays one after the other in e.src and e.dst, 256-byte aligned plus the
// step's offset, kGuard bytes of poison between them; returns the elements used in each.
size_t chain_layout(std::vector<ChainStep>& steps, size_t parts) {
  const size_t gap = kGuard / sizeof(float), align = 256 / sizeof(float);
  size_t at = 0;
  for (ChainStep& st : steps) {
    const size_t n_in = st.scatter ? st.n * parts : st.n;
    st.src_at = at + st.off;
    st.dst_at = st.in_place ? st.src_at : at + st.off;
    at = (st.src_at + n_in + gap + align - 1) / align * align;
  }
  return at;
}

void chain_run(Env& e, const Team& t, const std::vector<ChainStep>& steps, Form form) {
  float* src = e.src.at<float>(0);
  float* dst = e.dst.at<float>(0);
  if (form == kHost || form == kStream) {
    for (const ChainStep& st : steps) {
      float* d = st.in_place ? src + st.src_at : dst + st.dst_at;
      const float* s = src + st.src_at;
      int r;
      if (form == kHost)
        r = st.scatter ? gshmem_float_sum_reducescatter(t.handle, d, s, st.n)
                       : gshmem_float_sum_reduce(t.handle, d, s, st.n);
      else
        r = st.scatter ? gshmemx_float_sum_reducescatter_on_stream(t.handle, d, s, st.n, e.stream)
                       : gshmemx_float_sum_reduce_on_stream(t.handle, d, s, st.n, e.stream);
      GT_CHECK_EQ(0, r);
    }
    CUDA_CHECK(cudaStreamSynchronize(e.stream));
    return;
  }
  std::vector<ChainCall> calls;
  for (const ChainStep& st : steps)
    calls.push_back(
        ChainCall{st.scatter ? 1 : 0, st.n, st.in_place ? src + st.src_at : dst + st.dst_at, src + st.src_at});
  ChainCall* d_calls = nullptr;
  CUDA_CHECK(cudaMalloc(&d_calls, calls.size() * sizeof(ChainCall)));
  CUDA_CHECK(cudaMemcpy(d_calls, calls.data(), calls.size() * sizeof(ChainCall), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(e.d_ret, 0xff, sizeof(int)));
  const int nc = static_cast<int>(calls.size());
  if (form == kThread)
    k_chain<thread_scope><<<1, 1>>>(t.handle, d_calls, nc, e.d_ret);
  else if (form == kWarp)
    k_chain<warp_scope><<<1, 32>>>(t.handle, d_calls, nc, e.d_ret);
  else
    k_chain<block_scope><<<1, 256>>>(t.handle, d_calls, nc, e.d_ret);
  KERNEL_CHECK();
  int r = -2;
  CUDA_CHECK(cudaMemcpy(&r, e.d_ret, sizeof(int), cudaMemcpyDeviceToHost));
  GT_CHECK_EQ(0, r);  // else the 1-based index of the last call that failed
  CUDA_CHECK(cudaFree(d_calls));
}

// Every member runs the chain in its own form; then every element of every result, the sources
// (unchanged where not in place; in place, a reducescatter's chunks but 0 and the member's own)
// and the poison around them is checked.
void chains(Env& e, const Team& t) {
  const size_t parts = t.members.size();
  const size_t big = (size_t{1} << 19) + 5;  // 2 MiB + 20 bytes: 3 or more rounds of the spanning path's slots
  for (int mix = 0; mix < 5; ++mix) {
    const bool a = (mix & 1) != 0;  // which kind opens the chain
    std::vector<ChainStep> steps = {
        {a, 2, 0, false},               // 8 bytes: one inline proxy entry with its signal
        {!a, 1, 0, false},              // 4 bytes
        {a, 4, 0, true},                // 16 bytes, in place
        {!a, 5, 1, false},              // 20 bytes (by reference across the proxy), misaligned
        {a, big, 0, false},             // several rounds
        {!a, (big >> 1) + 2, 0, true},  // several rounds (at 4 PEs), in place
        {a, 4099, 1, true},             // misaligned, in place
        {!a, 33, 1, false},
        {a, big, 0, true},  // several rounds in place, right after a reducescatter
        {!a, 1, 0, true},
    };
    if (t.me < 0) {  // not a member: the salts and the barrier in step with the members
      e.salt += steps.size();
      gshmem_barrier_all();
      continue;
    }
    const size_t used = chain_layout(steps, parts);
    const Form form = kChainForms[(t.me + mix) % 5];
    set_context("%s chain %d: %s, members in forms of their own", kScatter ? "reducescatter" : "reduce", mix,
                kFormName[form]);
    poison_device(e.src.base, kGuard + used * sizeof(float) + kGuard);
    poison_device(e.dst.base, kGuard + used * sizeof(float) + kGuard);
    for (ChainStep& st : steps) {
      st.salt = ++e.salt;
      fill<float, rop::sum>(e.src.at<float>(st.src_at), st.scatter ? st.n * parts : st.n, gshmem_my_pe(), st.salt);
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    gshmem_barrier_all();  // every member's arrays are ready; then no barrier until the chain ends
    chain_run(e, t, steps, form);
    // Expected words of both buffers: poison, the untouched sources, the results (bits).
    const size_t words = (kGuard + used * sizeof(float) + kGuard) / sizeof(float), g = kGuard / sizeof(float);
    uint32_t poison;
    memset(&poison, kPoison, sizeof(poison));
    std::vector<uint32_t> want_src(words, poison), want_dst(words, poison), got(words);
    std::vector<bool> any_src(words, false);  // an in-place reducescatter's own chunk: any value
    auto put = [](std::vector<uint32_t>& w, size_t at, float v) { memcpy(&w[at], &v, sizeof(v)); };
    for (const ChainStep& st : steps) {
      const size_t n_in = st.scatter ? st.n * parts : st.n, base = st.scatter ? static_cast<size_t>(t.me) * st.n : 0;
      for (size_t i = 0; i < n_in; ++i)
        put(want_src, g + st.src_at + i, rval<float, rop::sum>(gshmem_my_pe(), i, st.salt));
      std::vector<uint32_t>& d = st.in_place ? want_src : want_dst;
      for (size_t i = 0; i < st.n; ++i)
        put(d, g + st.dst_at + i, expect<float, rop::sum>(t.members, base + i, st.salt));
      if (st.in_place && st.scatter && t.me != 0)
        for (size_t i = 0; i < st.n; ++i) any_src[g + st.src_at + base + i] = true;
    }
    CUDA_CHECK(cudaMemcpy(got.data(), e.dst.base, words * sizeof(float), cudaMemcpyDeviceToHost));
    verify_array(
        "dest and the poison around it (bits)", got.data(), words, [&](size_t i) { return want_dst[i]; }, __FILE__,
        __LINE__);
    CUDA_CHECK(cudaMemcpy(got.data(), e.src.base, words * sizeof(float), cudaMemcpyDeviceToHost));
    verify_array(
        "sources (in place: dest) and the poison around them (bits)", got.data(), words,
        [&](size_t i) { return any_src[i] ? got[i] : want_src[i]; }, __FILE__, __LINE__);
  }
}

// 64 MiB of input: the multi-CTA path of the host and on-stream forms.
void large(Env& e, const Team& t) {
  // Across simulated nodes: 1M + 5 (the spanning path's chunks, many of them, in place too).
  const size_t n = sim_quick() ? (size_t{1} << 20) + 5 : kScatter ? (size_t{4} << 20) + 5 : (size_t{16} << 20) + 5;
  for (Form f : {kStream, kHost})
    for (bool in_place : {false, true}) run<tag_float_sum>(e, t, Case{f, n, 0, in_place});
  run<tag_uint32_xor>(e, t, Case{kStream, n, 1, false});
}

// Teams split off the world: every other PE, and all but PE 0 (size 1 teams on 2 PEs).
void split_teams(Env& e) {
  const int npes = gshmem_n_pes(), me = gshmem_my_pe();
  struct Spec {
    int start, stride, size;
    const char* name;
  } specs[] = {{0, 2, (npes + 1) / 2, "even PEs"}, {1, 1, npes - 1, "PEs 1.."}};
  for (const Spec& sp : specs) {
    Team t{GSHMEM_TEAM_INVALID, {}, -1, sp.name};
    GT_CHECK_EQ(0, gshmem_team_split_strided(GSHMEM_TEAM_WORLD, sp.start, sp.stride, sp.size, nullptr, 0, &t.handle));
    for (int i = 0; i < sp.size; ++i) t.members.push_back(sp.start + i * sp.stride);
    for (int i = 0; i < sp.size; ++i)
      if (t.members[i] == me) t.me = i;
    GT_CHECK_EQ(t.me, gshmem_team_my_pe(t.handle));
    const std::vector<size_t> sizes =
        sim_quick() ? std::vector<size_t>{1, 4099} : std::vector<size_t>{1, 4099, size_t{1} << 20};
    for (size_t n : sizes)
      for (Form f : {kHost, kStream, kBlock, kWarp}) {
        run<tag_int_sum>(e, t, Case{f, n, 0, false});
        run<tag_half_sum>(e, t, Case{f, n, 1, n == 4099});
      }
    chains(e, t);  // across nodes: the 1 MiB scratch of a split team, rounds of 512 KiB or less
    gshmem_barrier_all();
    if (t.me >= 0) gshmem_team_destroy(t.handle);
  }
}
}  // namespace

int main() {
  test_main_prologue(2, 0);
  const int npes = gshmem_n_pes(), me = gshmem_my_pe();
  Env e;
  const size_t parts = kScatter ? static_cast<size_t>(npes) : 1;
  const size_t max_bytes = std::max<size_t>({((size_t{16} << 20) + 6) * 4, ((size_t{4} << 20) + 6) * 4 * parts,
                                             ((size_t{1} << 20) + 2) * 8 * parts, size_t{4100} * 16 * parts});
  e.src = make_symmetric(max_bytes);
  e.dst = make_symmetric(max_bytes);
  CUDA_CHECK(cudaMalloc(&e.d_ret, sizeof(int)));
  CUDA_CHECK(cudaStreamCreateWithFlags(&e.stream, cudaStreamNonBlocking));
  Team world{GSHMEM_TEAM_WORLD, {}, me, "world"};
  for (int p = 0; p < npes; ++p) world.members.push_back(p);

  coverage<tag_int_max, tag_int_min, tag_int_sum, tag_int_prod, tag_longlong_max, tag_longlong_min, tag_longlong_sum,
           tag_longlong_prod, tag_char_min, tag_char_max, tag_char_sum, tag_char_prod, tag_int8_and, tag_int8_or,
           tag_int8_xor, tag_int8_max, tag_int8_min, tag_int8_sum, tag_int8_prod, tag_ushort_and, tag_ushort_or,
           tag_ushort_xor, tag_ushort_max, tag_ushort_min, tag_ushort_sum, tag_ushort_prod, tag_uint32_and,
           tag_uint32_xor, tag_uint32_min, tag_uint64_and, tag_uint64_or, tag_uint64_xor, tag_uint64_max,
           tag_uint64_min, tag_uint64_sum, tag_uint64_prod, tag_size_or, tag_float_max, tag_float_min, tag_float_sum,
           tag_float_prod, tag_double_max, tag_double_min, tag_double_sum, tag_double_prod, tag_half_max, tag_half_min,
           tag_half_sum, tag_half_prod, tag_bfloat16_max, tag_bfloat16_min, tag_bfloat16_sum, tag_bfloat16_prod>(e,
                                                                                                                 world);
#if !defined(GT_REDUCESCATTER)
  coverage<tag_complexd_sum, tag_complexd_prod, tag_complexf_sum, tag_complexf_prod, tag_longdouble_sum,
           tag_longdouble_prod, tag_longdouble_min, tag_longdouble_max>(e, world);
#endif
  forms<tag_int_sum, tag_float_sum, tag_half_sum, tag_bfloat16_max, tag_uint64_xor, tag_int8_prod, tag_double_min>(
      e, world);
  mixed(e, world);
  chains(e, world);
  if constexpr (!kScatter) nan_cases(e, world);
  large(e, world);
  split_teams(e);

  gshmem_barrier_all();
  CUDA_CHECK(cudaStreamDestroy(e.stream));
  CUDA_CHECK(cudaFree(e.d_ret));
  release(e.src);
  release(e.dst);
  return test_main_epilogue(kScatter ? "reducescatter" : "reduce");
}

#else  // GT_REDUCE_ERRORS: one invalid call per run (reduce_errors.sh checks what is reported)

// One warp: mode 0 overlapping arrays (warp scope), mode 1 nreduce differing on PE 1 (thread scope).
__global__ void k_device_call(int* buf, int mode, int me) {
  if (mode == 0)
    gshmemx_int_sum_reduce_warp(GSHMEM_TEAM_WORLD, buf + 1, buf, 16);
  else if (threadIdx.x == 0)
    gshmem_int_sum_reduce(GSHMEM_TEAM_WORLD, buf, buf + 512, me == 1 ? 8 : 7);
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  test_main_prologue(2, 0);
  const int me = gshmem_my_pe();
  int* buf = static_cast<int*>(gshmem_calloc(1024, sizeof(int)));
  int rc = -1, want = 0;
  if (!strcmp(mode, "host_mismatch")) {  // needs GSHMEM_DEBUG_CHECKS=1
    rc = gshmem_int_sum_reduce(GSHMEM_TEAM_WORLD, buf, buf + 512, me == 1 ? 8 : 7);
    want = GSHMEM_ERROR_MISMATCH;
  } else if (!strcmp(mode, "host_overlap")) {
    rc = gshmem_int_sum_reduce(GSHMEM_TEAM_WORLD, buf + 1, buf, 16);
    want = GSHMEM_ERROR_INVALID_VALUE;
  } else if (!strcmp(mode, "host_team")) {
    float* f = reinterpret_cast<float*>(buf);
    rc = gshmemx_float_max_reducescatter_on_stream(42, f, f + 512, 4, 0);
    want = GSHMEM_ERROR_INVALID_VALUE;
  } else if (!strcmp(mode, "device_overlap") || !strcmp(mode, "device_mismatch")) {
    // Traps (GSHMEM_DEBUG_CHECKS is compiled into this binary): the kernel fails.
    k_device_call<<<1, 32>>>(buf, mode[7] == 'o' ? 0 : 1, me);
    const cudaError_t err = cudaDeviceSynchronize();
    emit(stdout, "reduce_errors: PE %d %s: kernel ended with %s\n", me, mode, cudaGetErrorName(err));
    return err == cudaSuccess ? 1 : 3;
  } else {
    emit(stderr, "usage: test_reduce_errors host_mismatch|host_overlap|host_team|device_overlap|device_mismatch\n");
    return 2;
  }
  emit(stdout, "reduce_errors: PE %d %s returned %d (want %d)\n", me, mode, rc, want);
  GT_CHECK_EQ(want, rc);
  gshmem_barrier_all();
  gshmem_free(buf);
  return test_main_epilogue(mode);
}
#endif
