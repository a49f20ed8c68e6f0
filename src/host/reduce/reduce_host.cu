// SPDX-License-Identifier: BSD-3-Clause
// Host and on-stream forms of the team reductions (gshmem_TYPE_OP_reduce,
// gshmem_TYPE_OP_reducescatter, gshmemx_..._on_stream): argument checks, then the
// library's reduction kernel (reduce_kernel.cuh) on the library's stream (blocking forms,
// which then wait for its done word, host/launch/done_word.h) or on the caller's stream.
// The kernel runs the same code and the same per-slot epochs as the device forms, so host,
// stream and device calls of a team interleave freely. Grid: one CTA per slot of the
// call's plan, at most one per SM (of this PE's share of them when PEs share the GPU) and
// GSHMEM_REDUCE_CTAS (host/core/config_table.h; default 128), of 256 threads for the LL
// and push paths and kReduceThreads (512) for the pull path (threads_for).
//
// Always checked (cheap): the team, dest/source inside the symmetric heap, dest/source
// overlapping without being the same address, the team's scratch being large enough.
// With GSHMEM_DEBUG_CHECKS=1 also that every member passed the same nreduce, operation,
// type, dest and source (reduce_aux.cu); a mismatch makes every member return
// GSHMEM_ERROR_MISMATCH instead of hanging or corrupting memory.
#include <cuda_runtime.h>

#include <cstdint>

#include "gshmem/detail/host_entry_reduce.h"
#include "host/core/runtime.h"
#include "host/mem/heap.h"
#include "host/launch/early_launch.h"
#include "host/launch/preload.h"
#include "host/core/config.h"
#include "reduce_aux.h"
#include "reduce_launch.h"

#include <gshmem/device/impl/reduce_layout.cuh>

namespace gshmem::reductions {
namespace {

// Whether (op, kind, size) is one of the table's pairs.
bool supported(int op, int kind, int size) {
  const bool bitwise = op == GSHMEMI_ROP_AND || op == GSHMEMI_ROP_OR || op == GSHMEMI_ROP_XOR;
  const bool ordered = op == GSHMEMI_ROP_MIN || op == GSHMEMI_ROP_MAX;
  if (op < 0 || op > GSHMEMI_ROP_PROD) return false;
  switch (kind) {
    case GSHMEMI_RK_SINT:
    case GSHMEMI_RK_UINT:
      return size == 1 || size == 2 || size == 4 || size == 8;
    case GSHMEMI_RK_FLOAT:
      return !bitwise && (size == 4 || size == 8 || size == static_cast<int>(sizeof(long double)));
    case GSHMEMI_RK_HALF:
    case GSHMEMI_RK_BF16:
      return !bitwise && size == 2;
    case GSHMEMI_RK_COMPLEX:
      return !bitwise && !ordered && (size == 8 || size == 16);
    default:
      return false;
  }
}

// The table's kernel for (op, kind, size), launched with l (or loaded: l.load_only).
cudaError_t dispatch(int op, int kind, int size, const Launch& l) {
  const bool is_int = kind == GSHMEMI_RK_SINT || kind == GSHMEMI_RK_UINT;
  return is_int ? launch_int(op, kind == GSHMEMI_RK_SINT, size, l) : launch_float(op, kind, size, l);
}

// Every kernel of the table, loaded by gshmem_init (host/launch/preload.h): the dispatch in
// its load-only mode over the table's pairs (long double is reduced by the CPU).
cudaError_t load_all() {
  Launch l{};
  l.load_only = true;
  for (int op = 0; op <= GSHMEMI_ROP_PROD; ++op)
    for (int kind = GSHMEMI_RK_SINT; kind <= GSHMEMI_RK_COMPLEX; ++kind)
      for (int size : {1, 2, 4, 8, 16}) {
        if (!supported(op, kind, size) || (kind == GSHMEMI_RK_FLOAT && size > 8)) continue;
        const cudaError_t e = dispatch(op, kind, size, l);
        if (e != cudaSuccess) return e;
      }
  return cudaSuccess;
}
const preload::Entry kPreload(load_all);

int ctas_for(int slots) {
  int sms = 0;
  if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, rt().device) != cudaSuccess || sms < 1) {
    cudaGetLastError();
    sms = 1;
  }
  sms = share_of_gpu(sms);  // one CTA per SM: PEs on one GPU split it (runtime.h)
  const long long knob = config::get().reduce_ctas;
  const int most = knob < 1 ? 1 : (knob > detail::kReduceMaxSlots ? detail::kReduceMaxSlots : static_cast<int>(knob));
  const int ctas = slots < sms ? slots : sms;
  return ctas < most ? ctas : most;
}

// Threads per CTA: the LL and push paths move a few KiB per CTA, and a smaller CTA
// launches faster (src/host/coll/coll.cu, kSmallThreads); the pull path keeps
// kReduceThreads, whose loads from the peers in flight make its bandwidth.
int threads_for(const detail::reduce_plan& plan) { return plan.ll || plan.push ? 256 : detail::kReduceThreads; }

