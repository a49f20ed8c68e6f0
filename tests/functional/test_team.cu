// SPDX-License-Identifier: BSD-3-Clause
// Team management:
//   - predefined teams: WORLD, SHARED and NODE (on one node: every PE; SHARED
//     members are load/store reachable), on the host and the device;
//   - gshmem_team_split_strided with every valid (start, stride, size) on this
//     PE count (size 1 and odd strides included), splits of split teams (teams
//     of one split with strides 65536 and INT_MAX among them), and
//     split_2d for xrange 1 .. N+1: membership, my_pe, n_pes, the same handle on
//     every member, a team sync on each new team;
//   - gshmem_team_translate_pe between every pair of teams (host and device),
//     including PEs out of range and non-members;
//   - gshmem_team_get_config with and without the mask;
//   - invalid arguments: every parent PE fails the same way, gets
//     GSHMEM_TEAM_INVALID, nothing hangs; invalid and predefined teams are
//     no-ops for destroy and give -1 from the queries; device team
//     operations (syncs, barriers, broadcast, fcollect, alltoall, reductions at
//     thread, warp and block scope) return -1 for them and write nothing;
//   - destroy + re-create 300 times (the same slot comes back: no leak), and
//     creating teams until GSHMEM_MAX_TEAMS is exhausted, then recovering.
#include <algorithm>
#include <climits>
#include <vector>

#include "coll_test.cuh"

using namespace gt;

