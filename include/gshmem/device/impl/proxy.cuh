// SPDX-License-Identifier: BSD-3-Clause
// The device side of the proxy channel (docs/internode.md section 3): how a device call reaches a
// PE whose heap this GPU does not map (another node, or GSHMEM_DISABLE_P2P). A call becomes one
// or more 64-byte entries in this PE's ring of mapped pinned memory (layout:
// include/gshmem/detail/proxy_abi.h), which its proxy thread parses and carries to the target's
// proxy; a reply comes back in the entry's words 6-7, and completion in the pinned `completed`
// word, which quiet reads.
//
// Almost no calls: everything here is in the caller's code, behind route()'s proxied branch
// (state.cuh). A call, even out of line and never taken, changed how ptxas allocates a user's
// whole kernel: through a pointer every kernel of the translation unit got the registers of the
// largest function a pointer may reach (38-48 here), directly the caller's live values were
// stacked above the callee's (58), and kernels of 1,024 threads without launch bounds went past
// the 64 registers they may have (tests/registers). So the waits are loops here (the one call:
// put_call), and a failure
// (a full ring or no reply for GSHMEM_WAIT_TIMEOUT, a failed target) is not printed by the GPU:
// the thread stores what failed into the pinned diagnostic words beside `fault` and traps, and
// this PE's proxy thread prints it (src/host/proxy/proxy_thread.cpp).
//
// Ordering (docs/memory-model.md, "Across the proxy"): one ticket counter orders a thread's
// calls, the engine numbers them per target in ticket order and the target applies them in that
// order, which is what `fence` promises; a by-reference entry is written after a system fence (a
// release over the scope's data); quiet waits until `completed` passes every ticket claimed
// before it.
#pragma once

#include <cstdint>
#include <type_traits>

#include "../scope.cuh"
#include "gshmem/detail/proxy_abi.h"
#include "gshmem/types.h"
#include "memops.cuh"
#include "state.cuh"

