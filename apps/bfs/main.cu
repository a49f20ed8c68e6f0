// SPDX-License-Identifier: BSD-3-Clause
// gshmem-bfs: Graph500-style breadth-first search (bfs.cuh) on a Kronecker graph (graph.cuh)
// made by the program from a seed. From each of --roots roots (vertices with an edge, drawn from
// the seed), both forms run and each result is checked against a one-GPU BFS of the same graph
// (levels equal; every parent a neighbour one level closer):
//   gshmem  one kernel per level, parents set at their owners by remote atomic_set;
//   NCCL    local expansion + NCCL exchange of frontier bitmaps (the offload version; skipped
//           without NCCL).
// GTEPS as Graph500 reports it: the edges of the traversed component / the search time, the
// harmonic mean over the roots.
//   gshmrun -n 2 build/default/bin/gshmem-bfs --scale 24 --roots 16
// Exit status 0 only when every search of every form on every PE checked out.
#include <cuda_runtime.h>

#include <gshmem/gshmem.h>

#include <cstdio>
#include <string>
#include <vector>

#include "../common/app.h"
#include "../common/nccl.h"
#include "bfs.cuh"
#include "graph.cuh"

namespace {

int blocks_for(int64_t items) {
  const int64_t b = (items + bfs::kThreads - 1) / bfs::kThreads;
  return static_cast<int>(b < 1 ? 1 : b > 4096 ? 4096 : b);
}

// The one-GPU BFS of the whole graph from `root`: levels into `level` (n entries).
void reference(const bfs::Csr& g, uint32_t root, int32_t* level, int* changed, cudaStream_t st) {
  bfs::Part whole = bfs::part(g, 0, 1);
  APP_CUDA(cudaMemsetAsync(level, 0xFF, g.n * sizeof(int32_t), st));
  APP_CUDA(cudaMemsetAsync(level + root, 0, sizeof(int32_t), st));
  for (int l = 0;; ++l) {
    int h = 0;
    APP_CUDA(cudaMemsetAsync(changed, 0, sizeof(int), st));
    bfs::k_reference<<<blocks_for(g.n), bfs::kThreads, 0, st>>>(whole, level, l, changed);
    APP_CUDA(cudaGetLastError());
    APP_CUDA(cudaMemcpyAsync(&h, changed, sizeof(int), cudaMemcpyDeviceToHost, st));
    APP_CUDA(cudaStreamSynchronize(st));
    if (!h) break;
  }
}

// Both trees start empty: level and parent -1 everywhere.
void clear(const bfs::Part& p, const bfs::Tree& t, cudaStream_t st) {
  APP_CUDA(cudaMemsetAsync(t.level, 0xFF, p.chunk * sizeof(int32_t), st));
  APP_CUDA(cudaMemsetAsync(t.parent, 0xFF, p.chunk * sizeof(int32_t), st));
}

}  // namespace

