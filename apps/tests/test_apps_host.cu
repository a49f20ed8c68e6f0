// SPDX-License-Identifier: BSD-3-Clause
// The apps' index arithmetic, on the host (no GPU): every distribution covers each row or vertex
// exactly once and agrees with its owner function, the BFS graph's label scramble is a bijection
// (a collision would merge vertices and change the graph), and train_step's chunks cover each
// bucket once with every contribution a chunk's owner waits for sent by exactly one PE.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "../bfs/graph.cuh"
#include "../jacobi/jacobi.cuh"
#include "../matmul/matmul.cuh"
#include "../train_step/train_step.cuh"
#include "../transpose/transpose.cuh"

TEST(AppsHost, TransposeDistributionCoversEveryRowOnce) {
  for (int npes = 1; npes <= 9; ++npes) {
    for (int n = npes; n <= 300; ++n) {
      const transpose::Dist d{n, npes};
      int next = 0;
      for (int p = 0; p < npes; ++p) {
        ASSERT_EQ(d.first(p), next) << "n " << n << " npes " << npes << " pe " << p;
        ASSERT_GE(d.rows(p), 1);
        ASSERT_LE(d.rows(p), d.max_rows());
        for (int k = 0; k < d.rows(p); ++k) ASSERT_EQ(d.owner(next + k), p) << "n " << n << " row " << next + k;
        next += d.rows(p);
      }
      ASSERT_EQ(next, n);
    }
  }
}

TEST(AppsHost, MatmulAndJacobiBlocksAreContiguous) {
  for (int npes = 1; npes <= 9; ++npes) {
    for (int n = npes + 2; n <= 200; ++n) {
      int64_t next = 0, interior = 1;
      for (int p = 0; p < npes; ++p) {
        ASSERT_EQ(matmul::first_of(n, npes, p), next);
        next += matmul::rows_of(n, npes, p);
        const jacobi::Layout l = jacobi::layout(p, npes, n);
        ASSERT_EQ(l.first, interior);
        ASSERT_EQ(l.up, p > 0 ? p - 1 : -1);
        ASSERT_EQ(l.down, p + 1 < npes ? p + 1 : -1);
        ASSERT_GE(static_cast<size_t>(l.max_rows + 2) * n, static_cast<size_t>(l.rows + 2) * n);
        interior += l.rows;
      }
      ASSERT_EQ(next, n);
      ASSERT_EQ(interior, n - 1);  // rows 1 .. n - 2
    }
  }
}

TEST(AppsHost, KroneckerScrambleIsABijection) {
  for (int scale = 6; scale <= 18; ++scale) {
    for (uint64_t seed : {1ull, 2ull, 12345ull}) {
      bfs::Kronecker g;
      g.scale = scale;
      g.seed = seed;
      std::vector<bool> hit(size_t{1} << scale, false);
      for (uint64_t v = 0; v < hit.size(); ++v) {
        const uint32_t s = g.scramble(v);
        ASSERT_LT(s, hit.size());
        ASSERT_FALSE(hit[s]) << "scale " << scale << " seed " << seed << ": " << v << " collides";
        hit[s] = true;
      }
    }
  }
}

// train_step's device allreduce, as k_allreduce walks it: the non-empty chunks tile [0, n), start
// 16-byte aligned, fit their scratch slots, and each owner's wait count (P - 1 per chunk) is what
// the other PEs send; the row bands a group waits for exist in the GEMM's grid.
TEST(AppsHost, TrainStepChunksCoverEachBucketOnce) {
  for (int npes = 1; npes <= 9; ++npes) {
    for (int64_t n : {1, 7, 8, 9, 100, 999, 4096, 24001, 48003, 100003}) {
      for (int64_t chunk : {1, 8, 13, 1000, 4096}) {
        for (int cols : {1, 64, 333, 4096}) {
          const train::Plan pl = train::plan(0, npes, 2, n, cols, chunk);
          ASSERT_EQ(pl.chunk % 8, 0);
          ASSERT_GE(pl.stride, n);
          ASSERT_EQ(pl.stride % 8, 0);
          std::vector<int> covered(n, 0);
          std::vector<int> sent(pl.chunks(), 0);
          for (int64_t g = 0; g < pl.groups; ++g) {
            const int64_t a = g * npes * pl.chunk;
            ASSERT_LT(a, n);  // no empty group
            const int64_t e = std::min(a + npes * pl.chunk, n);
            ASSERT_GE((e - 1) / cols / train::kTile, 0);
            ASSERT_LT((e - 1) / cols / train::kTile, pl.bands);
            for (int me = 0; me < npes; ++me)
              for (int k = 1; k < npes; ++k) {
                const int64_t c = g * npes + (me + k) % npes;
                if (c * pl.chunk < n) ++sent[c];
              }
            for (int o = 0; o < npes; ++o) {
              const int64_t c = g * npes + o, ca = c * pl.chunk;
              if (ca >= n) continue;
              const int64_t len = std::min(pl.chunk, n - ca);
              ASSERT_EQ(sent[c], npes - 1) << "n " << n << " chunk " << chunk << " P " << npes;
              ASSERT_LE((g * npes + (npes - 1)) * pl.chunk + len, pl.scratch_per_bucket());
              for (int64_t i = ca; i < ca + len; ++i) ++covered[i];
            }
          }
          for (int64_t i = 0; i < n; ++i) ASSERT_EQ(covered[i], 1) << "n " << n << " element " << i;
          ASSERT_EQ(static_cast<int64_t>(pl.bands) * train::kTile * cols >= n, true);
        }
      }
    }
  }
}
