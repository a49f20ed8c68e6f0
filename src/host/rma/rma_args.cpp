// SPDX-License-Identifier: BSD-3-Clause
#include "rma_args.h"

#include <cstdint>

#include "host/core/config.h"
#include "host/core/runtime.h"
#include "host/mem/heap.h"
#include "host/proxy/host_ops.h"

namespace gshmem::rma {
namespace {

// Bytes covered by n elements of `elem` bytes `stride` elements apart; false on overflow.
bool strided_span(ptrdiff_t stride, size_t n, size_t elem, size_t* span) {
  if (n == 0) {
    *span = 0;
    return true;
  }
  const size_t st = static_cast<size_t>(stride);
  const size_t max_index = SIZE_MAX / elem - 1;  // largest element index whose end still fits
  if (n - 1 != 0 && st > max_index / (n - 1)) return false;
  *span = ((n - 1) * st + 1) * elem;
  return true;
}

// Whether the two strided ranges share a byte: exact for equal strides, extent
// overlap is not an error for unequal strides (their elements may interleave).
bool overlap(const char* a, size_t a_span, ptrdiff_t sa, const char* b, size_t b_span, ptrdiff_t sb, size_t elem) {
  const uintptr_t x = reinterpret_cast<uintptr_t>(a), y = reinterpret_cast<uintptr_t>(b);
  if (a_span == 0 || b_span == 0 || !(x < y + b_span && y < x + a_span)) return false;
  if (sa != sb) return false;
  const size_t pitch = static_cast<size_t>(sa) * elem;
  const size_t r = (x > y ? x - y : y - x) % pitch;
  return r < elem || pitch - r < elem;
}

}  // namespace

bool resolve(const Request& r, Transfer* out) {
  if (require_init(r.call) != GSHMEM_SUCCESS) return false;
  const Runtime& rtm = rt();
  if (r.pe < 0 || r.pe >= rtm.n_pes) {
    GSHMEM_LOG_ERROR("%s: target PE %d is out of range [0, %d); pass a PE number from 0 to gshmem_n_pes()-1", r.call,
                     r.pe, rtm.n_pes);
    return false;
  }
  const ptrdiff_t dst = r.dst, sst = r.sst;
  if (dst < 1 || sst < 1) {
    GSHMEM_LOG_ERROR(
        "%s: target PE %d: %s stride %td is invalid; strides count elements and must be >= 1 "
        "(1 = contiguous)",
        r.call, r.pe, dst < 1 ? "destination (dst)" : "source (sst)", dst < 1 ? dst : sst);
    return false;
  }
  const ptrdiff_t rstride = r.put ? dst : sst, lstride = r.put ? sst : dst;
  size_t rspan = 0, lspan = 0;
  if (!strided_span(rstride, r.nelems, r.elem, &rspan) || !strided_span(lstride, r.nelems, r.elem, &lspan)) {
    GSHMEM_LOG_ERROR(
        "%s: target PE %d: a stride of %td elements over %zu elements of %zu bytes does not fit the "
        "address space; check the strides and the element count",
        r.call, r.pe, strided_span(rstride, r.nelems, r.elem, &rspan) ? lstride : rstride, r.nelems, r.elem);
    return false;
  }
  const char* remote = static_cast<const char*>(r.put ? r.dest : r.source);
  const void* local = r.put ? r.source : r.dest;
  const char* base = rtm.heap->base();
  const size_t heap = rtm.heap->size();
  if (remote < base || remote > base + heap || rspan > static_cast<size_t>(base + heap - remote)) {
    GSHMEM_LOG_ERROR(
        "%s: target PE %d: remote range [%p, +%zu bytes) is not inside the symmetric heap [%p, %p); "
        "remote addresses must come from gshmem_malloc/calloc/align and stay inside the allocation",
        r.call, r.pe, static_cast<const void*>(remote), rspan, static_cast<const void*>(base),
        static_cast<const void*>(base + heap));
    return false;
  }
  if (config::get().debug_checks && check_live(r.call, r.pe, remote, rspan) != GSHMEM_SUCCESS) return false;
  if (local == nullptr && lspan != 0) {
    GSHMEM_LOG_ERROR("%s: target PE %d: the local %s is NULL; pass a buffer of at least %zu bytes", r.call, r.pe,
                     r.put ? "source" : "destination", lspan);
    return false;
  }
  char* peer = rtm.heap->peer_base(r.pe);
  out->dst_pitch = static_cast<size_t>(dst) * r.elem;
  out->src_pitch = static_cast<size_t>(sst) * r.elem;
  out->nelems = r.nelems;
  out->elem = r.elem;
  out->local = local;
  if (!peer && hproxy::is_proxy_peer(r.pe)) {  // another node: the proxy moves it
    out->proxy = true;
    out->remote_offset = static_cast<uint64_t>(remote - base);
    out->dst = r.put ? nullptr : static_cast<char*>(r.dest);
    out->src = r.put ? static_cast<const char*>(local) : nullptr;
    return true;
  }
  if (!peer) {
    GSHMEM_LOG_ERROR(
        "%s: target PE %d is not reachable from this PE (its heap is not mapped here and no proxy "
        "runs); use PEs of this node (GSHMEM_TEAM_SHARED)",
        r.call, r.pe);
    return false;
  }
  char* rp = peer + (remote - base);
  const char* lp = static_cast<const char*>(local);
  if (overlap(rp, rspan, rstride, lp, lspan, lstride, r.elem)) {
    const char* s = r.put ? lp : rp;
    const char* d = r.put ? rp : lp;
    GSHMEM_LOG_ERROR(
        "%s: target PE %d: source [%p, +%zu bytes) and destination [%p, +%zu bytes) overlap; use "
        "non-overlapping buffers (stage the data through a temporary)",
        r.call, r.pe, static_cast<const void*>(s), r.put ? lspan : rspan, static_cast<const void*>(d),
        r.put ? rspan : lspan);
    return false;
  }
  out->dst = r.put ? rp : static_cast<char*>(r.dest);
  out->src = r.put ? lp : rp;
  return true;
}

}  // namespace gshmem::rma
