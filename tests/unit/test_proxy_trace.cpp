// SPDX-License-Identifier: BSD-3-Clause
// The proxy trace (proxy/trace.h, GSHMEM_PROXY_TRACE) on engines joined by the loopback
// transport: a barrier-like exchange of two PEs (each round a put with a SET signal, tracked,
// and a team sync's untracked ADD signal, both ways) records every stage of every op in order -
// ring entry, send, arrival, apply, applied, acknowledgement sent and received, completion -
// with sane deltas; the file holds them all; a full trace keeps its first records and counts
// the rest. And acknowledgements go only for ops the source tracks (engine_target.cpp,
// send_acks): a sync's signals alone cause none; with an ack delay they ride on replies.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <sstream>

#include "proxy_test_util.h"

namespace {

using namespace proxy_test;

constexpr uint64_t kMaxDeltaNs = 5ull * 1000 * 1000 * 1000;  // any stage: far below 5 s

ProxyOp put_with_signal(int target, uint64_t offset, uint64_t value, uint64_t sig_offset) {
  uint8_t v[8];
  std::memcpy(v, &value, 8);
  ProxyOp o = inline_put(target, offset, v, 8);
  o.flags |= GSHMEMI_PROXY_F_HAS_SIGNAL;
  o.sig_offset = sig_offset;
  o.sig_value = value;
  return o;
}

ProxyOp sync_signal(int target, uint64_t sig_offset) {
  ProxyOp o = signal_op(target, sig_offset, 1, true);
  o.flags |= GSHMEMI_PROXY_F_UNTRACKED;
  return o;
}

// The records of one PE, by event.
std::vector<TraceRecord> records(const Trace& t, TraceEv ev) {
  std::vector<TraceRecord> out;
  for (size_t i = 0; i < t.size(); ++i)
    if (t[i].ev == static_cast<uint8_t>(ev)) out.push_back(t[i]);
  return out;
}

// The first record of `ev` on `t` that `match` accepts, or nullptr.
template <class Match>
const TraceRecord* first(const Trace& t, TraceEv ev, Match match) {
  for (size_t i = 0; i < t.size(); ++i)
    if (t[i].ev == static_cast<uint8_t>(ev) && match(t[i])) return &t[i];
  return nullptr;
}

// Each round both PEs post a put with a SET signal (value r into word 0 of the peer) and a sync
// signal (ADD 1 to word 1), then wait for the peer's: a barrier's traffic, tracked and not.
void exchange(Cluster& c, std::vector<Producer>& prod, int rounds) {
  for (int r = 1; r <= rounds; ++r) {
    for (int pe = 0; pe < 2; ++pe) {
      prod[pe].post(put_with_signal(1 - pe, 16, static_cast<uint64_t>(r), 0));
      prod[pe].post(sync_signal(1 - pe, 8));
    }
    ASSERT_TRUE(c.pump_until([&] {
      for (int pe = 0; pe < 2; ++pe)
        if (load(&c.nodes[pe].heap[0]) != static_cast<uint64_t>(r) ||
            load(&c.nodes[pe].heap[1]) != static_cast<uint64_t>(r))
          return false;
      return true;
    })) << "round "
        << r;
  }
  ASSERT_TRUE(c.pump_until([&] {
    return c.nodes[0].ring->completed() == c.nodes[0].ring->issued &&
           c.nodes[1].ring->completed() == c.nodes[1].ring->issued;
  }));
}

TEST(ProxyTrace, EveryStageOfEveryOpIsRecordedInOrder) {
  constexpr int kRounds = 40;
  Cluster c(2, 4, 64, LoopbackOptions{11, 3000, false}, true, 1024, {}, 1 << 16);
  std::vector<Producer> prod;
  prod.reserve(2);
  for (int pe = 0; pe < 2; ++pe) prod.emplace_back(*c.nodes[pe].ring, 70 + pe);
  exchange(c, prod, kRounds);
  if (HasFatalFailure()) return;
  int checked = 0;
  for (int s = 0; s < 2; ++s) {
    const int q = 1 - s;
    const Trace& ts = *c.nodes[s].trace;
    const Trace& tq = *c.nodes[q].trace;
    const std::vector<TraceRecord> ring = records(ts, TraceEv::kRing);
    ASSERT_EQ(ring.size(), 2u * kRounds) << "PE " << s << ": ring entries recorded";
    for (const TraceRecord& e : ring) {
      const uint64_t ticket = e.a;
      SCOPED_TRACE("PE " + std::to_string(s) + " ticket " + std::to_string(ticket));
      ASSERT_EQ(e.peer, q);
      const bool tracked = !(e.flags & GSHMEMI_PROXY_F_UNTRACKED);
      EXPECT_EQ(e.op, tracked ? GSHMEMI_PROXY_OP_PUT : GSHMEMI_PROXY_OP_SIGNAL);
      const TraceRecord* send = first(ts, TraceEv::kSend, [&](const TraceRecord& r) {
        return r.kind == static_cast<uint8_t>(MsgKind::kOp) && r.b == ticket;
      });
      ASSERT_NE(send, nullptr) << "no send";
      const uint64_t seq = send->a;
      const TraceRecord* recv = first(tq, TraceEv::kRecv, [&](const TraceRecord& r) {
        return r.kind == static_cast<uint8_t>(MsgKind::kOp) && r.peer == s && r.a == seq;
      });
      const TraceRecord* apply =
          first(tq, TraceEv::kApply, [&](const TraceRecord& r) { return r.kind == 0 && r.peer == s && r.a == seq; });
      const TraceRecord* applied =
          first(tq, TraceEv::kApplied, [&](const TraceRecord& r) { return r.kind == 0 && r.peer == s && r.a == seq; });
      const TraceRecord* done = first(ts, TraceEv::kCompleted, [&](const TraceRecord& r) { return r.a > ticket; });
      ASSERT_TRUE(recv && apply && applied && done) << "a stage is missing at the target or the source";
      std::vector<const TraceRecord*> chain = {&e, send, recv, apply, applied};
      if (tracked) {
        // The target's acknowledgement covering it, after its apply; its arrival; completion.
        const TraceRecord* ack = first(tq, TraceEv::kSend, [&](const TraceRecord& r) {
          return r.kind == static_cast<uint8_t>(MsgKind::kAck) && r.peer == s && r.a > seq;
        });
        const TraceRecord* ack_in = first(ts, TraceEv::kRecv, [&](const TraceRecord& r) {
          return r.kind == static_cast<uint8_t>(MsgKind::kAck) && r.peer == q && r.a > seq;
        });
        ASSERT_TRUE(ack && ack_in) << "no acknowledgement sent or received";
        chain.push_back(ack);
        chain.push_back(ack_in);
      }
      // An untracked signal is complete once sent (its target may apply it later): its
      // completion follows the send.
      if (tracked) chain.push_back(done);
      EXPECT_LE(send->t_ns, done->t_ns) << "completed before it was sent";
      EXPECT_LT(done->t_ns - send->t_ns, kMaxDeltaNs);
      for (size_t k = 1; k < chain.size(); ++k) {
        EXPECT_LE(chain[k - 1]->t_ns, chain[k]->t_ns)
            << "stage " << k << " (" << trace_event_name(static_cast<TraceEv>(chain[k]->ev)) << ") before stage "
            << k - 1 << " (" << trace_event_name(static_cast<TraceEv>(chain[k - 1]->ev)) << ")";
        EXPECT_LT(chain[k]->t_ns - chain[k - 1]->t_ns, kMaxDeltaNs) << "stage " << k;
      }
      EXPECT_LT(send->dur_ns, kMaxDeltaNs);
      EXPECT_LT(apply->dur_ns, kMaxDeltaNs);
      ++checked;
    }
    const TraceCounters& k = ts.counters();
    EXPECT_GT(k.passes, 0u);
    EXPECT_GT(k.passes_moved, 0u);
    EXPECT_LE(k.passes_moved, k.passes);
    EXPECT_EQ(k.messages_sent[1], 2u * kRounds);
    EXPECT_EQ(k.messages_received[1], 2u * kRounds);
    uint64_t hist = 0;
    for (uint64_t h : k.pass_hist) hist += h;
    EXPECT_EQ(hist, k.passes);
    EXPECT_EQ(ts.dropped(), 0u);
  }
  EXPECT_EQ(checked, 4 * kRounds);
}

// The file: a header, one line of 9 fields per record in recording order (not quite time order:
// a record stamped at the start of a call follows those the call made), the counters.
TEST(ProxyTrace, WritesEveryRecordAndTheCounters) {
  Cluster c(2, 4, 64, LoopbackOptions{12, 0, false}, false, 1024, {}, 1 << 12);
  std::vector<Producer> prod;
  prod.reserve(2);
  for (int pe = 0; pe < 2; ++pe) prod.emplace_back(*c.nodes[pe].ring, 80 + pe);
  exchange(c, prod, 5);
  if (HasFatalFailure()) return;
  char path[] = "/tmp/gshmem_trace_XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  const Trace& t = *c.nodes[1].trace;
  std::string why;
  ASSERT_TRUE(t.write(path, 1, 2, &why)) << why;
  std::ifstream in(path);
  std::string line;
  ASSERT_TRUE(std::getline(in, line));
  EXPECT_EQ(line.rfind("# gshmem proxy trace v1\tpe=1\tn_pes=2\t", 0), 0u) << line;
  ASSERT_TRUE(std::getline(in, line));
  EXPECT_EQ(line, "t_ns\tev\tpeer\tkind\top\tflags\ta\tb\tdur_ns");
  size_t rows = 0;
  std::map<std::string, uint64_t> counters;
  while (std::getline(in, line)) {
    if (line.rfind("# counter\t", 0) == 0) {
      std::istringstream f(line.substr(10));
      std::string name;
      uint64_t v = 0;
      f >> name >> v;
      counters[name] = v;
      continue;
    }
    std::istringstream f(line);
    std::string field;
    std::vector<std::string> fields;
    while (std::getline(f, field, '\t')) fields.push_back(field);
    ASSERT_EQ(fields.size(), 9u) << line;
    ASSERT_LT(rows, t.size());
    EXPECT_EQ(std::stoull(fields[0]), t[rows].t_ns);
    EXPECT_EQ(fields[1], trace_event_name(static_cast<TraceEv>(t[rows].ev)));
    ++rows;
  }
  unlink(path);
  EXPECT_EQ(rows, t.size());
  EXPECT_EQ(counters["passes"], t.counters().passes);
  EXPECT_EQ(counters["sent.op"], t.counters().messages_sent[1]);
  EXPECT_TRUE(counters.count("phase_ns.transport") && counters.count("pass_hist.15") && counters.count("naps"));
}

// A full trace keeps its first records and counts the rest.
TEST(ProxyTrace, AFullTraceKeepsTheFirstRecordsAndCountsTheRest) {
  Trace t(4);
  for (uint64_t i = 0; i < 10; ++i) t.add(TraceEv::kRing, 1, i);
  ASSERT_EQ(t.size(), 4u);
  EXPECT_EQ(t.dropped(), 6u);
  for (uint64_t i = 0; i < 4; ++i) EXPECT_EQ(t[i].a, i);
}

// A team sync's untracked signals need no acknowledgement, so none is sent: a barrier of two
// then costs each proxy one message a round, not two. A tracked op after them gets one, which
// covers them too (acknowledgements are cumulative), and `completed` passes it.
TEST(ProxyTrace, OnlyTrackedOpsAreAcknowledged) {
  constexpr int kRounds = 30;
  Cluster c(2, 4, 64, LoopbackOptions{13, 2000, false}, true, 1024, {}, 1 << 14);
  std::vector<Producer> prod;
  prod.reserve(2);
  for (int pe = 0; pe < 2; ++pe) prod.emplace_back(*c.nodes[pe].ring, 90 + pe);
  for (int r = 1; r <= kRounds; ++r) {
    for (int pe = 0; pe < 2; ++pe) prod[pe].post(sync_signal(1 - pe, 8));
    ASSERT_TRUE(c.pump_until([&] {
      return load(&c.nodes[0].heap[1]) == static_cast<uint64_t>(r) &&
             load(&c.nodes[1].heap[1]) == static_cast<uint64_t>(r);
    })) << "round "
        << r;
  }
  ASSERT_TRUE(c.pump_until([&] {
    return c.nodes[0].ring->completed() == kRounds && c.nodes[1].ring->completed() == kRounds;
  })) << "untracked signals did not complete";
  for (int i = 0; i < 50; ++i) c.pump();  // time for any acknowledgement to go
  for (int pe = 0; pe < 2; ++pe) {
    EXPECT_EQ(c.nodes[pe].trace->counters().messages_sent[2], 0u)
        << "PE " << pe << " acknowledged " << kRounds << " untracked signals";
    EXPECT_EQ(c.nodes[pe].trace->counters().messages_received[1], static_cast<uint64_t>(kRounds));
  }
  const uint8_t v[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  ASSERT_EQ(prod[0].post(inline_put(1, 16, v, 8)), static_cast<uint64_t>(kRounds));
  ASSERT_TRUE(c.pump_until([&] { return c.nodes[0].ring->completed() == kRounds + 1; }));
  EXPECT_EQ(std::memcmp(c.nodes[1].bytes() + 16, v, 8), 0);
  const std::vector<TraceRecord> acks = records(*c.nodes[1].trace, TraceEv::kSend);
  ASSERT_EQ(c.nodes[1].trace->counters().messages_sent[2], 1u);
  for (const TraceRecord& r : acks)
    if (r.kind == static_cast<uint8_t>(MsgKind::kAck) && r.b == 0)  // the ack message (b = 1: riding on one)
      EXPECT_EQ(r.a, static_cast<uint64_t>(kRounds + 1));
  EXPECT_EQ(c.nodes[0].trace->counters().messages_sent[2], 0u);
  for (auto& nd : c.nodes) EXPECT_TRUE(nd.engine->failures().empty());
}

// GSHMEM_PROXY_ACK_DELAY_US: an acknowledgement waits up to the delay for a message to the
// same PE and rides on it. In a ping-pong of tracked puts with signals every ack rides on the
// reply (no ack message at all) and completion still follows each reply; the last ping-pong's
// ack, with nothing to ride on, goes alone once the delay passed. Without a delay (the default)
// each apply is acknowledged by a message of its own, as before.
int ping_pong_acks(uint64_t delay_ns, int rounds, uint64_t* last_ack_pumps, uint64_t* standalone) {
  Cluster c(2, 4, 64, LoopbackOptions{14, 2000, false}, false, 1024, {}, 1 << 14, delay_ns);
  std::vector<Producer> prod;
  prod.reserve(2);
  for (int pe = 0; pe < 2; ++pe) prod.emplace_back(*c.nodes[pe].ring, 95 + pe);
  for (int r = 1; r <= rounds; ++r) {
    for (int pe = 0; pe < 2; ++pe) {
      prod[pe].post(put_with_signal(1 - pe, 16, static_cast<uint64_t>(r), 0));
      EXPECT_TRUE(c.pump_until([&] { return load(&c.nodes[1 - pe].heap[0]) == static_cast<uint64_t>(r); }))
          << "round " << r;
      // The ping before this reply is acknowledged (it rode on this reply, or went alone).
      if (pe == 1)
        EXPECT_TRUE(c.pump_until([&] { return c.nodes[0].ring->completed() == static_cast<uint64_t>(r); }, 500))
            << "round " << r << ": the ping's completion waited past the reply";
    }
  }
  uint64_t pumps = 0;
  EXPECT_TRUE(c.pump_until([&] {
    ++pumps;
    return c.nodes[1].ring->completed() == static_cast<uint64_t>(rounds);
  }));
  *last_ack_pumps = pumps;
  *standalone = c.nodes[0].trace->counters().messages_sent[2];
  for (auto& nd : c.nodes) EXPECT_TRUE(nd.engine->failures().empty());
  return static_cast<int>(c.nodes[1].trace->counters().messages_sent[2]);
}

TEST(ProxyTrace, AcknowledgementsRideOnRepliesWithinTheDelay) {
  constexpr int kRounds = 25;
  uint64_t pumps = 0, pe0_acks = 0;
  // 100 us (each pump is 1 us of the manual clock).
  EXPECT_EQ(ping_pong_acks(100000, kRounds, &pumps, &pe0_acks), 0) << "PE 1 sent acks its replies could carry";
  EXPECT_EQ(pe0_acks, 1u) << "PE 0: only the last reply's ack goes alone";
  EXPECT_GE(pumps, 90u) << "the last ack did not wait for a message to ride on";
  EXPECT_LE(pumps, 120u) << "the last ack waited past its delay";
  // No delay: each apply is acknowledged at once, alone (or on a message going that pass).
  EXPECT_GT(ping_pong_acks(0, kRounds, &pumps, &pe0_acks), kRounds / 2);
  EXPECT_LE(pumps, 10u);
}

}  // namespace
