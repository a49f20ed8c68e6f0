// SPDX-License-Identifier: BSD-3-Clause
// gshmem_init's host-side exchanges (bootstrap/init_exchange.h) over forked ranks: node discovery
// from host ids (several fake nodes on this machine), agreement on shared values (and the line
// every PE logs when one differs), all_agree, and the PEs that share a device id.
#include "bootstrap/init_exchange.h"

#include "bootstrap_test_util.h"

namespace {

using namespace bootstrap_test;

// PE r on fake node r / ppn: the real id with the node number folded into the host hash.
HostId fake_host(int rank, int ppn) {
  HostId h = local_host_id();
  h.host_hash ^= 0x1000ull * static_cast<uint64_t>(rank / ppn + 1);
  return h;
}

TEST(InitExchange, LocalHostIdIsStable) {
  const HostId a = local_host_id(), b = local_host_id();
  EXPECT_EQ(memcmp(&a, &b, sizeof(HostId)), 0);
}

bool same_id(const HostId& a, const HostId& b) { return memcmp(&a, &b, sizeof(HostId)) == 0; }

// GSHMEM_HOSTID and GSHMEM_DISABLE_P2P (node_host_id): unset, the physical id; a text, one id per
// text whatever the host; DISABLE_P2P, one id per rank.
TEST(InitExchange, NodeHostIdOverrides) {
  const HostId phys = local_host_id();
  HostId other = phys;
  other.host_hash ^= 0x1234;
  EXPECT_TRUE(same_id(node_host_id(phys, "", false, 3), phys));
  const HostId a0 = node_host_id(phys, "a", false, 0), a1 = node_host_id(other, "a", false, 1);
  const HostId b0 = node_host_id(phys, "b", false, 0);
  EXPECT_TRUE(same_id(a0, a1));  // the text decides, not the host
  EXPECT_FALSE(same_id(a0, b0));
  EXPECT_FALSE(same_id(a0, phys));
  for (const char* text : {"", "a"})
    for (int r = 0; r < 64; ++r)
      for (int q = 0; q < r; ++q)
        EXPECT_FALSE(same_id(node_host_id(phys, text, true, r), node_host_id(phys, text, true, q))) << r << " " << q;
}

// 4 PEs of one host as 2 simulated nodes of 2 (gshmrun --sim-nodes 2): discover_node on the
// node ids groups {0,1} {2,3}; on the physical ids all four are one host (GPU choice).
TEST(InitExchange, SimulatedNodesKeepThePhysicalGroup) {
  const int n = 4;
  gshmemx_uniqueid_t id = loopback_id();
  run_ranks(n, id, 60, [&](int r) {
    std::unique_ptr<Bootstrap> b;
    CHILD_CHECK(connect(id, r, n, opts(30), &b) == GSHMEM_SUCCESS, "connect");
    const HostId phys = local_host_id();
    NodeInfo node, host;
    const std::string text = r < 2 ? "h-sim0" : "h-sim1";
    CHILD_CHECK(discover_node(*b, node_host_id(phys, text, false, r), &node) == GSHMEM_SUCCESS, "discover_node");
    CHILD_CHECK(discover_node(*b, phys, &host) == GSHMEM_SUCCESS, "discover_node (physical)");
    CHILD_CHECK(node.n_nodes == 2 && node.local_pes.size() == 2 && node.local_rank == r % 2, "node grouping");
    CHILD_CHECK(node.local_pes[0] == r / 2 * 2, "node's first PE %d", node.local_pes[0]);
    CHILD_CHECK(host.n_nodes == 1 && host.local_rank == r && host.local_pes.size() == 4, "physical grouping");
    NodeInfo alone;
    CHILD_CHECK(discover_node(*b, node_host_id(phys, "", true, r), &alone) == GSHMEM_SUCCESS, "discover (p2p off)");
    CHILD_CHECK(alone.n_nodes == n && alone.local_pes.size() == 1 && alone.local_pes[0] == r, "p2p off grouping");
    return b->finalize() == GSHMEM_SUCCESS ? 0 : 1;
  });
}

// 7 PEs, 3 per node: nodes {0,1,2} {3,4,5} {6}.
TEST(InitExchange, DiscoverNodeFindsEveryNode) {
  const int n = 7, ppn = 3;
  gshmemx_uniqueid_t id = loopback_id();
  run_ranks(n, id, 60, [&](int r) {
    std::unique_ptr<Bootstrap> b;
    CHILD_CHECK(connect(id, r, n, opts(30), &b) == GSHMEM_SUCCESS, "connect");
    NodeInfo node;
    std::vector<HostId> table;
    CHILD_CHECK(discover_node(*b, fake_host(r, ppn), &node, &table) == GSHMEM_SUCCESS, "discover_node");
    CHILD_CHECK(static_cast<int>(table.size()) == n, "table of %zu", table.size());
    for (int pe = 0; pe < n; ++pe) {
      const HostId want = fake_host(pe, ppn);
      CHILD_CHECK(!memcmp(&table[pe], &want, sizeof(HostId)), "PE %d's host id is wrong", pe);
    }
    const int first = r / ppn * ppn, last = std::min(n, first + ppn);
    CHILD_CHECK(static_cast<int>(node.local_pes.size()) == last - first, "%zu local PEs", node.local_pes.size());
    for (int i = 0; i < last - first; ++i) CHILD_CHECK(node.local_pes[i] == first + i, "local PE %d", i);
    CHILD_CHECK(node.local_rank == r - first, "local rank %d", node.local_rank);
    CHILD_CHECK(node.n_nodes == 3 && node.max_node_size == 3, "%d nodes, largest %d", node.n_nodes, node.max_node_size);
    return b->finalize() == GSHMEM_SUCCESS ? 0 : 1;
  });
}

TEST(InitExchange, AgreeOnValuesPassesEqualValues) {
  const int n = 4;
  gshmemx_uniqueid_t id = loopback_id();
  run_ranks(n, id, 60, [&](int r) {
    std::unique_ptr<Bootstrap> b;
    CHILD_CHECK(connect(id, r, n, opts(30), &b) == GSHMEM_SUCCESS, "connect");
    const char* names[2] = {"A", "B"};
    const uint64_t v[2] = {7, 1ull << 40};
    CHILD_CHECK(agree_on_values(*b, "test", v, names, 2) == GSHMEM_SUCCESS, "agree");
    bool all = false;
    CHILD_CHECK(all_agree(*b, true, &all) == GSHMEM_SUCCESS && all, "all_agree(true)");
    CHILD_CHECK(all_agree(*b, r != 2, &all) == GSHMEM_SUCCESS && !all, "all_agree with PE 2 false");
    return b->finalize() == GSHMEM_SUCCESS ? 0 : 1;
  });
}

// PEs 2 and 3 differ in the second value: every PE names PE 2 and both values.
TEST(InitExchange, AgreeOnValuesNamesTheFirstDifference) {
  const int n = 5;
  gshmemx_uniqueid_t id = loopback_id();
  std::vector<Child> cs;
  run_ranks(
      n, id, 60,
      [&](int r) {
        std::unique_ptr<Bootstrap> b;
        CHILD_CHECK(connect(id, r, n, opts(30), &b) == GSHMEM_SUCCESS, "connect");
        const char* names[3] = {"GSHMEM_A", "GSHMEM_B", "GSHMEM_C"};
        const uint64_t v[3] = {1, r >= 2 ? 20ull + r : 2ull, 3};
        CHILD_CHECK(agree_on_values(*b, "test", v, names, 3) == GSHMEM_ERROR_MISMATCH, "mismatch expected");
        return b->finalize() == GSHMEM_SUCCESS ? 0 : 1;
      },
      &cs);
  for (const Child& c : cs)
    EXPECT_TRUE(contains(c.output, "test: GSHMEM_B differs between PEs (PE 0: 2, PE 2: 22)")) << c.describe();
}

// 6 PEs, 3 per node, device ids: node 0 {A, A, B}, node 1 {A, B, B}: equal ids on different
// nodes are different devices.
TEST(InitExchange, SameDevicePesStaysOnTheNode) {
  const int n = 6, ppn = 3;
  const char kDev[] = "AABABB";
  gshmemx_uniqueid_t id = loopback_id();
  run_ranks(n, id, 60, [&](int r) {
    std::unique_ptr<Bootstrap> b;
    CHILD_CHECK(connect(id, r, n, opts(30), &b) == GSHMEM_SUCCESS, "connect");
    NodeInfo node;
    CHILD_CHECK(discover_node(*b, fake_host(r, ppn), &node) == GSHMEM_SUCCESS, "discover_node");
    uint8_t dev[16];
    memset(dev, kDev[r], sizeof(dev));
    std::vector<int> pes;
    std::vector<uint8_t> table;
    CHILD_CHECK(same_device_pes(*b, dev, node.local_pes, &pes, &table) == GSHMEM_SUCCESS, "same_device_pes");
    for (int pe = 0; pe < n; ++pe)
      for (int i = 0; i < 16; ++i) CHILD_CHECK(table[pe * 16 + i] == kDev[pe], "PE %d's id byte %d", pe, i);
    std::vector<int> want;
    for (int pe = r / ppn * ppn; pe < r / ppn * ppn + ppn; ++pe)
      if (kDev[pe] == kDev[r]) want.push_back(pe);
    CHILD_CHECK(pes == want, "%zu PEs on this device, expected %zu", pes.size(), want.size());
    return b->finalize() == GSHMEM_SUCCESS ? 0 : 1;
  });
}

}  // namespace
