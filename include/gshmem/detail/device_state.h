/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The state every device-side gshmem call reads: a small, trivially copyable
 * block that the host library fills at init and after every change.
 *
 * How it reaches kernels without -rdc: each CUDA translation unit that
 * includes <gshmem/gshmem.h> gets its own `static __constant__` copy of this
 * struct plus a static registrar object that hands the library a function
 * uploading into that copy (device/impl/state.cuh). The library keeps the list
 * and fills every registered copy, so kernels in several shared libraries, each
 * compiled without relocatable device code, see the same state.
 *
 * Versioned: the header and the library compare GSHMEMI_DEVICE_STATE_VERSION and
 * sizeof at registration; a mismatch is reported instead of read as garbage.
 * Not a public struct: its layout may change between versions.
 */
#ifndef GSHMEM_DETAIL_DEVICE_STATE_H
#define GSHMEM_DETAIL_DEVICE_STATE_H

#include <stdint.h>

#include "gshmem/detail/export.h"
#include "gshmem/detail/live_table.h"

#define GSHMEMI_DEVICE_STATE_VERSION 12u

/* One team as the device sees it. Team PE i is world PE start + i * stride.
 * Every member holds the same symmetric offsets for the symmetric fields, so
 * peer_address() of them reaches the same object on another member.
 * Cost per team: (2 * size) * 8 bytes of flags + scratch_bytes of heap per PE. */
typedef struct gshmemi_team {
  int32_t start;        /* world PE of team PE 0 */
  int32_t stride;       /* >= 1 */
  int32_t size;         /* number of PEs; 0 marks an unused slot */
  int32_t my_pe;        /* this PE's index in the team; -1 if not a member */
  uint64_t* sync_flags; /* symmetric [size]: sync_flags[i] = syncs team PE i signalled here, not yet waited for */
  uint64_t* coll_flags; /* symmetric [size]: data-ready epochs for collectives */
  char* scratch;        /* symmetric collective scratch */
  uint64_t scratch_bytes;
  /* The scratch's layout, sized once when the team is created (team_layout_fill in
   * device/impl/reduce_layout.cuh) so that device calls only add and multiply: */
  uint32_t ll_words;          /* LL words per sender (impl/ll_layout.cuh); 0: no LL area */
  uint32_t reduce_slots;      /* flag rows of the reductions (impl/reduce_layout.cuh); 0: none */
  uint64_t reduce_push_bytes; /* bytes of each push buffer of the reductions ([parity][sender]); 0: none */
  uint32_t flags;             /* GSHMEMI_TEAM_* */
  /* Members per node when the members are grouped by node in equal runs of consecutive team
   * PEs (team PEs n*node_run .. n*node_run+node_run-1 on node n); 1 otherwise, and for a team
   * of one node its size. The collectives of a team that spans nodes take their node steps
   * from it (device/impl/coll_span.cuh); the same on every member (from the node of every
   * world PE, src/host/team/setup.cpp). */
  uint32_t node_run;
} gshmemi_team;

/* Some member of the team is reached through the proxy (another node): its collectives take
 * the spanning path (device/impl/coll_span.cuh, reduce_span.cuh; docs/internode.md section 7). */
#define GSHMEMI_TEAM_SPANS_NODES 1u
/* Bits 8..15 of `flags`: the team's slot (its handle), which places its proxy sync words
 * (gshmemi_proxy_channel.sync_words). In the flags, not a field of its own: kernels copy team
 * entries onto their stacks (tests/registers bounds the frames). */
#define GSHMEMI_TEAM_SLOT_SHIFT 8u
#define GSHMEMI_TEAM_SLOT_MASK 0xffu

/* The proxy channel of this PE (docs/internode.md section 3): how device calls reach PEs whose
 * heaps are not mapped here (another node, or GSHMEM_DISABLE_P2P). `ring` NULL: no proxy (every
 * peer is mapped, or the job has one node). A peer is a proxy peer exactly when its peer_base
 * entry is NULL and `ring` is not: init fails when a peer is reachable by neither. Entries are
 * laid out by include/gshmem/detail/proxy_abi.h. */
