// SPDX-License-Identifier: BSD-3-Clause
// The reduction tests' values and reference (test_reduce.cu, also built as test_reducescatter):
// what each PE contributes (exact under any order of combination), the expected result, how
// results are compared (bits for floating and complex types), and filling a source on the GPU.
#pragma once

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "common.cuh"

namespace gt_reduce {

using namespace gt;
namespace rop = gshmem::op;

struct cplx_f {
  float re, im;
};
struct cplx_d {
  double re, im;
};
template <class T>
constexpr bool is_cplx_v = std::is_same<T, cplx_f>::value || std::is_same<T, cplx_d>::value;
template <class T>
constexpr bool is_h16_v = std::is_same<T, __half>::value || std::is_same<T, __nv_bfloat16>::value;
template <class T>
using acc_t = typename std::conditional<is_h16_v<T>, float, T>::type;

template <class T>
GT_HD inline T from_float(double f) {
  if constexpr (std::is_same<T, __half>::value)
    return __float2half_rn(static_cast<float>(f));
  else if constexpr (std::is_same<T, __nv_bfloat16>::value)
    return __float2bfloat16_rn(static_cast<float>(f));
  else
    return static_cast<T>(f);
}

// Small integers for sums (|sum| exact in every format: 64 for half, 32 for bfloat16),
// +-1/2, 1, 2 for products, any bits for integers.
template <class T, class Op>
GT_HD inline T rval(int pe, uint64_t i, uint64_t salt) {
  const uint64_t h = hash3(pe, i, salt);
  if constexpr (std::is_integral<T>::value) {
    return static_cast<T>(h ^ (h >> 29));
  } else if constexpr (is_cplx_v<T>) {
    const int r = std::is_same<Op, rop::prod>::value ? 2 : 1000;
    return T{static_cast<decltype(T::re)>(static_cast<int>(h % (2 * r + 1)) - r),
             static_cast<decltype(T::re)>(static_cast<int>((h >> 20) % (2 * r + 1)) - r)};
  } else if constexpr (std::is_same<Op, rop::prod>::value) {
    const double p[3] = {0.5, 1.0, 2.0};
    return from_float<T>((h & 8) ? -p[(h >> 4) % 3] : p[(h >> 4) % 3]);
  } else {
    const int r = std::is_same<T, __nv_bfloat16>::value ? 32 : std::is_same<T, __half>::value ? 64 : 100000;
    return from_float<T>(static_cast<double>(static_cast<int>(h % (2 * r + 1)) - r));
  }
}

template <class T>
inline acc_t<T> to_acc(T v) {
  if constexpr (std::is_same<T, __half>::value)
    return __half2float(v);
  else if constexpr (std::is_same<T, __nv_bfloat16>::value)
    return __bfloat162float(v);
  else
    return v;
}
template <class Op, class A>
inline A apply(A a, A b) {
  if constexpr (is_cplx_v<A>) {
    if constexpr (std::is_same<Op, rop::sum>::value)
      return A{a.re + b.re, a.im + b.im};
    else
      return A{a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
  } else if constexpr (std::is_integral<A>::value &&
                       (std::is_same<Op, rop::sum>::value || std::is_same<Op, rop::prod>::value)) {
    using U = typename std::make_unsigned<A>::type;
    return static_cast<A>(std::is_same<Op, rop::sum>::value ? static_cast<U>(static_cast<U>(a) + static_cast<U>(b))
                                                            : static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
  } else if constexpr (std::is_same<Op, rop::sum>::value)
    return a + b;
  else if constexpr (std::is_same<Op, rop::prod>::value)
    return a * b;
  else if constexpr (std::is_same<Op, rop::min>::value)
    return b < a ? b : a;
  else if constexpr (std::is_same<Op, rop::max>::value)
    return a < b ? b : a;
  else if constexpr (std::is_same<Op, rop::and_>::value)
    return static_cast<A>(a & b);
  else if constexpr (std::is_same<Op, rop::or_>::value)
    return static_cast<A>(a | b);
  else
    return static_cast<A>(a ^ b);
}
// Expected element `idx` of the reduced input of team PEs members[0..n) (exact: any order).
template <class T, class Op>
inline T expect(const std::vector<int>& members, uint64_t idx, uint64_t salt) {
  acc_t<T> a = to_acc(rval<T, Op>(members[0], idx, salt));
  for (size_t p = 1; p < members.size(); ++p) a = apply<Op>(a, to_acc(rval<T, Op>(members[p], idx, salt)));
  if constexpr (is_h16_v<T>)
    return from_float<T>(a);
  else
    return a;
}

// Compared as: bits (floating and complex types: the results must be identical bit for
// bit), the value (integers, long double whose padding bytes carry nothing).
template <class T, size_t = sizeof(T), bool = std::is_integral<T>::value || std::is_same<T, long double>::value>
struct cmp_of {
  using type = T;
};
template <class T>
struct cmp_of<T, 2, false> {
  using type = uint16_t;
};
template <class T>
struct cmp_of<T, 4, false> {
  using type = uint32_t;
};
template <class T>
struct cmp_of<T, 8, false> {
  using type = uint64_t;
};
template <class T>
struct cmp_of<T, 16, false> {
  using type = u128;
};
template <class T>
inline typename cmp_of<T>::type as_cmp(const T& v) {
  typename cmp_of<T>::type c;
  memcpy(&c, &v, sizeof(T));
  return c;
}

// What a result element read as `got` must be: the expected bits, except that a
// complex result may differ in the sign of a zero part (that sign depends on the
// order in which the members' values are multiplied).
template <class T, class C>
inline C matching(const T& want, const C& got) {
  if constexpr (is_cplx_v<T>) {
    T g;
    memcpy(&g, &got, sizeof(T));
    if (g.re == want.re && g.im == want.im) return got;
  }
  return as_cmp(want);
}

template <class T, class Op>
__global__ void k_fill(T* p, size_t n, int pe, uint64_t salt) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    p[i] = rval<T, Op>(pe, i, salt);
}
template <class T, class Op>
void fill(T* p, size_t n, int pe, uint64_t salt) {
  if constexpr (sizeof(T) > 8 && !is_cplx_v<T>) {  // long double: no device arithmetic
    std::vector<T> h(n);
    for (size_t i = 0; i < n; ++i) h[i] = static_cast<T>(rval<double, Op>(pe, i, salt));
    CUDA_CHECK(cudaMemcpy(p, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  } else {
    k_fill<T, Op><<<static_cast<unsigned>(std::min<size_t>((n + 255) / 256, 2048)), 256>>>(p, n, pe, salt);
    KERNEL_CHECK();
  }
}

}  // namespace gt_reduce
