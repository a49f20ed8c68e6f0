// SPDX-License-Identifier: BSD-3-Clause
// gshmem device API. Read-me-first, in this order (each header states its
// contract; the bodies live in impl/):
//   scope.cuh   cooperation scopes (thread / warp / block) as types
//   rma.cuh     put / get / p / g / iput / iget / ptr and their completion rules
//   sync.cuh    fence, quiet, sync_all, barrier_all: the memory model
//               (in full, with the PTX behind it: docs/memory-model.md)
//   wait.cuh    wait_until / test (and _all/_any/_some/_vector) on local symmetric variables
//   amo.cuh     atomics on remote symmetric objects
//   signal.cuh  put_signal, signal_op, signal_fetch, signal_wait_until
//   team.cuh    teams on the device: my_pe, n_pes, translate_pe
//   coll.cuh    team barriers and syncs, broadcast, (f)collect, alltoall(s)
//   reduce.cuh  reductions and reducescatter
//   launch.cuh  collective launch
//   c_api.cuh   the C names (gshmem_int_p, gshmemx_putmem_block, ...), generated
// Include <gshmem/gshmem.h> rather than this file.
// No relocatable device code is needed: see detail/device_state.h.
#pragma once

#include "scope.cuh"
#include "rma.cuh"
#include "sync.cuh"
#include "wait.cuh"
#include "amo.cuh"
#include "signal.cuh"
#include "team.cuh"
#include "coll.cuh"
#include "reduce.cuh"
#include "impl/state.cuh"
#include "impl/rma.cuh"
#include "impl/sync.cuh"
#include "impl/wait.cuh"
#include "c_api.cuh"
#include "launch.cuh"
