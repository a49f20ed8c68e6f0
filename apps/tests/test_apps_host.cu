// SPDX-License-Identifier: BSD-3-Clause
// The apps' index arithmetic, on the host (no GPU): every distribution covers each row or vertex
// exactly once and agrees with its owner function, and the BFS graph's label scramble is a
// bijection (a collision would merge vertices and change the graph).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "../bfs/graph.cuh"
#include "../jacobi/jacobi.cuh"
#include "../matmul/matmul.cuh"
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
