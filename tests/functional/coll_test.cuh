// SPDX-License-Identifier: BSD-3-Clause
// Shared pieces of the team-collective tests (test_coll_*.cu, test_team_sync.cu):
//   - the test teams: WORLD and split teams of several shapes (odd strides, a
//     2D split whose row teams share one slot and run concurrently, size 1);
//   - the forms every collective is run in: device thread / warp / block scope
//     through the C names and the C++ templates, a partial warp, a block of
//     1000 threads, the host form and the on-stream form;
//   - device return values.
#pragma once

#include <string>
#include <type_traits>
#include <vector>

#include "common.cuh"

namespace gt {

// ---------------------------------------------------------------- teams
struct TestTeam {
  std::string name;
  gshmem_team_t team = GSHMEM_TEAM_INVALID;  // INVALID on PEs that are not members
  bool created = false;                      // destroy at the end
  int size = 0, me = -1;                     // this PE's view (members only)
  std::vector<int> world;                    // world PE of each team PE (members only)
  bool member() const { return team != GSHMEM_TEAM_INVALID; }
};

// The highest team PE (members of one team agree on it; 0 on non-members).
inline int last_pe(const TestTeam& t) { return t.member() ? t.size - 1 : 0; }

inline void describe(TestTeam& t) {
  if (!t.member()) return;
  t.size = gshmem_team_n_pes(t.team);
  t.me = gshmem_team_my_pe(t.team);
  t.world.resize(t.size);
  for (int i = 0; i < t.size; ++i) t.world[i] = gshmem_team_translate_pe(t.team, i, GSHMEM_TEAM_WORLD);
}

// WORLD; "tail" = world PEs 1..N-1; "evens" = stride 2; "rows"/"cols" of a 2D split
// with xrange 2 (every PE is in one row and one column; the rows share a slot).
inline std::vector<TestTeam> make_test_teams() {
  const int n = gshmem_n_pes();
  std::vector<TestTeam> v;
  TestTeam w;
  w.name = "WORLD";
  w.team = GSHMEM_TEAM_WORLD;
  v.push_back(w);
  TestTeam tail, evens, rows, cols;
  tail.name = "tail(start 1, stride 1, size N-1)";
  evens.name = "evens(start 0, stride 2)";
  rows.name = "2d rows (xrange 2)";
  cols.name = "2d columns (xrange 2)";
  tail.created = evens.created = rows.created = cols.created = true;
  GT_CHECK_STATUS(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 1, 1, n - 1, nullptr, 0, &tail.team));
  GT_CHECK_STATUS(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, nullptr, 0, &evens.team));
  GT_CHECK_STATUS(gshmem_team_split_2d(GSHMEM_TEAM_WORLD, 2, nullptr, 0, &rows.team, nullptr, 0, &cols.team));
  for (TestTeam* t : {&tail, &evens, &rows, &cols}) v.push_back(*t);
  for (TestTeam& t : v) describe(t);
  return v;
}

inline void destroy_test_teams(std::vector<TestTeam>& v) {
  for (TestTeam& t : v)
    if (t.created && t.member()) gshmem_team_destroy(t.team);
  v.clear();
}

// ---------------------------------------------------------------- forms
// mixed: on-stream on even world PEs, a device block of 256 on odd ones (the
// library's multi-CTA kernels and the device API in one call, which must agree).
// With GSHMEM_DEBUG_CHECKS=1 at run time every PE calls on-stream instead: the host
// forms' argument exchange needs every member in a host form (docs/teams.md).
enum class Form { thread_c, warp_c, block_c, thread_cpp, warp_cpp, block_cpp, warp20, block1000, host, stream, mixed };
constexpr Form kAllForms[] = {Form::thread_c,  Form::warp_c, Form::block_c,   Form::thread_cpp, Form::warp_cpp,
                              Form::block_cpp, Form::warp20, Form::block1000, Form::host,       Form::stream};
// The forms through the C names only (typed sweeps).
constexpr Form kCForms[] = {Form::thread_c, Form::warp_c, Form::block_c, Form::host, Form::stream};
// The sweeps' forms: kAllForms / kCForms, or fewer with GT_SIM_QUICK=1 (common.h).
inline std::vector<Form> all_forms() {
  if (sim_quick()) return {Form::thread_c, Form::warp_cpp, Form::block_c, Form::block1000, Form::host, Form::stream};
  return std::vector<Form>(std::begin(kAllForms), std::end(kAllForms));
}
inline std::vector<Form> c_forms() {
  if (sim_quick()) return {Form::warp_c, Form::stream};
  return std::vector<Form>(std::begin(kCForms), std::end(kCForms));
}

