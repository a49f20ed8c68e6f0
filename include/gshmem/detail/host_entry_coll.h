/* SPDX-License-Identifier: BSD-3-Clause */
/* Library entry points behind the host side of the team, team-synchronisation
 * and data-movement collective C names (gshmem_team_*, gshmem_team_sync,
 * gshmem_barrier, gshmem_TYPE_broadcast, ..._on_stream). Not for users: call
 * the C names. Every entry takes the C name it serves (`call`) for messages. */
#ifndef GSHMEM_DETAIL_HOST_ENTRY_COLL_H
#define GSHMEM_DETAIL_HOST_ENTRY_COLL_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#include "gshmem/detail/export.h"
#include "gshmem/types.h"

/* Per-team symmetric control words (device/impl/team.cuh, docs/teams.md). A team
 * of M PEs owns, after its sync_flags[M] and coll_flags[M]:
 *   lanes[GSHMEMI_COLL_MAX_LANES][M]   data-movement progress flags, one row per lane
 *   counts[M]                          per-PE byte counts (collect)
 *   check[M][GSHMEMI_TEAM_CHECK_WORDS] argument records (host debug checks) */
#define GSHMEMI_COLL_MAX_LANES 64
#define GSHMEMI_TEAM_CHECK_WORDS 4
/* 64-bit words of team control per team member: sync, coll, lanes, counts, check. */
#define GSHMEMI_TEAM_CTRL_WORDS (2 + GSHMEMI_COLL_MAX_LANES + 1 + GSHMEMI_TEAM_CHECK_WORDS)
/* Proxy sync words per team (gshmemi_proxy_channel.sync_words): the sync slots a signal through the proxy
 * may reach, sync_flags[0 .. 63] (an all-to-all sync's member slots, at most
 * GSHMEMI_ALLTOALL_SYNC_MAX, and a dissemination's round slots, fewer than 32). */
#define GSHMEMI_TEAM_PROXY_SYNC_WORDS 64

/* Data-movement collectives (gshmemi_host_coll `op`). */
#define GSHMEMI_COLL_BROADCAST 0
#define GSHMEMI_COLL_FCOLLECT 1
#define GSHMEMI_COLL_COLLECT 2
#define GSHMEMI_COLL_ALLTOALL 3
#define GSHMEMI_COLL_ALLTOALLS 4

/* gshmemi_host_coll / gshmemi_host_team_sync `mode`. */
#define GSHMEMI_COLL_BLOCKING 0 /* on the library's stream; returns when complete */
#define GSHMEMI_COLL_STREAM 1   /* ordered on `stream`; returns at once */

GSHMEM_EXTERN_C_BEGIN
/* ---- team queries and management (src/host/team/) ---- */
GSHMEM_API int gshmemi_host_team_my_pe(gshmem_team_t team);
GSHMEM_API int gshmemi_host_team_n_pes(gshmem_team_t team);
GSHMEM_API int gshmemi_host_team_translate_pe(gshmem_team_t src_team, int src_pe, gshmem_team_t dest_team);
GSHMEM_API void* gshmemi_host_team_ptr(gshmem_team_t team, const void* dest, int pe);
GSHMEM_API int gshmemi_host_team_get_config(gshmem_team_t team, long config_mask, gshmem_team_config_t* config);
GSHMEM_API int gshmemi_host_team_split_strided(gshmem_team_t parent, int start, int stride, int size,
                                               const gshmem_team_config_t* config, long config_mask,
                                               gshmem_team_t* new_team);
GSHMEM_API int gshmemi_host_team_split_2d(gshmem_team_t parent, int xrange, const gshmem_team_config_t* xaxis_config,
                                          long xaxis_mask, gshmem_team_t* xaxis_team,
                                          const gshmem_team_config_t* yaxis_config, long yaxis_mask,
                                          gshmem_team_t* yaxis_team);
GSHMEM_API void gshmemi_host_team_destroy(gshmem_team_t team);

/* ---- team barrier / sync (src/host/sync/barrier.cu) ----
 * with_quiet = 1: barrier (host operations complete first, then sync). */
GSHMEM_API int gshmemi_host_team_sync(const char* call, gshmem_team_t team, int with_quiet, int mode,
                                      cudaStream_t stream);

/* ---- data-movement collectives (src/host/coll/) ----
 * nelems elements of elem_bytes each (the *mem forms: bytes, elem_bytes 1);
 * dst / sst: element strides (alltoalls; 1 otherwise); root: team PE (broadcast).
 * Returns 0 (GSHMEM_SUCCESS) or a status code after logging the cause. */
GSHMEM_API int gshmemi_host_coll(const char* call, int op, gshmem_team_t team, void* dest, const void* source,
                                 size_t nelems, size_t elem_bytes, ptrdiff_t dst, ptrdiff_t sst, int root, int mode,
                                 cudaStream_t stream);
GSHMEM_EXTERN_C_END

#endif
