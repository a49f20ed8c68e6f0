// SPDX-License-Identifier: BSD-3-Clause
// Internal pieces of the reduction host forms besides the kernel launch (reduce_aux.cu).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "gshmem/types.h"
#include "host/core/status.h"

namespace gshmem::reductions {

// One host or on-stream call, as the C name described it.
struct Call {
  const char* call;  // the C name, for messages
  bool scatter;      // reducescatter
  int op;            // GSHMEMI_ROP_*
  int kind;          // GSHMEMI_RK_*
  size_t esize;      // element bytes
  gshmem_team_t team;
  void* dest;
  const void* source;
  size_t n;  // nreduce
};

// "sum", "max", ... of a GSHMEMI_ROP_* value.
inline const char* op_name(int op) {
  static const char* const names[] = {"and", "or", "xor", "max", "min", "sum", "prod"};
  return op >= 0 && op < 7 ? names[op] : "?";
}

// GSHMEM_DEBUG_CHECKS=1: every member publishes (nreduce, operator/type, dest, source) to
// the others through the team's check area, and every member compares all of them (one
// small kernel on `stream`, two team syncs; the host waits for it). On a difference each
// member logs it and returns GSHMEM_ERROR_MISMATCH, so all of them leave the call alike.
// Every member must run it: set GSHMEM_DEBUG_CHECKS alike on all PEs.
Status check_agreement(const Call& c, cudaStream_t stream);

// long double: no GPU arithmetic for it, so the CPU reduces. Team sync; copy every
// member's source here (through the peer mappings) and combine in team order; team sync
// (nobody reads any source any more); write the local dest. Blocking, on the library's
// stream.
Status cpu_reduce(const Call& c);

}  // namespace gshmem::reductions
