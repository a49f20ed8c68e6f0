// SPDX-License-Identifier: BSD-3-Clause
// TCP bootstrap across processes: rendezvous, collectives, failure handling. Each test
// forks one process per rank over loopback (bootstrap_test_util.h: the harness); the
// single-process tests are in test_bootstrap_local.cpp.
#include <sys/resource.h>

#include <climits>

#include "bootstrap_test_util.h"

namespace {

using namespace bootstrap_test;

// ------------------------------------------------- multi-process tests --

// A small job: connect, allgather a pattern, check it, finalize.
int simple_job(const gshmemx_uniqueid_t& id, int rank, int n, int timeout_s) {
  std::unique_ptr<Bootstrap> b;
  Status st = connect(id, rank, n, opts(timeout_s), &b);
  CHILD_CHECK(st == GSHMEM_SUCCESS, "connect: %s", status_name(st));
  std::vector<uint8_t> mine(333), all(333 * n);
  for (size_t i = 0; i < mine.size(); ++i) mine[i] = pattern(rank, i, 5);
  st = b->allgather(mine.data(), all.data(), mine.size());
  CHILD_CHECK(st == GSHMEM_SUCCESS, "allgather: %s", status_name(st));
  for (int r = 0; r < n; ++r)
    for (size_t i = 0; i < mine.size(); ++i)
      CHILD_CHECK(all[r * mine.size() + i] == pattern(r, i, 5), "byte %zu of PE %d", i, r);
  st = b->finalize();
  CHILD_CHECK(st == GSHMEM_SUCCESS, "finalize: %s", status_name(st));
  return 0;
}

// allgather / barrier / broadcast, 50 rounds with sizes 0, 1, 7, 1000, 1000003,
// in-place and out-of-place, every root, every byte checked; then 8 MiB per PE.
// spin_us > 0: the waits poll for that long before sleeping (set_wait_spin_us).
int collectives_body(const gshmemx_uniqueid_t& id, int rank, int n, int spin_us = 0) {
  std::unique_ptr<Bootstrap> b;
  Status st = connect(id, rank, n, opts(20), &b);
  CHILD_CHECK(st == GSHMEM_SUCCESS, "connect: %s", status_name(st));
  b->set_wait_spin_us(spin_us);
  CHILD_CHECK(b->rank() == rank && b->size() == n, "rank %d size %d", b->rank(), b->size());
  CHILD_CHECK(b->job_key() == uniqueid_data(id).job_key, "job key differs from the id's");
  static const size_t sizes[] = {0, 1, 7, 1000, 1000003};
  std::vector<uint8_t> mine, all, buf;
  for (int it = 0; it < 50; ++it) {
    const size_t bytes = sizes[it % 5];
    mine.resize(bytes);
    for (size_t i = 0; i < bytes; ++i) mine[i] = pattern(rank, i, it);
    all.assign(bytes * n + 1, 0xEE);  // last byte: guard
    const void* src = mine.data();
    if (it % 3 == 1) {  // in place
      if (bytes) memcpy(all.data() + rank * bytes, mine.data(), bytes);
      src = all.data() + rank * bytes;
    }
    st = b->allgather(bytes ? src : nullptr, bytes ? all.data() : nullptr, bytes);
    CHILD_CHECK(st == GSHMEM_SUCCESS, "round %d allgather(%zu): %s", it, bytes, status_name(st));
    for (int r = 0; r < n; ++r)
      for (size_t i = 0; i < bytes; ++i)
        CHILD_CHECK(all[r * bytes + i] == pattern(r, i, it),
                    "round %d allgather(%zu): byte %zu of PE %d "
                    "is %u, expected %u",
                    it, bytes, i, r, all[r * bytes + i], pattern(r, i, it));
    CHILD_CHECK(all[bytes * n] == 0xEE, "round %d: allgather wrote past the end", it);

    st = b->barrier();
    CHILD_CHECK(st == GSHMEM_SUCCESS, "round %d barrier: %s", it, status_name(st));

    const int root = (it + 1) % n;  // includes non-zero roots
    const size_t bb = sizes[(it + 2) % 5];
    buf.assign(bb + 1, 0xCC);
    if (rank == root)
      for (size_t i = 0; i < bb; ++i) buf[i] = pattern(root, i, it + 100);
    st = b->broadcast(bb ? buf.data() : nullptr, bb, root);
    CHILD_CHECK(st == GSHMEM_SUCCESS, "round %d broadcast(%zu from %d): %s", it, bb, root, status_name(st));
    for (size_t i = 0; i < bb; ++i)
      CHILD_CHECK(buf[i] == pattern(root, i, it + 100), "round %d broadcast(%zu from %d): byte %zu", it, bb, root, i);
    CHILD_CHECK(buf[bb] == 0xCC, "round %d: broadcast wrote past the end", it);
  }
  const size_t big = 8u << 20;
  mine.resize(big);
  for (size_t i = 0; i < big; ++i) mine[i] = pattern(rank, i, 77);
  all.assign(big * n, 0);
  st = b->allgather(mine.data(), all.data(), big);
  CHILD_CHECK(st == GSHMEM_SUCCESS, "8 MiB allgather: %s", status_name(st));
  for (int r = 0; r < n; ++r)
    for (size_t i = 0; i < big; ++i)
      CHILD_CHECK(all[r * big + i] == pattern(r, i, 77), "8 MiB allgather: byte %zu of PE %d", i, r);
  st = b->finalize();
  CHILD_CHECK(st == GSHMEM_SUCCESS, "finalize: %s", status_name(st));
  return 0;
}

TEST(BootstrapMulti, Collectives2) {
  gshmemx_uniqueid_t id = loopback_id();
  run_ranks(2, id, 60, [&](int r) { return collectives_body(id, r, 2); });
}

TEST(BootstrapMulti, Collectives3) {
  gshmemx_uniqueid_t id = loopback_id();
  run_ranks(3, id, 60, [&](int r) { return collectives_body(id, r, 3); });
}

// The same with spinning waits (the default on nodes with CPUs to spare); rank 1
// spins for longer than its peers take, rank 2 less, rank 0 in between.
TEST(BootstrapMulti, Collectives3Spinning) {
  gshmemx_uniqueid_t id = loopback_id();
  run_ranks(3, id, 60, [&](int r) { return collectives_body(id, r, 3, r == 1 ? 100000 : (r == 2 ? 5 : 50)); });
}

TEST(BootstrapMulti, Collectives4) {
  gshmemx_uniqueid_t id = loopback_id();
  run_ranks(4, id, 60, [&](int r) { return collectives_body(id, r, 4); });
}

TEST(BootstrapMulti, DefaultAddress) {
  unsetenv("GSHMEM_BOOTSTRAP_IFNAME");
  gshmemx_uniqueid_t id;
  ASSERT_EQ(create_uniqueid(&id), GSHMEM_SUCCESS);
  run_ranks(2, id, 30, [&](int r) { return simple_job(id, r, 2, 20); });
}

// Rank 0 binds the id's port itself (env-based init: no listener registered).
TEST(BootstrapMulti, RankZeroBindsPortItself) {
  gshmemx_uniqueid_t id;
  ASSERT_EQ(make_uniqueid("127.0.0.1", free_port(), 0xabc, 0xdef, &id), GSHMEM_SUCCESS);
  run_ranks(3, id, 30, [&](int r) { return simple_job(id, r, 3, 20); });
}

// As gshmrun does it: the launcher listens and passes the socket to rank 0.
// Binding the port again would fail (it is in use), so success means adopted.
TEST(BootstrapMulti, InheritedListenFd) {
  uint16_t port = 0;
  int lfd = listen_on(INADDR_LOOPBACK, 16, &port);
  ASSERT_GE(lfd, 0);
  gshmemx_uniqueid_t id;
  ASSERT_EQ(make_uniqueid("127.0.0.1", port, 0x77, 0x88, &id), GSHMEM_SUCCESS);
  std::vector<Child> cs;
  cs.push_back(spawn(0, 30, [&] {
    setenv(kListenFdEnvVar, std::to_string(lfd).c_str(), 1);
    return simple_job(id, 0, 2, 20);
  }));
  cs.push_back(spawn(1, 30, [&] {
    close(lfd);
    return simple_job(id, 1, 2, 20);
  }));
  close(lfd);
  wait_all(cs, 35);
  for (const Child& c : cs) EXPECT_TRUE(c.exited_with(0)) << c.describe();
}

// Rank `victim` dies right after the rendezvous; the others' allgather must
// fail fast with PEER_FAILURE naming it (timeout is 30 s). With spin_us, the
// survivors' waits spin first (the death is seen by the spinning polls too).
void dying_peer_test(int victim, int spin_us = 0) {
  gshmemx_uniqueid_t id = loopback_id();
  std::vector<Child> cs;
  run_ranks(
      3, id, 30,
      [&](int rank) {
        std::unique_ptr<Bootstrap> b;
        Status st = connect(id, rank, 3, opts(30), &b);
        CHILD_CHECK(st == GSHMEM_SUCCESS, "connect: %s", status_name(st));
        if (rank == victim) _exit(0);  // "dies" (exit code 0 so run_ranks accepts it)
        b->set_wait_spin_us(spin_us);
        uint8_t mine[16] = {}, all[48];
        auto t0 = Clock::now();
        st = b->allgather(mine, all, sizeof(mine));
        double dt = seconds_since(t0);
        CHILD_CHECK(st == GSHMEM_ERROR_PEER_FAILURE, "allgather returned %s", status_name(st));
        CHILD_CHECK(dt < 5.0, "took %.2f s", dt);
        st = b->barrier();  // the failure is sticky
        CHILD_CHECK(st == GSHMEM_ERROR_PEER_FAILURE, "barrier after failure returned %s", status_name(st));
        return 0;
      },
      &cs);
  std::string expect = "PE " + std::to_string(victim) + " disconnected during allgather (process died?)";
  for (const Child& c : cs)
    if (c.rank != victim) EXPECT_TRUE(contains(c.output, expect)) << c.describe();
}

TEST(BootstrapMulti, DyingPeer) {
  // Exactly as specified: rank 2 _exit(9)s after connect, before an allgather.
  gshmemx_uniqueid_t id = loopback_id();
  std::vector<Child> cs;
  for (int r = 0; r < 3; ++r)
    cs.push_back(spawn(r, 30, [&, r] {
      std::unique_ptr<Bootstrap> b;
      Status st = connect(id, r, 3, opts(30), &b);
      CHILD_CHECK(st == GSHMEM_SUCCESS, "connect: %s", status_name(st));
      if (r == 2) _exit(9);
      uint8_t mine[16] = {}, all[48];
      auto t0 = Clock::now();
      st = b->allgather(mine, all, sizeof(mine));
      double dt = seconds_since(t0);
      CHILD_CHECK(st == GSHMEM_ERROR_PEER_FAILURE, "allgather returned %s", status_name(st));
      CHILD_CHECK(dt < 5.0, "took %.2f s", dt);
      return 0;
    }));
  release_uniqueid_listener(id);
  wait_all(cs, 35);
  EXPECT_TRUE(cs[2].exited_with(9)) << cs[2].describe();
  for (int r = 0; r < 2; ++r) {
    EXPECT_TRUE(cs[r].exited_with(0)) << cs[r].describe();
    EXPECT_TRUE(contains(cs[r].output, "bootstrap: PE 2 disconnected during allgather (process died?)"))
        << cs[r].describe();
  }
}

TEST(BootstrapMulti, DyingMiddlePeer) { dying_peer_test(1); }
TEST(BootstrapMulti, DyingRoot) { dying_peer_test(0); }
TEST(BootstrapMulti, DyingMiddlePeerWhileOthersSpin) { dying_peer_test(1, 200000); }
TEST(BootstrapMulti, DyingRootWhileOthersSpin) { dying_peer_test(0, 200000); }

// Strangers at rank 0's port: garbage, a silent connection, and a process
// with the wrong secret. They are rejected; the real job completes.
TEST(BootstrapMulti, StrangerIsRejectedJobCompletes) {
  gshmemx_uniqueid_t id = loopback_id();
  const uint16_t port = uniqueid_data(id).port;
  Child c0 = spawn(0, 40, [&] { return simple_job(id, 0, 3, 30); });
  release_uniqueid_listener(id);

  int garbage = raw_connect(port);
  ASSERT_GE(garbage, 0);
  const char http[] = "GET / HTTP/1.1\r\nHost: gshmem.example\r\n\r\n";
  EXPECT_EQ(send(garbage, http, sizeof(http) - 1, MSG_NOSIGNAL), (ssize_t)(sizeof(http) - 1));
  int silent = raw_connect(port);
  ASSERT_GE(silent, 0);

  gshmemx_uniqueid_t bad = id;
  UniqueIdData d = uniqueid_data(id);
  d.secret ^= 0x5a5a;
  memcpy(bad.internal, &d, sizeof(d));
  Child s = spawn(1, 20, [&] {
    std::unique_ptr<Bootstrap> b;
    Status st = connect(bad, 1, 3, opts(10), &b);
    CHILD_CHECK(st == GSHMEM_ERROR_AUTH, "stranger's connect returned %s", status_name(st));
    return 0;
  });
  wait_all({&s}, 15);
  EXPECT_TRUE(s.exited_with(0)) << s.describe();
  // Authentication is mutual (tcp/auth.h): the stranger refuses rank 0's proof first.
  EXPECT_TRUE(contains(s.output, "could not prove it holds the job secret")) << s.describe();

  // Rank 0 closed the garbage connection (EOF, or a reset since it left the
  // rest of our request unread).
  timeval tv{10, 0};
  setsockopt(garbage, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  char tmp[64];
  ssize_t got = recv(garbage, tmp, sizeof(tmp), 0);
  int e = errno;
  EXPECT_TRUE(got == 0 || (got < 0 && e == ECONNRESET)) << "recv: " << got << " " << strerror(e);

  Child c1 = spawn(1, 40, [&] { return simple_job(id, 1, 3, 30); });
  Child c2 = spawn(2, 40, [&] { return simple_job(id, 2, 3, 30); });
  wait_all({&c0, &c1, &c2}, 45);
  close(garbage);
  close(silent);
  for (const Child* c : {&c0, &c1, &c2}) EXPECT_TRUE(c->exited_with(0)) << c->describe();
  EXPECT_TRUE(contains(c0.output, "rejected a connection from 127.0.0.1")) << c0.describe();
  EXPECT_TRUE(contains(c0.output, "left during the authentication")) << c0.describe();
  EXPECT_TRUE(contains(c0.output, "bad magic")) << c0.describe();
}

// Size 3 with only ranks 0 and 1: rank 0 names the missing rank; rank 1 (same
// timeout; members wait a grace second longer) gets rank 0's report.
TEST(BootstrapMulti, MissingRankIsNamed) {
  gshmemx_uniqueid_t id = loopback_id();
  std::vector<Child> cs;
  cs.push_back(spawn(0, 20, [&] {
    std::unique_ptr<Bootstrap> b;
    auto t0 = Clock::now();
    Status st = connect(id, 0, 3, opts(2), &b);
    double dt = seconds_since(t0);
    CHILD_CHECK(st == GSHMEM_ERROR_BOOTSTRAP, "connect returned %s", status_name(st));
    CHILD_CHECK(dt > 1.5 && dt < 6.0, "took %.2f s", dt);
    return 0;
  }));
  cs.push_back(spawn(1, 20, [&] {
    std::unique_ptr<Bootstrap> b;
    auto t0 = Clock::now();
    Status st = connect(id, 1, 3, opts(2), &b);
    double dt = seconds_since(t0);
    CHILD_CHECK(st == GSHMEM_ERROR_BOOTSTRAP, "connect returned %s", status_name(st));
    CHILD_CHECK(dt < 2.9, "took %.2f s (not told by rank 0?)", dt);
    return 0;
  }));
  release_uniqueid_listener(id);
  wait_all(cs, 25);
  for (const Child& c : cs) EXPECT_TRUE(c.exited_with(0)) << c.describe();
  EXPECT_TRUE(contains(cs[0].output, "bootstrap: 1 of 3 PEs did not join within 2 s: missing rank 2"))
      << cs[0].describe();
  EXPECT_TRUE(contains(cs[1].output, "missing rank 2")) << cs[1].describe();
}

// Rendezvous errors that fail the whole job: duplicate rank, size mismatch.
TEST(BootstrapMulti, DuplicateRankAndSizeMismatch) {
  for (int variant = 0; variant < 2; ++variant) {
    gshmemx_uniqueid_t id = loopback_id();
    auto joiner = [&](int claimed_rank, int claimed_size, int delay_ms) {
      return [&, claimed_rank, claimed_size, delay_ms] {
        std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
        std::unique_ptr<Bootstrap> b;
        auto t0 = Clock::now();
        Status st = connect(id, claimed_rank, claimed_size, opts(15), &b);
        CHILD_CHECK(st == GSHMEM_ERROR_BOOTSTRAP, "connect returned %s", status_name(st));
        CHILD_CHECK(seconds_since(t0) < 5.0, "took %.2f s", seconds_since(t0));
        return 0;
      };
    };
    std::vector<Child> cs;
    cs.push_back(spawn(0, 25, joiner(0, 3, 0)));
    cs.push_back(spawn(1, 25, joiner(1, 3, 0)));
    if (variant == 0)
      cs.push_back(spawn(1, 25, joiner(1, 3, 300)));  // a second "rank 1"
    else
      cs.push_back(spawn(2, 25, joiner(2, 4, 300)));  // thinks the job has 4 PEs
    release_uniqueid_listener(id);
    wait_all(cs, 30);
    for (const Child& c : cs) EXPECT_TRUE(c.exited_with(0)) << c.describe();
    const char* expect = variant == 0 ? "two PEs claim rank 1" : "was started with 4 PEs but PE 0 with 3";
    EXPECT_TRUE(contains(cs[0].output, expect)) << cs[0].describe();
    EXPECT_TRUE(contains(cs[2].output, expect)) << cs[2].describe();
    EXPECT_TRUE(contains(cs[1].output, expect)) << cs[1].describe();
  }
}

// A PE that knocks after rank 0 failed the rendezvous (here: a duplicate rank) is told why,
// rather than finding the port closed and failing at its timeout with "could not reach PE 0".
TEST(BootstrapMulti, LateJoinerLearnsWhyTheJobFailed) {
  gshmemx_uniqueid_t id = loopback_id();
  auto joiner = [&](int rank, int delay_ms) {
    return [&, rank, delay_ms] {
      std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
      std::unique_ptr<Bootstrap> b;
      auto t0 = Clock::now();
      Status st = connect(id, rank, 4, opts(15), &b);
      CHILD_CHECK(st == GSHMEM_ERROR_BOOTSTRAP, "connect returned %s", status_name(st));
      CHILD_CHECK(seconds_since(t0) < 5.0, "took %.2f s", seconds_since(t0));
      return 0;
    };
  };
  std::vector<Child> cs;
  cs.push_back(spawn(0, 25, joiner(0, 0)));
  cs.push_back(spawn(1, 25, joiner(1, 0)));
  cs.push_back(spawn(1, 25, joiner(1, 300)));  // a second "rank 1": rank 0 fails the job
  cs.push_back(spawn(3, 25, joiner(3, 900)));  // arrives after that
  release_uniqueid_listener(id);
  wait_all(cs, 30);
  for (const Child& c : cs) {
    EXPECT_TRUE(c.exited_with(0)) << c.describe();
    EXPECT_TRUE(contains(c.output, "two PEs claim rank 1")) << c.describe();
  }
}

// Different collectives / byte counts / roots: GSHMEM_ERROR_MISMATCH on every
// rank, naming both PEs and what each called; no hang, no corruption.
TEST(BootstrapMulti, MismatchedCollectives) {
  struct Plan {
    const char* name;
    std::function<Status(Bootstrap&, int)> call;
    std::vector<const char*> root_log;
  };
  std::vector<uint8_t> big(4u << 20, 1), big_all(3 * (4u << 20));
  const std::vector<Plan> plans = {
      {"barrier vs allgather",
       [](Bootstrap& b, int r) {
         uint8_t m[100] = {}, a[300];
         return r == 1 ? b.allgather(m, a, 100) : b.barrier();
       },
       {"PE 0 called barrier", "PE 1 called allgather of 100 bytes per PE"}},
      {"allgather byte counts",
       [](Bootstrap& b, int r) {
         uint8_t m[32] = {}, a[96];
         return b.allgather(m, a, r == 2 ? 32 : 16);
       },
       {"PE 0 called allgather of 16 bytes per PE", "PE 2 called allgather of 32 bytes per PE"}},
      {"broadcast roots",
       [](Bootstrap& b, int r) {
         uint8_t x[8] = {};
         return b.broadcast(x, 8, r == 1 ? 1 : 2);
       },
       {"PE 0 called broadcast of 8 bytes from PE 2", "PE 1 called broadcast of 8 bytes from PE 1"}},
      {"large allgather vs barrier",
       [&](Bootstrap& b, int r) { return r == 1 ? b.allgather(big.data(), big_all.data(), big.size()) : b.barrier(); },
       {"PE 0 called barrier", "PE 1 called allgather of 4194304 bytes per PE"}},
  };
  for (const Plan& p : plans) {
    SCOPED_TRACE(p.name);
    gshmemx_uniqueid_t id = loopback_id();
    std::vector<Child> cs;
    run_ranks(
        3, id, 30,
        [&](int rank) {
          std::unique_ptr<Bootstrap> b;
          Status st = connect(id, rank, 3, opts(20), &b);
          CHILD_CHECK(st == GSHMEM_SUCCESS, "connect: %s", status_name(st));
          CHILD_CHECK(b->barrier() == GSHMEM_SUCCESS, "first barrier");
          auto t0 = Clock::now();
          st = p.call(*b, rank);
          CHILD_CHECK(st == GSHMEM_ERROR_MISMATCH, "returned %s", status_name(st));
          CHILD_CHECK(seconds_since(t0) < 5.0, "took %.2f s", seconds_since(t0));
          st = b->barrier();
          CHILD_CHECK(st == GSHMEM_ERROR_MISMATCH, "barrier after the mismatch returned %s", status_name(st));
          return 0;
        },
        &cs);
    for (const Child& c : cs) EXPECT_TRUE(contains(c.output, "collective mismatch")) << c.describe();
    for (const char* text : p.root_log)
      for (const Child& c : cs) EXPECT_TRUE(contains(c.output, text)) << text << "\n" << c.describe();
  }
}

// A rank that does not call the collective: rank 0 times out after timeout_s
// naming it, and the late rank is told instead of waiting its own timeout.
TEST(BootstrapMulti, CollectiveTimeoutNamesLateRank) {
  gshmemx_uniqueid_t id = loopback_id();
  std::vector<Child> cs;
  run_ranks(
      3, id, 20,
      [&](int rank) {
        std::unique_ptr<Bootstrap> b;
        Status st = connect(id, rank, 3, opts(1), &b);
        CHILD_CHECK(st == GSHMEM_SUCCESS, "connect: %s", status_name(st));
        if (rank == 2) std::this_thread::sleep_for(std::chrono::milliseconds(2500));
        auto t0 = Clock::now();
        st = b->barrier();
        double dt = seconds_since(t0);
        CHILD_CHECK(st == GSHMEM_ERROR_TIMEOUT, "barrier returned %s", status_name(st));
        if (rank == 2)
          CHILD_CHECK(dt < 0.5, "late rank waited %.2f s", dt);
        else
          CHILD_CHECK(dt > 0.8 && dt < 3.0, "took %.2f s", dt);
        return 0;
      },
      &cs);
  for (const Child& c : cs)
    EXPECT_TRUE(contains(c.output, "barrier timed out after 1 s waiting for PE 2")) << c.describe();
}

// End to end over IPv6 loopback (rank 0 binds the port itself).
TEST(BootstrapMulti, Ipv6Loopback) {
  int probe = socket(AF_INET6, SOCK_STREAM, 0);
  sockaddr_in6 a{};
  a.sin6_family = AF_INET6;
  a.sin6_addr = in6addr_loopback;
  bool ok = probe >= 0 && bind(probe, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0;
  socklen_t len = sizeof(a);
  if (ok) getsockname(probe, reinterpret_cast<sockaddr*>(&a), &len);
  if (probe >= 0) close(probe);
  if (!ok) GTEST_SKIP() << "no IPv6 loopback here";
  gshmemx_uniqueid_t id;
  ASSERT_EQ(make_uniqueid("::1", ntohs(a.sin6_port), 0x66, 0x99, &id), GSHMEM_SUCCESS);
  EXPECT_EQ(encode_uniqueid(id).rfind("[::1]:", 0), 0u);
  run_ranks(3, id, 30, [&](int r) { return simple_job(id, r, 3, 20); });
}

struct MonitorSeen {
  std::atomic<int> calls{0};
  std::atomic<int> dead{-1};
  std::string how;  // written before calls is incremented

  // Waits up to `seconds` for the first callback; returns the seconds waited.
  double wait(double seconds) const {
    const auto t0 = Clock::now();
    while (calls.load() == 0 && seconds_since(t0) < seconds) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    return seconds_since(t0);
  }
};

// Rank `rank` of `n`, connected with a timeout of timeout_s, its failure monitor
// recording into *seen; nullptr (after saying why) on failure.
std::unique_ptr<Bootstrap> connect_watched(const gshmemx_uniqueid_t& id, int rank, int n, int timeout_s,
                                           MonitorSeen* seen) {
  std::unique_ptr<Bootstrap> b;
  Status st = connect(id, rank, n, opts(timeout_s), &b);
  if (st == GSHMEM_SUCCESS)
    st = b->start_failure_monitor([seen](int dead, const std::string& how) {
      seen->how = how;
      seen->dead.store(dead);
      seen->calls.fetch_add(1);
    });
  if (st == GSHMEM_SUCCESS) return b;
  fprintf(stderr, "rank %d: connect or start_failure_monitor: %s\n", rank, status_name(st));
  return nullptr;
}

// Rank `victim` dies while idle: every other rank's monitor callback fires
// with dead_rank == victim within 3 s, exactly once.
void monitor_test(int victim) {
  gshmemx_uniqueid_t id = loopback_id();
  std::vector<Child> cs;
  run_ranks(
      3, id, 30,
      [&](int rank) {
        MonitorSeen seen;
        std::unique_ptr<Bootstrap> b = connect_watched(id, rank, 3, 30, &seen);
        CHILD_CHECK(b != nullptr, "connect_watched");
        CHILD_CHECK(b->start_failure_monitor([](int, const std::string&) {}) == GSHMEM_ERROR_INVALID_VALUE,
                    "second start accepted");
        CHILD_CHECK(b->barrier() == GSHMEM_SUCCESS, "barrier");  // every monitor runs now
        if (rank == victim) _exit(0);
        const double dt = seen.wait(3.0);
        CHILD_CHECK(seen.calls.load() == 1, "callback calls: %d after %.2f s", seen.calls.load(), dt);
        CHILD_CHECK(seen.dead.load() == victim, "dead rank %d", seen.dead.load());
        CHILD_CHECK(contains(seen.how, "PE " + std::to_string(victim) + " disconnected"), "how: %s", seen.how.c_str());
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        CHILD_CHECK(seen.calls.load() == 1, "callback called %d times", seen.calls.load());
        const Status st = b->barrier();
        CHILD_CHECK(st == GSHMEM_ERROR_PEER_FAILURE, "barrier after the failure returned %s", status_name(st));
        return 0;
      },
      &cs);
}

TEST(BootstrapMulti, FailureMonitorReportsDeadPe) { monitor_test(1); }
TEST(BootstrapMulti, FailureMonitorReportsDeadRoot) { monitor_test(0); }

// Orderly finalize with monitors running (one rank arrives late): no
// callback anywhere, later calls are refused, cleanup is quick.
TEST(BootstrapMulti, FinalizeRaisesNoFailure) {
  gshmemx_uniqueid_t id = loopback_id();
  std::vector<Child> cs;
  run_ranks(
      3, id, 30,
      [&](int rank) {
        MonitorSeen seen;
        std::unique_ptr<Bootstrap> b;
        Status st = connect(id, rank, 3, opts(20), &b);
        CHILD_CHECK(st == GSHMEM_SUCCESS, "connect: %s", status_name(st));
        st = b->start_failure_monitor([&seen](int dead, const std::string&) {
          seen.dead.store(dead);
          seen.calls.fetch_add(1);
        });
        CHILD_CHECK(st == GSHMEM_SUCCESS, "start_failure_monitor: %s", status_name(st));
        for (int i = 0; i < 20; ++i) {
          int v = rank * 1000 + i, all[3];
          CHILD_CHECK(b->allgather(&v, all, sizeof(v)) == GSHMEM_SUCCESS, "allgather %d", i);
          for (int r = 0; r < 3; ++r) CHILD_CHECK(all[r] == r * 1000 + i, "allgather %d PE %d", i, r);
          if (i % 5 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));  // let monitors look
        }
        if (rank == 2) std::this_thread::sleep_for(std::chrono::milliseconds(300));
        st = b->finalize();
        CHILD_CHECK(st == GSHMEM_SUCCESS, "finalize: %s", status_name(st));
        CHILD_CHECK(b->finalize() == GSHMEM_SUCCESS, "second finalize");
        CHILD_CHECK(b->barrier() == GSHMEM_ERROR_NOT_INITIALIZED, "barrier after finalize");
        if (rank != 0) std::this_thread::sleep_for(std::chrono::milliseconds(500));  // rank 0 is gone
        CHILD_CHECK(seen.calls.load() == 0, "callback fired (dead rank %d)", seen.dead.load());
        auto t0 = Clock::now();
        b.reset();
        CHILD_CHECK(seconds_since(t0) < 0.5, "destructor took %.2f s", seconds_since(t0));
        return 0;
      },
      &cs);
  for (const Child& c : cs) EXPECT_FALSE(contains(c.output, "disconnected")) << c.describe();
}

// Destroying without finalize (monitor running) must not hang.
TEST(BootstrapMulti, DestructorWithoutFinalizeIsBounded) {
  gshmemx_uniqueid_t id = loopback_id();
  run_ranks(3, id, 20, [&](int rank) {
    std::unique_ptr<Bootstrap> b;
    Status st = connect(id, rank, 3, opts(20), &b);
    CHILD_CHECK(st == GSHMEM_SUCCESS, "connect: %s", status_name(st));
    CHILD_CHECK(b->start_failure_monitor([](int, const std::string&) {}) == GSHMEM_SUCCESS, "monitor");
    CHILD_CHECK(b->barrier() == GSHMEM_SUCCESS, "barrier");
    auto t0 = Clock::now();
    b.reset();
    CHILD_CHECK(seconds_since(t0) < 3.0, "destructor took %.2f s", seconds_since(t0));
    return 0;
  });
}

// ------------------------------------------------ robustness (review) --

// Rank 0 runs out of file descriptors while the other PEs wait in its accept
// queue: connect() fails at once with a message naming the open-files limit,
// instead of retrying accept() forever (past its own timeout).
TEST(BootstrapMulti, RankZeroOutOfFileDescriptorsFailsNamingTheLimit) {
  gshmemx_uniqueid_t id = loopback_id();
  const int n = 4;
  std::vector<Child> cs;
  cs.push_back(spawn(0, 10, [&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the others queue up
    rlimit rl{64, 64};
    CHILD_CHECK(setrlimit(RLIMIT_NOFILE, &rl) == 0, "setrlimit: %s", strerror(errno));
    while (open("/dev/null", O_RDONLY | O_CLOEXEC) >= 0) {
    }
    std::unique_ptr<Bootstrap> b;
    auto t0 = Clock::now();
    Status st = connect(id, 0, n, opts(3), &b);
    double dt = seconds_since(t0);
    CHILD_CHECK(st == GSHMEM_ERROR_BOOTSTRAP, "connect returned %s", status_name(st));
    CHILD_CHECK(dt < 2.0, "took %.2f s", dt);
    return 0;
  }));
  for (int r = 1; r < n; ++r)
    cs.push_back(spawn(r, 10, [&, r] {
      std::unique_ptr<Bootstrap> b;
      Status st = connect(id, r, n, opts(3), &b);
      CHILD_CHECK(st != GSHMEM_SUCCESS, "connect succeeded");
      return 0;
    }));
  release_uniqueid_listener(id);
  wait_all(cs, 15);
  for (const Child& c : cs) EXPECT_TRUE(c.exited_with(0)) << c.describe();
  for (const char* text : {"PE 0 cannot accept", "Too many open files", "other 3 PEs",
                           "open-files limit (RLIMIT_NOFILE) is 64", "ulimit -n"})
    EXPECT_TRUE(contains(cs[0].output, text)) << text << "\n" << cs[0].describe();
}

// A PE fork()s a child without exec (a Python DataLoader worker) and dies
// while the child lives on. The child must not keep the PE's connection open,
// or no peer notices the death. In the child, the PE's bootstrap refuses every
// call with a clear message (its connections are gone there).
TEST(BootstrapMulti, ForkedChildDoesNotHideADeadPe) {
  gshmemx_uniqueid_t id = loopback_id();
  std::vector<Child> cs;
  run_ranks(
      3, id, 30,
      [&](int rank) {
        MonitorSeen seen;
        std::unique_ptr<Bootstrap> b = connect_watched(id, rank, 3, 30, &seen);
        CHILD_CHECK(b != nullptr, "connect_watched");
        CHILD_CHECK(b->barrier() == GSHMEM_SUCCESS, "barrier");
        if (rank == 1) {
          int p[2];
          CHILD_CHECK(pipe(p) == 0, "pipe");
          pid_t kid = fork();
          if (kid == 0) {  // the worker: outlives the PE by 4 s
            close(p[0]);
            auto t0 = Clock::now();
            Status kst = b->barrier();
            char verdict = kst == GSHMEM_ERROR_NOT_INITIALIZED && seconds_since(t0) < 1.0 ? 'y' : 'n';
            b.reset();  // the child's copy: must touch none of the PE's fds or threads
            ssize_t ignored = write(p[1], &verdict, 1);
            (void)ignored;
            sleep(4);
            _exit(0);
          }
          close(p[1]);
          char verdict = 0;
          CHILD_CHECK(read(p[0], &verdict, 1) == 1, "no word from the forked child");
          CHILD_CHECK(verdict == 'y', "the forked child's barrier did not fail at once with NOT_INITIALIZED");
          _exit(0);  // the PE dies; its child lives on
        }
        const double dt = seen.wait(3.0);
        CHILD_CHECK(seen.calls.load() == 1,
                    "callback calls: %d after %.2f s (the forked child kept PE 1's "
                    "connection open?)",
                    seen.calls.load(), dt);
        CHILD_CHECK(seen.dead.load() == 1, "dead rank %d", seen.dead.load());
        return 0;
      },
      &cs);
  EXPECT_TRUE(contains(cs[1].output, "which was fork()ed from PE 1")) << cs[1].describe();
  EXPECT_TRUE(contains(cs[1].output, "barrier called in process")) << cs[1].describe();
}

// A member whose collective times out on its own (rank 0 came late) tells
// rank 0, which then reports that member and the cause at once -- through its
// failure monitor, or in its next collective -- instead of timing out on it
// later as "stuck".
void member_timeout_test(bool monitor) {
  gshmemx_uniqueid_t id = loopback_id();
  std::vector<Child> cs;
  run_ranks(
      2, id, 20,
      [&](int rank) {
        MonitorSeen seen;
        std::unique_ptr<Bootstrap> b;
        Status st = connect(id, rank, 2, opts(1), &b);  // members wait 1 s + 1 s grace
        CHILD_CHECK(st == GSHMEM_SUCCESS, "connect: %s", status_name(st));
        if (rank == 1) {
          st = b->barrier();
          CHILD_CHECK(st == GSHMEM_ERROR_TIMEOUT, "barrier returned %s", status_name(st));
          std::this_thread::sleep_for(std::chrono::milliseconds(4000));  // alive: no disconnect to see
          return 0;
        }
        if (monitor)
          CHILD_CHECK(b->start_failure_monitor([&seen](int dead, const std::string& how) {
            seen.how = how;
            seen.dead.store(dead);
            seen.calls.fetch_add(1);
          }) == GSHMEM_SUCCESS,
                      "start_failure_monitor");
        std::this_thread::sleep_for(std::chrono::milliseconds(2800));  // late for PE 1's barrier
        b->barrier();                                                  // PE 1's request is here: may complete
        if (monitor) {
          seen.wait(2.0);
          CHILD_CHECK(seen.calls.load() == 1, "callback calls: %d", seen.calls.load());
          CHILD_CHECK(seen.dead.load() == 1, "dead rank %d", seen.dead.load());
          CHILD_CHECK(contains(seen.how, "PE 1 failed collective call #1: barrier timed out"), "how: %s",
                      seen.how.c_str());
        }
        auto t0 = Clock::now();
        st = b->barrier();
        double dt = seconds_since(t0);
        CHILD_CHECK(st == GSHMEM_ERROR_TIMEOUT, "next barrier returned %s", status_name(st));
        CHILD_CHECK(dt < 0.5, "next barrier took %.2f s", dt);
        return 0;
      },
      &cs);
  EXPECT_TRUE(contains(cs[0].output,
                       "PE 1 failed collective call #1: barrier timed out after 2 s "
                       "waiting for PE 0"))
      << cs[0].describe();
  EXPECT_FALSE(contains(cs[0].output, "stuck")) << cs[0].describe();
}

TEST(BootstrapMulti, MemberTimeoutIsReportedToRankZero) { member_timeout_test(false); }
TEST(BootstrapMulti, MemberTimeoutIsReportedByRankZerosMonitor) { member_timeout_test(true); }

// Rank 0 times out waiting for a PE that does not call the collective; that
// PE, idle, learns of it through its failure monitor, which names the late PE
// (not PE 0, as if rank 0 had died).
TEST(BootstrapMulti, MonitorNamesTheLatePe) {
  gshmemx_uniqueid_t id = loopback_id();
  std::vector<Child> cs;
  run_ranks(
      3, id, 20,
      [&](int rank) {
        MonitorSeen seen;
        std::unique_ptr<Bootstrap> b = connect_watched(id, rank, 3, 1, &seen);
        CHILD_CHECK(b != nullptr, "connect_watched");
        CHILD_CHECK(b->barrier() == GSHMEM_SUCCESS, "barrier");
        if (rank != 2) {
          const Status st = b->barrier();
          CHILD_CHECK(st == GSHMEM_ERROR_TIMEOUT, "barrier returned %s", status_name(st));
          return 0;
        }
        seen.wait(4.0);
        CHILD_CHECK(seen.calls.load() == 1, "callback calls: %d", seen.calls.load());
        CHILD_CHECK(seen.dead.load() == 2, "callback names PE %d", seen.dead.load());
        CHILD_CHECK(contains(seen.how, "barrier timed out after 1 s waiting for PE 2"), "how: %s", seen.how.c_str());
        return 0;
      },
      &cs);
}

// GSHMEM_BOOTSTRAP_TIMEOUT is bounded by the configuration, but connect()
// takes any positive int: timeout + grace must saturate, not wrap negative
// (which made every wait of the members expire at once).
TEST(BootstrapMulti, LargestTimeoutDoesNotOverflow) {
  gshmemx_uniqueid_t id = loopback_id();
  run_ranks(2, id, 20, [&](int rank) {
    std::unique_ptr<Bootstrap> b;
    Status st = connect(id, rank, 2, opts(INT_MAX), &b);
    CHILD_CHECK(st == GSHMEM_SUCCESS, "connect: %s", status_name(st));
    if (rank == 0) std::this_thread::sleep_for(std::chrono::milliseconds(200));
    st = b->barrier();
    CHILD_CHECK(st == GSHMEM_SUCCESS, "barrier: %s", status_name(st));
    st = b->finalize();
    CHILD_CHECK(st == GSHMEM_SUCCESS, "finalize: %s", status_name(st));
    return 0;
  });
}

}  // namespace