namespace {

// A team as this PE knows it plus the world PEs it should have.
struct Model {
  const char* name;
  gshmem_team_t team;
  std::vector<int> expect;  // world PEs of team PEs 0..size-1 (every PE computes it)
};

int index_in(const std::vector<int>& v, int pe) {
  auto it = std::find(v.begin(), v.end(), pe);
  return it == v.end() ? -1 : static_cast<int>(it - v.begin());
}

// Same handle on every member (and, with others_invalid, INVALID elsewhere).
void check_same_handle(const Model& m, bool others_invalid) {
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  static int* handles = nullptr;
  if (!handles) handles = static_cast<int*>(gshmem_calloc(npes, sizeof(int)));
  for (int pe = 0; pe < npes; ++pe) gshmem_int_p(&handles[me], m.team, pe);
  gshmem_barrier_all();
  std::vector<int> h(npes);
  CUDA_CHECK(cudaMemcpy(h.data(), handles, npes * sizeof(int), cudaMemcpyDeviceToHost));
  gshmem_barrier_all();
  set_context("team %s: the same handle on every member", m.name);
  for (int pe = 0; pe < npes; ++pe) {
    if (index_in(m.expect, pe) < 0) {
      if (others_invalid) GT_CHECK_EQ(GSHMEM_TEAM_INVALID, h[pe]);
    } else if (index_in(m.expect, me) >= 0)
      GT_CHECK_EQ(m.team, h[pe]);
  }
}

// Host-side view of one team against the model.
void check_model(const Model& m) {
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int idx = index_in(m.expect, me);
  set_context("team %s (handle %d), expected %zu PEs, this PE at %d", m.name, m.team, m.expect.size(), idx);
  GT_CHECK_EQ(idx >= 0, m.team != GSHMEM_TEAM_INVALID);
  GT_CHECK_EQ(idx, gshmem_team_my_pe(m.team));
  GT_CHECK_EQ(idx >= 0 ? static_cast<int>(m.expect.size()) : -1, gshmem_team_n_pes(m.team));
  for (int i = -1; i <= static_cast<int>(m.expect.size()); ++i) {
    const bool ok = idx >= 0 && i >= 0 && i < static_cast<int>(m.expect.size());
    GT_CHECK_EQ(ok ? m.expect[i] : -1, gshmem_team_translate_pe(m.team, i, GSHMEM_TEAM_WORLD));
  }
  for (int pe = -1; pe <= npes; ++pe) {
    const int want = (idx >= 0 && pe >= 0 && pe < npes) ? index_in(m.expect, pe) : -1;
    GT_CHECK_EQ(want, gshmem_team_translate_pe(GSHMEM_TEAM_WORLD, pe, m.team));
  }
  if (idx >= 0) GT_CHECK_EQ(0, gshmem_team_sync(m.team));
}

// ---- device-side queries
struct Query {
  gshmem_team_t src, dst;
  int pe;
};
__global__ void k_queries(const Query* q, int nq, const gshmem_team_t* teams, int nt, int* out) {
  for (int i = threadIdx.x; i < nq; i += blockDim.x) out[i] = gshmem_team_translate_pe(q[i].src, q[i].pe, q[i].dst);
  for (int i = threadIdx.x; i < nt; i += blockDim.x) {
    out[nq + 2 * i] = gshmem_team_my_pe(teams[i]);
    out[nq + 2 * i + 1] = gshmem::team_n_pes(teams[i]);
  }
}

// translate_pe between every pair of models, host and device agree with the model.
void check_translations(const std::vector<Model>& ms) {
  const int me = gshmem_my_pe();
  std::vector<Query> qs;
  std::vector<int> want;
  for (const Model& a : ms)
    for (const Model& b : ms) {
      const bool a_in = index_in(a.expect, me) >= 0, b_in = index_in(b.expect, me) >= 0;
      for (int i = -1; i <= static_cast<int>(a.expect.size()); ++i) {
        const bool ok = a_in && b_in && i >= 0 && i < static_cast<int>(a.expect.size());
        qs.push_back({a.team, b.team, i});
        want.push_back(ok ? index_in(b.expect, a.expect[i]) : -1);
      }
    }
  std::vector<gshmem_team_t> teams;
  for (const Model& m : ms) teams.push_back(m.team);
  for (gshmem_team_t bogus : {GSHMEM_TEAM_INVALID, -7, 100000}) teams.push_back(bogus);
  set_context("translate_pe between every pair of %zu teams (host)", ms.size());
  for (size_t k = 0; k < qs.size(); ++k) GT_CHECK_EQ(want[k], gshmem_team_translate_pe(qs[k].src, qs[k].pe, qs[k].dst));
  Query* dq = nullptr;
  gshmem_team_t* dt = nullptr;
  int* dout = nullptr;
  const size_t nout = qs.size() + 2 * teams.size();
  CUDA_CHECK(cudaMalloc(&dq, qs.size() * sizeof(Query)));
  CUDA_CHECK(cudaMalloc(&dt, teams.size() * sizeof(gshmem_team_t)));
  CUDA_CHECK(cudaMalloc(&dout, nout * sizeof(int)));
  CUDA_CHECK(cudaMemcpy(dq, qs.data(), qs.size() * sizeof(Query), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dt, teams.data(), teams.size() * sizeof(gshmem_team_t), cudaMemcpyHostToDevice));
  k_queries<<<1, 256>>>(dq, static_cast<int>(qs.size()), dt, static_cast<int>(teams.size()), dout);
  KERNEL_CHECK();
  std::vector<int> out(nout);
  CUDA_CHECK(cudaMemcpy(out.data(), dout, nout * sizeof(int), cudaMemcpyDeviceToHost));
  set_context("translate_pe between every pair of %zu teams (device)", ms.size());
  GT_VERIFY("device translate_pe", out.data(), qs.size(), [&](size_t k) { return want[k]; });
  set_context("team_my_pe / team_n_pes on the device, valid and bogus handles");
  for (size_t i = 0; i < teams.size(); ++i) {
    GT_CHECK_EQ(gshmem_team_my_pe(teams[i]), out[qs.size() + 2 * i]);
    GT_CHECK_EQ(gshmem_team_n_pes(teams[i]), out[qs.size() + 2 * i + 1]);
  }
  CUDA_CHECK(cudaFree(dq));
  CUDA_CHECK(cudaFree(dt));
  CUDA_CHECK(cudaFree(dout));
}

std::vector<int> range(int start, int stride, int size) {
  std::vector<int> v;
  for (int i = 0; i < size; ++i) v.push_back(start + i * stride);
  return v;
}

// The world PEs of this PE's node: one node, or with GT_SIM_NODES=K (gshmrun --sim-nodes K,
// tests/functional/proxy.cmake) PE i on node i * K / N, as gshmrun groups them.
std::vector<int> node_pes() {
  const int npes = gshmem_n_pes(), me = gshmem_my_pe();
  const int k = env_int("GT_SIM_NODES", 1);
  std::vector<int> v;
  for (int i = 0; i < npes; ++i)
    if (static_cast<long long>(i) * k / npes == static_cast<long long>(me) * k / npes) v.push_back(i);
  return v;
}

std::vector<Model> predefined() {
  const int npes = gshmem_n_pes();
  const std::vector<int> node = node_pes();  // contiguous under gshmrun
  return {{"WORLD", GSHMEM_TEAM_WORLD, range(0, 1, npes)},
          {"SHARED", GSHMEM_TEAM_SHARED, node},  // the node's PEs, all load/store reachable
          {"NODE", GSHMEMX_TEAM_NODE, node}};
}

void predefined_tests() {
  const int npes = gshmem_n_pes();
  for (const Model& m : predefined()) check_model(m);
  set_context("GSHMEM_TEAM_SHARED members are load/store reachable");
  void* probe = gshmem_malloc(64);
  for (int i = 0; i < gshmem_team_n_pes(GSHMEM_TEAM_SHARED); ++i)
    GT_CHECK(gshmem_ptr(probe, gshmem_team_translate_pe(GSHMEM_TEAM_SHARED, i, GSHMEM_TEAM_WORLD)) != nullptr);
  gshmem_free(probe);
  set_context("queries with invalid handles");
  for (gshmem_team_t bad : {GSHMEM_TEAM_INVALID, -5, 100000}) {
    GT_CHECK_EQ(-1, gshmem_team_my_pe(bad));
    GT_CHECK_EQ(-1, gshmem_team_n_pes(bad));
    GT_CHECK_EQ(-1, gshmem_team_translate_pe(bad, 0, GSHMEM_TEAM_WORLD));
    GT_CHECK_EQ(-1, gshmem_team_translate_pe(GSHMEM_TEAM_WORLD, 0, bad));
    gshmem_team_config_t c{};
    GT_CHECK(gshmem_team_get_config(bad, GSHMEM_TEAM_NUM_CONTEXTS, &c) != 0);
  }
  (void)npes;
}

// Every valid split_strided of WORLD on this PE count, each checked and destroyed.
void split_strided_tests() {
  const int npes = gshmem_n_pes();
  for (int start = 0; start < npes; ++start)
    for (int stride = 1; stride <= npes; ++stride)
      for (int size = 1; start + (size - 1) * stride < npes; ++size) {
        Model m{"split_strided(WORLD)", GSHMEM_TEAM_INVALID, range(start, stride, size)};
        set_context("split_strided(WORLD, start %d, stride %d, size %d)", start, stride, size);
        GT_CHECK_EQ(0, gshmem_team_split_strided(GSHMEM_TEAM_WORLD, start, stride, size, nullptr, 0, &m.team));
        check_model(m);
        check_same_handle(m, true);
        std::vector<Model> all = predefined();
        all.push_back(m);
        if (size == 2 && stride == 1 && start == 0) check_translations(all);
        gshmem_team_destroy(m.team);
      }
  // Nested: reversed roles through a split of a split (world PEs of the parent's
  // members, then every other one of those).
  if (npes >= 3) {
    Model tail{"tail 1..N-1", GSHMEM_TEAM_INVALID, range(1, 1, npes - 1)};
    GT_CHECK_EQ(0, gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 1, 1, npes - 1, nullptr, 0, &tail.team));
    check_model(tail);
    Model sub{"tail -> start 1, stride 2", GSHMEM_TEAM_INVALID, {}};
    for (int i = 1; i < npes - 1; i += 2) sub.expect.push_back(1 + i);
    if (tail.team != GSHMEM_TEAM_INVALID) {  // only the parent's members call
      GT_CHECK_EQ(
          0, gshmem_team_split_strided(tail.team, 1, 2, static_cast<int>(sub.expect.size()), nullptr, 0, &sub.team));
    }
    check_model(sub);
    std::vector<Model> all = predefined();
    all.push_back(tail);
    all.push_back(sub);
    check_translations(all);
    gshmem_team_destroy(sub.team);  // INVALID on PE 0: a no-op there
    gshmem_team_destroy(tail.team);
  }
  // A team of one may be split with any stride. Chained, such strides must not
  // multiply into garbage (65536 * 65536 wrapped to 0, and translate_pe divided
  // by it; INT_MAX * 2 wrapped to -2).
  {
    Model one{"PE 0 split with stride 65536", GSHMEM_TEAM_INVALID, {0}};
    set_context("split_strided(WORLD, 0, 65536, 1)");
    GT_CHECK_EQ(0, gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 65536, 1, nullptr, 0, &one.team));
    check_model(one);
    Model again{"that team split with stride 65536", GSHMEM_TEAM_INVALID, {0}};
    set_context("split_strided(a team of one, 0, 65536, 1)");
    if (one.team != GSHMEM_TEAM_INVALID)
      GT_CHECK_EQ(0, gshmem_team_split_strided(one.team, 0, 65536, 1, nullptr, 0, &again.team));
    check_model(again);
    std::vector<Model> all = predefined();
    all.push_back(one);
    all.push_back(again);
    check_translations(all);
    gshmem_team_destroy(again.team);
    gshmem_team_destroy(one.team);
  }
  if (npes >= 3) {
    Model even{"even PEs", GSHMEM_TEAM_INVALID, range(0, 2, (npes + 1) / 2)};
    set_context("split_strided(WORLD, 0, 2, %d)", (npes + 1) / 2);
    GT_CHECK_EQ(0, gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, nullptr, 0, &even.team));
    Model first{"even PEs' first, split with stride INT_MAX", GSHMEM_TEAM_INVALID, {0}};
    set_context("split_strided(even PEs, 0, INT_MAX, 1)");
    if (even.team != GSHMEM_TEAM_INVALID)
      GT_CHECK_EQ(0, gshmem_team_split_strided(even.team, 0, INT_MAX, 1, nullptr, 0, &first.team));
    check_model(even);
    check_model(first);
    std::vector<Model> all = predefined();
    all.push_back(even);
    all.push_back(first);
    check_translations(all);
    gshmem_team_destroy(first.team);
    gshmem_team_destroy(even.team);
  }
}

