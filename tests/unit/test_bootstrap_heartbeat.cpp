// SPDX-License-Identifier: BSD-3-Clause
// Heartbeats of the TCP bootstrap, tree and star (src/bootstrap/tcp/heartbeat.h,
// GSHMEM_HEARTBEAT_TIMEOUT):
// a stopped PE (SIGSTOP: its sockets stay open, no TCP close ever comes) is named by every
// survivor within the bound, wherever it sits in the tree; and no PE is declared silent while it
// is merely busy: its main thread asleep for three bounds, neighbours waiting for it inside a
// bootstrap collective, or a neighbour blocked sending it a message larger than its socket
// buffers while it does not read.
#include <signal.h>

#include <algorithm>
#include <cstdio>

#include "bootstrap/tcp/protocol.h"
#include "bootstrap/tcp/tree.h"
#include "bootstrap_test_util.h"

namespace {

using namespace bootstrap_test;

const int kTree = setenv("GSHMEM_BOOTSTRAP_TOPOLOGY", "tree", 1);  // inherited by every forked rank

// The star for one test (rank 0 reads the variable at connect; the ranks inherit it at fork).
struct Star {
  Star() { setenv("GSHMEM_BOOTSTRAP_TOPOLOGY", "star", 1); }
  ~Star() { setenv("GSHMEM_BOOTSTRAP_TOPOLOGY", "tree", 1); }
};

struct Seen {
  std::atomic<int> calls{0}, dead{-1};
  std::string how;  // written before calls is incremented
};

std::unique_ptr<Bootstrap> connect_beating(const gshmemx_uniqueid_t& id, int rank, int n, int beat_s, Seen* seen) {
  std::unique_ptr<Bootstrap> b;
  Status st = connect(id, rank, n, opts(30), &b);
  if (st != GSHMEM_SUCCESS) return nullptr;
  b->set_heartbeat(beat_s);
  st = b->start_failure_monitor([seen](int d, const std::string& how) {
    seen->how = how;
    seen->dead.store(d);
    seen->calls.fetch_add(1);
  });
  return st == GSHMEM_SUCCESS ? std::move(b) : nullptr;
}

// PE `victim` of n stops itself after a barrier; every other PE's monitor names it within
// the bound (2 s) + 2 s, once, saying it sent nothing. The parent SIGKILLs the stopped PE.
void stopped_pe_test(int n, int victim) {
  const int kBound = 2;
  gshmemx_uniqueid_t id = loopback_id();
  std::vector<Child> cs;
  for (int r = 0; r < n; ++r)
    cs.push_back(spawn(r, 30, [&, r] {
      Seen seen;
      std::unique_ptr<Bootstrap> b = connect_beating(id, r, n, kBound, &seen);
      CHILD_CHECK(b != nullptr, "connect and start_failure_monitor");
      CHILD_CHECK(b->barrier() == GSHMEM_SUCCESS, "barrier");
      if (r == victim) {
        kill(getpid(), SIGSTOP);
        return 0;
      }
      const auto t0 = Clock::now();
      while (seen.calls.load() == 0 && seconds_since(t0) < kBound + 2.0)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      const double dt = seconds_since(t0);
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      CHILD_CHECK(seen.calls.load() == 1, "callback calls: %d after %.2f s", seen.calls.load(), dt);
      CHILD_CHECK(seen.dead.load() == victim, "callback names PE %d (how: %s)", seen.dead.load(), seen.how.c_str());
      CHILD_CHECK(contains(seen.how, "PE " + std::to_string(victim) + " sent nothing"), "how: %s", seen.how.c_str());
      CHILD_CHECK(dt > kBound - 0.5, "named after %.2f s, before the bound", dt);
      fprintf(stderr, "named PE %d after %.2f s\n", victim, dt);
      CHILD_CHECK(b->barrier() == GSHMEM_ERROR_PEER_FAILURE, "barrier after the failure");
      return 0;
    }));
  release_uniqueid_listener(id);
  std::vector<Child*> survivors;
  for (Child& c : cs)
    if (c.rank != victim) survivors.push_back(&c);
  wait_all(survivors, 30);
  kill(cs[victim].pid, SIGKILL);
  wait_all(std::vector<Child*>{&cs[victim]}, 5);
  double lo = 1e9, hi = 0;
  for (Child* c : survivors) {
    EXPECT_TRUE(c->exited_with(0)) << c->describe();
    const size_t at = c->output.find("named PE ");
    double s = 0;
    int v = -1;
    if (at != std::string::npos && sscanf(c->output.c_str() + at, "named PE %d after %lf s", &v, &s) == 2) {
      lo = std::min(lo, s);
      hi = std::max(hi, s);
    }
  }
  printf("stopped PE %d of %d: named by every survivor %.2f .. %.2f s after they began to wait (bound %d s)\n", victim,
         n, lo, hi, kBound);
}

TEST(BootstrapHeartbeat, StoppedInteriorPeNamedByEverySurvivor) { stopped_pe_test(13, 1); }
TEST(BootstrapHeartbeat, StoppedLeafNamedByEverySurvivor) { stopped_pe_test(13, 12); }
TEST(BootstrapHeartbeat, StoppedRootNamedByEverySurvivor) { stopped_pe_test(4, 0); }
TEST(BootstrapHeartbeat, StarStoppedMemberNamedByEverySurvivor) {
  Star star;
  stopped_pe_test(4, 2);
}
TEST(BootstrapHeartbeat, StarStoppedRootNamedByEverySurvivor) {
  Star star;
  stopped_pe_test(3, 0);
}

// PE `victim` of n is SIGKILLed while the others sit in a barrier, with no heartbeats (so only
// the collective can notice): the barrier returns the failure, and the monitor's callback names
// the PE within a second - once, as when the monitor itself finds a death. (It used to end
// silently on the failed state: the library's survivors then kept running with their device
// waits unreleased; tests/functional/kill_matrix, site heap_grow.)
void killed_in_collective_test(int n, int victim) {
  gshmemx_uniqueid_t id = loopback_id();
  std::vector<Child> cs;
  for (int r = 0; r < n; ++r)
    cs.push_back(spawn(r, 30, [&, r] {
      Seen seen;
      std::unique_ptr<Bootstrap> b = connect_beating(id, r, n, 0, &seen);
      CHILD_CHECK(b != nullptr, "connect and start_failure_monitor");
      CHILD_CHECK(b->barrier() == GSHMEM_SUCCESS, "barrier");
      if (r == victim) {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the others are in the barrier
        kill(getpid(), SIGKILL);
      }
      const Status st = b->barrier();
      const auto t0 = Clock::now();
      CHILD_CHECK(st == GSHMEM_ERROR_PEER_FAILURE, "barrier with a PE killed in it: %s", status_name(st));
      while (seen.calls.load() == 0 && seconds_since(t0) < 3.0)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      const double dt = seconds_since(t0);
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      CHILD_CHECK(seen.calls.load() == 1, "callback calls: %d after %.2f s", seen.calls.load(), dt);
      CHILD_CHECK(dt < 1.0, "callback %.2f s after the barrier failed", dt);
      // The PE named: the one killed, or (a tree member whose link to it went through others)
      // a neighbour the failure notice names; never -1.
      CHILD_CHECK(seen.dead.load() >= 0 && seen.dead.load() < n, "callback names PE %d (how: %s)", seen.dead.load(),
                  seen.how.c_str());
      fprintf(stderr, "PE %d: named PE %d %.3f s after the barrier failed\n", r, seen.dead.load(), dt);
      return 0;
    }));
  release_uniqueid_listener(id);
  std::vector<Child*> survivors;
  for (Child& c : cs)
    if (c.rank != victim) survivors.push_back(&c);
  wait_all(survivors, 30);
  wait_all(std::vector<Child*>{&cs[victim]}, 5);
  for (Child* c : survivors) EXPECT_TRUE(c->exited_with(0)) << c->describe();
}

TEST(BootstrapHeartbeat, KilledInCollectiveNamedThroughTheMonitor) { killed_in_collective_test(5, 1); }
TEST(BootstrapHeartbeat, StarKilledInCollectiveNamedThroughTheMonitor) {
  Star star;
  killed_in_collective_test(3, 1);
}
TEST(BootstrapHeartbeat, StarRootKilledInCollectiveNamedThroughTheMonitor) {
  Star star;
  killed_in_collective_test(3, 0);
}

// Bound 1 s. PE 3's main thread sleeps 3.5 s while the others wait for it in a barrier; then PE
// 0 sleeps 3 s while its children send it 4 MiB each (an allgather: more than the socket
// buffers hold, so their sends block and their heartbeats to it cannot go). Nobody is declared
// silent, every byte arrives, finalize says goodbye.
void busy_test() {
  const int n = 4;
  const size_t kBytes = 4u << 20;
  gshmemx_uniqueid_t id = loopback_id();
  std::vector<Child> cs;
  run_ranks(
      n, id, 40,
      [&](int rank) {
        Seen seen;
        std::unique_ptr<Bootstrap> b = connect_beating(id, rank, n, 1, &seen);
        CHILD_CHECK(b != nullptr, "connect and start_failure_monitor");
        if (rank == 3) std::this_thread::sleep_for(std::chrono::milliseconds(3500));
        CHILD_CHECK(b->barrier() == GSHMEM_SUCCESS, "barrier");
        std::vector<uint8_t> mine(kBytes), all(kBytes * n);
        for (size_t i = 0; i < kBytes; ++i) mine[i] = pattern(rank, i, 5);
        if (rank == 0) std::this_thread::sleep_for(std::chrono::milliseconds(3000));
        CHILD_CHECK(b->allgather(mine.data(), all.data(), kBytes) == GSHMEM_SUCCESS, "allgather");
        for (int r = 0; r < n; ++r)
          for (size_t i = 0; i < kBytes; i += 4093)
            CHILD_CHECK(all[r * kBytes + i] == pattern(r, i, 5), "PE %d byte %zu", r, i);
        std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // idle: heartbeats only
        CHILD_CHECK(seen.calls.load() == 0, "callback: PE %d (%s)", seen.dead.load(), seen.how.c_str());
        CHILD_CHECK(b->finalize() == GSHMEM_SUCCESS, "finalize");
        return 0;
      },
      &cs);
  for (const Child& c : cs) EXPECT_FALSE(contains(c.output, "sent nothing")) << c.describe();
}

TEST(BootstrapHeartbeat, BusyPesAreNotDeclaredSilent) { busy_test(); }
TEST(BootstrapHeartbeat, StarBusyPesAreNotDeclaredSilent) {
  Star star;
  busy_test();
}

}  // namespace