namespace gshmem {
namespace detail {
namespace proxy {

__device__ __forceinline__ const gshmemi_proxy_channel& channel() { return state().proxy; }
__device__ __forceinline__ bool present() { return state().proxy.ring != nullptr; }
__device__ __forceinline__ uint64_t offset_of(const void* sym) {
  return static_cast<uint64_t>(static_cast<const char*>(sym) - state().heap_base);
}

// ---- failures ---------------------------------------------------------------------------------

// What failed, for the proxy thread's message (proxy_abi.h, GSHMEMI_PROXY_DIAG_*): the first
// failing thread stores code and ticket into the diagnostic words and the kernel traps. With no
// channel at all (gshmem_init refuses such a job, so only a bug gets here) it traps at once.
__device__ __forceinline__ void fail(unsigned why, uint64_t w0, uint64_t ticket) {
  if (present()) {
    uint64_t* diag = const_cast<uint64_t*>(channel().fault) + GSHMEMI_PROXY_DIAG_WORD;
    if (atomicCAS(reinterpret_cast<unsigned long long*>(diag), 0ull,
                  static_cast<unsigned long long>(gshmemi_proxy_diag(why, w0, state().my_pe))) == 0ull) {
      st_relaxed_sys(diag + 1, ticket);
      __threadfence_system();
    }
  }
  __trap();
}

// How a wait on words the proxy stores in pinned host memory polls: every poll is a read across
// PCIe. A kernel of 48 x 256 threads putting element by element into a full ring, each thread
// polling back to back, stalled the GPU's writes to host memory behind the reads - the entries
// of the threads whose tickets fit, and the stream writes that apply what other PEs send - and
// both PEs stopped (the compat ring across 2 simulated nodes; docs/internode.md section 3). So
// a thread waiting for a full ring naps in proportion to how far its ticket is from a free
// slot (claim), and one waiting for a reply or for quiet naps a fixed microsecond after a few
// back-to-back polls: their latency is the caller's. Naps that grew with the poll count, or a
// window of host readers, took registers the put loops do not have (tests/registers).
#ifndef GSHMEMI_PROXY_NAP_REPLY_NS
#define GSHMEMI_PROXY_NAP_REPLY_NS 1024u
#endif
#ifndef GSHMEMI_PROXY_NAP_PER_TICKET_NS
#define GSHMEMI_PROXY_NAP_PER_TICKET_NS 256u
#endif
constexpr uint32_t kTightPolls = 8;

// Polls until ready() holds, napping as above (NapNs 0: never); false when
// GSHMEM_WAIT_TIMEOUT expired or the abort word was set first (both are read every 1024th
// poll): the caller's fail() traps, also after gshmemx_abort (an exit there cost the barriers 3
// registers: tests/registers), and this PE's proxy thread, which reads the abort word too, says
// why.
template <uint32_t NapNs, class Ready>
__device__ __forceinline__ bool poll(Ready ready) {
  uint64_t start = 0;
  for (uint32_t k = 1;; ++k) {
    if (ready()) return true;
    if (NapNs != 0 && k > kTightPolls) __nanosleep(NapNs);
    if ((k & 1023u) == 0) {
      const uint64_t now = global_timer_ns(), limit = state().wait_timeout_ns;
      if (start == 0)
        start = now;
      else if ((limit != 0 && now - start > limit) || abort_reason() != 0)
        return false;
    }
  }
}

__device__ __forceinline__ uint64_t* slot_of(uint64_t ticket) {
  const gshmemi_proxy_channel& c = channel();
  return c.ring + ((ticket & ((uint64_t{1} << c.log2_entries) - 1)) << 3);
}

// ---- posting an entry -------------------------------------------------------------------------

// Claims a ticket for the entry whose word 0 is `w0`. A ring with room costs one atomic and no
// PCIe read: `released` is cached in device memory. A full ring is waited for by reading
// `released` with an acquire (the proxy stored it after it had read the slot's previous entry,
// so the entry's writes cannot overtake that read), napping between reads; then the cache is
// raised.
__device__ __forceinline__ uint64_t claim(uint64_t w0) {
  const gshmemi_proxy_channel& ch = channel();
  const uint64_t t = atomicAdd(reinterpret_cast<unsigned long long*>(ch.issued), 1ull);
  const uint64_t n = uint64_t{1} << ch.log2_entries;
  if (__builtin_expect(t >= ld_acquire(ch.released_cache) + n, 0)) {
    uint64_t rel = 0;
    // Each waiter naps in proportion to how far its ticket is from a free slot: the next ticket
    // to go in polls about once a microsecond, the thousandth about every 0.25 ms (the GPU
    // caps a nap at 1 ms; no min() here: registers, tests/registers).
    if (!poll<0>([&] {
          if (t < (rel = ld_acquire_sys(ch.released)) + n) return true;
          __nanosleep(static_cast<unsigned>(t - rel - n) * GSHMEMI_PROXY_NAP_PER_TICKET_NS);
          return false;
        }))
      fail(GSHMEMI_PROXY_DIAG_RING_FULL, w0, t);
    __threadfence();  // then the cache, read with an acquire above
    atomicMax(reinterpret_cast<unsigned long long*>(ch.released_cache), static_cast<unsigned long long>(rel));
  }
  return t;
}

// Writes ticket t's entry: eight words under its lap parity, four 16-byte stores, no fence: each
// word is valid on its own once written, and the proxy takes the entry only when all eight carry
// the lap's parity (proxy_abi.h). Word 7, the reply, gets zero fields.
__device__ __forceinline__ void write_entry(uint64_t t, uint64_t w0, uint64_t w1, uint64_t w2, uint64_t w3, uint64_t w4,
                                            uint64_t w5, uint64_t w6) {
  const uint64_t p = gshmemi_proxy_parity(t, channel().log2_entries);
  uint64_t* s = slot_of(t);
  st_relaxed_sys_v2(s, gshmemi_proxy_word(p, w0), gshmemi_proxy_word(p, w1));
  st_relaxed_sys_v2(s + 2, gshmemi_proxy_word(p, w2), gshmemi_proxy_word(p, w3));
  st_relaxed_sys_v2(s + 4, gshmemi_proxy_word(p, w4), gshmemi_proxy_word(p, w5));
  st_relaxed_sys_v2(s + 6, gshmemi_proxy_word(p, w6), p);
}

// Waits for the reply to `ticket` (a tag alone in word 7, or a value in words 6-7), then hands
// the slot back by clearing word 0 (a release: the reads of the reply come first); returns the
// value (0 for a tag). The reply is read with acquires: what the proxy did before it (a get's
// data written here) is visible.
__device__ __forceinline__ uint64_t await_reply(uint64_t w0, uint64_t ticket, bool value) {
  uint64_t* s = slot_of(ticket);
  uint64_t lo = 0, hi = 0;
  if (!poll<GSHMEMI_PROXY_NAP_REPLY_NS>([&] {
        hi = ld_acquire_sys(s + 7);
        if (!gshmemi_proxy_reply_is_for(hi, ticket)) return false;
        if (!value) return true;
        lo = ld_acquire_sys(s + 6);
        return gshmemi_proxy_reply_is_for(lo, ticket) != 0;
      }))
    fail(GSHMEMI_PROXY_DIAG_NO_REPLY, w0, ticket);
  if ((lo | hi) & GSHMEMI_PROXY_REPLY_ERROR) fail(GSHMEMI_PROXY_DIAG_FAILED, w0, ticket);
  st_release_sys(s, uint64_t{0});
  return value ? gshmemi_proxy_join(lo, hi) : 0;
}

// Posts one entry by one thread and, when it wants a reply (gshmemi_proxy_wants_reply: a fetch,
// a blocking by-reference put or get), waits for it: returns the fetched value, else 0. Words 0
// and 1 as given (op, flags, length, target; the heap offset at the target), words 2-6 as the
// entry's kind has them (proxy_abi.h).
__device__ __forceinline__ uint64_t post(uint64_t w0, uint64_t w1, uint64_t w2, uint64_t w3, uint64_t w4, uint64_t w5,
                                         uint64_t w6) {
  const uint64_t t = claim(w0);
  write_entry(t, w0, w1, w2, w3, w4, w5, w6);
  if (!gshmemi_proxy_wants_reply(w0)) return 0;
  return await_reply(w0, t, (gshmemi_proxy_w0_flags(w0) & GSHMEMI_PROXY_F_FETCH) != 0);
}

__device__ __forceinline__ uint64_t w0(unsigned op, unsigned flags, uint32_t len, int pe) {
  return gshmemi_proxy_w0(op, flags, len, static_cast<uint32_t>(pe));
}
__device__ __forceinline__ unsigned width_flags(unsigned bytes) {
  const unsigned lg = bytes == 8 ? 3u : bytes == 4 ? 2u : bytes == 2 ? 1u : 0u;
  return lg << GSHMEMI_PROXY_F_WIDTH_SHIFT;
}
__device__ __forceinline__ unsigned signal_flags(const uint64_t* sig, int sig_op) {
  if (sig == nullptr) return 0;
  return GSHMEMI_PROXY_F_HAS_SIGNAL | (sig_op == GSHMEM_SIGNAL_ADD ? GSHMEMI_PROXY_F_SIGNAL_ADD : 0u);
}

// Up to 8 bytes from `src` (any state space: byte loads), little-endian, as decode_entry reads
// an inline payload.
__device__ __forceinline__ uint64_t load_bytes(const char* src, uint64_t bytes) {
  uint64_t v = 0;
#pragma unroll 1
  for (uint64_t i = 0; i < bytes && i < 8; ++i) v |= uint64_t{static_cast<uint8_t>(src[i])} << (8 * i);
  return v;
}

// ---- the calls --------------------------------------------------------------------------------

// Inline put entries of up to 8 bytes each from `s` (any state space), by one thread. The signal
// of a put of at most 8 bytes rides on its one entry (proxy_abi.h); a larger put's follows as an
// entry of its own (ticket order is apply order at the target, so it comes after the data). The
// loop carries no signal: fewer live values around its post (registers, tests/registers).
__device__ __forceinline__ void put_inline(uint64_t off, const char* s, uint64_t bytes, int pe, unsigned sflags,
                                           uint64_t sig_off, uint64_t sig_value) {
  if (sflags != 0 && bytes <= GSHMEMI_PROXY_INLINE_SIGNAL_MAX) {
    const uint64_t v = load_bytes(s, bytes);
    post(w0(bytes ? GSHMEMI_PROXY_OP_PUT : GSHMEMI_PROXY_OP_SIGNAL,
            bytes ? sflags : sflags & GSHMEMI_PROXY_F_SIGNAL_ADD, static_cast<uint32_t>(bytes), pe),
         off, gshmemi_proxy_lo(v), gshmemi_proxy_hi(v), sig_off, gshmemi_proxy_lo(sig_value),
         gshmemi_proxy_hi(sig_value));
    return;
  }
  for (uint64_t pos = 0; pos < bytes; pos += 8) {
    const uint64_t len = bytes - pos < 8 ? bytes - pos : 8;
    const uint64_t v = load_bytes(s + pos, len);
    post(w0(GSHMEMI_PROXY_OP_PUT, 0, static_cast<uint32_t>(len), pe), off + pos, gshmemi_proxy_lo(v),
         gshmemi_proxy_hi(v), 0, 0, 0);
  }
  if (sflags != 0)
    post(w0(GSHMEMI_PROXY_OP_SIGNAL, sflags & GSHMEMI_PROXY_F_SIGNAL_ADD, 0, pe), 0, 0, 0, sig_off,
         gshmemi_proxy_lo(sig_value), gshmemi_proxy_hi(sig_value));
}

// putmem / putmem_nbi / put_signal to a proxy peer, by every thread of Scope with the same
// arguments: after the scope's barrier its first thread posts. A source in global memory larger
// than an inline entry (16 bytes) goes by reference, after a system fence (a release, cumulative
// over the scope's writes of the source): the proxy copies it out, so a blocking put waits for the
// reply that says the copy was taken, and a non-blocking one returns at once (the source may not
// change until a quiet, as OpenSHMEM says). Anything else - up to 16 bytes from anywhere, or a
// source in shared or local memory, which the proxy cannot read - goes inline (put_inline),
// complete on return: a small put costs the proxy no copy out of device memory and no reply.
template <class Scope>
__device__ __forceinline__ void put_body(void* dest, const void* source, size_t bytes, int pe, bool nbi,
                                         const uint64_t* sig, uint64_t sig_value, int sig_op) {
  Scope::sync();
  if (Scope::rank() == 0) {
    const unsigned sflags = signal_flags(sig, sig_op);
    const uint64_t off = offset_of(dest), sig_off = sig ? offset_of(sig) : 0;
    // A block's small puts from global memory go by reference too: the inline path in line in
    // a block's kernel costs it registers (tests/registers); a thread's and a warp's are calls.
    if (__isGlobal(source) && (bytes > GSHMEMI_PROXY_INLINE_MAX || std::is_same_v<Scope, block_scope>)) {
      fence_acq_rel_sys();
      post(w0(GSHMEMI_PROXY_OP_PUT, GSHMEMI_PROXY_F_BY_REF | (nbi ? GSHMEMI_PROXY_F_NBI : 0u) | sflags, 0, pe), off,
           reinterpret_cast<uint64_t>(source), bytes, sig_off, gshmemi_proxy_lo(sig_value),
           gshmemi_proxy_hi(sig_value));
    } else {
      put_inline(off, static_cast<const char*>(source), bytes, pe, sflags, sig_off, sig_value);
    }
  }
  if (!nbi) Scope::sync();  // a blocking put: every thread may reuse the source on return
}

// A thread's or a warp's proxied put as a call of its own, a block's in line: their load/store
// copies stay in line with many registers live (impl/copy.cuh), and this code in line with them
// took a warp's put loop past the 64 registers a block of 1,024 threads may have, where as a call
// it takes fewer than the copy; a block's copy is out of line and its kernel small, which a call
// would grow (tests/registers). The only call on the proxy path.
template <class Scope>
static __device__ __noinline__ void put_call(void* dest, const void* source, size_t bytes, int pe, bool nbi,
                                             const uint64_t* sig, uint64_t sig_value, int sig_op) {
  put_body<Scope>(dest, source, bytes, pe, nbi, sig, sig_value, sig_op);
}
template <class Scope>
__device__ __forceinline__ void put(void* dest, const void* source, size_t bytes, int pe, bool nbi, const uint64_t* sig,
                                    uint64_t sig_value, int sig_op) {
  if constexpr (std::is_same_v<Scope, block_scope>)
    put_body<Scope>(dest, source, bytes, pe, nbi, sig, sig_value, sig_op);
  else
    put_call<Scope>(dest, source, bytes, pe, nbi, sig, sig_value, sig_op);
}

// One fetch of `bytes` (1, 2, 4 or 8) at heap offset `off` of `pe`: a `g`.
__device__ __forceinline__ uint64_t fetch(uint64_t off, unsigned bytes, int pe) {
  return post(w0(GSHMEMI_PROXY_OP_GET, GSHMEMI_PROXY_F_FETCH | width_flags(bytes), 0, pe), off, 0, 0, 0, 0, 0);
}

// getmem / getmem_nbi from a proxy peer, by every thread of Scope with the same arguments. A
// destination in global memory larger than a word is written by the proxy (by reference): a
// blocking get waits for the reply, which comes after the data landed; a non-blocking one returns
// and its quiet waits for `completed`, which passes it only once its data landed. Anything else
// (a word, or a destination in shared or local memory, which the proxy cannot write) is fetched
// in pieces of up to 8 bytes by the scope's first thread and is complete on return.
template <class Scope>
__device__ __forceinline__ void get(void* dest, const void* source, size_t bytes, int pe, bool nbi) {
  Scope::sync();
  if (Scope::rank() == 0) {
    const uint64_t off = offset_of(source);
    if (bytes > 8 && __isGlobal(dest)) {
      post(w0(GSHMEMI_PROXY_OP_GET, GSHMEMI_PROXY_F_BY_REF | (nbi ? GSHMEMI_PROXY_F_NBI : 0u), 0, pe), off,
           reinterpret_cast<uint64_t>(dest), bytes, 0, 0, 0);
    } else {
      char* d = static_cast<char*>(dest);
      for (uint64_t pos = 0; pos < bytes;) {
        const unsigned n = bytes - pos >= 8 ? 8u : bytes - pos >= 4 ? 4u : bytes - pos >= 2 ? 2u : 1u;
        const uint64_t v = fetch(off + pos, n, pe);
#pragma unroll 1
        for (unsigned k = 0; k < n; ++k) d[pos + k] = static_cast<char>(v >> (8 * k));
        pos += n;
      }
    }
  }
  Scope::sync();
}

// A single element (p): inline, complete at the target in ticket order.
__device__ __forceinline__ void p(void* dest, uint64_t bits, unsigned bytes, int pe) {
  post(w0(GSHMEMI_PROXY_OP_PUT, 0, bytes, pe), offset_of(dest), gshmemi_proxy_lo(bits), gshmemi_proxy_hi(bits), 0, 0,
       0);
}

__device__ __forceinline__ uint64_t g(const void* source, unsigned bytes, int pe) {
  return fetch(offset_of(source), bytes, pe);
}

// An AMO, executed by the target's GPU with the same system-scope atomics its NVLink peers use
// (so atomic with theirs). `op` is a gshmemi_proxy_op; a fetching one waits for its value.
__device__ __forceinline__ uint64_t amo(unsigned op, bool fetching, void* dest, unsigned bytes, uint64_t operand,
                                        uint64_t compare, int pe) {
  const unsigned flags = width_flags(bytes) | (fetching ? GSHMEMI_PROXY_F_FETCH : 0u);
  return post(w0(op, flags, 0, pe), offset_of(dest), gshmemi_proxy_lo(operand), gshmemi_proxy_hi(operand),
              gshmemi_proxy_lo(compare), gshmemi_proxy_hi(compare), 0);
}

// signal_op, and the counted signals of team syncs (ADD 1).
__device__ __forceinline__ void signal(const uint64_t* sig, uint64_t value, int sig_op, int pe) {
  post(w0(GSHMEMI_PROXY_OP_SIGNAL, signal_flags(sig, sig_op) & GSHMEMI_PROXY_F_SIGNAL_ADD, 0, pe), 0, 0, 0,
       offset_of(sig), gshmemi_proxy_lo(value), gshmemi_proxy_hi(value));
}

// A team sync's counted signal (ADD 1), complete once the proxy sent it: a quiet does not wait for
// its acknowledgement (GSHMEMI_PROXY_F_UNTRACKED), which nothing needs (its receiver waits for the
// signal itself). A barrier quiets before its signals; with tracked ones that quiet also waited for
// the previous barrier's acknowledgements (no gain measured: docs/internode.md section 7).
// The target's proxy counts it in host memory (GSHMEMI_PROXY_F_SYNC; impl/sync.cuh,
// take_proxied_signal): no kernel launch there.
__device__ __forceinline__ void sync_signal(const uint64_t* sig, int pe) {
  post(
      w0(GSHMEMI_PROXY_OP_SIGNAL, GSHMEMI_PROXY_F_SIGNAL_ADD | GSHMEMI_PROXY_F_UNTRACKED | GSHMEMI_PROXY_F_SYNC, 0, pe),
      0, 0, 0, offset_of(sig), 1, 0);
}

// The proxy's half of quiet, by one thread after the scope's barrier and system fence: waits
// until `completed` (the lowest incomplete ticket, stored by the proxy with a release after the
// targets acknowledged their applies and every get's data landed here) passes every ticket
// claimed so far. Covers more than the scope's own operations: correct, and no per-scope
// bookkeeping. A failed peer's lost operations also end the wait: then the fault word is set.
__device__ __forceinline__ void quiet() {
  const gshmemi_proxy_channel& c = channel();
  const uint64_t t = ld_volatile(c.issued);
  if (t <= ld_acquire(c.completed_cache)) return;
  uint64_t done = 0;
  if (!poll<GSHMEMI_PROXY_NAP_REPLY_NS>([&] { return (done = ld_acquire_sys(c.completed)) >= t; }))
    fail(GSHMEMI_PROXY_DIAG_QUIET, 0, t);
  if (ld_relaxed_sys(c.fault) != 0) fail(GSHMEMI_PROXY_DIAG_FAILED, 0, t);
  __threadfence();
  atomicMax(reinterpret_cast<unsigned long long*>(c.completed_cache), static_cast<unsigned long long>(done));
}

}  // namespace proxy
}  // namespace detail
}  // namespace gshmem
