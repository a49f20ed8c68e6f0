// SPDX-License-Identifier: BSD-3-Clause
// A team's node layout for the collectives across nodes (gshmemi_team::node_run): pure and
// host-only, so that unit tests check it (tests/unit/test_team_slots.cpp).
#pragma once

#include <cstddef>
#include <set>
#include <vector>

namespace gshmem::team {

// Members per node of the team start + i*stride (i < size) when its members are grouped by node
// in equal runs of consecutive team PEs, else 1 (every member a node of its own: the flat
// algorithms). node_first[pe]: the node of world PE pe (its lowest PE; empty: one node, and then
// the team's size). Every PE holds the same node_first, so every member gets the same answer.
inline int node_run_of(const std::vector<int>& node_first, int start, int stride, int size) {
  if (size <= 0) return 1;
  if (node_first.empty()) return size;
  auto node = [&](int i) { return node_first[static_cast<std::size_t>(start) + static_cast<std::size_t>(i) * stride]; };
  int run = 1;
  while (run < size && node(run) == node(0)) ++run;
  if (size % run != 0) return 1;
  std::set<int> seen;  // each node in one run only
  for (int n = 0; n < size / run; ++n) {
    if (!seen.insert(node(n * run)).second) return 1;
    for (int i = 1; i < run; ++i)
      if (node(n * run + i) != node(n * run)) return 1;
  }
  return run;
}

}  // namespace gshmem::team
