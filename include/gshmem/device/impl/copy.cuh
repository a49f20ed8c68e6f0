// SPDX-License-Identifier: BSD-3-Clause
// Scoped memory copy used by every put/get on the load/store path.
// The widest unit both pointers can be aligned to at once (16, 8, 4, 2 or 1
// bytes) is used for the body; the few bytes before and after go one by one.
// Each thread keeps kUnroll independent loads in flight before storing, which
// matters for gets (remote loads) and costs puts nothing.
// scoped_copy_fanout: one source to several destinations in one pass.
// scoped_strided_copy: the same for element-strided copies (iput/iget).
#pragma once

#include <cstddef>
#include <cstdint>

namespace gshmem {
namespace detail {

constexpr int kCopyUnroll = 4;

template <class Scope, class U>
__device__ __forceinline__ void copy_units(U* __restrict__ dst, const U* __restrict__ src, size_t n) {
  const size_t stride = static_cast<size_t>(Scope::size());
  size_t i = static_cast<size_t>(Scope::rank());
  const size_t step = stride * kCopyUnroll;
  for (; i + step - stride < n; i += step) {
    U v[kCopyUnroll];
#pragma unroll
    for (int k = 0; k < kCopyUnroll; ++k) v[k] = src[i + k * stride];
#pragma unroll
    for (int k = 0; k < kCopyUnroll; ++k) dst[i + k * stride] = v[k];
  }
  for (; i < n; i += stride) dst[i] = src[i];
}

template <class Scope>
__device__ __forceinline__ void copy_bytes_strided(char* dst, const char* src, size_t n) {
  for (size_t i = Scope::rank(); i < n; i += Scope::size()) dst[i] = src[i];
}

// Copies `bytes` from src to dst, spread over the threads of Scope. Does not
// synchronise the scope (callers do).
template <class Scope>
__device__ __forceinline__ void scoped_copy(void* dst_v, const void* src_v, size_t bytes) {
  char* dst = static_cast<char*>(dst_v);
  const char* src = static_cast<const char*>(src_v);
  const uintptr_t d = reinterpret_cast<uintptr_t>(dst), s = reinterpret_cast<uintptr_t>(src);
  const uintptr_t rel = (d - s) | 16;
  const size_t unit = static_cast<size_t>(rel & (~rel + 1));  // lowest set bit, <= 16
  size_t head = (unit - (d & (unit - 1))) & (unit - 1);
  if (head > bytes) head = bytes;
  copy_bytes_strided<Scope>(dst, src, head);
  dst += head;
  src += head;
  bytes -= head;
  const size_t n = bytes / unit;
  switch (unit) {
    case 16: copy_units<Scope>(reinterpret_cast<uint4*>(dst), reinterpret_cast<const uint4*>(src), n); break;
    case 8: copy_units<Scope>(reinterpret_cast<uint64_t*>(dst), reinterpret_cast<const uint64_t*>(src), n); break;
    case 4: copy_units<Scope>(reinterpret_cast<uint32_t*>(dst), reinterpret_cast<const uint32_t*>(src), n); break;
    case 2: copy_units<Scope>(reinterpret_cast<uint16_t*>(dst), reinterpret_cast<const uint16_t*>(src), n); break;
    default: copy_units<Scope>(reinterpret_cast<uint8_t*>(dst), reinterpret_cast<const uint8_t*>(src), n); break;
  }
  const size_t done = n * unit;
  copy_bytes_strided<Scope>(dst + done, src + done, bytes - done);
}

// Fan-out copy: the same bytes to up to kMaxFanout destinations that share
// their alignment (one symmetric object on several PEs, plus maybe the local
// copy). Each unit is loaded once and stored to every destination in turn, so
// a push to several peers reads the source once and keeps all their links busy
// at once, instead of one destination after the other.
constexpr int kMaxFanout = 4;

struct fanout {
  char* p[kMaxFanout];
  int n = 0;
  __device__ __forceinline__ void add(void* d) { p[n++] = static_cast<char*>(d); }
};

template <class Scope, class U>
__device__ __forceinline__ void copy_units_fanout(const fanout& d, size_t off, const U* __restrict__ src, size_t n) {
  const size_t stride = static_cast<size_t>(Scope::size());
  size_t i = static_cast<size_t>(Scope::rank());
  const size_t step = stride * kCopyUnroll;
  for (; i + step - stride < n; i += step) {
    U v[kCopyUnroll];
#pragma unroll
    for (int k = 0; k < kCopyUnroll; ++k) v[k] = src[i + k * stride];
#pragma unroll
    for (int j = 0; j < kMaxFanout; ++j) {
      if (j >= d.n) break;
      U* dst = reinterpret_cast<U*>(d.p[j] + off);
#pragma unroll
      for (int k = 0; k < kCopyUnroll; ++k) dst[i + k * stride] = v[k];
    }
  }
  for (; i < n; i += stride) {
    const U v = src[i];
#pragma unroll
    for (int j = 0; j < kMaxFanout; ++j)
      if (j < d.n) reinterpret_cast<U*>(d.p[j] + off)[i] = v;
  }
}

template <class Scope>
__device__ __forceinline__ void copy_bytes_fanout(const fanout& d, size_t off, const char* src, size_t n) {
  for (size_t i = Scope::rank(); i < n; i += Scope::size()) {
    const char v = src[i];
    for (int j = 0; j < d.n; ++j) d.p[j][off + i] = v;
  }
}

// Copies `bytes` from src to every destination of `d`, spread over the threads
// of Scope. Does not synchronise the scope (callers do).
template <class Scope>
__device__ __forceinline__ void scoped_copy_fanout(const fanout& d, const char* src, size_t bytes) {
  if (d.n == 1) {
    scoped_copy<Scope>(d.p[0], src, bytes);
    return;
  }
  const uintptr_t s = reinterpret_cast<uintptr_t>(src);
  uintptr_t rel = 16;
  for (int j = 0; j < d.n; ++j) rel |= reinterpret_cast<uintptr_t>(d.p[j]) - s;
  const size_t unit = static_cast<size_t>(rel & (~rel + 1));  // lowest set bit, <= 16
  size_t head = (unit - (reinterpret_cast<uintptr_t>(d.p[0]) & (unit - 1))) & (unit - 1);
  if (head > bytes) head = bytes;
  copy_bytes_fanout<Scope>(d, 0, src, head);
  const size_t n = (bytes - head) / unit, tail = head + n * unit;
  switch (unit) {
    case 16: copy_units_fanout<Scope>(d, head, reinterpret_cast<const uint4*>(src + head), n); break;
    case 8: copy_units_fanout<Scope>(d, head, reinterpret_cast<const uint64_t*>(src + head), n); break;
    case 4: copy_units_fanout<Scope>(d, head, reinterpret_cast<const uint32_t*>(src + head), n); break;
    case 2: copy_units_fanout<Scope>(d, head, reinterpret_cast<const uint16_t*>(src + head), n); break;
    default: copy_units_fanout<Scope>(d, head, reinterpret_cast<const uint8_t*>(src + head), n); break;
  }
  copy_bytes_fanout<Scope>(d, tail, src + tail, bytes - tail);
}

// dst[i * ds] = src[i * ss] for i < n (strides in elements), spread over the
// threads of Scope: thread r copies elements r, r + size, ... so neighbouring
// threads touch neighbouring elements; kCopyUnroll loads in flight per thread.
// Both strides 1: the vectorised scoped_copy. Does not synchronise the scope.
template <class Scope, class T>
__device__ __forceinline__ void scoped_strided_copy(T* dst, ptrdiff_t ds, const T* src, ptrdiff_t ss, size_t n) {
  if (ds == 1 && ss == 1) {
    scoped_copy<Scope>(dst, src, n * sizeof(T));
    return;
  }
  const size_t stride = static_cast<size_t>(Scope::size());
  size_t i = static_cast<size_t>(Scope::rank());
  const size_t step = stride * kCopyUnroll;
  for (; i + step - stride < n; i += step) {
    T v[kCopyUnroll];
#pragma unroll
    for (int k = 0; k < kCopyUnroll; ++k) v[k] = src[static_cast<ptrdiff_t>(i + k * stride) * ss];
#pragma unroll
    for (int k = 0; k < kCopyUnroll; ++k) dst[static_cast<ptrdiff_t>(i + k * stride) * ds] = v[k];
  }
  for (; i < n; i += stride) dst[static_cast<ptrdiff_t>(i) * ds] = src[static_cast<ptrdiff_t>(i) * ss];
}

}  // namespace detail
}  // namespace gshmem
