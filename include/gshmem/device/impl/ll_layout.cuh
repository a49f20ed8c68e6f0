// SPDX-License-Identifier: BSD-3-Clause
// Where a team keeps the state of its LL ("low latency") collectives: tiny calls whose
// data travels in the same 8-byte words as the call's tag (impl/coll_ll.cuh). Host and
// device compute it alike from the team's scratch (team.scratch, GSHMEM_TEAM_SCRATCH_SIZE
// bytes, zero when the team is created).
//
// The area opens the upper half of the scratch (the reductions' region follows it,
// reduce_layout.cuh); for a team of N members:
//   count              uint64  this PE's count of LL calls on the team (never written remotely)
//   words[2][N][kLLWords]
//                      uint64  [count parity][sending team PE]: 4 data bytes and the
//                              32-bit tag of the call that wrote the word
#pragma once

#include <cstdint>

namespace gshmem {
namespace detail {

constexpr uint64_t kLLBytes = 16;             // data bytes one member sends another in one LL call
constexpr int kLLWords = kLLBytes / 4;        // words that carry them (4 data bytes each)

__host__ __device__ constexpr uint64_t scratch_align_up(uint64_t x, uint64_t a) { return (x + a - 1) / a * a; }

// Offset in the scratch of its upper half: the first 256-byte aligned address at or after
// the middle (symmetric: the scratch has the same heap offset on every member, and heap
// bases are aligned).
__host__ __device__ inline uint64_t scratch_upper_offset(const char* scratch, uint64_t scratch_bytes) {
  const uint64_t addr = reinterpret_cast<uint64_t>(scratch);
  return scratch_align_up(addr + scratch_bytes / 2, 256) - addr;
}

__host__ __device__ constexpr uint64_t ll_area_bytes(int n) {
  return scratch_align_up(8ull + 8ull * 2 * static_cast<uint64_t>(n) * kLLWords, 256);
}

struct ll_area {
  uint64_t* count = nullptr;  // nullptr: the scratch has no room (no LL path)
  uint64_t* words = nullptr;  // [2][n][kLLWords]
  int n = 0;

  __host__ __device__ uint64_t* buf(int parity, int sender) const {
    return words + (static_cast<uint64_t>(parity) * n + sender) * kLLWords;
  }
};

__host__ __device__ inline ll_area ll_area_of(char* scratch, uint64_t scratch_bytes, int n) {
  ll_area a;
  const uint64_t off = scratch_upper_offset(scratch, scratch_bytes);
  if (n < 1 || off > scratch_bytes || scratch_bytes - off < ll_area_bytes(n)) return a;
  a.count = reinterpret_cast<uint64_t*>(scratch + off);
  a.words = a.count + 1;
  a.n = n;
  return a;
}

}  // namespace detail
}  // namespace gshmem