void split_2d_tests() {
  const int npes = gshmem_n_pes();
  for (int xrange = 1; xrange <= npes + 1; ++xrange) {
    const int xr = std::min(xrange, npes), me = gshmem_my_pe();
    Model x{"x-axis", GSHMEM_TEAM_INVALID, {}}, y{"y-axis", GSHMEM_TEAM_INVALID, {}};
    for (int pe = 0; pe < npes; ++pe) {
      if (pe / xr == me / xr) x.expect.push_back(pe);
      if (pe % xr == me % xr) y.expect.push_back(pe);
    }
    set_context("split_2d(WORLD, xrange %d)", xrange);
    GT_CHECK_EQ(0, gshmem_team_split_2d(GSHMEM_TEAM_WORLD, xrange, nullptr, 0, &x.team, nullptr, 0, &y.team));
    GT_CHECK(x.team != y.team);
    check_model(x);
    check_model(y);
    check_same_handle(x, false);  // every PE has an x-axis and a y-axis team
    check_same_handle(y, false);
    std::vector<Model> all = predefined();
    all.push_back(x);
    all.push_back(y);
    check_translations(all);
    gshmem_team_destroy(x.team);
    gshmem_team_destroy(y.team);
  }
}

void config_tests() {
  const int npes = gshmem_n_pes();
  gshmem_team_config_t cfg{};
  cfg.num_contexts = 5;
  gshmem_team_t a = GSHMEM_TEAM_INVALID, b = GSHMEM_TEAM_INVALID;
  set_context("team_get_config");
  GT_CHECK_EQ(0, gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 1, npes, &cfg, GSHMEM_TEAM_NUM_CONTEXTS, &a));
  GT_CHECK_EQ(0, gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 1, npes, &cfg, 0, &b));  // mask 0: ignored
  gshmem_team_config_t got{};
  got.num_contexts = -1;
  GT_CHECK_EQ(0, gshmem_team_get_config(a, GSHMEM_TEAM_NUM_CONTEXTS, &got));
  GT_CHECK_EQ(5, got.num_contexts);
  got.num_contexts = -1;
  GT_CHECK_EQ(0, gshmem_team_get_config(a, 0, &got));  // nothing asked: untouched
  GT_CHECK_EQ(-1, got.num_contexts);
  GT_CHECK_EQ(0, gshmem_team_get_config(b, GSHMEM_TEAM_NUM_CONTEXTS, &got));
  GT_CHECK_EQ(0, got.num_contexts);
  GT_CHECK_EQ(0, gshmem_team_get_config(GSHMEM_TEAM_WORLD, GSHMEM_TEAM_NUM_CONTEXTS, &got));
  gshmem_team_destroy(a);
  gshmem_team_destroy(b);
}

