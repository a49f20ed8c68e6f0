// SPDX-License-Identifier: BSD-3-Clause
// Bodies of device/wait.cuh.
#pragma once

#include "../wait.cuh"
#include "memops.cuh"

namespace gshmem {
namespace detail {

template <class T>
__device__ __forceinline__ bool compare(T a, cmp c, T b) {
  switch (c) {
    case cmp::eq: return a == b;
    case cmp::ne: return a != b;
    case cmp::gt: return a > b;
    case cmp::ge: return a >= b;
    case cmp::lt: return a < b;
    case cmp::le: return a <= b;
  }
  return false;
}

}  // namespace detail

template <class T>
__device__ inline bool test(T* ivar, cmp c, T value) {
  if (!detail::compare(detail::ld_volatile(ivar), c, value)) return false;
  detail::fence_acq_rel_sys();
  return true;
}

template <class T>
__device__ inline void wait_until(T* ivar, cmp c, T value) {
  while (!detail::compare(detail::ld_volatile(ivar), c, value)) {
  }
  detail::fence_acq_rel_sys();
}

}  // namespace gshmem
