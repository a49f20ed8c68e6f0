// SPDX-License-Identifier: BSD-3-Clause
// The AMOs the atomic_* benchmarks time, each with a deterministic argument
// sequence so that the final value of an element (and what a fetch returned) is
// known: operation k (k = 0, 1, ...) on an element uses
//   set / swap          value k + 1
//   compare_swap        cond k, value k + 1          (the element counts up from 0)
//   inc / fetch_inc     +1
//   add / fetch_add     +(k % 4 + 1)
//   and / fetch_and     clear bit k % bits           (the element starts all ones)
//   or  / fetch_or      set bit k % bits             (starts at 0)
//   xor / fetch_xor     ^ (k * 0x9E3779B9 + 1)
//   fetch               read only                    (starts at kFetchInit)
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include <gshmem/gshmem.h>

#include "../common/bench.h"

namespace perf {

enum class Amo {
  fetch,
  set,
  swap,
  compare_swap,
  inc,
  fetch_inc,
  add,
  fetch_add,
  and_,
  fetch_and,
  or_,
  fetch_or,
  xor_,
  fetch_xor
};
constexpr int kAmoCount = 14;
inline const char* amo_name(Amo a) {
  static const char* names[kAmoCount] = {"fetch",     "set",      "swap",      "compare_swap", "inc",
                                         "fetch_inc", "add",      "fetch_add", "and",          "fetch_and",
                                         "or",        "fetch_or", "xor",       "fetch_xor"};
  return names[static_cast<int>(a)];
}
inline std::vector<std::string> amo_names() {
  std::vector<std::string> v;
  for (int i = 0; i < kAmoCount; ++i) v.push_back(amo_name(static_cast<Amo>(i)));
  return v;
}
inline bool parse_amo(const std::string& s, Amo* out) {
  for (int i = 0; i < kAmoCount; ++i)
    if (s == amo_name(static_cast<Amo>(i))) return (*out = static_cast<Amo>(i)), true;
  return false;
}
// Returns a value (fetching operations) or nothing to wait for (quiet completes those).
__host__ __device__ constexpr bool amo_fetches(Amo a) {
  return a == Amo::fetch || a == Amo::swap || a == Amo::compare_swap || a == Amo::fetch_inc || a == Amo::fetch_add ||
         a == Amo::fetch_and || a == Amo::fetch_or || a == Amo::fetch_xor;
}
constexpr uint64_t kFetchInit = 0x5A5A5A5A12345678ull;

template <class T>
__host__ __device__ inline T amo_init(Amo a) {
  if (a == Amo::and_ || a == Amo::fetch_and) return static_cast<T>(~T(0));
  if (a == Amo::fetch) return static_cast<T>(kFetchInit);
  return T(0);
}

template <class T>
__host__ __device__ inline T bit_of(uint64_t k) {
  return static_cast<T>(uint64_t(1) << (k % (8 * sizeof(T))));
}

// The element after operation k (host-side reference).
template <class T>
inline T amo_next(Amo a, T v, uint64_t k) {
  switch (a) {
    case Amo::fetch:
      return v;
    case Amo::set:
    case Amo::swap:
      return static_cast<T>(k + 1);
    case Amo::compare_swap:
      return v == static_cast<T>(k) ? static_cast<T>(k + 1) : v;
    case Amo::inc:
    case Amo::fetch_inc:
      return static_cast<T>(v + 1);
    case Amo::add:
    case Amo::fetch_add:
      return static_cast<T>(v + static_cast<T>(k % 4 + 1));
    case Amo::and_:
    case Amo::fetch_and:
      return static_cast<T>(v & static_cast<T>(~bit_of<T>(k)));
    case Amo::or_:
    case Amo::fetch_or:
      return static_cast<T>(v | bit_of<T>(k));
    case Amo::xor_:
    case Amo::fetch_xor:
      return static_cast<T>(v ^ static_cast<T>(k * 0x9E3779B9ull + 1));
  }
  return v;
}
// The element after operations 0 .. count-1.
template <class T>
inline T amo_after(Amo a, uint64_t count) {
  T v = amo_init<T>(a);
  for (uint64_t k = 0; k < count; ++k) v = amo_next<T>(a, v, k);
  return v;
}

// Operation k on *dest at `pe`; the fetched value (0 for non-fetching operations).
template <Amo A, class T>
__device__ __forceinline__ T amo_apply(T* dest, uint64_t k, int pe) {
  if constexpr (A == Amo::fetch)
    return gshmem::atomic_fetch<T>(dest, pe);
  else if constexpr (A == Amo::set)
    return gshmem::atomic_set<T>(dest, static_cast<T>(k + 1), pe), T(0);
  else if constexpr (A == Amo::swap)
    return gshmem::atomic_swap<T>(dest, static_cast<T>(k + 1), pe);
  else if constexpr (A == Amo::compare_swap)
    return gshmem::atomic_compare_swap<T>(dest, static_cast<T>(k), static_cast<T>(k + 1), pe);
  else if constexpr (A == Amo::inc)
    return gshmem::atomic_inc<T>(dest, pe), T(0);
  else if constexpr (A == Amo::fetch_inc)
    return gshmem::atomic_fetch_inc<T>(dest, pe);
  else if constexpr (A == Amo::add)
    return gshmem::atomic_add<T>(dest, static_cast<T>(k % 4 + 1), pe), T(0);
  else if constexpr (A == Amo::fetch_add)
    return gshmem::atomic_fetch_add<T>(dest, static_cast<T>(k % 4 + 1), pe);
  else if constexpr (A == Amo::and_)
    return gshmem::atomic_and<T>(dest, static_cast<T>(~bit_of<T>(k)), pe), T(0);
  else if constexpr (A == Amo::fetch_and)
    return gshmem::atomic_fetch_and<T>(dest, static_cast<T>(~bit_of<T>(k)), pe);
  else if constexpr (A == Amo::or_)
    return gshmem::atomic_or<T>(dest, bit_of<T>(k), pe), T(0);
  else if constexpr (A == Amo::fetch_or)
    return gshmem::atomic_fetch_or<T>(dest, bit_of<T>(k), pe);
  else if constexpr (A == Amo::xor_)
    return gshmem::atomic_xor<T>(dest, static_cast<T>(k * 0x9E3779B9ull + 1), pe), T(0);
  else
    return gshmem::atomic_fetch_xor<T>(dest, static_cast<T>(k * 0x9E3779B9ull + 1), pe);
}

// f(std::integral_constant<Amo, A>{}) for the runtime operation.
template <class F>
void with_amo(Amo a, F&& f) {
  switch (a) {
#define PERF_AMO_CASE(X)                      \
  case Amo::X:                                \
    f(std::integral_constant<Amo, Amo::X>{}); \
    break;
    // clang-format off
    PERF_AMO_CASE(fetch) PERF_AMO_CASE(set) PERF_AMO_CASE(swap) PERF_AMO_CASE(compare_swap) PERF_AMO_CASE(inc)
    PERF_AMO_CASE(fetch_inc) PERF_AMO_CASE(add) PERF_AMO_CASE(fetch_add) PERF_AMO_CASE(and_)
    PERF_AMO_CASE(fetch_and) PERF_AMO_CASE(or_) PERF_AMO_CASE(fetch_or) PERF_AMO_CASE(xor_) PERF_AMO_CASE(fetch_xor)
    // clang-format on
#undef PERF_AMO_CASE
  }
}

// AMO datatypes: the standard and bitwise AMO types of fixed width.
constexpr unsigned kAmoDTypes = (1u << static_cast<int>(DType::int32)) | (1u << static_cast<int>(DType::int64)) |
                                (1u << static_cast<int>(DType::uint32)) | (1u << static_cast<int>(DType::uint64));

template <class F>
void with_amo_dtype(DType t, F&& f) {
  switch (t) {
    case DType::int32:
      f(int32_t{});
      break;
    case DType::int64:
      f(int64_t{});
      break;
    case DType::uint32:
      f(uint32_t{});
      break;
    default:
      f(uint64_t{});
      break;
  }
}

template <class T>
inline uint64_t amo_bits(T v) {
  return sizeof(T) == 4 ? static_cast<uint64_t>(static_cast<uint32_t>(v)) : static_cast<uint64_t>(v);
}

}  // namespace perf
