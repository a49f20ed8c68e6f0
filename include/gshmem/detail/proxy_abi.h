/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The proxy channel's entry: what a device thread (or a CPU producer in the tests) writes into
 * the ring and what the proxy engine (src/proxy/) parses. docs/internode.md section 3.
 *
 * An entry is 64 bytes, one CPU cache line: eight 8-byte words. Bit 63 of every word is the lap
 * parity ((ticket >> log2 N) & 1) ^ 1, so lap 0 writes 1 and a zeroed ring reads as empty. Each
 * word is written once per lap as one single-copy-atomic store, in any order and with no fence:
 * the engine takes an entry only when all eight parity bits match the lap it expects, so a
 * half-written entry (mixed parity) is simply read again later. One parity bit suffices because
 * a slot is rewritten only after `released` passed it.
 *
 * Word 0: op (bits 0..5) | flags (6..14) | length or team slot (15..38) | target PE (39..62).
 * Word 1: target heap offset.
 * Words 2-5: inline put payload, 4 bytes in bits 0..31 of each (16 B; 8 B in words 2-3 with a
 *            signal) | by-reference: address (2), size (3) | AMO: operand (2-3), compare (4-5).
 * Words 4-6: signal: offset (4), value (5 low half, 6 high half).
 * Words 6-7: the proxy's reply (fetching AMOs, g: a value in 6-7; blocking gets and by-reference
 *            puts: a tag alone in 7). Producers write them with their parity and zero fields.
 * 64-bit operands travel as two 32-bit halves, low half first.
 *
 * Op 0 is never written: a waiter that read its reply stores 0 into word 0, and 0 carries the
 * parity of odd laps, so the engine must never take a word-0 of 0 as a written one.
 *
 * A reply word: value half (bits 0..31) | tag (32..61, never 0) | error (62) | lap parity (63).
 * The tag is derived from the ticket, so a waiter cannot mistake its own zero fields, or a
 * previous lap's reply, for the answer. The error bit says the operation failed (its target
 * PE failed); the device then reads the pinned fault word for the PE to name.
 *
 * Plain C (C99, C++, CUDA): constants and inline encode/decode helpers, no state.
 */
#ifndef GSHMEM_DETAIL_PROXY_ABI_H
#define GSHMEM_DETAIL_PROXY_ABI_H

#include <stdint.h>

#if defined(__CUDACC__)
#define GSHMEMI_PROXY_FN static inline __host__ __device__
#else
#define GSHMEMI_PROXY_FN static inline
#endif

#define GSHMEMI_PROXY_ABI_VERSION 1u
#define GSHMEMI_PROXY_ENTRY_WORDS 8u
#define GSHMEMI_PROXY_ENTRY_BYTES 64u
#define GSHMEMI_PROXY_PARITY_BIT (UINT64_C(1) << 63)
#define GSHMEMI_PROXY_FIELD_MASK (GSHMEMI_PROXY_PARITY_BIT - 1u)
#define GSHMEMI_PROXY_INLINE_MAX 16u       /* bytes of an inline put */
#define GSHMEMI_PROXY_INLINE_SIGNAL_MAX 8u /* bytes of an inline put that carries a signal */

/* Word 0's fields. */
#define GSHMEMI_PROXY_OP_BITS 6u
#define GSHMEMI_PROXY_FLAGS_SHIFT 6u
#define GSHMEMI_PROXY_FLAGS_BITS 9u
#define GSHMEMI_PROXY_LEN_SHIFT 15u
#define GSHMEMI_PROXY_LEN_BITS 24u
#define GSHMEMI_PROXY_PE_SHIFT 39u
#define GSHMEMI_PROXY_PE_BITS 24u
#define GSHMEMI_PROXY_LEN_MAX ((1u << GSHMEMI_PROXY_LEN_BITS) - 1u)
#define GSHMEMI_PROXY_PE_MAX ((1u << GSHMEMI_PROXY_PE_BITS) - 1u)

/* Operations (6 bits). AMO ops take width and fetch from the flags; a `p` is an inline PUT,
 * a `g` a GET with FETCH (the value comes back in the reply words). */
enum gshmemi_proxy_op {
  GSHMEMI_PROXY_OP_NONE = 0, /* never written: see above */
  GSHMEMI_PROXY_OP_PUT = 1,
  GSHMEMI_PROXY_OP_GET = 2,
  GSHMEMI_PROXY_OP_SIGNAL = 3, /* a signal alone (signal_op) */
  GSHMEMI_PROXY_OP_AMO_SET = 4,
  GSHMEMI_PROXY_OP_AMO_ADD = 5,
  GSHMEMI_PROXY_OP_AMO_AND = 6,
  GSHMEMI_PROXY_OP_AMO_OR = 7,
  GSHMEMI_PROXY_OP_AMO_XOR = 8,
  GSHMEMI_PROXY_OP_AMO_SWAP = 9,
  GSHMEMI_PROXY_OP_AMO_CSWAP = 10,
  GSHMEMI_PROXY_OP_AMO_FETCH = 11,
  GSHMEMI_PROXY_OP_COLL_BARRIER = 16, /* reserved: leaders' steps (docs/internode.md section 7) */
  GSHMEMI_PROXY_OP_COUNT = 17
};

