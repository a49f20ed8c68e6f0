// SPDX-License-Identifier: BSD-3-Clause
// Reduction operators and element handling for the team reductions:
//   - reduce_fn<Op>::apply(a, b)   the operator on accumulator values
//   - reduce_acc<T>                accumulator type (float for __half / __nv_bfloat16)
//   - reduce_canon<Op, T>          the type the algorithm runs on (one instantiation per
//                                  operator and bit pattern: int and int32_t share one,
//                                  sums of signed and unsigned integers share one)
//   - 16-byte vectors of T and the loads that feed them (ld_cg16: L2, not L1, so that data
//     another GPU wrote since this SM last looked is never served from a stale L1 line).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../reduce.cuh"

namespace gshmem {
namespace detail {

// Element layouts of C's float _Complex / double _Complex (host-only C names; the
// library's kernels reduce them). Alignment as in C.
struct alignas(4) cplx_f {
  float re, im;
};
struct alignas(8) cplx_d {
  double re, im;
};

template <class T>
struct is_cplx : std::false_type {};
template <>
struct is_cplx<cplx_f> : std::true_type {};
template <>
struct is_cplx<cplx_d> : std::true_type {};

template <class T>
struct is_half16 : std::false_type {};
template <>
struct is_half16<__half> : std::true_type {};
template <>
struct is_half16<__nv_bfloat16> : std::true_type {};

// ---------------------------------------------------------------- operator ids
// Stable small numbers (debug records, host dispatch); same order as GSHMEMI_ROP_*.
template <class Op>
struct reduce_op_id;
template <>
struct reduce_op_id<op::and_> {
  static constexpr int value = 0;
};
template <>
struct reduce_op_id<op::or_> {
  static constexpr int value = 1;
};
template <>
struct reduce_op_id<op::xor_> {
  static constexpr int value = 2;
};
template <>
struct reduce_op_id<op::max> {
  static constexpr int value = 3;
};
template <>
struct reduce_op_id<op::min> {
  static constexpr int value = 4;
};
template <>
struct reduce_op_id<op::sum> {
  static constexpr int value = 5;
};
template <>
struct reduce_op_id<op::prod> {
  static constexpr int value = 6;
};

template <class Op>
constexpr bool is_bitwise_op_v =
    std::is_same<Op, op::and_>::value || std::is_same<Op, op::or_>::value || std::is_same<Op, op::xor_>::value;
template <class Op>
constexpr bool is_ordered_op_v = std::is_same<Op, op::min>::value || std::is_same<Op, op::max>::value;

// Which (Op, T) pairs exist (OpenSHMEM 1.5 table of team reductions, plus half/bfloat16).
template <class Op, class T>
constexpr bool reduce_supported_v = is_bitwise_op_v<Op> ? std::is_integral<T>::value
                                    : is_ordered_op_v<Op>
                                        ? (std::is_arithmetic<T>::value || is_half16<T>::value)
                                        : (std::is_arithmetic<T>::value || is_half16<T>::value || is_cplx<T>::value);

// ---------------------------------------------------------------- canonical type
template <size_t N, bool Signed>
struct int_of_size;
template <>
struct int_of_size<1, true> {
  using type = int8_t;
};
template <>
struct int_of_size<2, true> {
  using type = int16_t;
};
template <>
struct int_of_size<4, true> {
  using type = int32_t;
};
template <>
struct int_of_size<8, true> {
  using type = int64_t;
};
template <>
struct int_of_size<1, false> {
  using type = uint8_t;
};
template <>
struct int_of_size<2, false> {
  using type = uint16_t;
};
template <>
struct int_of_size<4, false> {
  using type = uint32_t;
};
template <>
struct int_of_size<8, false> {
  using type = uint64_t;
};

// Integers: an exact-width type of the same size; signedness kept only where it changes
// the result (min/max). Others: T.
template <class Op, class T, bool = std::is_integral<T>::value>
struct reduce_canon {
  using type = T;
};
template <class Op, class T>
struct reduce_canon<Op, T, true> {
  using type = typename int_of_size<sizeof(T), is_ordered_op_v<Op> && std::is_signed<T>::value>::type;
};

// ---------------------------------------------------------------- accumulator
template <class T>
struct reduce_acc {
  using type = T;
};
template <>
struct reduce_acc<__half> {
  using type = float;
};
template <>
struct reduce_acc<__nv_bfloat16> {
  using type = float;
};

__device__ __forceinline__ float to_acc(__half v) { return __half2float(v); }
__device__ __forceinline__ float to_acc(__nv_bfloat16 v) { return __bfloat162float(v); }
template <class T>
__device__ __forceinline__ T to_acc(T v) {
  return v;
}

template <class T>
__device__ __forceinline__ T from_acc(typename reduce_acc<T>::type a) {
  if constexpr (std::is_same<T, __half>::value)
    return __float2half_rn(a);
  else if constexpr (std::is_same<T, __nv_bfloat16>::value)
    return __float2bfloat16_rn(a);
  else
    return a;
}

// ---------------------------------------------------------------- operators
// Integer sums/products in unsigned arithmetic of at least unsigned int's width (8- and
// 16-bit operands would otherwise be promoted to int, whose products overflow): wrap-around,
// never undefined behaviour.
template <class A, bool = std::is_integral<A>::value>
struct arith {
  using type = A;
};
template <class A>
struct arith<A, true> {
  using type = typename std::common_type<typename std::make_unsigned<A>::type, unsigned>::type;
};
template <class A>
using arith_t = typename arith<A>::type;

template <class Op>
struct reduce_fn;
template <>
struct reduce_fn<op::sum> {
  template <class A>
  static __device__ __forceinline__ A apply(A a, A b) {
    if constexpr (is_cplx<A>::value)
      return A{a.re + b.re, a.im + b.im};
    else
      return static_cast<A>(static_cast<arith_t<A>>(a) + static_cast<arith_t<A>>(b));
  }
};
template <>
struct reduce_fn<op::prod> {
  template <class A>
  static __device__ __forceinline__ A apply(A a, A b) {
    if constexpr (is_cplx<A>::value)
      return A{a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
    else
      return static_cast<A>(static_cast<arith_t<A>>(a) * static_cast<arith_t<A>>(b));
  }
};
// Floating min/max as fmin/fmax: a NaN is ignored unless both are NaN. A comparison would
// not commute with a NaN operand, and the paths combine members in different orders.
template <>
struct reduce_fn<op::min> {
  template <class A>
  static __device__ __forceinline__ A apply(A a, A b) {
    if constexpr (std::is_same<A, float>::value)
      return fminf(a, b);
    else if constexpr (std::is_same<A, double>::value)
      return fmin(a, b);
    else
      return b < a ? b : a;
  }
};
template <>
struct reduce_fn<op::max> {
  template <class A>
  static __device__ __forceinline__ A apply(A a, A b) {
    if constexpr (std::is_same<A, float>::value)
      return fmaxf(a, b);
    else if constexpr (std::is_same<A, double>::value)
      return fmax(a, b);
    else
      return a < b ? b : a;
  }
};
template <>
struct reduce_fn<op::and_> {
  template <class A>
  static __device__ __forceinline__ A apply(A a, A b) {
    return static_cast<A>(a & b);
  }
};
template <>
struct reduce_fn<op::or_> {
  template <class A>
  static __device__ __forceinline__ A apply(A a, A b) {
    return static_cast<A>(a | b);
  }
};
template <>
struct reduce_fn<op::xor_> {
  template <class A>
  static __device__ __forceinline__ A apply(A a, A b) {
    return static_cast<A>(a ^ b);
  }
};

// ---------------------------------------------------------------- loads
// 16 bytes through L2 only (ld.global.cg): peer memory and scratch another GPU writes.
__device__ __forceinline__ uint4 ld_cg16(const void* p) { return __ldcg(static_cast<const uint4*>(p)); }

// One element through L2 only, in units of its alignment (C's complex types are only
// aligned to their component).
template <class T>
__device__ __forceinline__ T ld_cg_elem(const T* p) {
  constexpr size_t A = alignof(T) >= 8 ? 8 : alignof(T);
  using W = typename int_of_size<A, false>::type;
  W w[sizeof(T) / A];
  const W* q = reinterpret_cast<const W*>(p);
#pragma unroll
  for (size_t k = 0; k < sizeof(T) / A; ++k) {
    if constexpr (A == 1)
      w[k] = __ldcg(reinterpret_cast<const unsigned char*>(q + k));
    else if constexpr (A == 2)
      w[k] = __ldcg(reinterpret_cast<const unsigned short*>(q + k));
    else if constexpr (A == 4)
      w[k] = __ldcg(reinterpret_cast<const unsigned int*>(q + k));
    else
      w[k] = __ldcg(reinterpret_cast<const unsigned long long*>(q + k));
  }
  T v;
  memcpy(&v, w, sizeof(T));
  return v;
}

// ---------------------------------------------------------------- 16-byte vectors
template <class T>
struct reduce_vec {
  static constexpr int n = 16 / sizeof(T);  // elements per 16-byte vector
  using A = typename reduce_acc<T>::type;
  A a[n];

  __device__ __forceinline__ void load(const uint4& raw) {
    T e[n];
    memcpy(e, &raw, 16);
#pragma unroll
    for (int i = 0; i < n; ++i) a[i] = to_acc(e[i]);
  }
  template <class Op>
  __device__ __forceinline__ void combine(const uint4& raw) {
    T e[n];
    memcpy(e, &raw, 16);
#pragma unroll
    for (int i = 0; i < n; ++i) a[i] = reduce_fn<Op>::apply(a[i], to_acc(e[i]));
  }
  __device__ __forceinline__ uint4 pack() const {
    T e[n];
#pragma unroll
    for (int i = 0; i < n; ++i) e[i] = from_acc<T>(a[i]);
    uint4 raw;
    memcpy(&raw, e, 16);
    return raw;
  }
};

}  // namespace detail
}  // namespace gshmem