int main(int argc, char** argv) {
  app::require_gpus("bfs");
  gshmem_init();
  app::start("bfs");
  app::Flags f(argc, argv, "gshmrun -n PES gshmem-bfs [flags]");
  const int scale = static_cast<int>(f.num("scale", 18, "log2 of the vertex count (Graph500: 18-26 here)"));
  const int edge_factor = static_cast<int>(f.num("edgefactor", 16, "edges per vertex"));
  const int64_t seed = f.num("seed", 1, "graph and roots");
  const int nroots = static_cast<int>(f.num("roots", 8, "search roots"));
  const bool no_nccl = f.flag("no-nccl", "skip the NCCL (offload) form");
  f.done();
  const int me = app::me(), npes = app::npes();
  if (scale < 6 || scale > 28 || edge_factor < 1 || nroots < 1 || (int64_t{1} << scale) < 32 * npes) {
    app::say("bfs: bad flags: --scale 6..28 with 2^scale >= 32 x PEs, --edgefactor >= 1, --roots >= 1\n");
    return 2;
  }
  cudaStream_t st = app::stream();

  // 1. The graph, whole on every PE (the reference needs it); each form uses its PE's rows.
  bfs::Kronecker kron;
  kron.scale = scale;
  kron.edges = static_cast<int64_t>(edge_factor) << scale;
  kron.seed = static_cast<uint64_t>(seed);
  bfs::Csr g;
  const double build_ms = app::time_ms(st, [&] { APP_CUDA(bfs::build(kron, &g, st)); });
  const bfs::Part p = bfs::part(g, me, npes);
  app::say(
      "bfs: scale %d, %lld vertices, %lld edges (%llu without self-loops), built in %.0f ms per PE; %d PEs own "
      "%lld vertices each\n",
      scale, static_cast<long long>(g.n), static_cast<long long>(kron.edges), g.m / 2, build_ms, npes,
      static_cast<long long>(p.chunk));

  // Roots: vertices with at least one edge, drawn from the seed (the same on every PE).
  std::vector<uint32_t> roots;
  for (uint64_t k = 0; static_cast<int>(roots.size()) < nroots && k < 1000ull * nroots; ++k) {
    const uint32_t v = static_cast<uint32_t>(bfs::mix(static_cast<uint64_t>(seed) * 7919 + k) % g.n);
    bfs::idx_t o[2];
    APP_CUDA(cudaMemcpy(o, g.off + v, sizeof(o), cudaMemcpyDeviceToHost));
    bool seen = false;
    for (uint32_t r : roots) seen = seen || r == v;
    if (o[1] > o[0] && !seen) roots.push_back(v);
  }

  // 2. Buffers. Symmetric (collective): the gshmem form's candidate parents and its count.
  bfs::Tree t;
  APP_CUDA(cudaMalloc(&t.level, p.chunk * sizeof(int32_t)));
  APP_CUDA(cudaMalloc(&t.parent, p.chunk * sizeof(int32_t)));
  bfs::Level lv;
  lv.p = p;
  lv.t = t;
  for (int32_t*& c : lv.cand) c = static_cast<int32_t*>(gshmem_malloc(p.chunk * sizeof(int32_t)));
  int64_t* count = static_cast<int64_t*>(gshmem_malloc(2 * sizeof(int64_t)));  // [0] mine, [1] the sum
  if (!lv.cand[0] || !lv.cand[1] || !count) {
    fprintf(stderr, "bfs: PE %d: gshmem_malloc failed\n", me);
    return 1;
  }
  lv.settled = reinterpret_cast<unsigned long long*>(count);
  // The bitmaps (local): over all vertices, npes x chunk bits.
  const int64_t words = npes * p.chunk / 32, my_words = p.chunk / 32;
  APP_CUDA(cudaMalloc(&lv.sent, words * sizeof(uint32_t)));
  bfs::Bitmaps bm;
  bm.p = p;
  bm.t = t;
  bm.npes = npes;
  uint32_t *front, *visited, *touched, *recv, *next;
  for (uint32_t** b : {&front, &visited, &touched, &recv}) APP_CUDA(cudaMalloc(b, words * sizeof(uint32_t)));
  APP_CUDA(cudaMalloc(&next, my_words * sizeof(uint32_t)));
  unsigned long long* nsettled = nullptr;  // [0] mine, [1] the sum
  APP_CUDA(cudaMalloc(&nsettled, 2 * sizeof(*nsettled)));
  bm.front = front;
  bm.visited = visited;
  bm.touched = touched;
  bm.recv = recv;
  bm.next = next;
  bm.settled = nsettled;
  int32_t* ref = nullptr;
  int* changed = nullptr;
  APP_CUDA(cudaMalloc(&ref, g.n * sizeof(int32_t)));
  APP_CUDA(cudaMalloc(&changed, sizeof(int)));
  unsigned long long* check_out = nullptr;
  APP_CUDA(cudaMalloc(&check_out, 3 * sizeof(*check_out)));

  std::string why = no_nccl ? "--no-nccl" : "";
  const bool nccl = why.empty() && app::nccl::init(&why);

  // 3. The searches. Each returns its levels; the tree is in t.
  auto search_gshmem = [&](uint32_t root) {
    clear(p, t, st);
    for (int32_t* c : lv.cand) APP_CUDA(cudaMemsetAsync(c, 0xFF, p.chunk * sizeof(int32_t), st));
    APP_CUDA(cudaMemsetAsync(lv.sent, 0, words * sizeof(uint32_t), st));
    if (root >= p.lo && root < p.lo + p.nl) {  // the root is its own candidate parent
      const int32_t r = static_cast<int32_t>(root);
      APP_CUDA(cudaMemcpyAsync(lv.cand[0] + (root - p.lo), &r, sizeof(r), cudaMemcpyHostToDevice, st));
    }
    APP_CUDA(cudaStreamSynchronize(st));
    gshmem_barrier_all();  // every PE's cand is reset before anyone's first kernel writes into it
    int levels = 0;
    const double ms = app::time_ms(st, [&] {
      for (int l = 0;; ++l) {
        APP_CUDA(cudaMemsetAsync(count, 0, sizeof(int64_t), st));
        lv.level = l;
        bfs::k_level<<<blocks_for(p.nl), bfs::kThreads, 0, st>>>(lv);
        APP_CUDA(cudaGetLastError());
        // Level l's AMOs complete everywhere, and every PE has read cand[l % 2], before any PE
        // starts level l + 1 (which writes cand[l % 2] again).
        gshmemx_barrier_all_on_stream(st);
        gshmemx_int64_sum_reduce_on_stream(GSHMEM_TEAM_WORLD, count + 1, count, 1, st);
        int64_t total = 0;
        APP_CUDA(cudaMemcpyAsync(&total, count + 1, sizeof(total), cudaMemcpyDeviceToHost, st));
        APP_CUDA(cudaStreamSynchronize(st));
        if (total == 0) break;
        levels = l + 1;
      }
    });
    return std::make_pair(ms, levels);
  };

  auto search_nccl = [&](uint32_t root) {
    clear(p, t, st);
    APP_CUDA(cudaMemsetAsync(front, 0, words * sizeof(uint32_t), st));
    APP_CUDA(cudaMemsetAsync(visited, 0, words * sizeof(uint32_t), st));
    const uint32_t bit = 1u << (root & 31);
    APP_CUDA(cudaMemcpyAsync(front + (root >> 5), &bit, sizeof(bit), cudaMemcpyHostToDevice, st));
    APP_CUDA(cudaMemcpyAsync(visited + (root >> 5), &bit, sizeof(bit), cudaMemcpyHostToDevice, st));
    if (root >= p.lo && root < p.lo + p.nl) {
      const int32_t zero = 0, r = static_cast<int32_t>(root);
      APP_CUDA(cudaMemcpyAsync(t.level + (root - p.lo), &zero, sizeof(zero), cudaMemcpyHostToDevice, st));
      APP_CUDA(cudaMemcpyAsync(t.parent + (root - p.lo), &r, sizeof(r), cudaMemcpyHostToDevice, st));
    }
    APP_CUDA(cudaStreamSynchronize(st));
    int levels = 1;
    std::vector<const void*> s(npes);
    std::vector<void*> r(npes);
    std::vector<size_t> c(npes, my_words);
    for (int q = 0; q < npes; ++q) s[q] = touched + q * my_words, r[q] = recv + q * my_words;
    const double ms = app::time_ms(st, [&] {
      for (int l = 0;; ++l) {
        APP_CUDA(cudaMemsetAsync(touched, 0, words * sizeof(uint32_t), st));
        APP_CUDA(cudaMemsetAsync(next, 0, my_words * sizeof(uint32_t), st));
        APP_CUDA(cudaMemsetAsync(nsettled, 0, sizeof(*nsettled), st));
        bm.level = l;
        bfs::k_expand<<<blocks_for(p.nl), bfs::kThreads, 0, st>>>(bm);
        app::nccl::alltoallv(s.data(), r.data(), c.data(), app::nccl::uint32, st);  // slice q to q
        bfs::k_settle<<<blocks_for(p.nl), bfs::kThreads, 0, st>>>(bm);
        app::nccl::allgather(next, front, my_words, app::nccl::uint32, st);  // the next frontier, everywhere
        bfs::k_or<<<blocks_for(words), bfs::kThreads, 0, st>>>(visited, front, words);
        APP_CUDA(cudaGetLastError());
        app::nccl::allreduce_sum(nsettled, nsettled + 1, 1, app::nccl::uint64, st);
        unsigned long long total = 0;
        APP_CUDA(cudaMemcpyAsync(&total, nsettled + 1, sizeof(total), cudaMemcpyDeviceToHost, st));
        APP_CUDA(cudaStreamSynchronize(st));
        if (total == 0) break;
        levels = l + 2;
      }
    });
    return std::make_pair(ms, levels);
  };

  // Checks this PE's tree; returns the edges of the traversed component (whole job), or -1 when
  // a vertex of some PE is wrong.
  auto check = [&](const char* form, uint32_t root) -> int64_t {
    bfs::Check x;
    x.p = p;
    x.t = t;
    x.ref = ref;
    x.root = root;
    x.out = check_out;
    const unsigned long long init[3] = {0, ~0ull, 0};
    APP_CUDA(cudaMemcpyAsync(check_out, init, sizeof(init), cudaMemcpyHostToDevice, st));
    bfs::k_check<<<blocks_for(p.nl), bfs::kThreads, 0, st>>>(x);
    APP_CUDA(cudaGetLastError());
    unsigned long long h[3];
    APP_CUDA(cudaMemcpyAsync(h, check_out, sizeof(h), cudaMemcpyDeviceToHost, st));
    APP_CUDA(cudaStreamSynchronize(st));
    if (h[0])
      fprintf(stderr, "bfs: PE %d: %s from root %u: %llu of %lld vertices wrong, the first %llu\n", me, form, root,
              h[0], static_cast<long long>(p.nl), h[1]);
    const bool ok = app::all_pes(h[0] == 0);
    const int64_t entries = app::sum_over_pes(static_cast<int64_t>(h[2]));
    return ok ? entries / 2 : -1;  // each undirected edge is in both endpoints' lists
  };

  // 4. Every root: the reference, then each form, checked. GTEPS per search.
  bool ok = true;
  std::vector<double> teps_g, teps_n, ms_g, ms_n;
  for (uint32_t root : roots) {
    reference(g, root, ref, changed, st);
    const auto [tg, lg] = search_gshmem(root);
    const int64_t eg = check("gshmem", root);
    ok = ok && eg >= 0;
    ms_g.push_back(app::max_over_pes(tg));
    teps_g.push_back(eg / (ms_g.back() * 1e-3) / 1e9);
    if (nccl) {
      const auto [tn, ln] = search_nccl(root);
      const int64_t en = check("NCCL", root);
      ok = ok && en >= 0;
      ms_n.push_back(app::max_over_pes(tn));
      teps_n.push_back(en / (ms_n.back() * 1e-3) / 1e9);
      (void)ln;
    }
    char other[64] = "";
    if (nccl) snprintf(other, sizeof(other), ", NCCL %8.3f ms", ms_n.back());
    app::say("  root %10u: %2d levels, %12lld edges: gshmem %8.3f ms%s\n", root, lg, static_cast<long long>(eg),
             ms_g.back(), other);
  }
  if (nccl) app::nccl::fini();

  // 5. The table: harmonic mean of GTEPS over the roots (Graph500), mean time per search.
  auto hmean = [](const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += 1.0 / x;
    return v.empty() ? 0.0 : v.size() / s;
  };
  auto mean = [](const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    return v.empty() ? 0.0 : s / v.size();
  };
  app::say("bfs: scale %d, edge factor %d, %d PEs, %zu roots (harmonic mean GTEPS, mean time, slowest PE)\n", scale,
           edge_factor, npes, roots.size());
  app::say("%-8s %10s %10s %12s\n", "form", "GTEPS", "ms", "vs offload");
  char vs[32] = "";
  if (nccl) snprintf(vs, sizeof(vs), "%.2fx", hmean(teps_g) / hmean(teps_n));
  app::say("%-8s %10.3f %10.3f %12s\n", "gshmem", hmean(teps_g), mean(ms_g), vs);
  if (nccl)
    app::say("%-8s %10.3f %10.3f %12s\n", "NCCL", hmean(teps_n), mean(ms_n), "1.00x");
  else
    app::say("%-8s skipped: %s\n", "NCCL", why.c_str());
  app::say("bfs: %s\n", ok ? "every search of every form equals the one-GPU BFS (levels; parents valid)" : "FAILED");

  for (void* b : {static_cast<void*>(t.level), static_cast<void*>(t.parent), static_cast<void*>(front),
                  static_cast<void*>(visited), static_cast<void*>(touched), static_cast<void*>(recv),
                  static_cast<void*>(next), static_cast<void*>(nsettled), static_cast<void*>(ref),
                  static_cast<void*>(changed), static_cast<void*>(check_out), static_cast<void*>(lv.sent)})
    APP_CUDA(cudaFree(b));
  gshmem_free(count);
  for (int32_t* c : lv.cand) gshmem_free(c);
  bfs::release(g);
  app::finish();
  gshmem_finalize();
  return ok ? 0 : 1;
}
