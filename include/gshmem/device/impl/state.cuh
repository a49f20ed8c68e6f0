// SPDX-License-Identifier: BSD-3-Clause
// This translation unit's copy of the device state, and the registrar that
// lets the host library fill it (see detail/device_state.h for why).
#pragma once

#include <cuda_runtime.h>

#include "gshmem/detail/device_state.h"
#include "gshmem/detail/host_entry_coll.h"
#include "memops.cuh"
#include "report.cuh"

// Internal linkage on purpose: one copy per translation unit, no -rdc needed. In the global
// namespace because nvcc keeps the plain name of such a variable in a whole-program (non -rdc)
// module, while one in a namespace gets a per-file name: gshmemx_cumodule_init finds the copy
// of a module loaded through the driver API by the name `gshmemi_tu_state` (keep it).
static __constant__ gshmemi_device_state gshmemi_tu_state;

namespace gshmem {
namespace detail {

static int upload_tu_state(const gshmemi_device_state* s) {
  return static_cast<int>(cudaMemcpyToSymbol(gshmemi_tu_state, s, sizeof(*s)));
}

struct tu_state_registrar {
  tu_state_registrar() {
    gshmemi_register_device_state(&upload_tu_state, GSHMEMI_DEVICE_STATE_VERSION,
                                  static_cast<uint32_t>(sizeof(gshmemi_device_state)), __BASE_FILE__);
  }
  ~tu_state_registrar() { gshmemi_unregister_device_state(&upload_tu_state); }
};
static tu_state_registrar tu_state_registrar_instance;

__device__ __forceinline__ const gshmemi_device_state& state() { return gshmemi_tu_state; }

// The abort word (device_state.h): 0 while the job runs, else why it ends (GSHMEMI_ABORT_*).
// Read with a relaxed load at system scope (the host writes it), only where a wait already reads
// the clock, so no fast path pays for it.
__device__ __forceinline__ uint64_t abort_word() {
  const uint64_t* w = state().abort_word;
  return w != nullptr ? ld_relaxed_sys(w) : 0;
}
// Its reason alone (the high half, never 0 once set). The pointer is read from the constant bank
// through a volatile load where the check runs: hoisted out of a wait's loop, it took two
// registers for the whole loop (tests/registers). The word itself by a volatile load (relaxed,
// system scope, as ld.relaxed.sys): the waits of up to 4 variables poll by acquire loads only
// and contain no ld.relaxed (tests/codegen).
__device__ __forceinline__ uint32_t abort_reason() {
  const uint64_t* w = *static_cast<const uint64_t* const volatile*>(&state().abort_word);
  return ld_volatile(reinterpret_cast<const uint32_t*>(w) + 1);
}
// gshmemx_abort ended the job on this PE (for the library's own kernels, which may return).
__device__ __forceinline__ bool released() { return abort_reason() == GSHMEMI_ABORT_USER; }

// The bound on a wait (GSHMEM_WAIT_TIMEOUT; 0: none), and the abort word. Started on the slow
// path only: the fast path of a wait never reads the clock. `expired()` is called once per poll;
// every 1024th it reads the abort word and the clock (a poll takes ~1 us: the abort is seen
// within milliseconds). True when either says stop: the caller then calls its report, which
// does not return; a report first calls report_aborted when the abort word is set. The loop
// keeps one 64-bit end time; the reports read timeout_ns, which the compiler may reload.
struct wait_deadline {
  uint64_t timeout_ns;
  uint64_t end;  // ~0: no bound
  uint32_t spins;
  __device__ wait_deadline() : timeout_ns(state().wait_timeout_ns), end(~0ull), spins(0) {
    if (timeout_ns) end = global_timer_ns() + timeout_ns;
  }
  __device__ __forceinline__ bool expired() {
    return (++spins & 1023u) == 0 && (abort_reason() != 0 || global_timer_ns() > end);
  }
};

// Ends a wait that the abort word stopped; report functions call it first when the word is set.
// gshmemx_abort: the thread exits (PTX `exit`) without a word - not a trap, so the kernel ends
// without an error and the CUDA context survives for a new gshmem_init; the code after the wait
// never runs with its condition unmet. A returning wait would have given the wait loops another
// exit, which cost the barriers 4 registers (tests/registers). A peer's failure: one line naming
// `call`, the failed PE and `peer`, the world PE the wait was for (-1: any), then a trap. Does not
// return: a call that returned would keep the report's arguments live across it.
[[noreturn]] static __device__ __noinline__ inline void report_aborted(const char* call, long long peer) {
  const uint64_t w = abort_word();
  const uint32_t kind = static_cast<uint32_t>(w >> 32);
  const long long arg = static_cast<int32_t>(static_cast<uint32_t>(w));
  const long long me = state().my_pe;
  if (kind == GSHMEMI_ABORT_USER) {
    asm volatile("exit;");
    __builtin_unreachable();
  }
  if (peer >= 0)
    report_printf(
        "gshmem ERROR [PE %lld]: %s: PE %lld failed (died, stopped or unreachable; this PE's log says how); "
        "stopped waiting for PE %lld (missing). Trapping.\n",
        me, call, arg, peer);
  else
    report_printf(
        "gshmem ERROR [PE %lld]: %s: PE %lld failed (died, stopped or unreachable; this PE's log says how); "
        "stopped waiting. Trapping.\n",
        me, call, arg);
  __trap();
}

// Ends the kernel after an error report (debug checks, wait timeouts). Only the
// reporting thread traps, after its report: a trap by another thread of the
// scope could end the grid before the report's printf is written. The others
// park until that trap ends the grid (for at most 2 s, in case no thread
// reports because the threads of a scope passed different arguments).
[[noreturn]] static __device__ __noinline__ inline void trap_after_report(bool reporter) {
  if (!reporter) {
    const uint64_t until = global_timer_ns() + 2000000000ull;
    while (global_timer_ns() < until) __nanosleep(1u << 16);
  }
  __threadfence_system();
  __trap();
}

// The heap of `pe` as mapped here, from the peer table in global memory: PEs outside the
// flat window. Out of line, so the common path below has no load from memory on it.
static __device__ __noinline__ inline char* peer_base_from_table(int pe) { return state().peer_base[pe]; }

// Symmetric address on this PE -> address of the same object on `pe` in this
// GPU's address space (nullptr if `pe` is not reachable by loads/stores).
// The flat window's PEs (a node's VMM heap) take constants only. Written as a
// select, the table's load was predicated, not skipped, and its scoreboard held
// every put's first store (perftest/probe/put_block_probe.cu, variants 4 and 5).
template <class T>
__device__ __forceinline__ T* peer_address(T* sym, int pe) {
  const gshmemi_device_state& s = state();
  const unsigned k = static_cast<unsigned>(pe - s.flat_first);
  const size_t off = static_cast<size_t>(reinterpret_cast<const char*>(sym) - s.heap_base);
  if (__builtin_expect(k < static_cast<unsigned>(s.flat_count), 1))
    return reinterpret_cast<T*>(s.flat_base + k * s.flat_stride + off);
  char* base = peer_base_from_table(pe);
  return base ? reinterpret_cast<T*>(base + off) : nullptr;
}

// The proxy sync words of the team whose gshmemi_team.flags are `team_flags` (its slot's block of
// gshmemi_proxy_channel.sync_words: impl/sync.cuh, take_proxied_signal), or nullptr (no proxy, or
// GSHMEM_PROXY_HOST_SYNC=0).
__device__ __forceinline__ const uint64_t* proxy_sync_words(uint32_t team_flags) {
  const uint64_t* w = state().proxy.sync_words;
  return w == nullptr
             ? nullptr
             : w + ((team_flags >> GSHMEMI_TEAM_SLOT_SHIFT) & GSHMEMI_TEAM_SLOT_MASK) * GSHMEMI_TEAM_PROXY_SYNC_WORDS;
}

// The seam between the transports (docs/internode.md section 2): direct(address) for a PE whose
// heap this GPU reaches by loads and stores, proxied() for one it does not (another node, or
// GSHMEM_DISABLE_P2P: its peer_base is NULL and the proxy channel carries the call). The flat
// window's PEs take the same constants-only path as peer_address and never reach the test; the
// table's PEs pay one compare after the load they already made. `proxied` calls out-of-line
// functions (impl/proxy.cuh), so the inlined direct bodies keep their registers.
// GSHMEMI_PROXY_PATH=0 compiles the proxied branches out (a NULL peer is then written through,
// as before the seam): for tests/codegen, whose table describes the load/store path's PTX. Not
// for programs: their calls to other nodes would fault.
#if defined(GSHMEMI_PROXY_PATH)
constexpr bool kProxyPath = GSHMEMI_PROXY_PATH != 0;
#else
constexpr bool kProxyPath = true;
#endif

template <class T, class Direct, class Proxied>
__device__ __forceinline__ auto route(T* sym, int pe, Direct&& direct, Proxied&& proxied) {
  const gshmemi_device_state& s = state();
  const unsigned k = static_cast<unsigned>(pe - s.flat_first);
  const size_t off = static_cast<size_t>(reinterpret_cast<const char*>(sym) - s.heap_base);
  char* base;
  if (__builtin_expect(k < static_cast<unsigned>(s.flat_count), 1)) {
    base = s.flat_base + k * s.flat_stride;
  } else {
    base = peer_base_from_table(pe);
    if (kProxyPath && __builtin_expect(base == nullptr, 0)) return proxied();
  }
  return direct(reinterpret_cast<T*>(base + off));
}

// ---- debug checks (compiled in with -DGSHMEM_DEBUG_CHECKS=1) ----------------
// A bad argument prints one line naming the call, the PE, the cause and the
// remedy, then traps (the kernel fails with cudaErrorLaunchFailure). Release
// builds compile every check to nothing.
#if defined(GSHMEM_DEBUG_CHECKS)
}  // namespace detail
}  // namespace gshmem
#include <cstdio>
namespace gshmem {
namespace detail {

enum class bad_arg : int {
  pe_range,       // a: unused
  unreachable,    // pe has no load/store mapping here
  not_symmetric,  // [a, a + x) outside the heap
  span_overflow,  // stride x with y elements does not fit the address space
  overlap,        // source [a, +x) and destination [b, +y) overlap
  bad_stride,     // stride x (y: 0 = dest stride dst, 1 = source stride sst)
  misaligned,     // address a, element size x
  not_allocated,  // [a, a + x) starts in heap memory no live allocation covers (detail/live_table.h)
  past_end,       // [a, a + x) runs past the end of the live allocation it starts in
};

// The device's table of live allocations (detail/live_table.h): NULL when the host keeps none.
// The word is read with a volatile load: the host switches it between two tables.
__device__ __forceinline__ const gshmemi_live_table* live_table() {
  const gshmemi_live_table* const* w = state().live_table;
  return w != nullptr ? *static_cast<const gshmemi_live_table* const volatile*>(w) : nullptr;
}

// For a report: the live allocation that [a, +x) starts in (past_end), or the nearest one below
// it (not_allocated), in *r; false when there is none.
__device__ __forceinline__ bool live_neighbour(const void* a, unsigned long long x, gshmemi_live_range* r) {
  const gshmemi_live_table* t = live_table();
  const uint64_t off = static_cast<uint64_t>(static_cast<const char*>(a) - state().heap_base);
  uint64_t at = 0;
  if (t != nullptr) gshmemi_live_classify(t, off, x, &at);
  const bool below = t != nullptr && at < t->count;
  *r = below ? gshmemi_live_ranges(t)[at] : gshmemi_live_range{0, 0};
  return below;
}

// A collective's array `what` (dest, source) in the heap but not inside one live allocation
// (why: not_allocated or past_end): the line of the report.
static __device__ __noinline__ inline void report_not_live(const char* call, const char* what, const void* a,
                                                           unsigned long long x, int why) {
  const gshmemi_device_state& s = state();
  const int blk = static_cast<int>(blockIdx.x), thr = static_cast<int>(threadIdx.x);
  gshmemi_live_range r;
  const bool below = live_neighbour(a, x, &r);
  const uint64_t off = static_cast<uint64_t>(static_cast<const char*>(a) - s.heap_base);
  if (static_cast<bad_arg>(why) == bad_arg::past_end)
    report_printf(
        "gshmem ERROR [PE %lld]: %s: %s [%p, +%llu bytes) runs %llu bytes past the end of its allocation [%p, +%llu "
        "bytes) (block %lld thread %lld); allocate %s large enough for the call\n",
        s.my_pe, call, what, a, x, off + x - (r.offset + r.bytes), s.heap_base + r.offset, r.bytes, blk, thr, what);
  else
    report_printf(
        "gshmem ERROR [PE %lld]: %s: %s [%p, +%llu bytes) lies in symmetric heap memory that no live allocation "
        "covers (freed, never allocated, or padding; the allocation below it is [%p, +%llu bytes)) (block %lld "
        "thread %lld); pass a live allocation of gshmem_malloc/calloc/align\n",
        s.my_pe, call, what, a, x, below ? s.heap_base + r.offset : nullptr, below ? r.bytes : 0ull, blk, thr);
}

// inline: a non-inline __device__ function would also get a host stub with external linkage,
// clashing between translation units.
static __device__ __noinline__ inline void report_bad_argument(const char* call, bad_arg why, const void* a,
                                                               const void* b, unsigned long long x,
                                                               unsigned long long y, int pe) {
  const gshmemi_device_state& s = state();
  const int me = s.version ? s.my_pe : -1;
  const int blk = static_cast<int>(blockIdx.x), thr = static_cast<int>(threadIdx.x);
  if (s.version == 0) {
    report_printf(
        "gshmem ERROR [PE ?]: %s: device state is not initialised in this translation unit "
        "(call gshmem_init before launching kernels that use gshmem)\n",
        call);
    return;
  }
  switch (why) {
    case bad_arg::pe_range:
      report_printf(
          "gshmem ERROR [PE %lld]: %s: target PE %lld is out of range [0, %lld) (block %lld thread %lld); "
          "pass a PE number from 0 to gshmem_n_pes()-1\n",
          me, call, pe, s.n_pes, blk, thr);
      break;
    case bad_arg::unreachable:
      report_printf(
          "gshmem ERROR [PE %lld]: %s: target PE %lld is not reachable by loads/stores from this GPU "
          "(block %lld thread %lld); use host-initiated RMA for it (gshmem_ptr(addr, %lld) returns NULL)\n",
          me, call, pe, blk, thr, pe);
      break;
    case bad_arg::not_symmetric:
      report_printf(
          "gshmem ERROR [PE %lld]: %s: target PE %lld: remote range [%p, +%llu bytes) is not inside the "
          "symmetric heap [%p, %p) (block %lld thread %lld); remote addresses must come from "
          "gshmem_malloc/calloc/align and stay inside the allocation\n",
          me, call, pe, a, x, s.heap_base, s.heap_base + s.heap_size, blk, thr);
      break;
    case bad_arg::span_overflow:
      report_printf(
          "gshmem ERROR [PE %lld]: %s: target PE %lld: stride %lld over %llu elements does not fit the "
          "address space (block %lld thread %lld); check the stride and element count\n",
          me, call, pe, static_cast<long long>(x), y, blk, thr);
      break;
    case bad_arg::overlap:
      report_printf(
          "gshmem ERROR [PE %lld]: %s: target PE %lld: source [%p, +%llu bytes) and destination [%p, "
          "+%llu bytes) overlap (block %lld thread %lld); use non-overlapping buffers (stage the data "
          "through a temporary)\n",
          me, call, pe, a, x, b, y, blk, thr);
      break;
    case bad_arg::bad_stride:
      report_printf(
          "gshmem ERROR [PE %lld]: %s: target PE %lld: %s stride %lld is invalid (block %lld thread %lld); "
          "strides count elements and must be >= 1 (1 = contiguous)\n",
          me, call, pe, y ? "source (sst)" : "destination (dst)", static_cast<long long>(x), blk, thr);
      break;
    case bad_arg::misaligned:
      report_printf(
          "gshmem ERROR [PE %lld]: %s: target PE %lld: address %p is not aligned to the %llu-byte element "
          "size (block %lld thread %lld); pass addresses of objects of that size\n",
          me, call, pe, a, x, blk, thr);
      break;
    case bad_arg::not_allocated:
    case bad_arg::past_end: {
      // The allocation the range starts in (past_end) or the nearest one below it, found again.
      gshmemi_live_range r;
      const bool below = live_neighbour(a, x, &r);
      const uint64_t off = static_cast<uint64_t>(static_cast<const char*>(a) - s.heap_base);
      if (why == bad_arg::past_end)
        report_printf(
            "gshmem ERROR [PE %lld]: %s: target PE %lld: [%p, +%llu bytes) runs %llu bytes past the end of its "
            "allocation [%p, +%llu bytes) (block %lld thread %lld); keep the access inside the allocation\n",
            me, call, pe, a, x, off + x - (r.offset + r.bytes), s.heap_base + r.offset, r.bytes, blk, thr);
      else if (below)
        report_printf(
            "gshmem ERROR [PE %lld]: %s: target PE %lld: [%p, +%llu bytes) lies in symmetric heap memory that no "
            "live allocation covers (freed, never allocated, or padding; the allocation below it is [%p, +%llu "
            "bytes)) (block %lld thread %lld); pass addresses of live allocations\n",
            me, call, pe, a, x, s.heap_base + r.offset, r.bytes, blk, thr);
      else
        report_printf(
            "gshmem ERROR [PE %lld]: %s: target PE %lld: [%p, +%llu bytes) lies in symmetric heap memory that no "
            "live allocation covers (freed, or never allocated) (block %lld thread %lld); pass addresses of live "
            "allocations\n",
            me, call, pe, a, x, blk, thr);
      break;
    }
  }
}

// Checks that need no scope: the PE (in range, reachable) and that [addr, addr+bytes) lies in
// the symmetric heap. True, with the cause in *why, when one fails.
__device__ __forceinline__ bool remote_bad(const void* addr, unsigned long long bytes, int pe, bad_arg* why) {
  const gshmemi_device_state& s = state();
  if (s.version == 0 || pe < 0 || pe >= s.n_pes) {
    *why = bad_arg::pe_range;
    return true;
  }
  if (s.peer_base[pe] == nullptr && s.proxy.ring == nullptr) {  // a NULL base with a ring: a proxy peer
    *why = bad_arg::unreachable;
    return true;
  }
  const char* p = static_cast<const char*>(addr);
  const char* end = s.heap_base + s.heap_size;
  if (p < s.heap_base || p > end || bytes > static_cast<unsigned long long>(end - p)) {
    *why = bad_arg::not_symmetric;
    return true;
  }
  // Inside the heap: inside one live allocation too (the heap is symmetric: one table for all PEs).
  if (const gshmemi_live_table* t = live_table()) {
    uint64_t at;
    const int k = gshmemi_live_classify(t, static_cast<uint64_t>(p - s.heap_base), bytes, &at);
    if (k != GSHMEMI_LIVE_OK) {
      *why = k == GSHMEMI_LIVE_PAST_END ? bad_arg::past_end : bad_arg::not_allocated;
      return true;
    }
  }
  return false;
}

// The remote check, out of line: -1 if it holds, else the bad_arg that failed.
static __device__ __noinline__ inline int remote_check(const void* addr, unsigned long long bytes, int pe) {
  bad_arg why;
  return remote_bad(addr, bytes, pe, &why) ? static_cast<int>(why) : -1;
}
[[noreturn]] static __device__ __noinline__ inline void report_bad_remote(const char* call, int why, const void* addr,
                                                                          unsigned long long bytes, int pe) {
  report_bad_argument(call, static_cast<bad_arg>(why), addr, nullptr, bytes, 0, pe);
  __trap();
}
// Debug builds: check PE range and that [addr, addr+bytes) is symmetric. Every debug check is a
// test out of line and, when it fails, a report that does not return, called from here: then the
// check's work takes none of the caller's registers, and no printf lies below a call that returns
// (everything of the caller live across such a call would keep clear of the printf's registers).
__device__ __forceinline__ void check_remote(const char* call, const void* addr, size_t bytes, int pe) {
  const int why = remote_check(addr, bytes, pe);
  if (why >= 0) report_bad_remote(call, why, addr, bytes, pe);
}
#define GSHMEMI_CHECK_REMOTE(call, addr, bytes, pe) ::gshmem::detail::check_remote(call, addr, bytes, pe)

// AMOs and signals need naturally aligned objects: a misaligned one ends the kernel with
// cudaErrorMisalignedAddress and no word of which call or address. The test in line (one AND),
// the report out of line and not returning, as above.
[[noreturn]] static __device__ __noinline__ inline void report_misaligned(const char* call, const void* addr,
                                                                          unsigned long long size, int pe) {
  report_bad_argument(call, bad_arg::misaligned, addr, nullptr, size, 0, pe);
  __trap();
}
__device__ __forceinline__ void check_aligned(const char* call, const void* addr, unsigned long long size, int pe) {
  if ((reinterpret_cast<uintptr_t>(addr) & (size - 1)) != 0) report_misaligned(call, addr, size, pe);
}
#define GSHMEMI_CHECK_ALIGNED(call, addr, size, pe) ::gshmem::detail::check_aligned(call, addr, size, pe)

// Bytes covered by n elements of `elem` bytes, `stride` elements apart; false on overflow.
__device__ __forceinline__ bool strided_span(long long stride, unsigned long long n, unsigned long long elem,
                                             unsigned long long* span) {
  if (n == 0) {
    *span = 0;
    return true;
  }
  const unsigned long long st = static_cast<unsigned long long>(stride);
  const unsigned long long max = ~0ull / elem;  // largest element index + 1 that fits
  if (n - 1 != 0 && st > (max - 1) / (n - 1)) return false;
  *span = ((n - 1) * st + 1) * elem;
  return true;
}

// Whether n elements at a (stride sa) and at b (stride sb) share a byte. Exact
// for equal strides; unequal strides are not checked (reported as disjoint).
__device__ __forceinline__ bool strided_overlap(const void* a, unsigned long long a_span, long long sa, const void* b,
                                                unsigned long long b_span, long long sb, unsigned long long elem) {
  const uintptr_t x = reinterpret_cast<uintptr_t>(a), y = reinterpret_cast<uintptr_t>(b);
  if (a_span == 0 || b_span == 0 || !(x < y + b_span && y < x + a_span)) return false;
  if (sa != sb) return false;
  const unsigned long long pitch = static_cast<unsigned long long>(sa) * elem;
  const unsigned long long r = (x > y ? x - y : y - x) % pitch;
  return r < elem || pitch - r < elem;
}

// What a failed RMA check reports: the cause and its operands (bad_arg); why < 0: none failed.
struct rma_verdict {
  int why;
  const void* a;
  const void* b;
  unsigned long long x, y;
};

// One RMA call's arguments: remote is the symmetric address on `pe` (as passed),
// local the local one; `put` says which is the destination. Strides in elements.
static __device__ __noinline__ inline rma_verdict rma_check(bool put, const void* remote, long long rstride,
                                                            const void* local, long long lstride,
                                                            unsigned long long nelems, unsigned long long elem,
                                                            int pe) {
  const long long dst_stride = put ? rstride : lstride, src_stride = put ? lstride : rstride;
  const unsigned long long align = elem < 16 ? elem : 8;  // 128-bit elements need 8-byte alignment
  const uintptr_t ra = reinterpret_cast<uintptr_t>(remote), la = reinterpret_cast<uintptr_t>(local);
  bad_arg why = bad_arg::pe_range;
  const void* a = remote;
  const void* b = nullptr;
  unsigned long long x = 0, y = 0, rspan = 0, lspan = 0;
  if (dst_stride < 1 || src_stride < 1) {
    why = bad_arg::bad_stride;
    x = static_cast<unsigned long long>(dst_stride < 1 ? dst_stride : src_stride);
    y = dst_stride < 1 ? 0 : 1;
  } else if (!strided_span(rstride, nelems, elem, &rspan) || !strided_span(lstride, nelems, elem, &lspan)) {
    why = bad_arg::span_overflow;
    x = static_cast<unsigned long long>(strided_span(rstride, nelems, elem, &rspan) ? lstride : rstride);
    y = nelems;
  } else if (remote_bad(remote, rspan, pe, &why)) {
    x = rspan;
  } else if (((ra | la) & (align - 1)) != 0) {
    why = bad_arg::misaligned;
    a = (ra & (align - 1)) ? remote : local;
    x = elem;
  } else {
    const void* rp = peer_address(remote, pe);
    if (local == nullptr || !strided_overlap(rp, rspan, rstride, local, lspan, lstride, elem))
      return {-1, nullptr, nullptr, 0, 0};
    why = bad_arg::overlap;
    a = put ? local : rp;  // source
    b = put ? rp : local;  // destination
    x = put ? lspan : rspan;
    y = put ? rspan : lspan;
  }
  return {static_cast<int>(why), a, b, x, y};
}

// Every thread of the scope passes the same arguments; rank 0 prints, all trap.
template <class Scope>
[[noreturn]] static __device__ __noinline__ void report_bad_rma(const char* call, rma_verdict v, int pe) {
  const bool reporter = Scope::rank() == 0;
  if (reporter) report_bad_argument(call, static_cast<bad_arg>(v.why), v.a, v.b, v.x, v.y, pe);
  trap_after_report(reporter);
}

template <class Scope>
__device__ __forceinline__ void check_rma(const char* call, bool put, const void* remote, long long rstride,
                                          const void* local, long long lstride, unsigned long long nelems,
                                          unsigned long long elem, int pe) {
  const rma_verdict v = rma_check(put, remote, rstride, local, lstride, nelems, elem, pe);
  if (v.why >= 0) report_bad_rma<Scope>(call, v, pe);
}
#define GSHMEMI_CHECK_RMA(Scope, call, put, remote, rstride, local, lstride, nelems, elem, pe) \
  ::gshmem::detail::check_rma<Scope>(call, put, remote, rstride, local, lstride, nelems, elem, pe)
#else
#define GSHMEMI_CHECK_REMOTE(call, addr, bytes, pe) ((void)0)
#define GSHMEMI_CHECK_ALIGNED(call, addr, size, pe) ((void)0)
#define GSHMEMI_CHECK_RMA(Scope, call, put, remote, rstride, local, lstride, nelems, elem, pe) ((void)0)
#endif

}  // namespace detail
}  // namespace gshmem
