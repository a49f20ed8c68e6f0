// SPDX-License-Identifier: BSD-3-Clause
// Faults in the proxy engine (docs/internode.md section 9, with abort off): a failed peer fails
// the operations to it that it had not acknowledged, and only those, each with an error naming
// the peer; what it acknowledged stays applied; a waiting reply gets its error bit instead of
// hanging; the fault word names the peer; later operations to it fail at once and the others
// go on. Entries no producer should write are reported and skipped.
#include <gtest/gtest.h>

#include "proxy_test_util.h"

namespace {

using namespace proxy_test;

TEST(ProxyFaults, AFailedPeerFailsOnlyItsOwnOperations) {
  constexpr uint64_t kPhase = 40;
  // The producer runs on the pumping thread: a ring of 128 never makes it wait for room.
  Cluster c(3, 7, 8192, LoopbackOptions{77, 3000, true}, true);
  TestRing& r = *c.nodes[0].ring;
  Producer p(r, 3);
  auto put = [&](int q, uint64_t i) {
    uint8_t v[16];
    for (int b = 0; b < 16; ++b) v[b] = pattern(q, i, b);
    return p.post(inline_put(q, 16 * i, v, 16));
  };
  // Phase 1: PEs 1 and 2 apply and acknowledge everything.
  for (uint64_t i = 0; i < kPhase; ++i) put(1 + i % 2, i);
  ASSERT_TRUE(c.pump_until([&] { return r.completed() == kPhase; }));
  // Phase 2: PE 2 stops applying; ops to it stay unacknowledged, a fetch to it waits.
  c.nodes[2].stager->set_stalled(true);
  std::vector<uint64_t> to2, to1;
  for (uint64_t i = kPhase; i < 2 * kPhase; ++i) (i % 2 ? to2 : to1).push_back(put(1 + i % 2, i));
  const uint64_t fetch = p.post(amo(2, GSHMEMI_PROXY_OP_AMO_ADD, 4096, 5, true));
  to2.push_back(fetch);
  for (int i = 0; i < 300; ++i) c.pump();
  EXPECT_EQ(r.completed(), to2.front()) << "completed stops at the first op PE 2 did not acknowledge";
  c.kill(2, "killed by the test");
  ASSERT_TRUE(c.pump_until([&] { return gshmemi_proxy_reply_is_for(load(r.slot(fetch) + 7), fetch); }));
  bool err = false, held = false;
  p.wait_reply(fetch, true, &err, &held);  // answered, with the error bit: no hang
  EXPECT_TRUE(err);
  EXPECT_TRUE(held);
  // Phase 3: after the failure, ops to PE 1 work and ops to PE 2 fail at once.
  for (uint64_t i = 2 * kPhase; i < 3 * kPhase; ++i) (i % 2 ? to2 : to1).push_back(put(1 + i % 2, i));
  ASSERT_TRUE(c.pump_until([&] { return r.completed() == r.issued.load(); }));
  EXPECT_EQ(r.fault(), 3u) << "the fault word holds 1 + the failed PE";
  EXPECT_TRUE(c.nodes[0].engine->peer_failed(2));
  EXPECT_FALSE(c.nodes[0].engine->peer_failed(1));
  const auto& f = c.nodes[0].engine->failures();
  ASSERT_EQ(f.size(), to2.size()) << "exactly the unacknowledged ops to PE 2 fail";
  for (size_t i = 0; i < f.size(); ++i) {
    EXPECT_EQ(f[i].target, 2);
    EXPECT_FALSE(f[i].host);
    EXPECT_EQ(f[i].id, to2[i]);
    EXPECT_NE(f[i].message.find("PE 2"), std::string::npos) << f[i].message;
  }
  EXPECT_NE(f.front().message.find("PE 2 failed (killed by the test)"), std::string::npos) << f.front().message;
  EXPECT_NE(f.back().message.find("PE 2 has failed"), std::string::npos) << f.back().message;
  // Every put to PE 1, before and after the failure, landed; PE 2 kept what it acknowledged.
  for (uint64_t i = 0; i < 3 * kPhase; ++i) {
    const int q = 1 + i % 2;
    const bool applied = q == 1 || i < kPhase;
    for (int b = 0; b < 16; ++b)
      ASSERT_EQ(c.nodes[q].bytes()[16 * i + b], applied ? pattern(q, i, b) : 0) << "put " << i << " byte " << b;
  }
  // PE 1 heard of the failure too and has nothing of its own to fail.
  EXPECT_TRUE(c.nodes[1].engine->peer_failed(2));
  EXPECT_TRUE(c.nodes[1].engine->failures().empty());
}

// Blocking host puts (no reply awaited, only completion) to a target that stops applying and is
// killed: the caller's failure flag is set for the one it never acknowledged, not for the one
// to the live PE, and both complete (no hang).
TEST(ProxyFaults, ABlockingHostPutToAFailedPeerReportsFailure) {
  Cluster c(3, 5, 4096, LoopbackOptions{11, 2000, true}, false);
  c.nodes[2].stager->set_stalled(true);
  uint8_t v[8];
  for (int b = 0; b < 8; ++b) v[b] = pattern(7, 2, b);
  std::atomic<int> failed1{0}, failed2{0};
  HostOp to1, to2;
  to1.op = inline_put(1, 64, v, 8);
  to1.failed = &failed1;
  to2.op = inline_put(2, 64, v, 8);
  to2.failed = &failed2;
  c.nodes[0].host->push(to2);
  c.nodes[0].host->push(to1);
  for (int i = 0; i < 300; ++i) c.pump();
  EXPECT_EQ(c.nodes[0].engine->host_completed(), 0u) << "PE 2 applies nothing: its put cannot be complete";
  c.kill(2, "killed by the test");
  ASSERT_TRUE(c.pump_until([&] { return c.nodes[0].engine->host_completed() == 2; }));
  EXPECT_EQ(failed2.load(), 1) << "the put PE 2 never acknowledged reports failure to its caller";
  EXPECT_EQ(failed1.load(), 0);
  for (int b = 0; b < 8; ++b) EXPECT_EQ(c.nodes[1].bytes()[64 + b], v[b]) << "byte " << b;
}

TEST(ProxyFaults, BadEntriesAreReportedAndSkipped) {
  Cluster c(2, 3, 1024, LoopbackOptions{88, 0, false}, false);
  TestRing& r = *c.nodes[0].ring;
  Producer p(r, 4);
  uint8_t v[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  p.post(inline_put(7, 0, v, 8));  // no PE 7 in a job of 2
  ProxyOp bad = inline_put(1, 0, v, 8);
  bad.op = 40;  // no such op
  p.post(bad);
  const uint64_t g = p.post(amo(1, GSHMEMI_PROXY_OP_AMO_FETCH, 4096, 0, true));  // outside the heap
  p.post(inline_put(1, 8, v, 8));
  ASSERT_TRUE(c.pump_until([&] { return r.completed() == 4; }));
  ASSERT_TRUE(c.pump_until([&] { return gshmemi_proxy_reply_is_for(load(r.slot(g) + 7), g); }));
  bool err = false, held = false;
  p.wait_reply(g, true, &err, &held);
  EXPECT_TRUE(err);
  const auto& f = c.nodes[0].engine->failures();
  ASSERT_EQ(f.size(), 3u);
  EXPECT_NE(f[0].message.find("PE 7 is out of range: valid PEs are 0..1"), std::string::npos) << f[0].message;
  EXPECT_NE(f[1].message.find("bad proxy entry at ring ticket 1: unknown op 40"), std::string::npos) << f[1].message;
  EXPECT_NE(f[2].message.find("outside the heap"), std::string::npos) << f[2].message;
  for (int b = 0; b < 8; ++b) EXPECT_EQ(c.nodes[1].bytes()[8 + b], v[b]);
  for (int b = 0; b < 8; ++b) EXPECT_EQ(c.nodes[1].bytes()[b], 0) << "the bad entries wrote nothing";
}

}  // namespace
