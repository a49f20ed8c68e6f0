// SPDX-License-Identifier: BSD-3-Clause
// Where a team keeps the state of its LL ("low latency") collectives: tiny calls whose
// data travels in the same 8-byte words as the call's tag (impl/coll_ll.cuh). Sized
// from the team's scratch (team.scratch, GSHMEM_TEAM_SCRATCH_SIZE bytes, zero when the
// team is created) when the team is created; the size is kept in the team entry.
//
// The area opens the scratch (the reductions' region follows it and takes the rest,
// reduce_layout.cuh); for a team of N members, W words per sender (ll_words_of):
//   count              uint64  this PE's count of LL calls on the team (never written remotely)
//   (to 128 bytes)
//   words[2][N][W]     uint64  [count parity][sending team PE]: 4 data bytes and the
//                              32-bit tag of the call that wrote the word
// The words start a cache line, so each sender's words start one too (W >= 16) or a
// 16-byte pair at least: a lone thread moves them in 16-byte pairs, a line at a time.
// W is the largest power of two from GSHMEM_LL_MAX_BYTES / 4 (default kLLDefaultBytes / 4)
// down to kLLMinWords whose area takes at most an eighth of the scratch (at kLLMinWords:
// at most half of it). With the default 1 MiB scratch, teams of up to 127 members carry
// messages of up to 256 bytes, larger ones fewer (teams of up to 8190 at least 16).
#pragma once

#include <cstdint>

#include "gshmem/detail/device_state.h"

namespace gshmem {
namespace detail {

// Words one member sends another: at most kLLMaxWords (4 KiB of data), by default
// kLLDefaultBytes / 4, at least kLLMinWords if the team has an LL area. The LL path
// ends where the flag paths - a fence between data and flag, the flag's flight - cost
// less than sending twice the bytes (a word carries 4 data bytes) and polling every word.
// That depends on the form: a warp or block (and the library's on-stream kernels) sends
// and polls a word per thread at once and gains up to about 1 KiB, while a lone thread
// polls a 128-byte line per load latency, one member after another, and gains up to about
// 256 bytes at 2 PEs, less with more members. The bound is a team property, not a form's -
// members may call one collective in different forms, so all take the same path - and the
// default, 256, is where the forms' gains outweigh a lone thread's few losses.
constexpr int kLLMaxWords = 1024;
constexpr int kLLMinWords = 4;             // 16 bytes: every LL area holds a scalar reduction
constexpr uint64_t kLLDefaultBytes = 256;  // GSHMEM_LL_MAX_BYTES's default
static_assert(kLLDefaultBytes >= 4 * kLLMinWords && kLLDefaultBytes <= 4 * kLLMaxWords, "default in range");

__host__ __device__ constexpr uint64_t scratch_align_up(uint64_t x, uint64_t a) { return (x + a - 1) / a * a; }

// Offset in the scratch of the collectives' state: its first 256-byte aligned address
// (symmetric: the scratch has the same heap offset on every member, and heap bases are
// aligned; the library's scratch is aligned, so 0 there).
__host__ __device__ inline uint64_t scratch_state_offset(const char* scratch) {
  const uint64_t addr = reinterpret_cast<uint64_t>(scratch);
  return scratch_align_up(addr, 256) - addr;
}

constexpr uint64_t kLLWordsOffset = 128;  // bytes from the count to the words

__host__ __device__ constexpr uint64_t ll_area_bytes(int n, int words) {
  return scratch_align_up(kLLWordsOffset + 8ull * 2 * static_cast<uint64_t>(n) * static_cast<uint64_t>(words), 256);
}

struct ll_area {
  uint64_t* count = nullptr;  // nullptr: the scratch has no room (no LL path)
  uint64_t* words = nullptr;  // [2][n][w]
  int n = 0;
  int w = 0;  // words per sender: messages of up to 4 * w bytes

  __host__ __device__ uint64_t* buf(int parity, int sender) const {
    return words + (static_cast<uint64_t>(parity) * n + sender) * static_cast<uint64_t>(w);
  }
  __host__ __device__ uint64_t max_bytes() const { return count != nullptr ? 4ull * static_cast<uint64_t>(w) : 0; }
  __host__ __device__ uint64_t bytes() const { return ll_area_bytes(n, w); }
};

// Words per sender of the LL area of a team of n members, with messages of at most
// max_bytes (GSHMEM_LL_MAX_BYTES; rounded down to a power of two in [16, 4096]); 0: no
// room for one. The sizing runs once, when the team is created (team_layout_fill);
// calls take the result from the team entry (ll_area_of(team)).
__host__ __device__ constexpr int ll_max_words_of(uint64_t max_bytes) {
  int w = kLLMinWords;
  while (w < kLLMaxWords && 8ull * static_cast<uint64_t>(w) <= max_bytes) w *= 2;
  return w;
}
__host__ __device__ inline int ll_words_of(const char* scratch, uint64_t scratch_bytes, int n,
                                           uint64_t max_bytes = kLLDefaultBytes) {
  const uint64_t off = scratch_state_offset(scratch);
  if (n < 1 || off > scratch_bytes) return 0;
  const uint64_t room = scratch_bytes - off;
  int w = ll_max_words_of(max_bytes);
  while (w > kLLMinWords && ll_area_bytes(n, w) > room / 8) w /= 2;
  return ll_area_bytes(n, w) > room / 2 ? 0 : w;
}

// The area of w words per sender (from ll_words_of; 0: none).
__host__ __device__ inline ll_area ll_area_at(char* scratch, int n, int w) {
  ll_area a;
  if (w == 0) return a;
  a.count = reinterpret_cast<uint64_t*>(scratch + scratch_state_offset(scratch));
  a.words = a.count + kLLWordsOffset / 8;
  a.n = n;
  a.w = w;
  return a;
}

__host__ __device__ inline ll_area ll_area_of(char* scratch, uint64_t scratch_bytes, int n,
                                              uint64_t max_bytes = kLLDefaultBytes) {
  return ll_area_at(scratch, n, ll_words_of(scratch, scratch_bytes, n, max_bytes));
}
// The area of a team, as sized when it was created.
__host__ __device__ inline ll_area ll_area_of(const gshmemi_team& t) {
  return ll_area_at(t.scratch, t.size, static_cast<int>(t.ll_words));
}

}  // namespace detail
}  // namespace gshmem
