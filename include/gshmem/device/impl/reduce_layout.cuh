// SPDX-License-Identifier: BSD-3-Clause
// Where the team reductions keep their state, and how one call is cut into slots.
// Host (the library's launcher) and device compute the same plan from the same inputs -
// the call's arguments and the team's layout, sized when the team was created
// (team_layout_fill) - so every member, whatever form it calls (thread/warp/block, host,
// on-stream), runs the same protocol.
//
// STATE: the team's symmetric collective scratch (team.scratch, GSHMEM_TEAM_SCRATCH_SIZE
// bytes), after the LL area that opens it (ll_layout.cuh: the LL path of every tiny
// collective); the push buffers take what is left. It must be zero when the team is
// created. For a team of N members:
//
//   flags[nslots][N]   uint64  flags[s][i] (i != me): the last value team PE i signalled
//                              to this PE for slot s; flags[s][me]: this PE's count of
//                              calls that used slot s (its epoch; never written remotely)
//   check[4][N]        uint64  debug records (nreduce, op, type): rows 0-1 by the parity
//                              of slot 0's epoch, rows 2-3 by that of the LL count
//   host_check[N][4]   uint64  records of the host-side argument check
//   push[2][N][push_bytes]     push buffers: [epoch parity][sending team PE], each an image
//                              of the sender's contribution (element i at byte i * size)
//
// A team with members on other nodes (GSHMEMI_TEAM_SPANS_NODES) takes none of the paths
// below but reduce_span.cuh, which uses this region its own way (no other path runs on such
// a team): flags row 0 (flags[0][j]: the last round team PE j signalled here; flags[0][me]:
// this member's count of rounds) and the push area cut into 2 (N - 1) receive slots
// (reduce_span_slot_bytes, at the end of this file).
//
// SLOTS: a call is cut into `slots` contiguous element ranges; each slot runs its own
// little protocol with its own flags, so a call can be spread over any number of thread
// groups (CTAs) per PE without any synchronisation between the groups. How many groups
// share the slots is a local choice (each takes a contiguous range of them:
// reduce_part_slots); the slots themselves depend only on the arguments. The
// first reduce_region::uniform_slots() are advanced together by every call (reduce_proto.cuh),
// so a call's slots among them share one epoch, and its push data one buffer per sender,
// whose image a lone group (a device-scope call) copies and reduces in one pass.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ll_layout.cuh"

namespace gshmem {
namespace detail {

constexpr int kReduceMaxSlots = 128;                  // flag rows (slots of one call, at most)
constexpr int kReducePushSlots = 16;                  // slots of the push (small-array) path, at most
constexpr uint64_t kReducePushSlotTarget = 8u << 10;  // push bytes per slot before adding one
constexpr uint64_t kReducePullSlotBytes = 32u << 10;  // input bytes per slot of the pull path
constexpr int kReduceThreads = 512;                   // threads per CTA of the library's kernel, at most
constexpr int kReduceHostCheckWords = 4;

// Bytes of the debug records (check and host_check) of a team of n members.
__host__ __device__ constexpr uint64_t reduce_check_bytes(int n) {
  return scratch_align_up(8ull * static_cast<uint64_t>(n) * (4 + kReduceHostCheckWords), 256);
}

struct reduce_region {
  uint64_t* flags = nullptr;       // [nslots][N]
  uint64_t* check = nullptr;       // [4][N]
  uint64_t* host_check = nullptr;  // [N][kReduceHostCheckWords]
  ll_area ll;                      // the team's LL area (ll_layout.cuh)
  char* push = nullptr;            // [2][N][push_bytes]
  int n = 0;                       // team size
  int nslots = 0;                  // 0: scratch too small for reductions
  uint64_t push_bytes = 0;         // 0: no push path

