// SPDX-License-Identifier: BSD-3-Clause
// Point-to-point synchronisation: wait_until / test and the _all/_any/_some
// (+ _vector) forms.
//   1. Every type (the 14 point-to-point types), every comparison, every form,
//      four status masks (none, all included, some excluded, all excluded),
//      scalar and per-element comparison values, on fixed local values: results
//      (0/1, index or SIZE_MAX, count + indices) are checked against the
//      OpenSHMEM 1.5 rules computed independently on the host. Device C names,
//      device C++ templates, and the C names from host code.
//   2. Remote updates while waiting: the previous PE stores data, fences and
//      sets flags one at a time (with pauses); the waiter (a device thread, or
//      the host through the host forms) uses wait_until_all with a status mask,
//      wait_until_any, wait_until_some (collecting until done) and the vector
//      forms, checks the returned indices and that the data behind each flag is
//      visible (acquire). Sets of 3, 9 and 41 variables: the scans' acquire
//      loads, one batch of relaxed loads and a fence, several batches.
//   3. gshmemx_<type>_wait_until_on_stream ordered before a checking kernel;
//      every type's on-stream forms released by copies on another stream, also
//      with cudaMallocAsync failing (the library's own blocks, reused); when
//      the arrays are read (host memory: at the call; device memory: in stream
//      order); captured into graphs in each capture mode; host forms with
//      their arrays in host and in device memory.
#include <algorithm>
#include <type_traits>
#include <vector>

#include "common.cuh"

using namespace gt;

