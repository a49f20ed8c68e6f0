// SPDX-License-Identifier: BSD-3-Clause
// How a data-movement collective is cut into lanes and chunks. Host and device
// compute the same plan from arguments every member agrees on (byte counts,
// team size), so a collective may be entered from the host on one PE and from
// a kernel on another, and the library's multi-CTA kernels may run with any
// number of CTAs (each CTA takes lanes b, b + G, ...).
#pragma once

#include <cstddef>
#include <cstdint>

#include "gshmem/detail/host_entry_coll.h"

namespace gshmem {
namespace detail {

// Bytes one lane should move before another lane pays off.
constexpr uint64_t kBytesPerLane = 128u << 10;
// Lane slices start at multiples of this (keeps 16-byte vector copies aligned).
constexpr uint64_t kSliceAlign = 256;
// Broadcast relays through the non-root members when the team has at least 3
// PEs and the message is at least this large (otherwise the root pushes to all).
// 512 KiB: on 4 x H200 a 256 KiB broadcast captured in a CUDA graph took 9.5 us
// relayed and 8.3 us pushed to all (NCCL 7.7); at 512 KiB the relay still wins
// (9.7 us against 10.6 pushed), and launched directly every size from 64 KiB to
// 2 MiB is within noise either way (issue 58).
#ifndef GSHMEMI_RELAY_MIN_BYTES
#define GSHMEMI_RELAY_MIN_BYTES (512u << 10)
#endif
constexpr uint64_t kRelayMinBytes = GSHMEMI_RELAY_MIN_BYTES;
// Relay: bytes per lane (the root moves the message once, so lanes pay off
// sooner than in the push-to-all collectives), chunks per lane aimed at, and
// the chunk size limits. Chunks: two a lane, up to 2 MiB each. Every chunk costs
// the root a block barrier and a system-scope release, and its owner a wait and a
// barrier before it forwards; on NVLink-connected GPUs fewer, larger chunks win at
// every size, although the owners then forward more after the root is done.
// (Macros only so that tuning runs can build the library with other values;
// every TU of a program must agree on them.)
// Lanes of 16 KiB (was 32): on 4 x H200 a 512 KiB broadcast captured in a CUDA graph ran at
// 0.91-0.92 x NCCL with 32 KiB lanes, 1.02 with 16 KiB (twice the lanes, so twice the owners
// forwarding at once), with 2 MiB-128 MiB unchanged (issue 58).
#ifndef GSHMEMI_RELAY_LANE_BYTES
#define GSHMEMI_RELAY_LANE_BYTES (16u << 10)
#endif
#ifndef GSHMEMI_RELAY_CHUNKS
#define GSHMEMI_RELAY_CHUNKS 2
#endif
#ifndef GSHMEMI_RELAY_CHUNK_MAX
#define GSHMEMI_RELAY_CHUNK_MAX (2u << 20)
#endif
// Relay: how many times a lane's last chunk is halved at most (relay_chunk). The owners
// forward a lane's last chunk after the root has finished: smaller last chunks shorten
// that drain, each extra chunk costs the root a fence. 0, what ships: equal chunks (no
// taper paid for its fences).
#ifndef GSHMEMI_RELAY_TAPER
#define GSHMEMI_RELAY_TAPER 0
#endif
constexpr uint64_t kRelayLaneBytes = GSHMEMI_RELAY_LANE_BYTES, kRelayChunks = GSHMEMI_RELAY_CHUNKS;
constexpr uint64_t kRelayChunkMin = 16u << 10, kRelayChunkMax = GSHMEMI_RELAY_CHUNK_MAX;
constexpr uint64_t kRelayTaper = GSHMEMI_RELAY_TAPER;

// Lanes for a collective in which one PE moves `bytes` in total.
__host__ __device__ constexpr int coll_lanes(uint64_t bytes) {
  const uint64_t l = (bytes + kBytesPerLane - 1) / kBytesPerLane;
  return l < 1 ? 1 : (l > GSHMEMI_COLL_MAX_LANES ? GSHMEMI_COLL_MAX_LANES : static_cast<int>(l));
}

// [*lo, *hi) = slice s of `total` units cut into `lanes` pieces whose starts are
// multiples of `align` units.
__host__ __device__ inline void coll_slice(uint64_t total, int lanes, int s, uint64_t align, uint64_t* lo,
                                           uint64_t* hi) {
  uint64_t per = (total + lanes - 1) / lanes;
  per = (per + align - 1) / align * align;
  const uint64_t a = per * static_cast<uint64_t>(s);
  *lo = a < total ? a : total;
  *hi = total - *lo < per ? total : *lo + per;
}

// [*lo, *hi) = piece `part` of `parts` of slice s (coll_slice), its pieces cut
// the same way: how the library's multi-CTA kernels spread one lane over
// several CTAs. parts == 1: the whole slice.
__host__ __device__ inline void coll_piece(uint64_t total, int lanes, int s, int part, int parts, uint64_t align,
                                           uint64_t* lo, uint64_t* hi) {
  uint64_t a, b, x, y;
  coll_slice(total, lanes, s, align, &a, &b);
  coll_slice(b - a, parts, part, align, &x, &y);
  *lo = a + x;
  *hi = a + y;
}

struct bcast_plan {
  int lanes;
  bool relay;
  uint64_t chunk;  // relay chunk bytes
  uint64_t span;   // sequence values the call uses (see impl/coll_common.cuh)
};

__host__ __device__ inline bcast_plan plan_broadcast(uint64_t nbytes, int team_size) {
  bcast_plan p{coll_lanes(nbytes), false, 0, 1};
  if (team_size >= 3 && nbytes >= kRelayMinBytes) {
    p.relay = true;
    const uint64_t l = nbytes / kRelayLaneBytes;
    p.lanes = l < 1 ? 1 : (l > GSHMEMI_COLL_MAX_LANES ? GSHMEMI_COLL_MAX_LANES : static_cast<int>(l));
    const uint64_t per_lane = (nbytes + p.lanes - 1) / p.lanes;
    uint64_t c = per_lane / kRelayChunks;
    c = c < kRelayChunkMin ? kRelayChunkMin : (c > kRelayChunkMax ? kRelayChunkMax : c);
    p.chunk = (c + 4095) / 4096 * 4096;
    // Values base+1 .. base+ceil(chunks per lane / owners); a lane has at most
    // ceil(per_lane / chunk) + kRelayTaper chunks (relay_chunk).
    p.span = (per_lane + kSliceAlign + p.chunk - 1) / p.chunk + 2 + kRelayTaper;
  }
  return p;
}

// The relay's chunks of a lane of `len` bytes: whole chunks of `chunk` bytes, then the
// rest (1 .. chunk bytes), halved up to `taper` times: its larger half (a 4 KiB multiple)
// goes as a chunk of its own, then the other half is halved again, while no piece falls
// below kRelayChunkMin. Returns the size of chunk k (0 past the last) and its offset in *at.
__host__ __device__ inline uint64_t relay_chunk(uint64_t len, uint64_t chunk, uint64_t k, uint64_t* at,
                                                uint64_t taper = kRelayTaper) {
  const uint64_t whole = len > chunk ? (len - 1) / chunk : 0;
  if (k < whole) {
    *at = k * chunk;
    return chunk;
  }
  uint64_t a = whole * chunk;
  for (uint64_t i = whole; a < len; ++i) {
    uint64_t n = len - a;
    const uint64_t first = (n / 2 + 4095) / 4096 * 4096;  // the larger half, so the pieces shrink
    if (i - whole < taper && first < n && n - first >= kRelayChunkMin) n = first;
    if (i == k) {
      *at = a;
      return n;
    }
    a += n;
  }
  *at = len;
  return 0;
}
// The number of chunks of a lane of `len` bytes (relay_chunk).
__host__ __device__ inline uint64_t relay_chunk_count(uint64_t len, uint64_t chunk, uint64_t taper = kRelayTaper) {
  uint64_t k = len > chunk ? (len - 1) / chunk : 0, at;
  while (relay_chunk(len, chunk, k, &at, taper) != 0) ++k;
  return k;
}

}  // namespace detail
}  // namespace gshmem
