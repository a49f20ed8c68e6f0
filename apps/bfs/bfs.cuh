// SPDX-License-Identifier: BSD-3-Clause
// Breadth-first search over the graph of graph.cuh, vertices owned in blocks (vertex v by PE
// v / chunk), two ways (main.cu runs them, checks them against a one-GPU BFS, times them):
//
// gshmem (device-initiated): ONE kernel per level, and the frontier lives at its owners. Each
// PE has two symmetric arrays of candidate parents, cand[0] and cand[1] (-1: none). Kernel L
//   1. settles my vertices whose cand[L % 2] is set: those unvisited become level L with that
//      parent (every writer of cand[L % 2] was a vertex of level L - 1, and a neighbour, so any
//      of them is a valid parent); it resets the entry to -1 for use two levels on;
//   2. expands the vertices it just settled: for every neighbour w, remote atomic_set of
//      cand[(L + 1) % 2][w] = v on w's owner. Several PEs may set the same entry in one level;
//      the AMO makes each set whole, and whichever lands last is a valid parent. A PE sends at
//      most one candidate per vertex per search (a local bitmap `sent`, tested and set with one
//      atomicOr): once it sent one in level L, w is settled in level L + 1 at the latest, so any
//      later candidate would be dropped anyway. This is what keeps the remote traffic at most P
//      AMOs per vertex instead of one per edge.
// Then barrier_all_on_stream: every PE's AMOs of level L are complete (quiet) and everyone has
// finished reading and resetting cand[L % 2] before any PE's kernel L + 1 writes into it (a
// kernel reads one array and writes the other, so within a kernel nothing races). A sum of the
// settled counts over the PEs (an on-stream reduction) tells the host whether to go on.
//
// Offload (NCCL): the frontier as bitmaps. Every PE holds the whole frontier and visited
// bitmaps. Per level: expand my frontier vertices locally, setting the bit of each unvisited
// neighbour in a local bitmap over all vertices; exchange its slices (ncclSend/ncclRecv: slice q
// to q); the owner ORs the slices it received, settles the new vertices (their parent: a
// neighbour in the frontier bitmap) and marks them in its slice of the next frontier; allgather
// the slices (ncclAllGather) into everyone's next frontier; an allreduce of the count.
#pragma once

#include <cuda_runtime.h>

#include <gshmem/gshmem.h>

#include <algorithm>
#include <cstdint>

#include "graph.cuh"