void invalid_tests() {
  const int npes = gshmem_n_pes();
  const int bad[][3] = {{-1, 1, 1}, {0, 0, 2}, {0, 1, 0}, {npes, 1, 1}, {0, 1, npes + 1}, {1, 2, npes}, {0, -1, 2}};
  for (auto& a : bad) {
    set_context("split_strided(WORLD, start %d, stride %d, size %d): invalid on every PE", a[0], a[1], a[2]);
    gshmem_team_t t = 12345;
    GT_CHECK(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, a[0], a[1], a[2], nullptr, 0, &t) != 0);
    GT_CHECK_EQ(GSHMEM_TEAM_INVALID, t);
  }
  set_context("split with an invalid parent");
  gshmem_team_t t = 12345, u = 12345;
  GT_CHECK(gshmem_team_split_strided(GSHMEM_TEAM_INVALID, 0, 1, 1, nullptr, 0, &t) != 0);
  GT_CHECK_EQ(GSHMEM_TEAM_INVALID, t);
  GT_CHECK(gshmem_team_split_2d(GSHMEM_TEAM_INVALID, 1, nullptr, 0, &t, nullptr, 0, &u) != 0);
  GT_CHECK_EQ(GSHMEM_TEAM_INVALID, u);
  set_context("split_2d with xrange 0");
  GT_CHECK(gshmem_team_split_2d(GSHMEM_TEAM_WORLD, 0, nullptr, 0, &t, nullptr, 0, &u) != 0);
  GT_CHECK_EQ(GSHMEM_TEAM_INVALID, t);
  set_context("destroy of invalid and predefined teams is a no-op");
  gshmem_team_destroy(GSHMEM_TEAM_INVALID);
  gshmem_team_destroy(GSHMEM_TEAM_WORLD);
  gshmem_team_destroy(GSHMEM_TEAM_SHARED);
  gshmem_team_destroy(GSHMEMX_TEAM_NODE);
  gshmem_team_destroy(4242);
  for (const Model& m : predefined()) check_model(m);
  set_context("team sync on invalid teams fails at once");
  GT_CHECK(gshmem_team_sync(GSHMEM_TEAM_INVALID) != 0);
  GT_CHECK(gshmem_barrier(77777) != 0);
  // A destroyed team is invalid afterwards, and destroying it again is a no-op.
  GT_CHECK_EQ(0, gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 1, npes, nullptr, 0, &t));
  gshmem_team_destroy(t);
  GT_CHECK_EQ(-1, gshmem_team_my_pe(t));
  gshmem_team_destroy(t);
}

