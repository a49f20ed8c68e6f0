// SPDX-License-Identifier: BSD-3-Clause
// Cooperation scope as a type. Every device operation that can be shared by
// several threads takes its scope as a template parameter:
//
//   gshmem::thread_scope  the calling thread alone
//   gshmem::warp_scope    every thread of the caller's warp calls with the same
//                         arguments (a warp cut short by the block size counts
//                         the threads it has)
//   gshmem::block_scope   every thread of the block calls with the same arguments
//
// Collective-scope calls are also synchronisation points for their threads:
// they begin and end with Scope::sync().
#pragma once

namespace gshmem {

struct thread_scope {
  static __device__ __forceinline__ int rank() { return 0; }
  static __device__ __forceinline__ int size() { return 1; }
  static __device__ __forceinline__ void sync() {}
};

namespace detail {
__device__ __forceinline__ int block_thread_rank() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
__device__ __forceinline__ int block_thread_count() { return blockDim.x * blockDim.y * blockDim.z; }
}  // namespace detail

struct warp_scope {
  static __device__ __forceinline__ int rank() { return detail::block_thread_rank() & 31; }
  static __device__ __forceinline__ int size() {
    int base = detail::block_thread_rank() & ~31;
    int n = detail::block_thread_count() - base;
    return n < 32 ? n : 32;
  }
  static __device__ __forceinline__ unsigned mask() {
    int n = size();
    return n == 32 ? 0xffffffffu : ((1u << n) - 1u);
  }
  static __device__ __forceinline__ void sync() { __syncwarp(mask()); }
};

struct block_scope {
  static __device__ __forceinline__ int rank() { return detail::block_thread_rank(); }
  static __device__ __forceinline__ int size() { return detail::block_thread_count(); }
  static __device__ __forceinline__ void sync() { __syncthreads(); }
};

}  // namespace gshmem