typedef struct gshmemi_proxy_channel {
  uint64_t* ring;            /* mapped pinned host memory, 8 << log2_entries words */
  uint64_t* issued;          /* device memory: tickets claimed so far (atomicAdd) */
  uint64_t* released_cache;  /* device memory: the last `released` a producer read */
  uint64_t* completed_cache; /* device memory: the last `completed` a quiet read */
  const uint64_t* released;  /* mapped pinned, stored by the proxy: tickets < released + N may be written */
  const uint64_t* completed; /* mapped pinned, stored by the proxy: the lowest ticket not complete */
  const uint64_t* fault;     /* mapped pinned, stored by the proxy: 1 + the first failed PE; 0: none */
  uint32_t log2_entries;
  uint32_t reserved;
  /* The teams' proxy sync words (device/impl/sync.cuh, take_proxied_signal): mapped pinned host
   * memory, GSHMEMI_TEAM_PROXY_SYNC_WORDS per team slot, slot after slot. Word j of a team's
   * counts the sync signals that the member whose signals arrive in its sync_flags[j] sent
   * through the proxy; this PE's proxy thread adds them (no GPU work here), the waiter compares
   * with sync_flags[j], which then counts the ones taken. NULL without a proxy, and with
   * GSHMEM_PROXY_HOST_SYNC=0 (the proxy then adds the signals to sync_flags on the GPU). */
  uint64_t* sync_words;
} gshmemi_proxy_channel;

typedef struct gshmemi_device_state {
  uint32_t version;     /* GSHMEMI_DEVICE_STATE_VERSION once initialised, 0 before */
  uint32_t struct_size; /* sizeof(gshmemi_device_state) */
  int32_t my_pe;
  int32_t n_pes;
  char* heap_base;        /* this PE's heap: symmetric addresses live in [base, base+size) */
  uint64_t heap_size;     /* bytes currently mapped */
  char* const* peer_base; /* device array [n_pes]: PE p's heap as mapped here; NULL if unreachable */
  gshmemi_team* teams;    /* device array [max_teams]; teams[GSHMEM_TEAM_WORLD] always valid */
  int32_t max_teams;
  int32_t reserved1;
  uint64_t wait_timeout_ns; /* 0: device waits are unbounded; else report + trap after this */
  uint32_t debug_checks;    /* 1: device calls validate PE and pointer arguments */
  uint32_t reserved0;
  /* Flat peer layout, when the mapped heaps of PEs flat_first .. flat_first+flat_count-1
   * lie flat_stride apart from flat_base (the VMM heap of a node's PEs): their bases come
   * from this __constant__ block instead of a dependent load from peer_base. */
  char* flat_base;
  uint64_t flat_stride;
  int32_t flat_first;
  int32_t flat_count; /* 0: no flat layout; use peer_base */
  /* teams[GSHMEM_TEAM_WORLD], which never changes after init, in the __constant__ block:
   * the world team's operations read its fields from the constant cache, which no fence
   * empties, instead of from global memory (device/impl/team.cuh, team_entry). */
  gshmemi_team world;
  gshmemi_proxy_channel proxy;
  /* The abort word: one word of mapped pinned host memory, 0 while the job runs. The host sets
   * it once (gshmemx_abort, or a peer's failure found by the bootstrap or the proxy); every
   * library spin loop reads it where it reads the clock for GSHMEM_WAIT_TIMEOUT (never on the
   * fast path) and returns (gshmemx_abort) or reports and traps (a peer failed). */
  const uint64_t* abort_word;
  /* The live allocations of the heap (detail/live_table.h): device memory holding the address of
   * the current table, which the host switches after writing a new one. Read by the debug checks
   * of GSHMEM_DEBUG_CHECKS builds only, out of line. NULL, or a NULL table: no table (the checks
   * stop at the heap's bounds). */
  const gshmemi_live_table* const* live_table;
} gshmemi_device_state;

/* The abort word's value: the reason in the high 32 bits, its argument in the low 32. */
#define GSHMEMI_ABORT_USER 1u /* gshmemx_abort(code): the low bits hold the code */
#define GSHMEMI_ABORT_PEER 2u /* a peer failed (died, stopped, unreachable): the low bits hold its PE */
#define GSHMEMI_ABORT_VALUE(kind, arg) (((uint64_t)(kind) << 32) | (uint64_t)(uint32_t)(arg))

#ifdef __cplusplus
static_assert(sizeof(gshmemi_team) == 72, "team layout changed: bump GSHMEMI_DEVICE_STATE_VERSION");
static_assert(sizeof(gshmemi_proxy_channel) == 72, "proxy channel layout changed: bump GSHMEMI_DEVICE_STATE_VERSION");
static_assert(sizeof(gshmemi_device_state) == 256, "device state layout changed: bump GSHMEMI_DEVICE_STATE_VERSION");
#endif

/* Uploads *state into one translation unit's __constant__ copy; returns a cudaError_t value. */
typedef int (*gshmemi_state_upload_fn)(const gshmemi_device_state* state);

GSHMEM_EXTERN_C_BEGIN
/* Called by each CUDA TU's static registrar (load time) and on unload. If the
 * library is already initialised the state is uploaded at once. */
GSHMEM_API void gshmemi_register_device_state(gshmemi_state_upload_fn upload, uint32_t version, uint32_t struct_size,
                                              const char* tu_name);
GSHMEM_API void gshmemi_unregister_device_state(gshmemi_state_upload_fn upload);
GSHMEM_EXTERN_C_END

#endif
