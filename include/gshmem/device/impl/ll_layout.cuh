// SPDX-License-Identifier: BSD-3-Clause
// Where a team keeps the state of its LL ("low latency") collectives: tiny calls whose
// data travels in the same 8-byte words as the call's tag (impl/coll_ll.cuh). Sized
// from the team's scratch (team.scratch, GSHMEM_TEAM_SCRATCH_SIZE bytes, zero when the
// team is created) when the team is created; the size is kept in the team entry.
//
// The area opens the scratch (the reductions' region follows it and takes the rest,
// reduce_layout.cuh); for a team of N members, W words per sender (ll_words_of):
//   count              uint64  this PE's count of LL calls on the team (never written remotely)
//   words[2][N][W]     uint64  [count parity][sending team PE]: 4 data bytes and the
//                              32-bit tag of the call that wrote the word
// W is the largest power of two from kLLMaxWords down to kLLMinWords whose area takes
// at most an eighth of the scratch (at kLLMinWords: at most half of it), so teams
// of up to 1023 members carry messages of up to 32 bytes (with the default 1 MiB
// scratch) and larger ones 16.
#pragma once

#include <cstdint>

#include "gshmem/detail/device_state.h"

namespace gshmem {
namespace detail {

// Words one member sends another, at most (32 data bytes). Warps, blocks and the
// on-stream kernels took broadcasts of 32-256 bytes 1.35-1.6 x faster by this path than
// by the flag path on H200, but one thread sends and polls a few words at a time
// (coll_ll.cuh: kLLThreadBatch): a 64-byte fcollect per member took it 5.2 us against
// 3.3 by the flag path, a 64-byte broadcast 3.4 against 2.7, a 256-byte one 10.7
// against 2.7. At 32 bytes it is still a little faster for one thread (a broadcast:
// 2.1 us against 2.4 by the flag path).
constexpr int kLLMaxWords = 8;
constexpr int kLLMinWords = 4;                 // ... at least, if the team has an LL area (16 bytes)
constexpr uint64_t kLLMaxBytes = 4ull * kLLMaxWords;
constexpr uint64_t kLLReduceBytes = 16;        // reductions take the LL path up to this many bytes
static_assert(kLLReduceBytes <= 4 * kLLMinWords, "every LL area holds an LL reduction");

__host__ __device__ constexpr uint64_t scratch_align_up(uint64_t x, uint64_t a) { return (x + a - 1) / a * a; }

// Offset in the scratch of the collectives' state: its first 256-byte aligned address
// (symmetric: the scratch has the same heap offset on every member, and heap bases are
// aligned; the library's scratch is aligned, so 0 there).
__host__ __device__ inline uint64_t scratch_state_offset(const char* scratch) {
  const uint64_t addr = reinterpret_cast<uint64_t>(scratch);
  return scratch_align_up(addr, 256) - addr;
}

__host__ __device__ constexpr uint64_t ll_area_bytes(int n, int words) {
  return scratch_align_up(8ull + 8ull * 2 * static_cast<uint64_t>(n) * static_cast<uint64_t>(words), 256);
}

struct ll_area {
  uint64_t* count = nullptr;  // nullptr: the scratch has no room (no LL path)
  uint64_t* words = nullptr;  // [2][n][w]
  int n = 0;
  int w = 0;                  // words per sender: messages of up to 4 * w bytes

  __host__ __device__ uint64_t* buf(int parity, int sender) const {
    return words + (static_cast<uint64_t>(parity) * n + sender) * static_cast<uint64_t>(w);
  }
  __host__ __device__ uint64_t max_bytes() const { return count != nullptr ? 4ull * static_cast<uint64_t>(w) : 0; }
  __host__ __device__ uint64_t bytes() const { return ll_area_bytes(n, w); }
};

// Words per sender of the LL area of a team of n members (0: no room for one). The sizing
// runs once, when the team is created (team_layout_fill); calls take the result from the
// team entry (ll_area_of(team)).
__host__ __device__ inline int ll_words_of(const char* scratch, uint64_t scratch_bytes, int n) {
  const uint64_t off = scratch_state_offset(scratch);
  if (n < 1 || off > scratch_bytes) return 0;
  const uint64_t room = scratch_bytes - off;
  int w = kLLMaxWords;
  while (w > kLLMinWords && ll_area_bytes(n, w) > room / 8) w /= 2;
  return ll_area_bytes(n, w) > room / 2 ? 0 : w;
}

// The area of w words per sender (from ll_words_of; 0: none).
__host__ __device__ inline ll_area ll_area_at(char* scratch, int n, int w) {
  ll_area a;
  if (w == 0) return a;
  a.count = reinterpret_cast<uint64_t*>(scratch + scratch_state_offset(scratch));
  a.words = a.count + 1;
  a.n = n;
  a.w = w;
  return a;
}

__host__ __device__ inline ll_area ll_area_of(char* scratch, uint64_t scratch_bytes, int n) {
  return ll_area_at(scratch, n, ll_words_of(scratch, scratch_bytes, n));
}
// The area of a team, as sized when it was created.
__host__ __device__ inline ll_area ll_area_of(const gshmemi_team& t) {
  return ll_area_at(t.scratch, t.size, static_cast<int>(t.ll_words));
}

}  // namespace detail
}  // namespace gshmem
