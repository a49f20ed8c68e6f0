// SPDX-License-Identifier: BSD-3-Clause
// The UCX plugin between processes (docs/internode.md section 13): three PEs on this machine,
// each a proxy engine over libgshmem_transport_ucx.so with UCX_TLS=tcp, exchange puts (inline,
// by reference, one large enough for UCX's rendezvous), put-with-signal, ordered puts to one
// word, fetching AMOs and gets through their host queues into plain host heaps. Checked: every
// byte, each source's operations applied in its order, no signal before its data, AMOs atomic
// (the fetched values of all PEs form one chain), completion only after the data is in place;
// and that a killed PE is reported by the others, with a message naming it, and no hang.
// Exit 77 (skipped) when libucp.so.0 cannot be found (GSHMEM_UCX_LIB, the loader's path).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include <algorithm>
#include <map>
#include <sstream>

#include "gshmem/detail/proxy_abi.h"
#include "proxy_test_util.h"
#include "transport_test_util.h"

namespace {

using namespace transport_test;

constexpr int kPes = 3;
constexpr uint64_t kSlot = 2u << 20;    // per source PE: what it puts here
constexpr uint64_t kBulk = 256u << 10;  // many puts of assorted sizes
constexpr uint64_t kBig = 1u << 20;     // one put, with signal: rendezvous in UCX
constexpr uint64_t kOrderWord = kSlot - 64;
constexpr uint64_t kSignalWord = kSlot - 56;
constexpr uint64_t kGets = kPes * kSlot;  // this PE's own data, read by the others' gets
constexpr uint64_t kGetBytes = 64u << 10;
constexpr uint64_t kCounter = kGets + kGetBytes;
constexpr uint64_t kHeap = kCounter + 4096;
constexpr int kOrderPuts = 100;
constexpr int kAmos = 50;

void use_tcp() {
  setenv("UCX_TLS", "tcp", 1);
  // Messages above 16 KiB go by rendezvous: both of the plugin's receive paths run.
  setenv("UCX_RNDV_THRESH", "16384", 1);
}

HostOp fetch_add(int q, uint64_t offset, uint64_t v, uint64_t* result) {
  HostOp h;
  h.op.op = GSHMEMI_PROXY_OP_AMO_ADD;
  h.op.flags = (3u << GSHMEMI_PROXY_F_WIDTH_SHIFT) | GSHMEMI_PROXY_F_FETCH;
  h.op.target = q;
  h.op.offset = offset;
  h.op.operand = v;
  h.result = result;
  return h;
}

HostOp get(int q, uint64_t offset, uint8_t* dst, uint64_t n) {
  HostOp h;
  h.op.op = GSHMEMI_PROXY_OP_GET;
  h.op.flags = GSHMEMI_PROXY_F_BY_REF;
  h.op.target = q;
  h.op.offset = offset;
  h.op.size = n;
  h.op.ref_addr = reinterpret_cast<uintptr_t>(dst);
  return h;
}

void exchange(int pe, Shared* sh) {
  use_tcp();
  Pe p;
  p.start(pe, kPes, sh, kHeap);
  for (uint64_t j = 0; j < kGetBytes; ++j) p.bytes()[kGets + j] = pattern(pe, 777, j);

  // Observer of this PE's heap: per source, changes in sequence order; the order word only
  // grows by one; when a source's signal changes, all its data is already in place.
  std::vector<uint64_t> last_seq(kPes, 0), last_order(kPes, 0);
  std::vector<int> signalled(kPes, 0);
  auto region_ok = [&](int src) {
    for (uint64_t j = 0; j < kBulk + kBig; ++j)
      if (p.bytes()[src * kSlot + j] != pattern(src, pe, j)) return false;
    return true;
  };
  p.stager->set_observer([&](const MemcpyStager::Change& c) {
    if (c.src < 0) return;
    // last_seq holds the last seq + 1; a put's signal is a second change of the same seq.
    const bool same_op = c.kind == MemcpyStager::Change::kSignal && c.seq + 1 == last_seq[c.src];
    TT_CHECK(c.seq + 1 > last_seq[c.src] || same_op, "source %d: seq %llu applied after %llu", c.src,
             (unsigned long long)c.seq, (unsigned long long)last_seq[c.src] - 1);
    last_seq[c.src] = c.seq + 1;
    const uint64_t base = c.src * kSlot;
    if (c.kind == MemcpyStager::Change::kData && c.offset == base + kOrderWord) {
      uint64_t v;
      std::memcpy(&v, p.bytes() + c.offset, 8);
      TT_CHECK(v == last_order[c.src] + 1, "source %d: order word %llu after %llu", c.src, (unsigned long long)v,
               (unsigned long long)last_order[c.src]);
      last_order[c.src] = v;
    }
    if (c.kind == MemcpyStager::Change::kSignal) {
      TT_CHECK(c.offset == base + kSignalWord, "source %d: signal at 0x%llx", c.src, (unsigned long long)c.offset);
      TT_CHECK(last_order[c.src] == kOrderPuts && region_ok(c.src), "source %d: signal before its data", c.src);
      ++signalled[c.src];
    }
  });

  // The data this PE puts at q, and where gets and fetches land here.
  std::vector<std::vector<uint8_t>> out(kPes, std::vector<uint8_t>(kBulk + kBig));
  std::vector<std::vector<uint8_t>> got(kPes, std::vector<uint8_t>(kGetBytes));
  std::vector<uint64_t> order_values(kOrderPuts);
  for (int i = 0; i < kOrderPuts; ++i) order_values[i] = i + 1;
  std::vector<std::vector<uint64_t>> fetched(kPes, std::vector<uint64_t>(kAmos, ~0ull));
  std::vector<uint64_t> g(kPes, 0);
  uint64_t pushed = 0;
  for (int q = 0; q < kPes; ++q) {
    if (q == pe) continue;
    for (uint64_t j = 0; j < out[q].size(); ++j) out[q][j] = pattern(pe, q, j);
    const uint64_t base = pe * kSlot;
    uint64_t off = 0;
    for (uint64_t i = 0; off < kBulk; ++i) {  // 1 B to ~5 KB, inline and by reference
      const uint64_t n = std::min<uint64_t>(1 + (i * 2654435761u) % 5000, kBulk - off);
      p.host.push(put(q, base + off, out[q].data() + off, n));
      ++pushed;
      off += n;
    }
    for (int i = 0; i < kOrderPuts; ++i, ++pushed)
      p.host.push(put(q, base + kOrderWord, reinterpret_cast<const uint8_t*>(&order_values[i]), 8));
    HostOp big = put(q, base + kBulk, out[q].data() + kBulk, kBig);
    big.op.flags |= GSHMEMI_PROXY_F_HAS_SIGNAL | GSHMEMI_PROXY_F_SIGNAL_ADD;
    big.op.sig_offset = base + kSignalWord;
    big.op.sig_value = 1;
    p.host.push(big);
    ++pushed;
    for (int i = 0; i < kAmos; ++i, ++pushed) p.host.push(fetch_add(q, kCounter, pe + 1, &fetched[q][i]));
    p.host.push(get(q, kGets, got[q].data(), kGetBytes));
    HostOp gv;
    gv.op.op = GSHMEMI_PROXY_OP_GET;
    gv.op.flags = (3u << GSHMEMI_PROXY_F_WIDTH_SHIFT) | GSHMEMI_PROXY_F_FETCH;
    gv.op.target = q;
    gv.op.offset = kGets + 8;
    gv.op.size = 8;  // the element width, as decode_entry sets it for a ring entry
    gv.result = &g[q];
    p.host.push(gv);
    pushed += 2;
  }
  p.quiet(pushed);
  TT_CHECK(p.engine->failures().empty(), "%s", p.engine->failures()[0].message.c_str());
  for (int q = 0; q < kPes; ++q) {
    if (q == pe) continue;
    for (uint64_t j = 0; j < kGetBytes; ++j)
      TT_CHECK(got[q][j] == pattern(q, 777, j), "get from PE %d: byte %llu", q, (unsigned long long)j);
    uint64_t want;
    std::memcpy(&want, got[q].data() + 8, 8);
    TT_CHECK(g[q] == want, "fetching get from PE %d: 0x%llx, not 0x%llx", q, (unsigned long long)g[q],
             (unsigned long long)want);
    for (int i = 0; i < kAmos; ++i) sh->values[pe][q * kAmos + i] = fetched[q][i];
  }
  p.barrier(0, kPes);  // every PE's operations are complete: applied at their targets

  uint64_t counter_want = 0;
  for (int src = 0; src < kPes; ++src) {
    if (src == pe) continue;
    TT_CHECK(region_ok(src), "data from PE %d", src);
    uint64_t w, s;
    std::memcpy(&w, p.bytes() + src * kSlot + kOrderWord, 8);
    std::memcpy(&s, p.bytes() + src * kSlot + kSignalWord, 8);
    TT_CHECK(w == kOrderPuts && s == 1 && signalled[src] == 1, "PE %d: order word %llu, signal %llu", src,
             (unsigned long long)w, (unsigned long long)s);
    counter_want += kAmos * (src + 1);
  }
  uint64_t counter;
  std::memcpy(&counter, p.bytes() + kCounter, 8);
  TT_CHECK(counter == counter_want, "counter %llu, not %llu", (unsigned long long)counter,
           (unsigned long long)counter_want);
  // Atomicity: the (fetched value, operand) pairs of every source form one chain from 0.
  std::map<uint64_t, uint64_t> chain;
  for (int src = 0; src < kPes; ++src)
    for (int i = 0; i < kAmos && src != pe; ++i)
      TT_CHECK(chain.emplace(sh->values[src][pe * kAmos + i], src + 1).second, "two AMOs fetched %llu",
               (unsigned long long)sh->values[src][pe * kAmos + i]);
  uint64_t at = 0;
  for (const auto& [v, add] : chain) {
    TT_CHECK(v == at, "AMO chain broken at %llu (next fetched %llu)", (unsigned long long)at, (unsigned long long)v);
    at += add;
  }
  p.barrier(1, kPes);  // nobody tears down while another still progresses
}

TEST(TransportUcx, ThreePesExchangeThroughEngines) {
  Shared* sh = make_shared_block();
  ASSERT_NE(sh, nullptr);
  const std::vector<int> st = run_pes(kPes, sh, [&](int pe) { exchange(pe, sh); });
  for (int pe = 0; pe < kPes; ++pe)
    EXPECT_TRUE(WIFEXITED(st[pe]) && WEXITSTATUS(st[pe]) == 0) << "PE " << pe << " wait status " << st[pe];
}

// Two PEs flood each other at once through their rings, as a kernel of many threads does with
// element-wise puts (compat ring): 100,003 inline puts of 4 bytes each way, far more than a
// ring (1,024 entries here) or the engine's outstanding limit holds, while both engines send,
// apply and acknowledge. Every value is checked at its target.
void flood(int pe, Shared* sh) {
  constexpr uint64_t kPuts = 100003;
  proxy_test::TestRing ring(10);
  Pe p;
  p.ring = ring.region();
  p.start(pe, 2, sh, kPuts * 4 + 64);
  std::memset(p.bytes(), 0xa5, kPuts * 4);  // poison: nothing is applied before this PE's first pump
  const int q = 1 - pe;
  std::atomic<bool> posted{false};
  std::thread producer([&] {
    proxy_test::Producer prod(ring, 1234 + pe);
    for (uint64_t i = 0; i < kPuts; ++i) {
      const uint32_t v = static_cast<uint32_t>(pattern(pe, i, i) * 16777619u + i);
      prod.post(proxy_test::inline_put(q, i * 4, reinterpret_cast<const uint8_t*>(&v), 4));
    }
    posted.store(true);
  });
  const bool done = p.pump_until([&] { return posted.load() && ring.completed() >= kPuts; });
  if (!done) {
    producer.detach();
    TT_CHECK(false, "flood: %llu of %llu puts posted, %llu completed; %zu failures",
             (unsigned long long)ring.issued.load(), (unsigned long long)kPuts, (unsigned long long)ring.completed(),
             p.engine->failures().size());
  }
  producer.join();
  TT_CHECK(p.engine->failures().empty(), "%s", p.engine->failures()[0].message.c_str());
  p.barrier(0, 2);  // both PEs' puts are acknowledged: applied here
  for (uint64_t i = 0; i < kPuts; ++i) {
    uint32_t got;
    std::memcpy(&got, p.bytes() + i * 4, 4);
    const uint32_t want = static_cast<uint32_t>(pattern(q, i, i) * 16777619u + i);
    TT_CHECK(got == want, "flood: put %llu from PE %d: 0x%x, not 0x%x", (unsigned long long)i, q, got, want);
  }
  p.barrier(1, 2);
}

TEST(TransportUcx, TwoPesFloodEachOtherThroughTheirRings) {
  use_tcp();
  Shared* sh = make_shared_block();
  ASSERT_NE(sh, nullptr);
  const std::vector<int> st = run_pes(2, sh, [&](int pe) { flood(pe, sh); });
  for (int pe = 0; pe < 2; ++pe)
    EXPECT_TRUE(WIFEXITED(st[pe]) && WEXITSTATUS(st[pe]) == 0) << "PE " << pe << " wait status " << st[pe];
}

// The same exchange with each PE in a network namespace of its own: nodes made by
// scripts/netns-nodes.sh, which tests/launcher/netns_nodes.sh runs this test in as root, naming
// them in GSHMEM_TEST_NETNS ("ns1,ns2,ns3") and keeping UCX on their interface
// (UCX_NET_DEVICES=gsh0): every byte crosses a veth pair and a bridge, as between hosts.
TEST(TransportUcx, ThreePesAcrossNetworkNamespaces) {
  const char* list = getenv("GSHMEM_TEST_NETNS");
  if (!list || !*list) {  // ctest: SKIP_RETURN_CODE 77, as run_pes does without UCX
    std::printf("SKIPPED: GSHMEM_TEST_NETNS unset (the ctest netns_ucx, tests/launcher/netns_nodes.sh, sets it)\n");
    std::fflush(stdout);
    std::exit(77);
  }
  std::vector<std::string> names;
  std::stringstream in(list);
  for (std::string n; std::getline(in, n, ',');) names.push_back(n);
  ASSERT_EQ(names.size(), static_cast<size_t>(kPes)) << "GSHMEM_TEST_NETNS=" << list;
  struct stat here;
  ASSERT_EQ(stat("/proc/self/ns/net", &here), 0);
  Shared* sh = make_shared_block();
  ASSERT_NE(sh, nullptr);
  const std::vector<int> st = run_pes(kPes, sh, [&](int pe) {
    const std::string path = "/run/netns/" + names[pe];
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    TT_CHECK(fd >= 0 && setns(fd, CLONE_NEWNET) == 0, "cannot enter %s: %s", path.c_str(), strerror(errno));
    close(fd);
    struct stat ns;
    TT_CHECK(stat("/proc/self/ns/net", &ns) == 0 && ns.st_ino != here.st_ino, "still in the test's namespace");
    // UCX finds network devices in /sys/class/net, which shows the namespace of whoever mounted
    // /sys: a private mount namespace with /sys mounted again, as `ip netns exec` does.
    TT_CHECK(unshare(CLONE_NEWNS) == 0 && mount("", "/", nullptr, MS_SLAVE | MS_REC, nullptr) == 0 &&
                 umount2("/sys", MNT_DETACH) == 0 && mount(names[pe].c_str(), "/sys", "sysfs", 0, nullptr) == 0,
             "cannot mount /sys for %s: %s", names[pe].c_str(), strerror(errno));
    exchange(pe, sh);
  });
  for (int pe = 0; pe < kPes; ++pe)
    EXPECT_TRUE(WIFEXITED(st[pe]) && WEXITSTATUS(st[pe]) == 0) << "PE " << pe << " wait status " << st[pe];
}

// PE 2 dies (SIGKILL) after it has talked to both others; they go on sending to it and to each
// other. Each must report PE 2's failure within a few seconds, fail exactly the operations to
// it, and still complete the operations between themselves.
void killed(int pe, Shared* sh) {
  use_tcp();
  Pe p;
  p.start(pe, kPes, sh, kHeap);
  std::vector<uint8_t> data(4096);
  for (size_t j = 0; j < data.size(); ++j) data[j] = pattern(pe, 5, j);
  uint64_t pushed = 0;
  for (int q = 0; q < kPes; ++q)
    if (q != pe) p.host.push(put(q, pe * kSlot, data.data(), data.size())), ++pushed;
  p.quiet(pushed);
  p.barrier(0, kPes);
  if (pe == 2) {
    sh->barrier[2].store(1);  // from here on PE 2 progresses no more: nothing sent to it is applied
    raise(SIGKILL);
  }
  TT_CHECK(p.pump_until([&] { return sh->barrier[2].load() == 1; }), "PE 2 did not get to its end");

  // PE 2 is dead or dying; keep using it.
  std::atomic<int> failed{0};
  uint64_t v = 0;
  HostOp fa = fetch_add(2, kCounter, 1, &v);
  fa.failed = &failed;
  const auto t0 = std::chrono::steady_clock::now();
  p.host.push(put(2, pe * kSlot, data.data(), data.size()));
  p.host.push(fa);
  pushed += 2;
  TT_CHECK(p.pump_until([&] { return p.engine->peer_failed(2); }), "PE 2's death was not reported");
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  TT_CHECK(secs < 10, "PE 2's death took %.1f s to report", secs);
  p.quiet(pushed);  // the ops to PE 2 complete, as failed
  TT_CHECK(failed.load() == 1, "the fetch-add to the dead PE 2 did not fail");
  bool named = false;
  for (const Failure& f : p.engine->failures()) {
    TT_CHECK(f.target == 2, "an operation to PE %d failed: %s", f.target, f.message.c_str());
    // "... failed: PE 2 failed (UCX reported ...)" or, issued after the report, "PE 2 has failed"
    named |=
        f.message.find("PE 2 failed") != std::string::npos || f.message.find("PE 2 has failed") != std::string::npos;
  }
  TT_CHECK(named, "no failure message names PE 2");
  const size_t n_failed = p.engine->failures().size();
  std::fprintf(stderr, "PE %d: reported in %.3f s: %s\n", pe, secs, p.engine->failures()[0].message.c_str());

  // The survivors still reach each other.
  const int other = 1 - pe;
  std::vector<uint8_t> back(data.size());
  p.host.push(put(other, kGets, data.data(), data.size()));
  p.host.push(get(other, pe * kSlot, back.data(), back.size()));  // what this PE put there
  pushed += 2;
  p.quiet(pushed);
  TT_CHECK(p.engine->failures().size() == n_failed, "%s", p.engine->failures().back().message.c_str());
  for (size_t j = 0; j < back.size(); ++j)
    TT_CHECK(back[j] == data[j], "get from PE %d after PE 2 died: byte %zu", other, j);
  p.barrier(1, kPes - 1);
}

TEST(TransportUcx, KilledPeReportedBySurvivors) {
  Shared* sh = make_shared_block();
  ASSERT_NE(sh, nullptr);
  const std::vector<int> st = run_pes(kPes, sh, [&](int pe) { killed(pe, sh); });
  for (int pe = 0; pe < 2; ++pe)
    EXPECT_TRUE(WIFEXITED(st[pe]) && WEXITSTATUS(st[pe]) == 0) << "PE " << pe << " wait status " << st[pe];
  EXPECT_TRUE(WIFSIGNALED(st[2]) && WTERMSIG(st[2]) == SIGKILL) << "PE 2 wait status " << st[2];
}

}  // namespace
