// SPDX-License-Identifier: BSD-3-Clause
// Runtime scope / datatype choices turned into the compile-time types the gshmem
// device API takes (scope as a type), and the "first group" of a launch.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include <gshmem/gshmem.h>

#include "bench.h"

namespace perf {

template <class S>
constexpr bool is_thread_v = std::is_same<S, gshmem::thread_scope>::value;
template <class S>
constexpr bool is_warp_v = std::is_same<S, gshmem::warp_scope>::value;
template <class S>
constexpr bool is_block_v = std::is_same<S, gshmem::block_scope>::value;

// f(gshmem::thread_scope{}) / warp_scope / block_scope.
template <class F>
void with_scope(Scope s, F&& f) {
  switch (s) {
    case Scope::thread:
      f(gshmem::thread_scope{});
      break;
    case Scope::warp:
      f(gshmem::warp_scope{});
      break;
    case Scope::block:
      f(gshmem::block_scope{});
      break;
  }
}

// f(T{}) for the datatype.
template <class F>
void with_dtype(DType t, F&& f) {
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
    case DType::uint64:
      f(uint64_t{});
      break;
    case DType::float32:
      f(float{});
      break;
    case DType::float64:
      f(double{});
      break;
  }
}

// The first group of scope S of the launch (thread 0 / warp 0 / block 0): the one that
// calls single-group operations (collectives, latency loops).
template <class S>
__device__ __forceinline__ bool in_first_group() {
  if (blockIdx.x != 0 || blockIdx.y != 0 || blockIdx.z != 0) return false;
  if constexpr (is_thread_v<S>)
    return gshmem::detail::block_thread_rank() == 0;
  else if constexpr (is_warp_v<S>)
    return gshmem::detail::block_thread_rank() < 32;
  else
    return true;
}

// Groups of scope S in the launch and this thread's group index (grid-wide).
template <class S>
__device__ __forceinline__ int groups_per_block() {
  if constexpr (is_thread_v<S>)
    return gshmem::detail::block_thread_count();
  else if constexpr (is_warp_v<S>)
    return (gshmem::detail::block_thread_count() + 31) / 32;
  else
    return 1;
}
template <class S>
__device__ __forceinline__ int group_index() {
  int in_block = 0;
  if constexpr (is_thread_v<S>)
    in_block = gshmem::detail::block_thread_rank();
  else if constexpr (is_warp_v<S>)
    in_block = gshmem::detail::block_thread_rank() / 32;
  return static_cast<int>(blockIdx.x) * groups_per_block<S>() + in_block;
}

// Threads that make up one group of scope S in a block of `block` threads.
inline int group_threads(Scope s, int block) {
  return s == Scope::thread ? 1 : s == Scope::warp ? (block < 32 ? block : 32) : block;
}

}  // namespace perf
