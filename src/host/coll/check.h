// SPDX-License-Identifier: BSD-3-Clause
// Argument checks of the host and on-stream data-movement collectives.
//   check_arguments: local and cheap, always. A failure is logged (call, PE, cause,
//     remedy) and the call returns without moving data; without agreement the
//     other members may then wait for this PE (bounded by GSHMEM_WAIT_TIMEOUT).
//   check_agreement: with GSHMEM_DEBUG_CHECKS=1 (on every PE), the members
//     all-gather their arguments and local verdicts over the team, compare them
//     (nelems, root, strides, element size, which collective) and all return the
//     same verdict: a bad call fails on every member together, naming the PE.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "gshmem/detail/device_state.h"
#include "gshmem/types.h"
#include "host/core/status.h"

namespace gshmem::coll {

struct Request {
  int op;  // GSHMEMI_COLL_*
  void* dest;
  const void* source;
  size_t nelems;
  size_t elem_bytes;
  ptrdiff_t dst, sst;
  int root;
};

const char* op_name(int op);

Status check_arguments(const char* call, const gshmemi_team& t, const Request& q);

Status check_agreement(const char* call, gshmem_team_t team, const gshmemi_team& t, const Request& q, Status local,
                       cudaStream_t stream);

}  // namespace gshmem::coll