// ---- device collectives given a handle that is no team of this PE
constexpr int kBadTeamCalls = 9;
const char* const kBadTeamCallNames[kBadTeamCalls] = {"gshmem_team_sync",
                                                      "gshmem_barrier",
                                                      "gshmem_int_broadcast",
                                                      "gshmem_int_fcollect",
                                                      "gshmem_int_alltoall",
                                                      "gshmem_int_sum_reduce",
                                                      "gshmem_int_sum_reducescatter",
                                                      "gshmemx_int_max_reduce_block",
                                                      "gshmemx_int_sum_reducescatter_warp"};

// One block of 32 threads; rc[i * kBadTeamCalls + c]: what call c returned for teams[i].
__global__ void k_bad_team_calls(const gshmem_team_t* teams, int nt, int* dest, const int* src, int* rc) {
  for (int i = 0; i < nt; ++i) {
    const gshmem_team_t t = teams[i];
    int* r = rc + i * kBadTeamCalls;
    if (threadIdx.x == 0) {
      r[0] = gshmem_team_sync(t);
      r[1] = gshmem_barrier(t);
      r[2] = gshmem_int_broadcast(t, dest, src, 5, 0);
      r[3] = gshmem_int_fcollect(t, dest, src, 3);
      r[4] = gshmem_int_alltoall(t, dest, src, 3);
      r[5] = gshmem_int_sum_reduce(t, dest, src, 7);
      r[6] = gshmem_int_sum_reducescatter(t, dest, src, 3);
    }
    const int block_rc = gshmemx_int_max_reduce_block(t, dest, src, 7);
    if (threadIdx.x == 0) r[7] = block_rc;
    const int warp_rc = gshmemx_int_sum_reducescatter_warp(t, dest, src, 2);
    if (threadIdx.x == 0) r[8] = warp_rc;
  }
}

