// SPDX-License-Identifier: BSD-3-Clause
// Team slots: layout, the predefined teams, install / uninstall, lookup.
#include <cuda_runtime.h>

#include <cstring>

#include "bootstrap/bootstrap.h"
#include "gshmem/detail/host_entry_coll.h"
#include "gshmem/device/impl/reduce_layout.cuh"
#include "host/core/config.h"
#include "host/mem/heap.h"
#include "node_run.h"
#include "team.h"

namespace gshmem::team {
namespace {

gshmemi_team unused() {
  gshmemi_team t{};
  t.my_pe = -1;
  return t;
}

// The node's PEs as start/stride/size when they form an arithmetic progression
// of world PE numbers (local_pes is sorted); false otherwise.
bool node_progression(const Runtime& r, int* start, int* stride) {
  const std::vector<int>& l = r.local_pes;
  *start = l.empty() ? r.my_pe : l[0];
  *stride = l.size() > 1 ? l[1] - l[0] : 1;
  for (size_t i = 1; i < l.size(); ++i)
    if (l[i] - l[i - 1] != *stride) return false;
  return !l.empty();
}

}  // namespace

SlotPlan plan(const Runtime& r) {
  return plan_slots(r.n_pes, r.max_node_size, max_teams_config(), config::get().team_scratch_size);
}

int max_teams_config() {
  const long long v = config::get().max_teams;
  return static_cast<int>(v < kPredefined + 1 ? kPredefined + 1 : (v > kMaxSlots ? kMaxSlots : v));
}

const gshmemi_team* lookup(gshmem_team_t team) {
  const Runtime& r = rt();
  if (!r.initialized || team < 0 || team >= static_cast<int>(r.teams.size())) return nullptr;
  const gshmemi_team& t = r.teams[team];
  return (t.size > 0 && t.my_pe >= 0) ? &t : nullptr;
}

const gshmemi_team* require(const char* call, gshmem_team_t team) {
  if (require_init(call) != GSHMEM_SUCCESS) return nullptr;
  const gshmemi_team* t = lookup(team);
  if (!t)
    GSHMEM_LOG_ERROR(
        "%s: team %d is not a valid team of this PE (GSHMEM_TEAM_INVALID, destroyed, or a team this "
        "PE is not a member of); call it only with teams for which gshmem_team_my_pe(team) >= 0",
        call, team);
  return t;
}

Status install(const char* call, int slot, int start, int stride, int size, int my_index,
               const gshmem_team_config_t& config, cudaStream_t stream) {
  Runtime& r = rt();
  if (size > r.team_slot_capacity[slot]) {  // choose_slots() prevents it; a bug otherwise
    GSHMEM_LOG_ERROR("%s: team slot %d holds teams of up to %d PEs, not %d (internal error)", call, slot,
                     r.team_slot_capacity[slot], size);
    return GSHMEM_ERROR_INTERNAL;
  }
  char* base = r.team_region + r.team_slot_offset[slot];
  const uint64_t ctrl = r.team_slot_ctrl[slot];
  const uint64_t slot_bytes = r.team_slot_offset[slot + 1] - r.team_slot_offset[slot];
  gshmemi_team t{};
  t.start = start;
  t.stride = stride;
  t.size = size;
  t.my_pe = my_index;
  t.sync_flags = reinterpret_cast<uint64_t*>(base);
  t.coll_flags = t.sync_flags + size;
  t.scratch = base + ctrl;
  t.scratch_bytes = slot_bytes - ctrl;
  detail::team_layout_fill(&t, config::get().ll_max_bytes);
  const std::vector<char*>& bases = r.heap->peer_bases();
  for (int i = 0; i < size; ++i)
    if (i != my_index && bases[start + i * stride] == nullptr) t.flags |= GSHMEMI_TEAM_SPANS_NODES;
  t.node_run = static_cast<uint32_t>(node_run_of(r.node_first, start, stride, size));
  t.flags |= static_cast<uint32_t>(slot) << GSHMEMI_TEAM_SLOT_SHIFT;  // slot < kMaxSlots = 256
  if (r.team_proxy_sync) {
    // Zero, as the slot's flags: every signal of the slot's last team was taken (a team is
    // destroyed after its last sync), and the members sync before the new one is used.
    const size_t first = static_cast<size_t>(slot) * GSHMEMI_TEAM_PROXY_SYNC_WORDS;
    for (size_t j = 0; j < GSHMEMI_TEAM_PROXY_SYNC_WORDS; ++j)
      __atomic_store_n(r.team_proxy_sync + first + j, uint64_t{0}, __ATOMIC_RELAXED);
  }
  GSHMEM_CUDA_TRY(call, cudaMemsetAsync(base, 0, slot_bytes, stream));
  r.teams[slot] = t;
  r.team_configs[slot] = config;
  GSHMEM_CUDA_TRY(
      call, cudaMemcpyAsync(r.d_teams + slot, &r.teams[slot], sizeof(gshmemi_team), cudaMemcpyHostToDevice, stream));
  GSHMEM_LOG_INFO("%s: team %d = world PEs %d + i*%d, i < %d; this PE is team PE %d", call, slot, start, stride, size,
                  my_index);
  return GSHMEM_SUCCESS;
}

Status uninstall(const char* call, int slot) {
  Runtime& r = rt();
  r.teams[slot] = unused();
  r.team_configs[slot] = gshmem_team_config_t{};
  GSHMEM_CUDA_TRY(call, cudaMemcpy(r.d_teams + slot, &r.teams[slot], sizeof(gshmemi_team), cudaMemcpyHostToDevice));
  return GSHMEM_SUCCESS;
}

std::vector<uint64_t> free_slots() {
  const Runtime& r = rt();
  std::vector<uint64_t> bits(GSHMEMI_TEAM_CHECK_WORDS, 0);
  for (size_t k = 0; k < r.teams.size(); ++k)
    if (r.teams[k].size == 0) bits[k / 64] |= 1ull << (k % 64);
  return bits;
}

uint64_t* proxy_sync_word(uint64_t heap_offset) {
  const Runtime& r = rt();
  const uint64_t region = static_cast<uint64_t>(r.team_region - r.heap->base());
  if (!r.team_proxy_sync || heap_offset < region) return nullptr;
  const int64_t k = proxy_sync_index(r.team_slot_offset, r.team_slot_capacity, heap_offset - region);
  return k < 0 ? nullptr : r.team_proxy_sync + k;  // k < max_teams * words: one capacity per slot
}

Status setup(Runtime& r, char* region, bool proxy) {
  const char* call = "gshmem_init";
  const int max_teams = max_teams_config();
  if (config::get().max_teams > kMaxSlots)
    GSHMEM_LOG_WARN("GSHMEM_MAX_TEAMS=%lld is more than gshmem supports; using %d", config::get().max_teams, kMaxSlots);
  const SlotPlan p = plan(r);
  r.team_region = region;
  r.team_slot_offset = p.offset;
  r.team_slot_ctrl = p.ctrl;
  r.team_slot_capacity = p.capacity;
  r.teams.assign(max_teams, unused());
  r.team_configs.assign(max_teams, gshmem_team_config_t{});
  GSHMEM_CUDA_TRY(call, cudaMalloc(&r.d_teams, sizeof(gshmemi_team) * max_teams));
  if (proxy) {
    void* h = nullptr;
    void* d = nullptr;
    const size_t bytes = sizeof(uint64_t) * GSHMEMI_TEAM_PROXY_SYNC_WORDS * static_cast<size_t>(max_teams);
    GSHMEM_CUDA_TRY(call, cudaHostAlloc(&h, bytes, cudaHostAllocPortable | cudaHostAllocMapped));
    r.team_proxy_sync = static_cast<uint64_t*>(h);
    std::memset(h, 0, bytes);
    GSHMEM_CUDA_TRY(call, cudaHostGetDevicePointer(&d, h, 0));
    r.team_proxy_sync_d = static_cast<uint64_t*>(d);
  }
  GSHMEM_CUDA_TRY(call,
                  cudaMemcpy(r.d_teams, r.teams.data(), sizeof(gshmemi_team) * max_teams, cudaMemcpyHostToDevice));

  // The node of every world PE (its lowest PE), for the teams' node_run: one all-gather, only in
  // jobs of several nodes (n_nodes is the same on every PE).
  r.node_first.clear();
  if (r.n_nodes > 1) {
    const int mine = r.local_pes.empty() ? r.my_pe : r.local_pes[0];
    r.node_first.assign(r.n_pes, 0);
    GSHMEM_TRY(r.boot->allgather(&mine, r.node_first.data(), sizeof(int)));
  }
  const gshmem_team_config_t none{};
  GSHMEM_TRY(install(call, GSHMEM_TEAM_WORLD, 0, 1, r.n_pes, r.my_pe, none, nullptr));
  int start = r.my_pe, stride = 1;
  const bool whole_node = node_progression(r, &start, &stride);
  if (!whole_node)
    GSHMEM_LOG_WARN(
        "gshmem_init: the PEs of this node are not evenly spaced in the world numbering, so "
        "GSHMEMX_TEAM_NODE and GSHMEM_TEAM_SHARED contain only this PE; place PEs node by node "
        "(consecutive or evenly strided ranks) to get whole-node teams");
  const int node_size = whole_node ? static_cast<int>(r.local_pes.size()) : 1;
  const int node_index = whole_node ? r.local_rank : 0;
  if (!whole_node) start = r.my_pe, stride = 1;
  GSHMEM_TRY(install(call, GSHMEMX_TEAM_NODE, start, stride, node_size, node_index, none, nullptr));
  bool mapped = whole_node;
  for (int pe : r.local_pes) mapped = mapped && r.heap->peer_base(pe) != nullptr;
  if (whole_node && !mapped)
    GSHMEM_LOG_WARN(
        "gshmem_init: not every PE of this node is load/store reachable; GSHMEM_TEAM_SHARED contains "
        "only this PE");
  if (mapped)
    GSHMEM_TRY(install(call, GSHMEM_TEAM_SHARED, start, stride, node_size, node_index, none, nullptr));
  else
    GSHMEM_TRY(install(call, GSHMEM_TEAM_SHARED, r.my_pe, 1, 1, 0, none, nullptr));
  GSHMEM_CUDA_TRY(call, cudaDeviceSynchronize());
  return GSHMEM_SUCCESS;
}

void teardown(Runtime& r) {
  if (r.d_teams) cudaFree(r.d_teams);
  r.d_teams = nullptr;
  if (r.team_proxy_sync) cudaFreeHost(r.team_proxy_sync);  // the proxy has stopped (init.cpp, teardown)
  r.team_proxy_sync = nullptr;
  r.team_proxy_sync_d = nullptr;
  r.team_region = nullptr;
  r.team_slot_offset.clear();
  r.team_slot_ctrl.clear();
  r.team_slot_capacity.clear();
  r.teams.clear();
  r.team_configs.clear();
  r.node_first.clear();
}

}  // namespace gshmem::team