// Enqueues the call on `stream`; with `wait` (the blocking forms) also waits for it.
Status run(const Call& c, cudaStream_t stream, bool wait) {
  const Runtime& r = rt();
  const gshmemi_team& t = r.teams[c.team];
  const size_t dbytes = c.n * c.esize;
  if (t.size == 1) {  // the result is the source (reducescatter: its only chunk)
    if (c.dest != c.source)
      GSHMEM_CUDA_TRY(c.call, cudaMemcpyAsync(c.dest, c.source, dbytes, cudaMemcpyDeviceToDevice, stream));
    if (wait) GSHMEM_CUDA_TRY(c.call, cudaStreamSynchronize(stream));
    return GSHMEM_SUCCESS;
  }
  if (c.kind == GSHMEMI_RK_FLOAT && c.esize > 8) {  // long double: the CPU reduces, after the stream's work
    GSHMEM_CUDA_TRY(c.call, cudaStreamSynchronize(stream));
    return cpu_reduce(c);
  }
  const detail::reduce_region reg = detail::reduce_region_of(t);
  const detail::reduce_plan plan = detail::reduce_plan_of(c.n, static_cast<uint32_t>(c.esize), c.scatter, reg);
  const Launch l{c.team, c.dest, c.source, c.n, c.scatter,
                 // A team across nodes: one CTA, the spanning path (reduce_kernel.cuh).
                 (t.flags & GSHMEMI_TEAM_SPANS_NODES) ? 1 : ctas_for(plan.slots), threads_for(plan), stream,
                 stream_captured(stream), wait ? next_done_word() : DoneWord{}};
  const cudaError_t e = dispatch(c.op, c.kind, static_cast<int>(c.esize), l);
  if (e != cudaSuccess) {
    GSHMEM_LOG_ERROR("%s: launching the reduction kernel (%d CTAs of %d threads) failed: %s (%s)", c.call, l.ctas,
                     l.threads, cudaGetErrorString(e), cudaGetErrorName(e));
    return GSHMEM_ERROR_CUDA;
  }
  if (wait) GSHMEM_CUDA_TRY(c.call, await_done(stream, l.done));
  return GSHMEM_SUCCESS;
}

// Argument checks every call makes (they cost nanoseconds).
Status check(const Call& c) {
  const Runtime& r = rt();
  if (c.team < 0 || c.team >= static_cast<int>(r.teams.size()) || r.teams[c.team].size <= 0 ||
      r.teams[c.team].my_pe < 0) {
    GSHMEM_LOG_ERROR(
        "%s: team %d is not a valid team on PE %d (GSHMEM_TEAM_INVALID, destroyed, or this PE is not "
        "a member); pass the handle of a team this PE belongs to",
        c.call, c.team, r.my_pe);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  if (!supported(c.op, c.kind, static_cast<int>(c.esize))) {
    GSHMEM_LOG_ERROR("%s: internal error: operator %s is not defined for element kind %d of %zu bytes", c.call,
                     op_name(c.op), c.kind, c.esize);
    return GSHMEM_ERROR_INTERNAL;
  }
  const gshmemi_team& t = r.teams[c.team];
  if (c.n == 0) return GSHMEM_SUCCESS;
  const size_t parts = c.scatter ? static_cast<size_t>(t.size) : 1;
  if (c.n > SIZE_MAX / c.esize / parts) {
    GSHMEM_LOG_ERROR("%s: nreduce %zu is too large (the byte count overflows)", c.call, c.n);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  const size_t dbytes = c.n * c.esize, sbytes = dbytes * parts;
  GSHMEM_TRY(check_symmetric(c.call, c.dest, dbytes));
  GSHMEM_TRY(check_symmetric(c.call, c.source, sbytes));
  const char* d = static_cast<const char*>(c.dest);
  const char* s = static_cast<const char*>(c.source);
  if (d != s && d < s + sbytes && s < d + dbytes) {
    GSHMEM_LOG_ERROR(
        "%s: dest [%p, +%zu bytes) and source [%p, +%zu bytes) overlap but are not the same address; "
        "pass the same array (in-place) or disjoint arrays",
        c.call, c.dest, dbytes, c.source, sbytes);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  if (t.size > 1 && !(c.kind == GSHMEMI_RK_FLOAT && c.esize > 8) && detail::reduce_region_of(t).nslots == 0) {
    GSHMEM_LOG_ERROR(
        "%s: the collective scratch of team %d (%llu bytes for %d members) is too small for "
        "reductions; raise GSHMEM_TEAM_SCRATCH_SIZE",
        c.call, c.team, static_cast<unsigned long long>(t.scratch_bytes), t.size);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  return GSHMEM_SUCCESS;
}

}  // namespace
}  // namespace gshmem::reductions

extern "C" GSHMEM_API int gshmemi_host_reduce(const char* call, int coll, int op, int rtype, gshmem_team_t team,
                                              void* dest, const void* source, size_t nreduce, int mode,
                                              cudaStream_t stream) {
  namespace reductions = gshmem::reductions;
  using gshmem::rt;
  GSHMEM_TRY(gshmem::require_init(call));
  const reductions::Call c{
      call,   coll == GSHMEMI_REDUCE_SCATTER, op, rtype >> 8, static_cast<size_t>(rtype & 0xff), team, dest, source,
      nreduce};
  GSHMEM_TRY(reductions::check(c));
  const bool on_stream = mode == GSHMEMI_REDUCE_STREAM;
  cudaStream_t st = on_stream ? stream : gshmem::internal_stream();
  // The agreement check comes before the nreduce == 0 return: a member passing 0 while the
  // others do not is one of the mismatches it reports.
  if (gshmem::config::get().debug_checks && rt().teams[team].size > 1) GSHMEM_TRY(reductions::check_agreement(c, st));
  if (nreduce == 0) return GSHMEM_SUCCESS;
  return reductions::run(c, st, !on_stream);
}