namespace {

constexpr int kN = 7;
constexpr int kMasks = 4;
constexpr int kCases = kMasks * 6;
constexpr unsigned long long kNotRun = 0xDEADull;

// ------------------------------------------------------------------ type tags
#define GT_WAIT_TYPE(NAME, TYPE)                                                                        \
  struct w_##NAME {                                                                                     \
    using T = TYPE;                                                                                     \
    static constexpr const char* name = #NAME;                                                          \
    static GT_HD void wait_until(T* v, int c, T x) { gshmem_##NAME##_wait_until(v, c, x); }             \
    static GT_HD int test(T* v, int c, T x) { return gshmem_##NAME##_test(v, c, x); }                   \
    static GT_HD void wait_all(T* v, size_t n, const int* s, int c, T x) {                              \
      gshmem_##NAME##_wait_until_all(v, n, s, c, x);                                                    \
    }                                                                                                   \
    static GT_HD size_t wait_any(T* v, size_t n, const int* s, int c, T x) {                            \
      return gshmem_##NAME##_wait_until_any(v, n, s, c, x);                                             \
    }                                                                                                   \
    static GT_HD size_t wait_some(T* v, size_t n, size_t* i, const int* s, int c, T x) {                \
      return gshmem_##NAME##_wait_until_some(v, n, i, s, c, x);                                         \
    }                                                                                                   \
    static GT_HD void wait_all_v(T* v, size_t n, const int* s, int c, T* x) {                           \
      gshmem_##NAME##_wait_until_all_vector(v, n, s, c, x);                                             \
    }                                                                                                   \
    static GT_HD size_t wait_any_v(T* v, size_t n, const int* s, int c, T* x) {                         \
      return gshmem_##NAME##_wait_until_any_vector(v, n, s, c, x);                                      \
    }                                                                                                   \
    static GT_HD size_t wait_some_v(T* v, size_t n, size_t* i, const int* s, int c, T* x) {             \
      return gshmem_##NAME##_wait_until_some_vector(v, n, i, s, c, x);                                  \
    }                                                                                                   \
    static GT_HD int test_all(T* v, size_t n, const int* s, int c, T x) {                               \
      return gshmem_##NAME##_test_all(v, n, s, c, x);                                                   \
    }                                                                                                   \
    static GT_HD size_t test_any(T* v, size_t n, const int* s, int c, T x) {                            \
      return gshmem_##NAME##_test_any(v, n, s, c, x);                                                   \
    }                                                                                                   \
    static GT_HD size_t test_some(T* v, size_t n, size_t* i, const int* s, int c, T x) {                \
      return gshmem_##NAME##_test_some(v, n, i, s, c, x);                                               \
    }                                                                                                   \
    static GT_HD int test_all_v(T* v, size_t n, const int* s, int c, T* x) {                            \
      return gshmem_##NAME##_test_all_vector(v, n, s, c, x);                                            \
    }                                                                                                   \
    static GT_HD size_t test_any_v(T* v, size_t n, const int* s, int c, T* x) {                         \
      return gshmem_##NAME##_test_any_vector(v, n, s, c, x);                                            \
    }                                                                                                   \
    static GT_HD size_t test_some_v(T* v, size_t n, size_t* i, const int* s, int c, T* x) {             \
      return gshmem_##NAME##_test_some_vector(v, n, i, s, c, x);                                        \
    }                                                                                                   \
    static void wait_until_on_stream(T* v, int c, T x, cudaStream_t st) {                               \
      gshmemx_##NAME##_wait_until_on_stream(v, c, x, st);                                               \
    }                                                                                                   \
    static void wait_all_on_stream(T* v, size_t n, const int* s, int c, T x, cudaStream_t st) {         \
      gshmemx_##NAME##_wait_until_all_on_stream(v, n, s, c, x, st);                                     \
    }                                                                                                   \
    static void wait_all_vector_on_stream(T* v, size_t n, const int* s, int c, T* x, cudaStream_t st) { \
      gshmemx_##NAME##_wait_until_all_vector_on_stream(v, n, s, c, x, st);                              \
    }                                                                                                   \
  }

GT_WAIT_TYPE(short, short);
GT_WAIT_TYPE(int, int);
GT_WAIT_TYPE(long, long);
GT_WAIT_TYPE(longlong, long long);
GT_WAIT_TYPE(ushort, unsigned short);
GT_WAIT_TYPE(uint, unsigned int);
GT_WAIT_TYPE(ulong, unsigned long);
GT_WAIT_TYPE(ulonglong, unsigned long long);
GT_WAIT_TYPE(int32, int32_t);
GT_WAIT_TYPE(int64, int64_t);
GT_WAIT_TYPE(uint32, uint32_t);
GT_WAIT_TYPE(uint64, uint64_t);
GT_WAIT_TYPE(size, size_t);
GT_WAIT_TYPE(ptrdiff, ptrdiff_t);

// The C++ templates (device only), same interface.
template <class Ty>
struct w_cpp {
  using T = typename Ty::T;
  static __device__ gshmem::cmp C(int c) { return static_cast<gshmem::cmp>(c); }
  static __device__ void wait_until(T* v, int c, T x) { gshmem::wait_until(v, C(c), x); }
  static __device__ int test(T* v, int c, T x) { return gshmem::test(v, C(c), x) ? 1 : 0; }
  static __device__ void wait_all(T* v, size_t n, const int* s, int c, T x) {
    gshmem::wait_until_all(v, n, s, C(c), x);
  }
  static __device__ size_t wait_any(T* v, size_t n, const int* s, int c, T x) {
    return gshmem::wait_until_any(v, n, s, C(c), x);
  }
  static __device__ size_t wait_some(T* v, size_t n, size_t* i, const int* s, int c, T x) {
    return gshmem::wait_until_some(v, n, i, s, C(c), x);
  }
  static __device__ void wait_all_v(T* v, size_t n, const int* s, int c, T* x) {
    gshmem::wait_until_all_vector(v, n, s, C(c), x);
  }
  static __device__ size_t wait_any_v(T* v, size_t n, const int* s, int c, T* x) {
    return gshmem::wait_until_any_vector(v, n, s, C(c), x);
  }
  static __device__ size_t wait_some_v(T* v, size_t n, size_t* i, const int* s, int c, T* x) {
    return gshmem::wait_until_some_vector(v, n, i, s, C(c), x);
  }
  static __device__ int test_all(T* v, size_t n, const int* s, int c, T x) {
    return gshmem::test_all(v, n, s, C(c), x) ? 1 : 0;
  }
  static __device__ size_t test_any(T* v, size_t n, const int* s, int c, T x) {
    return gshmem::test_any(v, n, s, C(c), x);
  }
  static __device__ size_t test_some(T* v, size_t n, size_t* i, const int* s, int c, T x) {
    return gshmem::test_some(v, n, i, s, C(c), x);
  }
  static __device__ int test_all_v(T* v, size_t n, const int* s, int c, T* x) {
    return gshmem::test_all_vector(v, n, s, C(c), x) ? 1 : 0;
  }
  static __device__ size_t test_any_v(T* v, size_t n, const int* s, int c, T* x) {
    return gshmem::test_any_vector(v, n, s, C(c), x);
  }
  static __device__ size_t test_some_v(T* v, size_t n, size_t* i, const int* s, int c, T* x) {
    return gshmem::test_some_vector(v, n, i, s, C(c), x);
  }
};

// ------------------------------------------------------------------ 1. fixed values
// Values: signed types include negatives; unsigned ones a value above the signed range.
template <class T>
GT_HD T fixed_value(int i) {
  const long long s[kN] = {-3, 5, 5, 7, -9, 5, 11};
  const long long u[kN] = {3, 5, 5, -2 /* max-1 */, 9, 5, 11};
  return static_cast<T>(std::is_signed<T>::value ? s[i] : u[i]);
}
template <class T>
GT_HD T vector_value(int i) {  // per-element operands around the values
  const int delta[kN] = {-1, 0, 1, 0, -1, 1, 0};
  return static_cast<T>(fixed_value<T>(i) + static_cast<T>(delta[i]));
}
constexpr int kScalarCmp = 5;
GT_HD inline bool mask_excludes(int m, int i) {
  const int some[kN] = {0, 1, 0, 0, 1, 0, 1};
  return m == 3 || (m == 2 && some[i] != 0);
}

struct Res {
  unsigned long long r[12];
  unsigned long long idx[4][kN];  // test_some, test_some_vector, wait_some, wait_some_vector
  unsigned long long single[kN];  // test(ivars + i, c, scalar)
};
// r[]: 0 test_all, 1 test_any, 2 test_some, 3 test_all_v, 4 test_any_v, 5 test_some_v,
//      6 wait_any, 7 wait_some, 8 wait_any_v, 9 wait_some_v, 10 wait_all done, 11 wait_all_v done.
// may: bit 0 wait_all, 1 wait_any/some, 2 wait_all_v, 3 wait_any/some_v (would not hang).

#pragma nv_exec_check_disable
template <class Ops>
GT_HD void run_case(typename Ops::T* iv, const int* status, int c, typename Ops::T* cvs, int may, Res* out) {
  using T = typename Ops::T;
  const T x = static_cast<T>(kScalarCmp);
  size_t idx[kN];
  for (int k = 0; k < 12; ++k) out->r[k] = kNotRun;
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < kN; ++i) out->idx[k][i] = kNotRun;
  out->r[0] = Ops::test_all(iv, kN, status, c, x);
  out->r[1] = Ops::test_any(iv, kN, status, c, x);
  out->r[2] = Ops::test_some(iv, kN, idx, status, c, x);
  for (size_t i = 0; i < out->r[2] && i < kN; ++i) out->idx[0][i] = idx[i];
  out->r[3] = Ops::test_all_v(iv, kN, status, c, cvs);
  out->r[4] = Ops::test_any_v(iv, kN, status, c, cvs);
  out->r[5] = Ops::test_some_v(iv, kN, idx, status, c, cvs);
  for (size_t i = 0; i < out->r[5] && i < kN; ++i) out->idx[1][i] = idx[i];
  if (may & 2) {
    out->r[6] = Ops::wait_any(iv, kN, status, c, x);
    out->r[7] = Ops::wait_some(iv, kN, idx, status, c, x);
    for (size_t i = 0; i < out->r[7] && i < kN; ++i) out->idx[2][i] = idx[i];
  }
  if (may & 8) {
    out->r[8] = Ops::wait_any_v(iv, kN, status, c, cvs);
    out->r[9] = Ops::wait_some_v(iv, kN, idx, status, c, cvs);
    for (size_t i = 0; i < out->r[9] && i < kN; ++i) out->idx[3][i] = idx[i];
  }
  if (may & 1) {
    Ops::wait_all(iv, kN, status, c, x);
    out->r[10] = 1;
  }
  if (may & 4) {
    Ops::wait_all_v(iv, kN, status, c, cvs);
    out->r[11] = 1;
  }
  for (int i = 0; i < kN; ++i) {
    out->single[i] = Ops::test(iv + i, c, x);
    if (out->single[i]) Ops::wait_until(iv + i, c, x);  // satisfied: returns at once
  }
}

template <class T>
bool holds(T a, int c, T b) {
  switch (c) {
    case GSHMEM_CMP_EQ:
      return a == b;
    case GSHMEM_CMP_NE:
      return a != b;
    case GSHMEM_CMP_GT:
      return a > b;
    case GSHMEM_CMP_GE:
      return a >= b;
    case GSHMEM_CMP_LT:
      return a < b;
    case GSHMEM_CMP_LE:
      return a <= b;
  }
  return false;
}

// Satisfied set of case (m, c); vector: per-element operands.
template <class T>
std::vector<size_t> satisfied(int m, int c, bool vector, size_t* included) {
  std::vector<size_t> s;
  *included = 0;
  for (int i = 0; i < kN; ++i) {
    if (mask_excludes(m, i)) continue;
    ++*included;
    if (holds(fixed_value<T>(i), c, vector ? vector_value<T>(i) : static_cast<T>(kScalarCmp))) s.push_back(i);
  }
  return s;
}
template <class T>
int may_wait(int m, int c) {
  size_t in = 0, inv = 0;
  const size_t s = satisfied<T>(m, c, false, &in).size(), sv = satisfied<T>(m, c, true, &inv).size();
  return (s == in ? 1 : 0) | ((s > 0 || in == 0) ? 2 : 0) | (sv == inv ? 4 : 0) | ((sv > 0 || inv == 0) ? 8 : 0);
}

// Checks one case's results against the rules.
template <class T>
void check_case(int m, int c, const Res& res) {
  for (int vec = 0; vec < 2; ++vec) {
    size_t in = 0;
    const std::vector<size_t> s = satisfied<T>(m, c, vec != 0, &in);
    const unsigned long long all = s.size() == in ? 1 : 0;
    GT_CHECK_EQ(all, res.r[vec ? 3 : 0]);  // test_all (1 for an empty set)
    const unsigned long long any = res.r[vec ? 4 : 1];
    if (s.empty())
      GT_CHECK_EQ(static_cast<unsigned long long>(SIZE_MAX), any);
    else
      GT_CHECK(std::find(s.begin(), s.end(), any) != s.end());
    for (int w = 0; w < 2; ++w) {  // test_some, then wait_some (when it would not hang)
      const unsigned long long count = res.r[w ? (vec ? 9 : 7) : (vec ? 5 : 2)];
      if (w && !(may_wait<T>(m, c) & (vec ? 8 : 2))) {
        GT_CHECK_EQ(kNotRun, count);
        continue;
      }
      GT_CHECK_EQ(static_cast<unsigned long long>(s.size()), count);
      std::vector<unsigned long long> got(res.idx[w * 2 + vec], res.idx[w * 2 + vec] + std::min<size_t>(count, kN));
      std::sort(got.begin(), got.end());
      GT_CHECK(std::equal(got.begin(), got.end(), s.begin(), s.end()));
    }
    if (may_wait<T>(m, c) & (vec ? 8 : 2)) {
      const unsigned long long wany = res.r[vec ? 8 : 6];
      if (in == 0)
        GT_CHECK_EQ(static_cast<unsigned long long>(SIZE_MAX), wany);
      else
        GT_CHECK(std::find(s.begin(), s.end(), wany) != s.end());
    }
    if (may_wait<T>(m, c) & (vec ? 4 : 1)) GT_CHECK_EQ(1ull, res.r[vec ? 11 : 10]);
  }
  for (int i = 0; i < kN; ++i)
    GT_CHECK_EQ(holds(fixed_value<T>(i), c, static_cast<T>(kScalarCmp)) ? 1ull : 0ull, res.single[i]);
}

template <class Ops>
__global__ void k_cases(typename Ops::T* iv, const int* masks, typename Ops::T* cvs, const int* may, Res* out) {
  for (int m = 0; m < kMasks; ++m)
    for (int c = 0; c < 6; ++c)
      run_case<Ops>(iv, m == 0 ? nullptr : masks + (m - 1) * kN, c, cvs, may[m * 6 + c], out + m * 6 + c);
}

template <class Ty>
void fixed_values(void* sym) {
  using T = typename Ty::T;
  T* iv = static_cast<T*>(sym);
  T hv[kN], hcv[kN];
  int hmasks[3 * kN], hmay[kCases];
  for (int i = 0; i < kN; ++i) {
    hv[i] = fixed_value<T>(i);
    hcv[i] = vector_value<T>(i);
    for (int m = 1; m < kMasks; ++m) hmasks[(m - 1) * kN + i] = mask_excludes(m, i) ? 1 + i : 0;
  }
  for (int m = 0; m < kMasks; ++m)
    for (int c = 0; c < 6; ++c) hmay[m * 6 + c] = may_wait<T>(m, c);
  CUDA_CHECK(cudaMemcpy(iv, hv, sizeof(hv), cudaMemcpyHostToDevice));
  int *dmasks, *dmay;
  T* dcv;
  Res* dres;
  CUDA_CHECK(cudaMalloc(&dmasks, sizeof(hmasks)));
  CUDA_CHECK(cudaMalloc(&dmay, sizeof(hmay)));
  CUDA_CHECK(cudaMalloc(&dcv, sizeof(hcv)));
  CUDA_CHECK(cudaMalloc(&dres, kCases * sizeof(Res)));
  CUDA_CHECK(cudaMemcpy(dmasks, hmasks, sizeof(hmasks), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dmay, hmay, sizeof(hmay), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dcv, hcv, sizeof(hcv), cudaMemcpyHostToDevice));
  std::vector<Res> res(kCases);
  for (int api = 0; api < 3; ++api) {
    const char* how = api == 0 ? "device C names" : api == 1 ? "device C++ templates" : "host C names";
    if (api == 0) k_cases<Ty><<<1, 1>>>(iv, dmasks, dcv, dmay, dres);
    if (api == 1) k_cases<w_cpp<Ty>><<<1, 1>>>(iv, dmasks, dcv, dmay, dres);
    if (api < 2) {
      KERNEL_CHECK();
      CUDA_CHECK(cudaMemcpy(res.data(), dres, kCases * sizeof(Res), cudaMemcpyDeviceToHost));
    } else {
      for (int m = 0; m < kMasks; ++m)
        for (int c = 0; c < 6; ++c)
          run_case<Ty>(iv, m == 0 ? nullptr : hmasks + (m - 1) * kN, c, hcv, hmay[m * 6 + c], &res[m * 6 + c]);
    }
    for (int m = 0; m < kMasks; ++m)
      for (int c = 0; c < 6; ++c) {
        set_context("%s, fixed values, %s, status mask %d, cmp %d", Ty::name, how, m, c);
        check_case<T>(m, c, res[m * 6 + c]);
      }
  }
  CUDA_CHECK(cudaFree(dres));
  CUDA_CHECK(cudaFree(dcv));
  CUDA_CHECK(cudaFree(dmay));
  CUDA_CHECK(cudaFree(dmasks));
}

void fixed_values_all_types() {
  void* sym = gshmem_calloc(kN, sizeof(uint64_t));
  GT_CHECK(sym != nullptr);
  if (!sym) return;
  fixed_values<w_short>(sym);
  fixed_values<w_int>(sym);
  fixed_values<w_long>(sym);
  fixed_values<w_longlong>(sym);
  fixed_values<w_ushort>(sym);
  fixed_values<w_uint>(sym);
  fixed_values<w_ulong>(sym);
  fixed_values<w_ulonglong>(sym);
  fixed_values<w_int32>(sym);
  fixed_values<w_int64>(sym);
  fixed_values<w_uint32>(sym);
  fixed_values<w_uint64>(sym);
  fixed_values<w_size>(sym);
  fixed_values<w_ptrdiff>(sym);
  gshmem_barrier_all();
  gshmem_free(sym);
}

}  // namespace

#include "p2p_wait_remote.cuh"  // parts 2 and 3

int main() {
  test_main_prologue(2, 0);
  fixed_values_all_types();
  remote_updates();
  wait_on_stream();
  return test_main_epilogue("wait");
}