/* Flags (9 bits). */
#define GSHMEMI_PROXY_F_HAS_SIGNAL 0x001u /* words 4-6 carry a signal applied after the data */
#define GSHMEMI_PROXY_F_SIGNAL_ADD 0x002u /* the signal adds its value (else it sets it) */
#define GSHMEMI_PROXY_F_WIDTH_SHIFT 2u    /* log2 of the AMO / element width in bytes: 2 bits */
#define GSHMEMI_PROXY_F_WIDTH_MASK 0x00cu
#define GSHMEMI_PROXY_F_FETCH 0x010u  /* a value comes back in words 6-7 */
#define GSHMEMI_PROXY_F_BY_REF 0x020u /* words 2-3: address and size of the payload / destination */
#define GSHMEMI_PROXY_F_NBI 0x040u    /* no tag reply for a by-reference put or get: a quiet completes it */
/* A signal complete once sent: no quiet waits for its acknowledgement. Only a team sync's counted
 * signal carries it: nothing needs that acknowledgement, its receiver waits for the signal itself
 * (docs/internode.md section 6), and a barrier's quiet need not wait for the previous barrier's. */
#define GSHMEMI_PROXY_F_UNTRACKED 0x080u
/* With UNTRACKED: the signal is a team sync's, to a slot below GSHMEMI_TEAM_PROXY_SYNC_WORDS of
 * the team's sync flags. The target's proxy counts it in its team's proxy sync words in host memory
 * (gshmemi_proxy_channel.sync_words) instead of adding it to the flag on the GPU. */
#define GSHMEMI_PROXY_F_SYNC 0x100u

/* Reply words. */
#define GSHMEMI_PROXY_TAG_SHIFT 32u
#define GSHMEMI_PROXY_TAG_BITS 30u
#define GSHMEMI_PROXY_TAG_MASK ((UINT64_C(1) << GSHMEMI_PROXY_TAG_BITS) - 1u)
#define GSHMEMI_PROXY_REPLY_ERROR (UINT64_C(1) << 62)

/* A device-side failure on the proxy path (a full ring or no reply for GSHMEM_WAIT_TIMEOUT, a
 * failed target): the first failing thread stores a diagnostic into the two words at
 * GSHMEMI_PROXY_DIAG_WORD of the line of the `fault` word (pinned; the device cannot print from
 * there without costing every kernel registers: include/gshmem/device/impl/proxy.cuh), then
 * traps; this PE's proxy thread prints it. Word 0: 1 << 63 | why (bits 56..59) | the entry's op
 * (bits 48..53) | this PE (bits 24..47) | the target PE (bits 0..23); word 1: the ticket. */
#define GSHMEMI_PROXY_DIAG_WORD 2u
#define GSHMEMI_PROXY_DIAG_RING_FULL 1u /* no free ring slot */
#define GSHMEMI_PROXY_DIAG_NO_REPLY 2u  /* no reply */
#define GSHMEMI_PROXY_DIAG_FAILED 3u    /* the target failed (error reply, or the fault word at quiet) */
#define GSHMEMI_PROXY_DIAG_QUIET 4u     /* quiet: `completed` did not pass the ticket */

typedef struct gshmemi_proxy_entry {
  uint64_t w[8];
} gshmemi_proxy_entry;

#ifdef __cplusplus
static_assert(sizeof(gshmemi_proxy_entry) == GSHMEMI_PROXY_ENTRY_BYTES, "a proxy entry is one 64-byte line");
static_assert(GSHMEMI_PROXY_OP_BITS + GSHMEMI_PROXY_FLAGS_BITS + GSHMEMI_PROXY_LEN_BITS + GSHMEMI_PROXY_PE_BITS == 63,
              "word 0's fields fill bits 0..62");
static_assert(GSHMEMI_PROXY_OP_COUNT <= (1u << GSHMEMI_PROXY_OP_BITS), "ops fit 6 bits");
#endif

/* The parity bit every word of `ticket`'s entry carries in a ring of 2^log2_entries. */
GSHMEMI_PROXY_FN uint64_t gshmemi_proxy_parity(uint64_t ticket, unsigned log2_entries) {
  return (((ticket >> log2_entries) & 1u) ^ 1u) << 63;
}

/* A word: `field` (bits 0..62) under the parity bit. */
GSHMEMI_PROXY_FN uint64_t gshmemi_proxy_word(uint64_t parity, uint64_t field) {
  return parity | (field & GSHMEMI_PROXY_FIELD_MASK);
}

