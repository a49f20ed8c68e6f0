// SPDX-License-Identifier: BSD-3-Clause
// gshmem device API. Read-me-first, in this order:
//   scope.cuh  cooperation scopes (thread / warp / block) as types
//   rma.cuh    put / get / p / g / ptr and their completion rules
//   sync.cuh   fence, quiet, waits, sync_all, barrier_all: the memory model
//   c_api.cuh  the C names (gshmem_int_p, gshmemx_putmem_block, ...), generated
// Bodies live in impl/. Include <gshmem/gshmem.h> rather than this file.
// No relocatable device code is needed: see detail/device_state.h.
#pragma once

#include "scope.cuh"
#include "rma.cuh"
#include "sync.cuh"
#include "impl/state.cuh"
#include "impl/rma.cuh"
#include "impl/sync.cuh"
#include "c_api.cuh"
#include "launch.cuh"
