// SPDX-License-Identifier: BSD-3-Clause
// Reduction host forms, besides the kernel launch: the debug-mode argument agreement
// check and the CPU path of long double (see reduce_aux.h).
#include <gshmem/gshmem.h>

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "gshmem/detail/host_entry_reduce.h"
#include "host/core/runtime.h"
#include "host/mem/heap.h"
#include "host/launch/preload.h"
#include "host/proxy/host_ops.h"
#include "reduce_aux.h"

#include <gshmem/device/impl/reduce_layout.cuh>

namespace gshmem::reductions {
namespace {

constexpr int kWords = detail::kReduceHostCheckWords;  // nreduce, op/type, dest, source
const char* const kWordName[kWords] = {"nreduce", "operation or element type", "dest", "source"};

struct Mismatch {
  long long team_pe;  // first member whose record differs, or -1
  long long word;
  unsigned long long theirs, mine;
};

// One block: publish this member's record, team sync, compare all, team sync (so that
// nobody overwrites the records before every member compared them).
__global__ void agree_kernel(int team, uint64_t w0, uint64_t w1, uint64_t w2, uint64_t w3, Mismatch* out) {
  const gshmemi_team t = detail::team_entry(team);
  const detail::reduce_region r = detail::reduce_region_of(t);
  const uint64_t mine[kWords] = {w0, w1, w2, w3};
  for (int j = threadIdx.x; j < t.size; j += blockDim.x) {
    uint64_t* sym = r.host_check + static_cast<uint64_t>(t.my_pe) * kWords;
    const int pe = detail::team_world_pe(t, j);
    uint64_t* dst = detail::peer_address(sym, pe);
    for (int w = 0; w < kWords; ++w)
      if (dst != nullptr)
        detail::st_volatile(dst + w, mine[w]);
      else  // a member on another node: through the proxy, applied before the sync's signal
        detail::proxy::p(sym + w, mine[w], 8, pe);
  }
  detail::fence_acq_rel_sys();
  detail::sync_members<block_scope>(t, "gshmem reduction argument check (GSHMEM_DEBUG_CHECKS)");
  if (threadIdx.x == 0) {
    Mismatch m{-1, -1, 0, 0};
    for (int j = 0; j < t.size && m.team_pe < 0; ++j)
      for (int w = 0; w < kWords; ++w) {
        const uint64_t v = detail::ld_volatile(r.host_check + static_cast<uint64_t>(j) * kWords + w);
        if (v != mine[w]) {
          m = Mismatch{j, w, v, mine[w]};
          break;
        }
      }
    *out = m;
  }
  detail::sync_members<block_scope>(t, "gshmem reduction argument check (GSHMEM_DEBUG_CHECKS)");
}

__global__ void team_sync_kernel(int team) {
  detail::sync_members<block_scope>(detail::team_entry(team), "gshmem reduction (long double, CPU path)");
}

Status team_sync(const Call& c) {
  team_sync_kernel<<<1, 32, 0, internal_stream()>>>(c.team);
  GSHMEM_CUDA_TRY(c.call, cudaGetLastError());
  GSHMEM_CUDA_TRY(c.call, cudaStreamSynchronize(rt().stream));
  return GSHMEM_SUCCESS;
}

template <class T>
T combine(int op, T a, T b) {
  switch (op) {
    case GSHMEMI_ROP_SUM:
      return a + b;
    case GSHMEMI_ROP_PROD:
      return a * b;
    case GSHMEMI_ROP_MIN:
      return std::fmin(a, b);  // a NaN ignored, as on the device (reduce_ops.cuh)
    default:
      return std::fmax(a, b);  // GSHMEMI_ROP_MAX
  }
}

// Loaded by gshmem_init, not at their first launch (host/launch/preload.h).
const preload::Entry kPreload(+[] { return preload::load({preload::K(agree_kernel), preload::K(team_sync_kernel)}); });

}  // namespace

Status check_agreement(const Call& c, cudaStream_t stream) {
  const Runtime& r = rt();
  const gshmemi_team& t = r.teams[c.team];
  if (detail::reduce_region_of(t).nslots == 0) return GSHMEM_SUCCESS;  // no area
  const char* base = r.heap->base();
  const uint64_t w0 = c.n;
  const uint64_t w1 = (static_cast<uint64_t>(c.scatter) << 24) | (static_cast<uint64_t>(c.op) << 16) |
                      (static_cast<uint64_t>(c.kind) << 8) | static_cast<uint64_t>(c.esize);
  // Offsets in the heap (the same on every member for the same symmetric object).
  const uint64_t w2 = c.n ? static_cast<uint64_t>(static_cast<const char*>(c.dest) - base) : 0;
  const uint64_t w3 = c.n ? static_cast<uint64_t>(static_cast<const char*>(c.source) - base) : 0;
  // The kernel stores its finding straight into the library's pinned memory (call_memory.h):
  // no allocation, and no cudaFree, which would wait for every kernel on the GPU.
  auto* found = static_cast<Mismatch*>(rt().call_memory.pinned(c.call, sizeof(Mismatch)));
  if (!found) return GSHMEM_ERROR_OUT_OF_MEMORY;
  agree_kernel<<<1, 32, 0, stream>>>(c.team, w0, w1, w2, w3, found);
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
  if (e != cudaSuccess) {
    GSHMEM_LOG_ERROR("%s: the argument check kernel (GSHMEM_DEBUG_CHECKS) failed: %s", c.call, cudaGetErrorString(e));
    return GSHMEM_ERROR_CUDA;
  }
  const Mismatch h = *found;
  if (h.team_pe < 0) return GSHMEM_SUCCESS;
  const int other = t.start + static_cast<int>(h.team_pe) * t.stride;
  if (h.word == 1) {
    GSHMEM_LOG_ERROR(
        "%s: the members of team %d disagree on the operation or element type: this PE (team PE %d) "
        "called %s with operator %s on %zu-byte elements (kind %d); PE %d (team PE %lld) called %s "
        "with operator %s on %llu-byte elements (kind %llu). Every member must call the same routine",
        c.call, c.team, t.my_pe, c.scatter ? "reducescatter" : "reduce", op_name(c.op), c.esize, c.kind, other,
        h.team_pe, (h.theirs >> 24) & 1 ? "reducescatter" : "reduce",
        op_name(static_cast<int>((h.theirs >> 16) & 0xff)), h.theirs & 0xff, (h.theirs >> 8) & 0xff);
  } else if (h.word == 0) {
    GSHMEM_LOG_ERROR(
        "%s: the members of team %d disagree on nreduce: this PE (team PE %d) passed %llu, PE %d (team "
        "PE %lld) passed %llu. Every member must pass the same nreduce",
        c.call, c.team, t.my_pe, h.mine, other, h.team_pe, h.theirs);
  } else {
    GSHMEM_LOG_ERROR(
        "%s: the members of team %d passed different %s arrays: this PE (team PE %d) passed heap offset "
        "%llu, PE %d (team PE %lld) offset %llu. Every member must pass the same symmetric %s",
        c.call, c.team, kWordName[h.word], t.my_pe, h.mine, other, h.team_pe, h.theirs, kWordName[h.word]);
  }
  return GSHMEM_ERROR_MISMATCH;
}

Status cpu_reduce(const Call& c) {
  using T = long double;
  const Runtime& r = rt();
  const gshmemi_team& t = r.teams[c.team];
  const size_t bytes = c.n * sizeof(T);
  std::vector<T> acc(c.n), in(c.n);
  GSHMEM_TRY(team_sync(c));  // every member's source is ready
  for (int j = 0; j < t.size; ++j) {
    const int pe = t.start + j * t.stride;
    const char* peer = r.heap->peer_base(pe);
    T* buf = j == 0 ? acc.data() : in.data();
    if (!peer && hproxy::is_proxy_peer(pe)) {  // another node: an engine get into host memory
      const uint64_t off = static_cast<uint64_t>(static_cast<const char*>(c.source) - r.heap->base());
      if (!hproxy::get(c.call, pe, off, bytes, buf, bytes, 1, bytes, true)) return GSHMEM_ERROR_PEER_FAILURE;
      if (j > 0)
        for (size_t i = 0; i < c.n; ++i) acc[i] = combine(c.op, acc[i], in[i]);
      continue;
    }
    if (!peer) {
      GSHMEM_LOG_ERROR(
          "%s: PE %d (team PE %d) is not reachable from PE %d (its heap is not mapped here and no proxy "
          "runs)",
          c.call, pe, j, r.my_pe);
      return GSHMEM_ERROR_UNSUPPORTED;
    }
    const char* src = peer + (static_cast<const char*>(c.source) - r.heap->base());
    GSHMEM_CUDA_TRY(c.call, cudaMemcpyAsync(buf, src, bytes, cudaMemcpyDefault, internal_stream()));
    GSHMEM_CUDA_TRY(c.call, cudaStreamSynchronize(r.stream));
    if (j > 0)
      for (size_t i = 0; i < c.n; ++i) acc[i] = combine(c.op, acc[i], in[i]);
  }
  GSHMEM_TRY(team_sync(c));  // nobody reads any source any more: dest (maybe == source) may change
  GSHMEM_CUDA_TRY(c.call, cudaMemcpyAsync(c.dest, acc.data(), bytes, cudaMemcpyDefault, internal_stream()));
  GSHMEM_CUDA_TRY(c.call, cudaStreamSynchronize(r.stream));
  return GSHMEM_SUCCESS;
}

}  // namespace gshmem::reductions