inline const char* form_name(Form f) {
  switch (f) {
    case Form::thread_c:
      return "device thread (C)";
    case Form::warp_c:
      return "device warp (C)";
    case Form::block_c:
      return "device block of 256 (C)";
    case Form::thread_cpp:
      return "device thread (C++)";
    case Form::warp_cpp:
      return "device warp (C++)";
    case Form::block_cpp:
      return "device block of 256 (C++)";
    case Form::warp20:
      return "device warp of 20 threads (C)";
    case Form::block1000:
      return "device block of 1000 (C)";
    case Form::host:
      return "host";
    case Form::stream:
      return "on-stream";
    case Form::mixed:
      return "on-stream (even PEs) with device block (odd PEs)";
  }
  return "?";
}

// Device-side return value of the call (written by scope rank 0).
struct DevRet {
  int* d = nullptr;
  DevRet() { CUDA_CHECK(cudaMalloc(&d, sizeof(int))); }
  ~DevRet() { cudaFree(d); }
  void reset() { CUDA_CHECK(cudaMemset(d, 0x7f, sizeof(int))); }
  int read() const {
    int h = -12345;
    CUDA_CHECK(cudaMemcpy(&h, d, sizeof(int), cudaMemcpyDeviceToHost));
    return h;
  }
};

inline cudaStream_t test_stream() {
  static cudaStream_t s = nullptr;
  if (!s) CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  return s;
}

// Runs form f of a collective and returns its result. dev(scope, threads, api)
// launches the kernel for the scope (api 0: C name, 1: C++ template) and
// returns the device result; host() and on_stream(stream) call the host forms.
template <class Dev, class Host, class Stream>
inline int run_form(Form f, Dev dev, Host host, Stream on_stream) {
  switch (f) {
    case Form::thread_c:
      return dev(gshmem::thread_scope{}, 1, 0);
    case Form::warp_c:
      return dev(gshmem::warp_scope{}, 32, 0);
    case Form::block_c:
      return dev(gshmem::block_scope{}, 256, 0);
    case Form::thread_cpp:
      return dev(gshmem::thread_scope{}, 1, 1);
    case Form::warp_cpp:
      return dev(gshmem::warp_scope{}, 32, 1);
    case Form::block_cpp:
      return dev(gshmem::block_scope{}, 256, 1);
    case Form::warp20:
      return dev(gshmem::warp_scope{}, 20, 0);
    case Form::block1000:
      return dev(gshmem::block_scope{}, 1000, 0);
    case Form::host:
      return host();
    case Form::stream: {
      const int r = on_stream(test_stream());
      CUDA_CHECK(cudaStreamSynchronize(test_stream()));
      return r;
    }
    case Form::mixed: {
      static const bool host_checks = [] {
        const char* v = getenv("GSHMEM_DEBUG_CHECKS");
        return v && *v && strcmp(v, "0") != 0;
      }();
      const bool device = gshmem_my_pe() % 2 == 1 && !host_checks;
      return run_form(device ? Form::block_c : Form::stream, dev, host, on_stream);
    }
  }
  return -1;
}

// C name of a scope's device form (for messages).
template <class S>
inline const char* scope_suffix() {
  return is_thread_v<S> ? "" : is_warp_v<S> ? "_warp" : "_block";
}

// Calls the C name of scope S: plain (thread), _warp or _block.
#define GT_BY_SCOPE(S, thread_fn, warp_fn, block_fn, ...) \
  (::gt::is_thread_v<S> ? thread_fn(__VA_ARGS__) : ::gt::is_warp_v<S> ? warp_fn(__VA_ARGS__) : block_fn(__VA_ARGS__))

