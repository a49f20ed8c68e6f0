// SPDX-License-Identifier: BSD-3-Clause
// Device-side ordering, completion and synchronisation: declarations and the
// memory-model contract. Bodies: impl/sync.cuh.
//
// MEMORY MODEL (what each call orders; "visible" means to any thread on any
// GPU or host that later observes it through one of these calls). The full
// model, with the PTX behind each call and why it suffices: docs/memory-model.md.
//
//  fence()        Puts, p's and AMOs the calling thread issued to a PE before
//                 the fence are delivered to that PE before any it issues to the
//                 same PE after it. Does not wait for delivery. (PTX
//                 fence.acq_rel.sys.) Typical use: put(data); fence(); p(flag).
//  quiet()        Every put/p/AMO/_nbi operation the calling thread issued
//                 before is complete and visible, and every get has landed.
//                 (PTX fence.sc.sys.) At warp/block scope, the combined
//                 operations of all participating threads (scope barrier,
//                 one fence.sc.sys by the first thread, scope barrier).
//  wait_until()   (wait.cuh) Returns once the local symmetric `ivar` satisfies the
//                 comparison; loads by the caller after it observe everything
//                 the writer made visible before writing `ivar` (acquire,
//                 system scope). Pair it with a writer's fence()/quiet().
//  sync_all()     Every PE arrives before any leaves; orders the caller's
//                 memory operations like a release/acquire pair across PEs but
//                 does NOT complete outstanding puts (use barrier_all).
//  barrier_all()  quiet() of all participating threads + sync_all(): after it
//                 every PE sees all puts issued by every PE before it.
//
// Collective calls (sync_all, barrier_all) must be entered by every PE, by one
// thread / warp / block per PE at a time, in the same order on every PE. The
// host forms and *_on_stream forms share the same sequence.
//
// Waits spin; GSHMEM_WAIT_TIMEOUT (seconds) makes barrier waits report the PE
// they wait for and trap instead of hanging forever.
#pragma once

#include "gshmem/types.h"
#include "scope.cuh"

namespace gshmem {

__device__ int my_pe();
__device__ int n_pes();

__device__ void fence();
template <class Scope = thread_scope>
__device__ void quiet();

template <class Scope = thread_scope>
__device__ void sync_all();
template <class Scope = thread_scope>
__device__ void barrier_all();

// Team forms (teams: team.cuh). Every member of `team` calls, one thread / warp /
// block per PE, in the same order as its other collectives on that team:
//   team_sync(team)  sync_all() over the team's members only;
//   barrier(team)    quiet() of the participating threads + team_sync(team):
//                    afterwards every member sees the puts every member issued
//                    before it (NVSHMEM's nvshmem_barrier(team)).
// Return 0. A team that is not valid on this PE (GSHMEM_TEAM_INVALID, destroyed,
// not a member) returns -1 at once without synchronising; debug builds
// (GSHMEM_DEBUG_CHECKS) report it and trap. Host, *_on_stream and device forms
// of one team share one sequence. Teams of up to 32 PEs exchange all-to-all
// (one round trip); larger teams use a dissemination barrier (log2 M rounds).
template <class Scope = thread_scope>
__device__ int team_sync(gshmem_team_t team);
template <class Scope = thread_scope>
__device__ int barrier(gshmem_team_t team);

}  // namespace gshmem