namespace bfs {

// A PE's part: vertices lo .. lo + nl - 1 (its rows of the CSR; `off` indexes the whole `adj`).
struct Part {
  int64_t n = 0;      // vertices of the graph
  int64_t chunk = 0;  // vertices a PE owns (the last may own fewer); a multiple of 32
  int64_t lo = 0, nl = 0;
  const idx_t* off = nullptr;  // off[lv] .. off[lv + 1]: local vertex lv's entries of adj
  const uint32_t* adj = nullptr;
};

inline Part part(const Csr& g, int me, int npes) {
  Part p;
  p.n = g.n;
  p.chunk = ((g.n + npes - 1) / npes + 31) / 32 * 32;
  p.lo = std::min<int64_t>(g.n, me * p.chunk);
  p.nl = std::min<int64_t>(g.n, p.lo + p.chunk) - p.lo;
  p.off = g.off + p.lo;
  p.adj = g.adj;
  return p;
}

// A BFS's result at a PE (local arrays over its vertices): level -1 and parent -1 = unreached.
struct Tree {
  int32_t* level = nullptr;
  int32_t* parent = nullptr;
};

constexpr int kThreads = 256;

// The warp's loop over the neighbours of the vertices of the warp that `mine` marks (warp-wide
// expansion: a hub's list is spread over 32 lanes instead of one). visit(u, w) per neighbour.
template <class Visit>
__device__ inline void expand_warp(const Part& p, bool mine, int64_t lv, Visit&& visit) {
  const int lane = threadIdx.x & 31;
  unsigned m = __ballot_sync(0xffffffffu, mine);
  while (m) {
    const int src = __ffs(m) - 1;
    m &= m - 1;
    const int64_t ul = __shfl_sync(0xffffffffu, lv, src);
    const uint32_t u = static_cast<uint32_t>(p.lo + ul);
    for (idx_t e = p.off[ul] + lane; e < p.off[ul + 1]; e += 32) visit(u, p.adj[e]);
  }
}

// The vertex loops that expand: each warp takes 32 consecutive local vertices a step, so the loop
// is uniform over the warp and the ballots in expand_warp see all 32 lanes.
__device__ inline int64_t warp_first() {
  return (blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x) & ~int64_t{31};
}
__device__ inline int64_t grid_threads() { return static_cast<int64_t>(gridDim.x) * blockDim.x; }

// ---- gshmem: one kernel per level
struct Level {
  Part p;
  Tree t;
  int32_t* cand[2] = {nullptr, nullptr};  // symmetric, chunk each
  uint32_t* sent = nullptr;               // local, a bit per vertex of the graph: a candidate went out
  unsigned long long* settled = nullptr;  // local counter: vertices settled in this kernel
  int level = 0;
};

static __global__ void __launch_bounds__(kThreads) k_level(Level x) {
  int32_t* in = x.cand[x.level & 1];
  int32_t* out = x.cand[(x.level + 1) & 1];
  for (int64_t base = warp_first(); base < x.p.nl; base += grid_threads()) {
    const int64_t lv = base + (threadIdx.x & 31);
    bool mine = false;
    if (lv < x.p.nl) {
      const int32_t c = in[lv];
      if (c >= 0) {
        in[lv] = -1;  // free for level + 2 (the barrier after this kernel orders it first)
        if (x.t.level[lv] < 0) {
          x.t.level[lv] = x.level;
          x.t.parent[lv] = c;
          mine = true;
        }
      }
    }
    const unsigned found = __ballot_sync(0xffffffffu, mine);
    if ((threadIdx.x & 31) == 0 && found) atomicAdd(x.settled, static_cast<unsigned long long>(__popc(found)));
    expand_warp(x.p, mine, lv, [&](uint32_t u, uint32_t w) {
      const uint32_t bit = 1u << (w & 31);
      if (atomicOr(&x.sent[w >> 5], bit) & bit) return;  // w has a candidate from this PE already
      const int q = static_cast<int>(w / x.p.chunk);
      gshmem::atomic_set(out + (w - q * x.p.chunk), static_cast<int32_t>(u), q);
    });
  }
}

// ---- offload: bitmaps and NCCL
__device__ inline bool test_bit(const uint32_t* b, uint64_t i) { return (b[i >> 5] >> (i & 31)) & 1; }

struct Bitmaps {
  Part p;
  Tree t;
  const uint32_t* front = nullptr;  // the frontier, all vertices (npes x chunk bits)
  const uint32_t* visited = nullptr;
  uint32_t* touched = nullptr;     // unvisited neighbours my frontier reached, all vertices
  const uint32_t* recv = nullptr;  // the P slices of my vertices that the PEs reached
  uint32_t* next = nullptr;        // my slice of the next frontier (chunk bits)
  unsigned long long* settled = nullptr;
  int npes = 1, level = 0;  // settling level + 1
};

// Expand my vertices of the frontier.
static __global__ void __launch_bounds__(kThreads) k_expand(Bitmaps x) {
  for (int64_t base = warp_first(); base < x.p.nl; base += grid_threads()) {
    const int64_t lv = base + (threadIdx.x & 31);
    const bool mine = lv < x.p.nl && test_bit(x.front, x.p.lo + lv);
    expand_warp(x.p, mine, lv, [&](uint32_t, uint32_t w) {
      if (!test_bit(x.visited, w)) atomicOr(&x.touched[w >> 5], 1u << (w & 31));
    });
  }
}

// Settle the vertices of mine that some PE reached: level + 1, a parent among their neighbours
// in the frontier (there is one: the edge that reached them).
static __global__ void __launch_bounds__(kThreads) k_settle(Bitmaps x) {
  const int64_t words = x.p.chunk / 32;
  for (int64_t lv = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; lv < x.p.nl;
       lv += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    uint32_t any = 0;
    for (int q = 0; q < x.npes; ++q) any |= x.recv[q * words + (lv >> 5)];
    if (!((any >> (lv & 31)) & 1) || x.t.level[lv] >= 0) continue;
    int32_t parent = -1;
    for (idx_t e = x.p.off[lv]; e < x.p.off[lv + 1] && parent < 0; ++e)
      if (test_bit(x.front, x.p.adj[e])) parent = static_cast<int32_t>(x.p.adj[e]);
    x.t.level[lv] = x.level + 1;
    x.t.parent[lv] = parent;
    atomicOr(&x.next[lv >> 5], 1u << (lv & 31));
    atomicAdd(x.settled, 1ull);
  }
}

static __global__ void k_or(uint32_t* visited, const uint32_t* front, int64_t words) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < words;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    visited[i] |= front[i];
}

// ---- the reference: the whole graph on one GPU, levels only (level-synchronous, vertex-parallel)
static __global__ void __launch_bounds__(kThreads) k_reference(Part whole, int32_t* level, int l, int* changed) {
  for (int64_t base = warp_first(); base < whole.nl; base += grid_threads()) {
    const int64_t lv = base + (threadIdx.x & 31);
    const bool mine = lv < whole.nl && level[lv] == l;
    expand_warp(whole, mine, lv, [&](uint32_t, uint32_t w) {
      if (level[w] < 0) {
        level[w] = l + 1;  // every writer writes the same value
        *changed = 1;
      }
    });
  }
}

// ---- the check of a PE's tree against the reference levels of the whole graph
struct Check {
  Part p;
  Tree t;
  const int32_t* ref = nullptr;  // reference levels, all vertices
  uint32_t root = 0;
  unsigned long long* out = nullptr;  // [0] bad vertices, [1] first bad, [2] sum of reached degrees
};

// A vertex is right when its level equals the reference's and its parent is: itself for the
// root; -1 when unreached; otherwise a neighbour one level closer to the root.
static __global__ void k_check(Check x) {
  for (int64_t lv = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; lv < x.p.nl;
       lv += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t v = x.p.lo + lv;
    const int32_t l = x.t.level[lv], par = x.t.parent[lv];
    bool ok = l == x.ref[v];
    if (ok && l < 0) ok = par == -1;
    if (ok && l == 0) ok = v == x.root && par == static_cast<int32_t>(v);
    if (ok && l > 0) {
      ok = par >= 0 && par < x.p.n && x.ref[par] == l - 1;
      bool adjacent = false;
      for (idx_t e = x.p.off[lv]; ok && !adjacent && e < x.p.off[lv + 1]; ++e) adjacent = x.p.adj[e] == par;
      ok = ok && adjacent;
    }
    if (!ok) {
      atomicAdd(&x.out[0], 1ull);
      atomicMin(&x.out[1], static_cast<unsigned long long>(v));
    }
    if (l >= 0) atomicAdd(&x.out[2], x.p.off[lv + 1] - x.p.off[lv]);
  }
}

}  // namespace bfs