// ---------------------------------------------------------------- typed C names
// cty_NAME::OP<S>(...) calls gshmem_NAME_OP / gshmemx_NAME_OP_warp / _block for
// scope S; host_OP(...) the host form, stream_OP(..., stream) the on-stream form.
#define GT_COLL_TY_HOST(NAME, TYPE)                                                                     \
  using T = TYPE;                                                                                       \
  static constexpr const char* name = #NAME;                                                            \
  static int host_broadcast(gshmem_team_t tm, T* d, const T* s, size_t n, int r) {                      \
    return gshmem_##NAME##_broadcast(tm, d, s, n, r);                                                   \
  }                                                                                                     \
  static int stream_broadcast(gshmem_team_t tm, T* d, const T* s, size_t n, int r, cudaStream_t st) {   \
    return gshmemx_##NAME##_broadcast_on_stream(tm, d, s, n, r, st);                                    \
  }                                                                                                     \
  static int host_fcollect(gshmem_team_t tm, T* d, const T* s, size_t n) {                              \
    return gshmem_##NAME##_fcollect(tm, d, s, n);                                                       \
  }                                                                                                     \
  static int stream_fcollect(gshmem_team_t tm, T* d, const T* s, size_t n, cudaStream_t st) {           \
    return gshmemx_##NAME##_fcollect_on_stream(tm, d, s, n, st);                                        \
  }                                                                                                     \
  static int host_collect(gshmem_team_t tm, T* d, const T* s, size_t n) {                               \
    return gshmem_##NAME##_collect(tm, d, s, n);                                                        \
  }                                                                                                     \
  static int stream_collect(gshmem_team_t tm, T* d, const T* s, size_t n, cudaStream_t st) {            \
    return gshmemx_##NAME##_collect_on_stream(tm, d, s, n, st);                                         \
  }                                                                                                     \
  static int host_alltoall(gshmem_team_t tm, T* d, const T* s, size_t n) {                              \
    return gshmem_##NAME##_alltoall(tm, d, s, n);                                                       \
  }                                                                                                     \
  static int stream_alltoall(gshmem_team_t tm, T* d, const T* s, size_t n, cudaStream_t st) {           \
    return gshmemx_##NAME##_alltoall_on_stream(tm, d, s, n, st);                                        \
  }                                                                                                     \
  static int host_alltoalls(gshmem_team_t tm, T* d, const T* s, ptrdiff_t ds, ptrdiff_t ss, size_t n) { \
    return gshmem_##NAME##_alltoalls(tm, d, s, ds, ss, n);                                              \
  }                                                                                                     \
  static int stream_alltoalls(gshmem_team_t tm, T* d, const T* s, ptrdiff_t ds, ptrdiff_t ss, size_t n, \
                              cudaStream_t st) {                                                        \
    return gshmemx_##NAME##_alltoalls_on_stream(tm, d, s, ds, ss, n, st);                               \
  }