  __host__ __device__ uint64_t* flag_row(int s) const { return flags + static_cast<uint64_t>(s) * n; }
  __host__ __device__ char* push_buf(int parity, int sender) const {
    return push + (static_cast<uint64_t>(parity) * n + sender) * push_bytes;
  }
  // Slots 0 .. uniform_slots() - 1 always share their epoch; the push path uses no others.
  __host__ __device__ int uniform_slots() const { return nslots < kReducePushSlots ? nslots : kReducePushSlots; }
};

// The region of a team of `n` members whose LL area is `ll`, with `nslots` flag rows and
// push buffers of `push_bytes` (from reduce_region_of below; nslots 0: none). Additions
// and multiplications only: the device calls take it from the team entry.
__host__ __device__ inline reduce_region reduce_region_at(char* scratch, const ll_area& ll, int nslots,
                                                          uint64_t push_bytes) {
  reduce_region r;
  if (ll.count == nullptr || nslots == 0) return r;
  const int n = ll.n;
  const uint64_t row = 8ull * static_cast<uint64_t>(n);
  const uint64_t flag_bytes = scratch_align_up(static_cast<uint64_t>(nslots) * row, 256);
  char* base = scratch + scratch_state_offset(scratch) + ll.bytes();
  r.n = n;
  r.nslots = nslots;
  r.ll = ll;
  r.flags = reinterpret_cast<uint64_t*>(base);
  r.check = reinterpret_cast<uint64_t*>(base + flag_bytes);
  r.host_check = r.check + 4 * n;
  r.push = base + flag_bytes + reduce_check_bytes(n);
  r.push_bytes = push_bytes;
  return r;
}

// Layout for a team of `n` members with `scratch_bytes` of scratch at `scratch` (a
// device address; the host only uses the sizes) and LL messages of at most ll_max_bytes:
// the sizing, run when the team is created (team_layout_fill).
__host__ __device__ inline reduce_region reduce_region_of(char* scratch, uint64_t scratch_bytes, int n,
                                                          uint64_t ll_max_bytes = kLLDefaultBytes) {
  const ll_area ll = ll_area_of(scratch, scratch_bytes, n, ll_max_bytes);
  if (ll.count == nullptr) return reduce_region{};  // no room for the LL area: none for the rest either
  const uint64_t off = scratch_state_offset(scratch) + ll.bytes();
  const uint64_t row = 8ull * static_cast<uint64_t>(n);
  const uint64_t check_bytes = reduce_check_bytes(n);
  if (off >= scratch_bytes || scratch_bytes - off < check_bytes + 2 * row) return reduce_region{};
  const uint64_t avail = scratch_bytes - off - check_bytes;
  uint64_t nslots = avail / 2 / row;  // flags take at most half of what is left
  if (nslots > kReduceMaxSlots) nslots = kReduceMaxSlots;
  const uint64_t flag_bytes = scratch_align_up(nslots * row, 256);
  if (nslots == 0 || flag_bytes > avail) return reduce_region{};
  const uint64_t push_bytes = (avail - flag_bytes) / (2ull * n) / 16 * 16;
  return reduce_region_at(scratch, ll, static_cast<int>(nslots), push_bytes);
}

// The region of a team, as sized when it was created.
__host__ __device__ inline reduce_region reduce_region_of(const gshmemi_team& t) {
  return reduce_region_at(t.scratch, ll_area_of(t), static_cast<int>(t.reduce_slots), t.reduce_push_bytes);
}

// Sizes the LL area (messages of at most ll_max_bytes: GSHMEM_LL_MAX_BYTES) and the
// reductions' region of team entry t (scratch, scratch_bytes and size set) into its
// layout fields; the library calls it when it creates a team.
__host__ __device__ inline void team_layout_fill(gshmemi_team* t, uint64_t ll_max_bytes = kLLDefaultBytes) {
  const reduce_region r = reduce_region_of(t->scratch, t->scratch_bytes, t->size, ll_max_bytes);
  t->ll_words = static_cast<uint32_t>(ll_words_of(t->scratch, t->scratch_bytes, t->size, ll_max_bytes));
  t->reduce_slots = static_cast<uint32_t>(r.nslots);
  t->reduce_push_bytes = r.push_bytes;
}

// Element range [lo, hi) of slots [s0, s1) of `slots` over n elements, cut at multiples of
// the vector length `vec` (elements per 16 bytes); the last slot also takes the n % vec tail.
struct reduce_span {
  uint64_t lo, hi;
};
__host__ __device__ inline reduce_span reduce_slots_span(uint64_t n, uint32_t vec, int slots, int s0, int s1) {
  if (s0 == 0 && s1 == slots) return reduce_span{0, n};  // every slot (a lone group): no 64-bit division
  const uint64_t nv = n / vec;
  reduce_span sp;
  sp.lo = nv * s0 / slots * vec;
  sp.hi = s1 == slots ? n : nv * s1 / slots * vec;
  return sp;
}
__host__ __device__ inline reduce_span reduce_slot_span(uint64_t n, uint32_t vec, int slots, int s) {
  return reduce_slots_span(n, vec, slots, s, s + 1);
}

// The slots [lo, hi) that participant `part` of `nparts` takes: contiguous ranges, in
// participant order (why contiguous: reduce_pull.cuh, progress).
struct reduce_slot_range {
  int lo, hi;
};
__host__ __device__ inline reduce_slot_range reduce_part_slots(int slots, int part, int nparts) {
  return reduce_slot_range{slots * part / nparts, slots * (part + 1) / nparts};
}
// Part p of `parts` of a slot's range (vector-aligned cuts; the tail goes to the last part).
__host__ __device__ inline reduce_span reduce_part_span(reduce_span sp, uint32_t vec, int parts, int p) {
  const uint64_t nv = (sp.hi - sp.lo) / vec;
  reduce_span r;
  r.lo = sp.lo + nv * p / parts * vec;
  r.hi = p == parts - 1 ? sp.hi : sp.lo + nv * (p + 1) / parts * vec;
  return r;
}

struct reduce_plan {
  bool push;  // true: push path (one signalled round through the scratch)
  int slots;
  bool ll;  // (with push, 1 slot) the LL path: data and tag in one word, no fence
};

// nreduce elements of esize bytes; scatter: reducescatter (the input is n * nreduce).
__host__ __device__ inline reduce_plan reduce_plan_of(uint64_t nreduce, uint32_t esize, bool scatter,
                                                      const reduce_region& r) {
  const uint64_t bytes = nreduce * esize;
  // The LL path: arrays of 4- or 8-byte elements that fit one LL message (a member's
  // whole contribution; in a reducescatter, each chunk).
  if (r.nslots > 0 && (esize == 4 || esize == 8) && bytes <= r.ll.max_bytes()) return reduce_plan{true, 1, true};
  if (r.push_bytes > 0 && bytes <= r.push_bytes) {  // each member's buffer at every other holds its contribution
    // One slot per kReducePushSlotTarget bytes, up to the slots that share one epoch.
    uint64_t s = (bytes + kReducePushSlotTarget - 1) / kReducePushSlotTarget;
    if (s < 1) s = 1;
    if (s > static_cast<uint64_t>(r.uniform_slots())) s = static_cast<uint64_t>(r.uniform_slots());
    return reduce_plan{true, static_cast<int>(s), false};
  }
  const uint64_t in = scatter ? bytes * static_cast<uint64_t>(r.n) : bytes;
  uint64_t s = (in + kReducePullSlotBytes - 1) / kReducePullSlotBytes;
  if (s < 1) s = 1;
  if (s > static_cast<uint64_t>(r.nslots)) s = static_cast<uint64_t>(r.nslots);
  return reduce_plan{false, static_cast<int>(s), false};
}

// ---- the spanning path (reduce_span.cuh) ----
// A round moves up to one slot of each member's contribution into a receive slot at every
// other member: [round parity][sender], no slot for oneself, the same cut for every call on
// the team whatever its element type, size or kind (reduce or reducescatter).

// Bytes of a proxied put piece (coll_span.cuh's kSpanPiece) and GSHMEM_PROXY_BULK_MIN's
// default: a put of at least this many bytes takes the proxy's bulk RMA path (~3 GB/s); a
// smaller one travels as active messages (~1 GB/s: docs/internode.md section 1).
constexpr uint64_t kReduceSpanPiece = 1u << 20;

// Bytes of one receive slot: the push area ([2][N][push_bytes]) over 2 (N - 1) slots, a
// multiple of 16 (the slots stay 16-byte aligned), and from kReduceSpanPiece on a multiple of
// it (a round's puts are then whole bulk pieces, none left for the slow path). 0: no room.
__host__ __device__ inline uint64_t reduce_span_slot_bytes(const reduce_region& r) {
  if (r.n < 2 || r.nslots == 0) return 0;
  const uint64_t room = 2ull * static_cast<uint64_t>(r.n) * r.push_bytes;
  uint64_t slot = room / (2ull * static_cast<uint64_t>(r.n - 1)) / 16 * 16;
  if (slot >= kReduceSpanPiece) slot = slot / kReduceSpanPiece * kReduceSpanPiece;
  return slot;
}

// Byte offset from the push area of the slot in which team PE `receiver` of a team of n takes
// the contribution of team PE `sender` (!= receiver) to the rounds of parity `parity`.
__host__ __device__ inline uint64_t reduce_span_slot_offset(uint64_t slot_bytes, int n, uint64_t parity, int sender,
                                                            int receiver) {
  const int k = sender < receiver ? sender : sender - 1;
  return (parity * static_cast<uint64_t>(n - 1) + static_cast<uint64_t>(k)) * slot_bytes;
}

// Rounds of a call of n elements of esize bytes per member (per chunk of a reducescatter).
__host__ __device__ inline uint64_t reduce_span_rounds(uint64_t n, uint32_t esize, uint64_t slot_bytes) {
  const uint64_t chunk = slot_bytes / esize;
  return chunk == 0 ? 0 : (n + chunk - 1) / chunk;
}

}  // namespace detail
}  // namespace gshmem
