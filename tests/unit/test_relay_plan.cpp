// SPDX-License-Identifier: BSD-3-Clause
// The broadcast relay's plan, as host and device compute it (include/gshmem/device/impl/
// coll_plan.cuh): each lane's chunks tile its slice exactly, in order, none larger than the
// plan's chunk; a taper halves the last chunk as documented; and the sequence values a call
// uses (one per chunk an owner receives) stay inside the span the call reserves, for every
// team size and message size the relay takes.
#include <gtest/gtest.h>

#include "plain_cxx.h"  // before the __host__ __device__ headers

#include <cstdint>
#include <vector>

#include "gshmem/device/impl/coll_plan.cuh"

namespace {

using gshmem::detail::bcast_plan;
using gshmem::detail::coll_slice;
using gshmem::detail::kRelayChunkMin;
using gshmem::detail::kRelayMinBytes;
using gshmem::detail::kSliceAlign;
using gshmem::detail::plan_broadcast;
using gshmem::detail::relay_chunk;
using gshmem::detail::relay_chunk_count;

constexpr uint64_t KiB = 1024, MiB = 1024 * KiB;

// The chunks of a lane of len bytes, as (offset, size) pairs, through relay_chunk.
std::vector<std::pair<uint64_t, uint64_t>> chunks_of(uint64_t len, uint64_t chunk, uint64_t taper) {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  for (uint64_t k = 0;; ++k) {
    uint64_t at = ~uint64_t{0};
    const uint64_t n = relay_chunk(len, chunk, k, &at, taper);
    if (n == 0) {
      EXPECT_EQ(at, len) << "past the last chunk: the offset is the lane's end";
      break;
    }
    out.emplace_back(at, n);
    if (out.size() > len / 4096 + 8) {
      ADD_FAILURE() << "more chunks than the lane can hold";
      break;
    }
  }
  return out;
}

TEST(RelayPlan, ChunksTileTheLane) {
  for (uint64_t chunk : {16 * KiB, 64 * KiB, 256 * KiB, 512 * KiB})
    for (uint64_t len :
         {uint64_t{0}, uint64_t{1}, uint64_t{255}, uint64_t{256}, 4 * KiB, 16 * KiB - 256, 16 * KiB, chunk - 256, chunk,
          chunk + 256, 2 * chunk, 3 * chunk + 768, 1 * MiB, 4 * MiB + 4 * KiB, 17 * MiB + 256})
      for (uint64_t taper : {0, 1, 2, 3}) {
        SCOPED_TRACE(testing::Message() << "lane " << len << " bytes, chunk " << chunk << ", taper " << taper);
        const auto c = chunks_of(len, chunk, taper);
        EXPECT_EQ(c.size(), relay_chunk_count(len, chunk, taper));
        uint64_t at = 0;
        for (const auto& [a, n] : c) {
          EXPECT_EQ(a, at) << "chunks follow each other";
          EXPECT_GT(n, 0u);
          EXPECT_LE(n, chunk);
          at = a + n;
        }
        EXPECT_EQ(at, len) << "the chunks end where the lane does";
        const uint64_t whole = len > chunk ? (len - 1) / chunk : 0;
        if (taper == 0) {
          EXPECT_EQ(c.size(), (len + chunk - 1) / chunk) << "equal chunks, the last one short";
          continue;
        }
        EXPECT_LE(c.size(), (len + chunk - 1) / chunk + taper);
        for (size_t k = 0; k < c.size(); ++k) {
          if (k < whole) {
            EXPECT_EQ(c[k].second, chunk) << "chunk " << k << " comes before the rest: whole";
          } else if (k + 1 < c.size()) {
            EXPECT_EQ(c[k].second % 4096, 0u) << "a piece of the rest, 4 KiB multiple";
            EXPECT_GE(c[k].second, kRelayChunkMin);
            EXPECT_GE(c[k].second, c[k + 1].second) << "the pieces shrink";
          }
        }
      }
}

TEST(RelayPlan, TaperHalvesTheLastChunk) {
  // A lane of four whole 256 KiB chunks: 256, 256, 256, then 128, 64, 64 with a taper of 2.
  const auto c = chunks_of(1 * MiB, 256 * KiB, 2);
  ASSERT_EQ(c.size(), 6u);
  const uint64_t expect[] = {256 * KiB, 256 * KiB, 256 * KiB, 128 * KiB, 64 * KiB, 64 * KiB};
  for (size_t k = 0; k < c.size(); ++k) EXPECT_EQ(c[k].second, expect[k]) << "chunk " << k;
  // Pieces stop at kRelayChunkMin: a 40 KiB rest is cut once (20 + 20 KiB), not three times.
  const auto d = chunks_of(256 * KiB + 40 * KiB, 256 * KiB, 3);
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[1].second, 20 * KiB);
  EXPECT_EQ(d[2].second, 20 * KiB);
  // The larger half goes first, rounded up to 4 KiB: 100 KiB with a taper of 1 is 52 + 48 KiB.
  const auto e = chunks_of(100 * KiB, 256 * KiB, 1);
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].second, 52 * KiB);
  EXPECT_EQ(e[1].second, 48 * KiB);
  EXPECT_EQ(chunks_of(20 * KiB, 256 * KiB, 3).size(), 1u) << "a rest too small to halve";
}

TEST(RelayPlan, SequenceValuesStayInTheSpan) {
  for (int n : {3, 4, 5, 7, 8})
    for (uint64_t nbytes = kRelayMinBytes; nbytes <= 512 * MiB; nbytes = nbytes * 3 / 2 + 256) {
      const bcast_plan p = plan_broadcast(nbytes, n);
      SCOPED_TRACE(testing::Message() << n << " PEs, " << nbytes << " bytes");
      ASSERT_TRUE(p.relay);
      ASSERT_GT(p.chunk, 0u);
      EXPECT_EQ(p.chunk % 4096, 0u);
      const int owners = n - 1;
      for (int s = 0; s < p.lanes; ++s) {
        uint64_t lo, hi;
        coll_slice(nbytes, p.lanes, s, kSliceAlign, &lo, &hi);
        const uint64_t chunks = relay_chunk_count(hi - lo, p.chunk);
        // Owner o receives the chunks k = first, first + owners, ... of the lane and is told of
        // its j-th with base + 1 + j: the call's largest value is base + ceil(chunks / owners).
        EXPECT_LE((chunks + owners - 1) / owners, p.span) << "lane " << s;
      }
    }
  EXPECT_FALSE(plan_broadcast(64 * MiB, 2).relay) << "2 PEs: the root pushes";
  EXPECT_FALSE(plan_broadcast(kRelayMinBytes - 1, 4).relay);
}

}  // namespace