#define GT_COLL_TY(NAME, TYPE)                                                                                         \
  struct cty_##NAME {                                                                                                  \
    GT_COLL_TY_HOST(NAME, TYPE)                                                                                        \
    static constexpr bool device = true;                                                                               \
    template <class S>                                                                                                 \
    static __device__ int broadcast(gshmem_team_t tm, T* d, const T* s, size_t n, int r) {                             \
      return GT_BY_SCOPE(S, gshmem_##NAME##_broadcast, gshmemx_##NAME##_broadcast_warp,                                \
                         gshmemx_##NAME##_broadcast_block, tm, d, s, n, r);                                            \
    }                                                                                                                  \
    template <class S>                                                                                                 \
    static __device__ int fcollect(gshmem_team_t tm, T* d, const T* s, size_t n) {                                     \
      return GT_BY_SCOPE(S, gshmem_##NAME##_fcollect, gshmemx_##NAME##_fcollect_warp, gshmemx_##NAME##_fcollect_block, \
                         tm, d, s, n);                                                                                 \
    }                                                                                                                  \
    template <class S>                                                                                                 \
    static __device__ int collect(gshmem_team_t tm, T* d, const T* s, size_t n) {                                      \
      return GT_BY_SCOPE(S, gshmem_##NAME##_collect, gshmemx_##NAME##_collect_warp, gshmemx_##NAME##_collect_block,    \
                         tm, d, s, n);                                                                                 \
    }                                                                                                                  \
    template <class S>                                                                                                 \
    static __device__ int alltoall(gshmem_team_t tm, T* d, const T* s, size_t n) {                                     \
      return GT_BY_SCOPE(S, gshmem_##NAME##_alltoall, gshmemx_##NAME##_alltoall_warp, gshmemx_##NAME##_alltoall_block, \
                         tm, d, s, n);                                                                                 \
    }                                                                                                                  \
    template <class S>                                                                                                 \
    static __device__ int alltoalls(gshmem_team_t tm, T* d, const T* s, ptrdiff_t ds, ptrdiff_t ss, size_t n) {        \
      return GT_BY_SCOPE(S, gshmem_##NAME##_alltoalls, gshmemx_##NAME##_alltoalls_warp,                                \
                         gshmemx_##NAME##_alltoalls_block, tm, d, s, ds, ss, n);                                       \
    }                                                                                                                  \
  }

GT_COLL_TY(char, char);
GT_COLL_TY(schar, signed char);
GT_COLL_TY(short, short);
GT_COLL_TY(int, int);
GT_COLL_TY(long, long);
GT_COLL_TY(longlong, long long);
GT_COLL_TY(uchar, unsigned char);
GT_COLL_TY(ushort, unsigned short);
GT_COLL_TY(uint, unsigned int);
GT_COLL_TY(ulong, unsigned long);
GT_COLL_TY(ulonglong, unsigned long long);
GT_COLL_TY(int8, int8_t);
GT_COLL_TY(int16, int16_t);
GT_COLL_TY(int32, int32_t);
GT_COLL_TY(int64, int64_t);
GT_COLL_TY(uint8, uint8_t);
GT_COLL_TY(uint16, uint16_t);
GT_COLL_TY(uint32, uint32_t);
GT_COLL_TY(uint64, uint64_t);
GT_COLL_TY(size, size_t);
GT_COLL_TY(ptrdiff, ptrdiff_t);
GT_COLL_TY(float, float);
GT_COLL_TY(double, double);
struct cty_longdouble {  // no device forms
  GT_COLL_TY_HOST(longdouble, long double)
  static constexpr bool device = false;
};

// The typed sweeps run the C++ templates (Form::*_cpp) on these two types and
// the C names on more (below). The typed kernels compile their C++ call only for
// these: each call inlines a whole collective, and a C++ call for all 23 types
// doubled the build of the collective tests. A C++ form asked of another type
// returns kNoCppForm, which fails the call's check.
template <class Ty>
constexpr bool kCppTyped = std::is_same_v<Ty, cty_int> || std::is_same_v<Ty, cty_double>;
constexpr int kNoCppForm = -998;

// The typed sweeps run every type's host and on-stream C names, and the device C names
// (thread, warp and block) of one type of each element size: uchar, short, int, double.
// A device C name is one line of the generated table (tools/gen_c_api.py) that calls the
// collective's *mem form with nelems * sizeof(T), and the spec-names test compiles every
// one of them. Each kernel per type and scope inlines the whole collective, so that
// running every type's thread-scope name on the device took nearly half the compile time
// of test_coll_collect.cu and test_coll_bcast.cu.
// The collectives' own paths run at every scope in the *mem sweeps.
template <class Ty>
constexpr bool kEveryScope = kCppTyped<Ty> || std::is_same_v<Ty, cty_uchar> || std::is_same_v<Ty, cty_short>;
template <class Ty, class S>
constexpr bool kTypedDevice = static_cast<bool>(Ty::device) && kEveryScope<Ty>;  // every scope S alike

// Whether a typed sweep runs form f (of kCForms) for Ty.
template <class Ty>
bool typed_form(Form f) {
  return f == Form::host || f == Form::stream || kTypedDevice<Ty, gshmem::thread_scope>;
}

// Calls f(Ty{}) for every type tag.
template <class F>
inline void for_each_coll_type(F f) {
  f(cty_char{}), f(cty_schar{}), f(cty_short{}), f(cty_int{}), f(cty_long{}), f(cty_longlong{});
  f(cty_uchar{}), f(cty_ushort{}), f(cty_uint{}), f(cty_ulong{}), f(cty_ulonglong{});
  f(cty_int8{}), f(cty_int16{}), f(cty_int32{}), f(cty_int64{});
  f(cty_uint8{}), f(cty_uint16{}), f(cty_uint32{}), f(cty_uint64{}), f(cty_size{}), f(cty_ptrdiff{});
  f(cty_float{}), f(cty_double{}), f(cty_longdouble{});
}

// Poisons a guarded destination (kGuard + bytes + kGuard), then a world barrier:
// every member's dest is ready before anyone pushes into it.
inline void poison_and_sync(const Guarded& g, size_t bytes) {
  poison_device(g.base, kGuard + bytes + kGuard);
  gshmem_barrier_all();
}

}  // namespace gt
