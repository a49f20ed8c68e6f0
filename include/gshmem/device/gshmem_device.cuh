// SPDX-License-Identifier: BSD-3-Clause
// gshmem device API. Read-me-first, in this order:
//   scope.cuh  cooperation scopes (thread / warp / block) as types
//   rma.cuh    put / get / p / g / ptr and their completion rules
//   sync.cuh   fence, quiet, sync_all, barrier_all: the memory model
//   wait.cuh   wait_until / test on local symmetric variables
//   c_api.cuh  the C names (gshmem_int_p, gshmemx_putmem_block, ...), generated
// Bodies live in impl/. Include <gshmem/gshmem.h> rather than this file.
// No relocatable device code is needed: see detail/device_state.h.
#pragma once

#include "scope.cuh"
#include "rma.cuh"
#include "sync.cuh"
#include "wait.cuh"
#include "impl/state.cuh"
#include "impl/rma.cuh"
#include "impl/sync.cuh"
#include "impl/wait.cuh"
#include "c_api.cuh"
#include "launch.cuh"
