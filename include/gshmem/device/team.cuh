// SPDX-License-Identifier: BSD-3-Clause
// Teams on the device: queries and PE translation. Declarations and contracts;
// bodies in impl/team.cuh. Team synchronisation (team_sync, barrier) is in
// sync.cuh, the data-movement collectives in coll.cuh. Creating and destroying
// teams is host-only (gshmem_team_split_strided / _2d / gshmem_team_destroy).
//
// A team handle names the same team on every member (it is the index of the
// team's slot, agreed among the members when the team was made). Team PE i is
// world PE start + i * stride. The predefined teams:
//   GSHMEM_TEAM_WORLD   every PE
//   GSHMEM_TEAM_SHARED  the PEs whose heaps this PE can load/store (this node)
//   GSHMEMX_TEAM_NODE   the PEs on this node
// (SHARED and NODE are the node's PEs when their world numbers form an
// arithmetic progression, otherwise just this PE; see docs/teams.md.)
//
// Invalid handles (GSHMEM_TEAM_INVALID, destroyed teams, teams this PE is not a
// member of) make the queries return -1; they never fault.
#pragma once

#include "gshmem/types.h"

namespace gshmem {

// This PE's number in `team`, or -1.
__device__ int team_my_pe(gshmem_team_t team);
// Number of PEs in `team`, or -1.
__device__ int team_n_pes(gshmem_team_t team);
// Number in dest_team of the PE that is src_pe in src_team, or -1 when either
// team is invalid, src_pe is out of range or that PE is not in dest_team.
__device__ int team_translate_pe(gshmem_team_t src_team, int src_pe, gshmem_team_t dest_team);
// Address of symmetric `dest` on team PE `pe` of `team` usable with ordinary
// loads and stores from this GPU, or nullptr when the team is invalid, `pe` is
// out of range, `dest` is not in the symmetric heap or that PE is not reachable
// that way (gshmem::ptr for team PEs).
__device__ void* team_ptr(gshmem_team_t team, const void* dest, int pe);

}  // namespace gshmem