GSHMEMI_PROXY_FN uint64_t gshmemi_proxy_w0(unsigned op, unsigned flags, uint32_t len, uint32_t pe) {
  return (uint64_t)(op & ((1u << GSHMEMI_PROXY_OP_BITS) - 1u)) |
         ((uint64_t)(flags & ((1u << GSHMEMI_PROXY_FLAGS_BITS) - 1u)) << GSHMEMI_PROXY_FLAGS_SHIFT) |
         ((uint64_t)(len & GSHMEMI_PROXY_LEN_MAX) << GSHMEMI_PROXY_LEN_SHIFT) |
         ((uint64_t)(pe & GSHMEMI_PROXY_PE_MAX) << GSHMEMI_PROXY_PE_SHIFT);
}

GSHMEMI_PROXY_FN unsigned gshmemi_proxy_w0_op(uint64_t w0) {
  return (unsigned)(w0 & ((1u << GSHMEMI_PROXY_OP_BITS) - 1u));
}
GSHMEMI_PROXY_FN unsigned gshmemi_proxy_w0_flags(uint64_t w0) {
  return (unsigned)((w0 >> GSHMEMI_PROXY_FLAGS_SHIFT) & ((1u << GSHMEMI_PROXY_FLAGS_BITS) - 1u));
}
GSHMEMI_PROXY_FN uint32_t gshmemi_proxy_w0_len(uint64_t w0) {
  return (uint32_t)((w0 >> GSHMEMI_PROXY_LEN_SHIFT) & GSHMEMI_PROXY_LEN_MAX);
}
GSHMEMI_PROXY_FN uint32_t gshmemi_proxy_w0_pe(uint64_t w0) {
  return (uint32_t)((w0 >> GSHMEMI_PROXY_PE_SHIFT) & GSHMEMI_PROXY_PE_MAX);
}

/* 64-bit operands as two 32-bit halves, each in bits 0..31 of a word. */
GSHMEMI_PROXY_FN uint64_t gshmemi_proxy_lo(uint64_t v) { return v & 0xffffffffu; }
GSHMEMI_PROXY_FN uint64_t gshmemi_proxy_hi(uint64_t v) { return v >> 32; }
GSHMEMI_PROXY_FN uint64_t gshmemi_proxy_join(uint64_t lo_word, uint64_t hi_word) {
  return (lo_word & 0xffffffffu) | ((hi_word & 0xffffffffu) << 32);
}

/* Whether the entry whose word 0 is `w0` takes a reply the producer waits for (and so holds its
 * slot until the waiter clears word 0): fetching ops, blocking by-reference gets and puts. A
 * non-blocking get (NBI) takes none: its data lands before `completed` passes it, which is what
 * the quiet that completes it reads. */
GSHMEMI_PROXY_FN int gshmemi_proxy_wants_reply(uint64_t w0) {
  const unsigned op = gshmemi_proxy_w0_op(w0), f = gshmemi_proxy_w0_flags(w0);
  if (f & GSHMEMI_PROXY_F_FETCH) return 1;
  if (op == GSHMEMI_PROXY_OP_GET || op == GSHMEMI_PROXY_OP_PUT)
    return (f & GSHMEMI_PROXY_F_BY_REF) && !(f & GSHMEMI_PROXY_F_NBI);
  return 0;
}

/* The reply tag of `ticket`: 30 bits, never 0. */
GSHMEMI_PROXY_FN uint64_t gshmemi_proxy_tag(uint64_t ticket) {
  return (ticket & (GSHMEMI_PROXY_TAG_MASK >> 1)) | (UINT64_C(1) << (GSHMEMI_PROXY_TAG_BITS - 1));
}

/* A reply word: a 32-bit value half (0 for a tag alone) under `ticket`'s tag. */
GSHMEMI_PROXY_FN uint64_t gshmemi_proxy_reply_word(uint64_t parity, uint64_t ticket, uint64_t half, int error) {
  return parity | (error ? GSHMEMI_PROXY_REPLY_ERROR : 0u) | (gshmemi_proxy_tag(ticket) << GSHMEMI_PROXY_TAG_SHIFT) |
         (half & 0xffffffffu);
}

/* Whether reply word `w` answers `ticket` (the waiter's poll). */
GSHMEMI_PROXY_FN int gshmemi_proxy_reply_is_for(uint64_t w, uint64_t ticket) {
  return ((w >> GSHMEMI_PROXY_TAG_SHIFT) & GSHMEMI_PROXY_TAG_MASK) == gshmemi_proxy_tag(ticket);
}

/* The first diagnostic word of a failure `why` of the entry whose word 0 is `w0` (0: none), by `me`. */
GSHMEMI_PROXY_FN uint64_t gshmemi_proxy_diag(unsigned why, uint64_t w0, int me) {
  return (UINT64_C(1) << 63) | ((uint64_t)(why & 15u) << 56) | ((uint64_t)gshmemi_proxy_w0_op(w0) << 48) |
         ((uint64_t)((uint32_t)me & 0xffffffu) << 24) | (uint64_t)gshmemi_proxy_w0_pe(w0);
}

#endif /* GSHMEM_DETAIL_PROXY_ABI_H */
