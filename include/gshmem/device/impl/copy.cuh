// SPDX-License-Identifier: BSD-3-Clause
// Scoped memory copy used by every put/get on the load/store path.
// For puts and gets (scoped_copy_unit_first), a copy of at most one aligned
// unit a thread (one element; a block's few KiB) goes straight to its load
// (copy_unit_per_thread); a block's larger aligned puts and small gets loop one
// load a thread in flight, in line; its larger gets and misaligned copies go out
// of line (copy_general), so that the user's kernel keeps its registers. In the other
// copies the widest unit both pointers can be aligned to at once (16, 8, 4, 2
// or 1 bytes) is used for the body; the few bytes before and after it go in at
// most four naturally aligned pieces (1, 2, 4, 8 bytes), one per thread. Each
// thread keeps copy_unroll independent loads in flight before storing, which
// matters for gets (remote loads) and costs puts nothing.
// scoped_copy_fanout: one source to several destinations in one pass.
// scoped_strided_copy: the same for element-strided copies (iput/iget).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../scope.cuh"

namespace gshmem {
namespace detail {

constexpr int kCopyUnroll = 4;

// Loads each thread of Scope keeps in flight. A thread copying alone waits one
// load latency per batch, so a lone thread keeps 8 going.
template <class Scope>
constexpr int copy_unroll = std::is_same_v<Scope, thread_scope> ? 2 * kCopyUnroll : kCopyUnroll;
constexpr int kMaxFanout = 4;

// The calling thread's rank in Scope and the scope's size, for the multi-unit path below (not
// copy_unit_per_thread). A warp's depend on the thread index alone, so around a put in a caller's
// loop the compiler hoisted them, and the strides of all five unit widths' loops derived from
// them, out of that loop and kept them live across all of it, which pushed a warp-scope put in a
// loop past the 64 registers that a block of 1,024 threads allows. Read through an empty asm, they
// are worked out again at each copy (a few integer instructions). Other scopes as they are: a
// lone thread's are constants, and a block's gained nothing from it.
template <class Scope>
__device__ __forceinline__ size_t copy_rank() {
  if constexpr (!std::is_same_v<Scope, warp_scope>) {
    return static_cast<size_t>(Scope::rank());
  } else {
    unsigned r = static_cast<unsigned>(Scope::rank());
    asm volatile("" : "+r"(r));
    return r;
  }
}
template <class Scope>
__device__ __forceinline__ size_t copy_size() {
  if constexpr (!std::is_same_v<Scope, warp_scope>) {
    return static_cast<size_t>(Scope::size());
  } else {
    unsigned n = static_cast<unsigned>(Scope::size());
    asm volatile("" : "+r"(n));
    return n;
  }
}

// Where a copy goes: one address, or up to kMaxFanout that share their
// alignment (one symmetric object on several PEs, plus maybe the local copy).
// The copy loops take either; with one_dest they compile to a single store.
struct one_dest {
  static constexpr int kMax = 1;
  char* p;
  __device__ __forceinline__ int count() const { return 1; }
  __device__ __forceinline__ char* at(int) const { return p; }
};

// Fan-out: each unit is loaded once and stored to every destination in turn,
// so a push to several peers reads the source once and keeps all their links
// busy at once, instead of one destination after the other.
struct fanout {
  static constexpr int kMax = kMaxFanout;
  char* p[kMaxFanout];
  int n = 0;
  __device__ __forceinline__ void add(void* d) { p[n++] = static_cast<char*>(d); }
  __device__ __forceinline__ int count() const { return n; }
  __device__ __forceinline__ char* at(int j) const { return p[j]; }
};

template <class U, class D>
__device__ __forceinline__ void store_all(const D& d, size_t at, U v) {
#pragma unroll
  for (int j = 0; j < D::kMax; ++j) {
    if (j >= d.count()) break;
    *reinterpret_cast<U*>(d.at(j) + at) = v;
  }
}

// Copies n units of U at byte offset `at` (src + at -> each destination + at).
template <class Scope, class U, class D>
__device__ __forceinline__ void copy_units(const D& d, const char* src_c, size_t at, size_t n) {
  const U* __restrict__ src = reinterpret_cast<const U*>(src_c + at);
  const size_t stride = copy_size<Scope>();
  size_t i = copy_rank<Scope>();
  constexpr int kU = copy_unroll<Scope>;
  const size_t step = stride * kU;
  for (; i + step - stride < n; i += step) {
    U v[kU];
#pragma unroll
    for (int k = 0; k < kU; ++k) v[k] = src[i + k * stride];
      // Destination by destination: each gets the group's kU units in a row.
#pragma unroll
    for (int j = 0; j < D::kMax; ++j) {
      if (j >= d.count()) break;
      U* dst = reinterpret_cast<U*>(d.at(j) + at);
#pragma unroll
      for (int k = 0; k < kU; ++k) dst[i + k * stride] = v[k];
    }
  }
  // At most kU - 1 units are left per thread: not unrolled, so no trip count
  // (a division by the stride) is worked out for it.
#pragma unroll 1
  for (; i < n; i += stride) store_all(d, at + i * sizeof(U), src[i]);
}

// n units of 2^lg bytes (lg <= 4) at byte offset `at`.
template <class Scope, class D>
__device__ __forceinline__ void copy_units_of(const D& d, const char* src, size_t at, size_t n, int lg) {
  if (lg == 4)
    copy_units<Scope, uint4>(d, src, at, n);
  else if (lg == 3)
    copy_units<Scope, uint64_t>(d, src, at, n);
  else if (lg == 2)
    copy_units<Scope, uint32_t>(d, src, at, n);
  else if (lg == 1)
    copy_units<Scope, uint16_t>(d, src, at, n);
  else
    copy_units<Scope, uint8_t>(d, src, at, n);
}

template <class Scope, class D>
__device__ __forceinline__ void copy_bytes(const D& d, const char* src, size_t at, size_t n) {
  for (size_t i = copy_rank<Scope>(), m = copy_size<Scope>(); i < n; i += m) store_all(d, at + i, src[at + i]);
}

// The n < 16 bytes at `at` before the body (head: at + n is unit-aligned, so
// the pieces grow: 1 byte, then 2, 4, 8) or after it (tail: `at` is aligned,
// so they shrink), as at most four aligned pieces, piece k by thread k.
template <class Scope, class D>
__device__ __forceinline__ void copy_edge(const D& d, const char* src, size_t at, size_t n, bool head) {
  if (n == 0) return;
  for (size_t k = copy_rank<Scope>(), m = copy_size<Scope>(); k < 4; k += m) {
    const size_t sz = size_t{1} << k;
    if ((n & sz) == 0) continue;
    const size_t a = at + (head ? n & (sz - 1) : n & ~(2 * sz - 1));
    if (k == 3)
      store_all(d, a, *reinterpret_cast<const uint64_t*>(src + a));
    else if (k == 2)
      store_all(d, a, *reinterpret_cast<const uint32_t*>(src + a));
    else if (k == 1)
      store_all(d, a, *reinterpret_cast<const uint16_t*>(src + a));
    else
      store_all(d, a, src[a]);
  }
}

// Unit r of the `count` units of width U at src, by rank r (none if r >= count).
template <class U, class D>
__device__ __forceinline__ void copy_unit_at(const D& d, const char* src, size_t r, size_t count) {
  if (r < count) store_all(d, r * sizeof(U), reinterpret_cast<const U*>(src)[r]);
}

// Copies in which no thread of Scope has more than one unit of the widest width
// (16, 8, 4, 2 or 1 bytes) that the pointers and the size are all multiples of:
// one element at any scope, up to 512 aligned bytes a warp, 16 KiB a block of
// 1024. Rank r moves unit r: no loop, no edge pieces, and only a few tests ahead
// of its load, where the general path below works out widths and counts first
// (each dependent instruction there delays the load). The first test needs only
// the size, so larger copies pay one branch that every thread takes alike.
// Small puts and gets (a block's of a few KiB, a warp's of up to 512 B) gain more
// than the copies it does not take (a lone thread's, a warp's larger ones) lose to
// its tests. False (nothing done) for any other copy.
template <class Scope, class D>
__device__ __forceinline__ bool copy_unit_per_thread(const D& d, const char* src, size_t bytes, size_t r) {
  const size_t n = static_cast<size_t>(Scope::size());
  if (bytes > n * 16) return false;  // two units for some thread at any width
  uintptr_t a = reinterpret_cast<uintptr_t>(src) | bytes;
#pragma unroll
  for (int j = 0; j < D::kMax; ++j)
    if (j < d.count()) a |= reinterpret_cast<uintptr_t>(d.at(j));
  if ((a & 15) == 0) {
    copy_unit_at<uint4>(d, src, r, bytes >> 4);
  } else if ((a & 7) == 0) {
    if (bytes > n * 8) return false;
    copy_unit_at<uint64_t>(d, src, r, bytes >> 3);
  } else if ((a & 3) == 0) {
    if (bytes > n * 4) return false;
    copy_unit_at<uint32_t>(d, src, r, bytes >> 2);
  } else if ((a & 1) == 0) {
    if (bytes > n * 2) return false;
    copy_unit_at<uint16_t>(d, src, r, bytes >> 1);
  } else {
    if (bytes > n) return false;
    copy_unit_at<uint8_t>(d, src, r, bytes);
  }
  return true;
}

// Copies `bytes` from src to every destination of `d`, spread over the threads
// of Scope. Does not synchronise the scope (callers do). The unit is a power
// of two picked by shifts and an if-chain (a division and a switch's jump
// table cost more), and threads with nothing to copy leave early (below).
template <class Scope, class D>
__device__ __forceinline__ void scoped_copy_to(const D& d, const char* src, size_t bytes) {
  // A thread past both the edge pieces (ranks 0-3) and the byte count has no
  // unit at any width: it leaves before the arithmetic below, which in a block
  // copying a few bytes would otherwise cost 32 warps' issue slots.
  const size_t r = copy_rank<Scope>();
  if (r >= 4 && r >= bytes) return;
  const uintptr_t s = reinterpret_cast<uintptr_t>(src);
  uintptr_t rel = 16;
#pragma unroll
  for (int j = 0; j < D::kMax; ++j)
    if (j < d.count()) rel |= reinterpret_cast<uintptr_t>(d.at(j)) - s;
  int lg = __ffsll(static_cast<long long>(rel)) - 1;  // lowest set bit, <= 4
  // Units only, no edge pieces, when the source and the size are multiples of the
  // unit (objects of 4-, 8- or 16-byte types) or every thread has at most one unit
  // of the width they do share (an 8-byte put; perftest/probe/put_block_probe.cu).
  // One copy_units_of call either way: each is five inlined loops.
  const int lg_all = __ffsll(static_cast<long long>(rel | s | bytes)) - 1;
  const bool units_only = lg_all == lg || bytes <= (copy_size<Scope>() << lg_all);
  size_t head = 0;
  if (units_only) {
    lg = lg_all;
  } else {
    const size_t unit = size_t{1} << lg;
    head = (unit - (reinterpret_cast<uintptr_t>(d.at(0)) & (unit - 1))) & (unit - 1);
    if (head >= bytes) {  // no whole unit: a few misaligned bytes
      copy_bytes<Scope>(d, src, 0, bytes);
      return;
    }
    copy_edge<Scope>(d, src, 0, head, true);
  }
  const size_t n = (bytes - head) >> lg, tail = head + (n << lg);
  // The tail's pieces before the body (a put orders none of its stores): then nothing that only
  // the tail needs stays live across the body's loop.
  if (!units_only) copy_edge<Scope>(d, src, tail, bytes - tail, false);
  copy_units_of<Scope>(d, src, head, n, lg);
}

template <class Scope>
__device__ __forceinline__ void scoped_copy(void* dst, const void* src, size_t bytes) {
  scoped_copy_to<Scope>(one_dest{static_cast<char*>(dst)}, static_cast<const char*>(src), bytes);
}

// Units [r, n) of U, every stride-th, from src to dst, each thread keeping KU loads in flight,
// the last partial group included (its loads predicated, not a serial remainder: a block's
// 32 KiB put is two units a thread, which a remainder loop would load one after the other).
template <class U, int KU>
__device__ __forceinline__ void copy_units_guarded(char* dst_c, const char* src_c, size_t n, size_t r, size_t stride) {
  const U* __restrict__ src = reinterpret_cast<const U*>(src_c);
  U* dst = reinterpret_cast<U*>(dst_c);
  for (size_t i = r; i < n; i += stride * KU) {
    U v[KU];
#pragma unroll
    for (int k = 0; k < KU; ++k)
      if (i + k * stride < n) v[k] = src[i + k * stride];
#pragma unroll
    for (int k = 0; k < KU; ++k)
      if (i + k * stride < n) dst[i + k * stride] = v[k];
  }
}

// A block's RMA copies' general path (a get of more than two 16-byte units a thread, a
// misaligned copy of more than one unit a thread), out of line so that it does not take the
// registers of the user's kernel that calls put or get. Inlined (five unit widths, each
// unrolled), it pushed a stencil kernel with a block put (perftest/apps/jacobi_nbi.cu) from 14 to
// 52-58 registers: one block of 1,024 threads an SM instead of two, and 0.6 x NVSHMEM's speed.
// Called through a pointer the compiler cannot see through: with a direct call ptxas kept the
// caller's live values in registers above the callee's instead of saving them (a put, a quiet and
// a signal took 49). The price, measured on 2 x H200: the callee saves and restores its
// callee-saved registers in local memory, and the restores wait behind the copy's stores, about
// 1 us a call (a block's 32 KiB put + quiet: 2.92 us through it, 2.00 with
// scoped_copy_unit_first's loop in line), so only what gains from more than one load in flight
// comes here (a get of 1 MiB: 33.2 us, 60 with one). One unrolled loop, the 16-byte body
// (aligned objects), 2 units a thread in flight (gets of 64 KiB-1 MiB are 1.3-1.4 x slower than
// with 4, which needs 47 registers); narrower units one a pass; misaligned bytes as units of 1
// byte; no early return (each of those alternatives took the count past 32). Warps and lone
// threads keep the copy in line (scoped_copy_to): their callee would need 4 and 8 units in
// flight to keep their speed, and through the pointer every kernel of a translation unit that
// calls it gets that callee's registers (ptxas counts the largest function a pointer may reach).
// Counts: ptxas 13 -O3 sm_90 (tests/registers).
template <class Scope>
static __device__ __noinline__ inline void copy_general(char* d, const char* src, size_t bytes) {
  const size_t r = copy_rank<Scope>(), m = copy_size<Scope>();
  const one_dest od{d};
  int lg =
      __ffsll(static_cast<long long>(16 | (reinterpret_cast<uintptr_t>(d) - reinterpret_cast<uintptr_t>(src)))) - 1;
  size_t head =
      ((size_t{1} << lg) - (reinterpret_cast<uintptr_t>(d) & ((size_t{1} << lg) - 1))) & ((size_t{1} << lg) - 1);
  if (head >= bytes) lg = 0, head = 0;  // no whole unit: a few misaligned bytes, one at a time
  const size_t n = (bytes - head) >> lg, tail = head + (n << lg);
  copy_edge<Scope>(od, src, 0, head, true);
  copy_edge<Scope>(od, src, tail, bytes - tail, false);
  d += head;
  src += head;
  if (lg == 4)
    copy_units_guarded<uint4, 2>(d, src, n, r, m);
  else if (lg == 3)
    copy_units_guarded<uint64_t, 1>(d, src, n, r, m);
  else if (lg == 2)
    copy_units_guarded<uint32_t, 1>(d, src, n, r, m);
  else if (lg == 1)
    copy_units_guarded<uint16_t, 1>(d, src, n, r, m);
  else
    copy_units_guarded<uint8_t, 1>(d, src, n, r, m);
}

// The copy of the RMA calls (put, get, put_signal): one unit a thread in line
// (copy_unit_per_thread: an element, a warp's 512 B, a block's 16 KiB); anything else in line
// for a thread or a warp. A block's 16-byte units (aligned objects, the common case) in line too,
// one load in flight a thread, which takes no more registers than the unit path: a put's loads
// are local and its speed is the SM's store rate to NVLink (1 MiB: 24.5 us against 25.3 through
// copy_general; 32 KiB: 2.00 against 2.92, NVSHMEM 2.19), and a get's first two units a thread
// (32 KiB for a block of 1,024: 2.38 us against 2.73). A block's larger gets, whose remote loads
// want more than one in flight, and misaligned copies go out of line (copy_general). The
// collectives keep scoped_copy: their kernels are the library's, tuned with the copy in line.
// Figures: suite put_latency / get_latency -s block, 2 x H200 (perftest/probe/block_copy_probe.cu
// compares the loops).
template <class Scope, bool kGet = false>
__device__ __forceinline__ void scoped_copy_unit_first(void* dst, const void* src, size_t bytes) {
  const one_dest d{static_cast<char*>(dst)};
  const char* s = static_cast<const char*>(src);
  if (copy_unit_per_thread<Scope>(d, s, bytes, static_cast<size_t>(Scope::rank()))) return;
  if constexpr (std::is_same_v<Scope, block_scope>) {
    const size_t m = static_cast<size_t>(Scope::size());
    if (((reinterpret_cast<uintptr_t>(dst) | reinterpret_cast<uintptr_t>(src) | bytes) & 15) == 0 &&
        (!kGet || bytes <= 2 * 16 * m)) {
      copy_units_guarded<uint4, 1>(d.p, s, bytes >> 4, static_cast<size_t>(Scope::rank()), m);
      return;
    }
    void (*general)(char*, const char*, size_t) = &copy_general<Scope>;
    asm volatile("" : "+l"(general));
    general(d.p, s, bytes);
  } else {
    scoped_copy_to<Scope>(d, s, bytes);
  }
}

template <class Scope>
__device__ __forceinline__ void scoped_copy_fanout(const fanout& d, const char* src, size_t bytes) {
  if (d.n == 1)
    scoped_copy<Scope>(d.p[0], src, bytes);
  else
    scoped_copy_to<Scope>(d, src, bytes);
}

// dst[i * ds] = src[i * ss] for i < n (strides in elements), spread over the
// threads of Scope: thread r copies elements r, r + size, ... so neighbouring
// threads touch neighbouring elements; copy_unroll loads in flight per thread.
// Both strides 1: the vectorised scoped_copy. Does not synchronise the scope.
template <class Scope, class T>
__device__ __forceinline__ void scoped_strided_copy(T* dst, ptrdiff_t ds, const T* src, ptrdiff_t ss, size_t n) {
  if (ds == 1 && ss == 1) {
    scoped_copy<Scope>(dst, src, n * sizeof(T));
    return;
  }
  const size_t stride = static_cast<size_t>(Scope::size());
  size_t i = static_cast<size_t>(Scope::rank());
  constexpr int kU = copy_unroll<Scope>;
  const size_t step = stride * kU;
  for (; i + step - stride < n; i += step) {
    T v[kU];
#pragma unroll
    for (int k = 0; k < kU; ++k) v[k] = src[static_cast<ptrdiff_t>(i + k * stride) * ss];
#pragma unroll
    for (int k = 0; k < kU; ++k) dst[static_cast<ptrdiff_t>(i + k * stride) * ds] = v[k];
  }
  for (; i < n; i += stride) dst[static_cast<ptrdiff_t>(i) * ds] = src[static_cast<ptrdiff_t>(i) * ss];
}

}  // namespace detail
}  // namespace gshmem