// Release build (no device checks): every team operation returns -1 at once for a
// handle that is not a team of this PE, waits for nobody and leaves dest alone.
void device_bad_team_tests() {
  const int npes = gshmem_n_pes();
  gshmem_team_t gone = GSHMEM_TEAM_INVALID;  // a slot in range, freed again
  GT_CHECK_EQ(0, gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 1, npes, nullptr, 0, &gone));
  gshmem_team_destroy(gone);
  const std::vector<gshmem_team_t> teams = {GSHMEM_TEAM_INVALID, -7, 100000, gone};
  constexpr size_t kInts = 64;
  int* dest = static_cast<int*>(gshmem_malloc(kInts * sizeof(int)));
  int* src = static_cast<int*>(gshmem_malloc(kInts * sizeof(int)));
  GT_CHECK(dest != nullptr && src != nullptr);
  if (!dest || !src) return;
  fill_device(src, kInts, gshmem_my_pe(), 0x7EA3);
  poison_device(dest, kInts * sizeof(int));
  gshmem_team_t* dt = nullptr;
  int* drc = nullptr;
  const size_t nrc = teams.size() * kBadTeamCalls;
  CUDA_CHECK(cudaMalloc(&dt, teams.size() * sizeof(gshmem_team_t)));
  CUDA_CHECK(cudaMalloc(&drc, nrc * sizeof(int)));
  CUDA_CHECK(cudaMemset(drc, 0, nrc * sizeof(int)));
  CUDA_CHECK(cudaMemcpy(dt, teams.data(), teams.size() * sizeof(gshmem_team_t), cudaMemcpyHostToDevice));
  set_context("device collectives on handles that are no team of this PE (INVALID, -7, 100000, destroyed %d)",
              static_cast<int>(gone));
  k_bad_team_calls<<<1, 32>>>(dt, static_cast<int>(teams.size()), dest, src, drc);
  KERNEL_CHECK();
  std::vector<int> rc(nrc);
  CUDA_CHECK(cudaMemcpy(rc.data(), drc, nrc * sizeof(int), cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < teams.size(); ++i)
    for (int c = 0; c < kBadTeamCalls; ++c) {
      set_context("device %s on team handle %d (no team of this PE)", kBadTeamCallNames[c], static_cast<int>(teams[i]));
      GT_CHECK_EQ(-1, rc[i * kBadTeamCalls + c]);
    }
  set_context("dest after device collectives on handles that are no team of this PE");
  std::vector<unsigned char> h(kInts * sizeof(int));
  CUDA_CHECK(cudaMemcpy(h.data(), dest, h.size(), cudaMemcpyDeviceToHost));
  GT_VERIFY("dest after the rejected calls", h.data(), h.size(), [](size_t) { return kPoison; });
  CUDA_CHECK(cudaFree(dt));
  CUDA_CHECK(cudaFree(drc));
  gshmem_barrier_all();
  gshmem_free(dest);
  gshmem_free(src);
}

// Slots come back: the same handle again and again; then exhaustion and recovery.
void lifecycle_tests() {
  const int npes = gshmem_n_pes();
  gshmem_team_t first = GSHMEM_TEAM_INVALID;
  for (int it = 0; it < 300; ++it) {
    set_context("destroy + re-create, iteration %d", it);
    gshmem_team_t t = GSHMEM_TEAM_INVALID;
    const int size = 1 + it % npes;
    GT_CHECK_EQ(0, gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 1, size, nullptr, 0, &t));
    if (gshmem_my_pe() < size) {
      if (first == GSHMEM_TEAM_INVALID) first = t;
      GT_CHECK_EQ(first, t);
      GT_CHECK_EQ(size, gshmem_team_n_pes(t));
      GT_CHECK_EQ(0, gshmem_barrier(t));
    }
    gshmem_team_destroy(t);
  }
  const int max_teams = std::max(4, std::min(256, env_int("GSHMEM_MAX_TEAMS", 64)));
  std::vector<gshmem_team_t> made;
  set_context("creating teams until GSHMEM_MAX_TEAMS=%d is exhausted", max_teams);
  for (int k = 0; k < max_teams; ++k) {
    gshmem_team_t t = GSHMEM_TEAM_INVALID;
    const int rc = gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 1, npes, nullptr, 0, &t);
    if (rc != 0) {
      GT_CHECK_EQ(GSHMEM_TEAM_INVALID, t);
      break;
    }
    made.push_back(t);
  }
  GT_CHECK_EQ(static_cast<size_t>(max_teams - 3), made.size());  // every slot but the predefined ones
  for (gshmem_team_t t : made) GT_CHECK_EQ(0, gshmem_team_sync(t));
  for (gshmem_team_t t : made) gshmem_team_destroy(t);
  set_context("after exhaustion: teams can be made again");
  gshmem_team_t again = GSHMEM_TEAM_INVALID;
  GT_CHECK_EQ(0, gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 1, npes, nullptr, 0, &again));
  GT_CHECK_EQ(first, again);
  gshmem_team_destroy(again);
}

}  // namespace

int main() {
  test_main_prologue(2, 0);
  predefined_tests();
  split_strided_tests();
  split_2d_tests();
  config_tests();
  invalid_tests();
  device_bad_team_tests();
  lifecycle_tests();
  return test_main_epilogue("team");
}
