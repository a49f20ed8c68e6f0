// SPDX-License-Identifier: BSD-3-Clause
// The tree topology of the TCP bootstrap (src/bootstrap/tcp/tree.h) at sizes where the tree has
// several levels: allgather and broadcast at odd sizes with every entry checked, sockets and
// bytes per process, a mismatch found below rank 0, a dead PE reported to every survivor, every
// missing or late PE named by everyone, and a PE that dies between joining and wiring. The star's
// behaviours are covered by test_bootstrap (default topology) and test_bootstrap_scale_star.
#include <dirent.h>

#include <algorithm>

#include "bootstrap/tcp/protocol.h"
#include "bootstrap/tcp/tree.h"
#include "bootstrap_test_util.h"

namespace {

using namespace bootstrap_test;

const int kTree = setenv("GSHMEM_BOOTSTRAP_TOPOLOGY", "tree", 1);  // inherited by every forked rank

int sockets_held() {
  int n = 0;
  DIR* d = opendir("/proc/self/fd");
  char path[64], target[64];
  for (dirent* e; d && (e = readdir(d));) {
    if (e->d_name[0] == '.') continue;
    snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
    ssize_t k = readlink(path, target, sizeof(target) - 1);
    if (k > 7 && strncmp(target, "socket:", 7) == 0) ++n;
  }
  if (d) closedir(d);
  return n;
}

int open_fds() {
  int n = 0;
  DIR* d = opendir("/proc/self/fd");
  for (dirent* e; d && (e = readdir(d));) n += e->d_name[0] != '.';
  if (d) closedir(d);
  return n - 1;  // the directory's own
}

TEST(BootstrapTree, ShapeCoversEveryRankOnce) {
  for (int n : {1, 2, 3, 4, 7, 13, 64, 100, 1000, 4096}) {
    std::vector<int> parent_seen(n, 0);
    for (int r = 0; r < n; ++r) {
      const tcp::TreeNode t = tcp::tree_node(r, n);
      ASSERT_EQ(t.lo, r);
      ASSERT_LE(static_cast<int>(t.children.size()), tcp::kTreeFanout);
      int at = r + 1;
      for (const auto& c : t.children) {  // the children's ranges tile the rest of the subtree
        EXPECT_EQ(c.lo, at);
        EXPECT_EQ(tcp::tree_node(c.rank, n).parent, r);
        at = c.hi;
        ++parent_seen[c.rank];
      }
      EXPECT_EQ(at, t.hi);
    }
    EXPECT_EQ(parent_seen[0], 0);
    for (int r = 1; r < n; ++r) EXPECT_EQ(parent_seen[r], 1) << "rank " << r << " of " << n;
  }
  EXPECT_EQ(tcp::tree_height(1), 0);
  EXPECT_EQ(tcp::tree_height(4), 1);
  EXPECT_LE(tcp::tree_height(27648), 10);
}

// Allgathers of 104 (the host ids), 1 and 3001 bytes, broadcasts from several roots, a barrier;
// every PE checks every entry. Each process holds at most fanout + 1 sockets, and rank 0 moves
// at most 4 x N x 104 bytes in the 104-byte allgather.
int odd_size_body(const gshmemx_uniqueid_t& id, int rank, int n) {
  std::unique_ptr<Bootstrap> b;
  Status st = connect(id, rank, n, opts(30), &b);
  CHILD_CHECK(st == GSHMEM_SUCCESS, "connect: %s", status_name(st));
  CHILD_CHECK(sockets_held() <= tcp::kTreeFanout + 1, "%d sockets held after the rendezvous", sockets_held());
  int salt = 0;
  for (size_t bytes : {size_t{104}, size_t{1}, size_t{3001}}) {
    ++salt;
    std::vector<uint8_t> mine(bytes), all(bytes * n + 1, 0xEE);
    for (size_t i = 0; i < bytes; ++i) mine[i] = pattern(rank, i, salt);
    const Traffic t0 = traffic();
    st = b->allgather(mine.data(), all.data(), bytes);
    const Traffic t1 = traffic();
    CHILD_CHECK(st == GSHMEM_SUCCESS, "allgather(%zu): %s", bytes, status_name(st));
    for (int r = 0; r < n; ++r)
      for (size_t i = 0; i < bytes; ++i)
        CHILD_CHECK(all[r * bytes + i] == pattern(r, i, salt), "allgather(%zu): byte %zu of PE %d", bytes, i, r);
    CHILD_CHECK(all[bytes * n] == 0xEE, "allgather(%zu) wrote past the end", bytes);
    const uint64_t moved = (t1.sent - t0.sent) + (t1.received - t0.received);
    if (rank == 0 && bytes == 104)
      CHILD_CHECK(moved <= 4ull * n * bytes, "rank 0 moved %llu bytes in an allgather of %d x %zu",
                  (unsigned long long)moved, n, bytes);
  }
  for (int root : {0, n - 1, n / 2, n / 3}) {
    std::vector<uint8_t> buf(77 + 1, 0xCC);
    if (rank == root)
      for (size_t i = 0; i < 77; ++i) buf[i] = pattern(root, i, 50);
    st = b->broadcast(buf.data(), 77, root);
    CHILD_CHECK(st == GSHMEM_SUCCESS, "broadcast from %d: %s", root, status_name(st));
    for (size_t i = 0; i < 77; ++i) CHILD_CHECK(buf[i] == pattern(root, i, 50), "broadcast from %d: byte %zu", root, i);
    CHILD_CHECK(buf[77] == 0xCC, "broadcast wrote past the end");
  }
  CHILD_CHECK(b->barrier() == GSHMEM_SUCCESS, "barrier");
  st = b->finalize();
  CHILD_CHECK(st == GSHMEM_SUCCESS, "finalize: %s", status_name(st));
  return 0;
}

TEST(BootstrapTree, AllgatherAtOddSizes) {
  for (int n : {1, 2, 3, 7, 64, 100}) {
    SCOPED_TRACE("N = " + std::to_string(n));
    gshmemx_uniqueid_t id = loopback_id();
    run_ranks(n, id, 60, [&](int r) { return odd_size_body(id, r, n); });
  }
}

// PE 11's parent is PE 9 (13 PEs: rank 0's children are 1, 5, 9): the mismatch is found there,
// and every PE fails with it.
TEST(BootstrapTree, MismatchBelowRankZeroReachesEveryone) {
  const int n = 13;
  ASSERT_EQ(tcp::tree_node(11, n).parent, 9);
  gshmemx_uniqueid_t id = loopback_id();
  std::vector<Child> cs;
  run_ranks(
      n, id, 30,
      [&](int rank) {
        std::unique_ptr<Bootstrap> b;
        Status st = connect(id, rank, n, opts(20), &b);
        CHILD_CHECK(st == GSHMEM_SUCCESS, "connect: %s", status_name(st));
        uint8_t m[32] = {}, a[32 * 13];
        auto t0 = Clock::now();
        st = b->allgather(m, a, rank == 11 ? 32 : 16);
        CHILD_CHECK(st == GSHMEM_ERROR_MISMATCH, "returned %s", status_name(st));
        CHILD_CHECK(seconds_since(t0) < 5.0, "took %.2f s", seconds_since(t0));
        CHILD_CHECK(b->barrier() == GSHMEM_ERROR_MISMATCH, "the failure is not sticky");
        return 0;
      },
      &cs);
  for (const Child& c : cs) {
    EXPECT_TRUE(contains(c.output, "collective mismatch between PE 9 and PE 11")) << c.describe();
    EXPECT_TRUE(contains(c.output, "PE 11 called allgather of 32 bytes per PE")) << c.describe();
  }
}

// An idle PE dies: every survivor's failure monitor reports it once, within 3 s -- an interior
// PE (its parent and its children find it; the notice floods from both sides) and a leaf.
void dead_pe_test(int victim) {
  const int n = 13;
  gshmemx_uniqueid_t id = loopback_id();
  run_ranks(n, id, 30, [&](int rank) {
    std::unique_ptr<Bootstrap> b;
    std::atomic<int> calls{0}, dead{-1};
    Status st = connect(id, rank, n, opts(30), &b);
    CHILD_CHECK(st == GSHMEM_SUCCESS, "connect: %s", status_name(st));
    st = b->start_failure_monitor([&](int d, const std::string&) {
      dead.store(d);
      calls.fetch_add(1);
    });
    CHILD_CHECK(st == GSHMEM_SUCCESS, "start_failure_monitor: %s", status_name(st));
    CHILD_CHECK(b->barrier() == GSHMEM_SUCCESS, "barrier");
    if (rank == victim) _exit(0);
    auto t0 = Clock::now();
    while (calls.load() == 0 && seconds_since(t0) < 3.0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    CHILD_CHECK(calls.load() == 1, "callback calls: %d", calls.load());
    CHILD_CHECK(dead.load() == victim, "callback names PE %d", dead.load());
    CHILD_CHECK(b->barrier() == GSHMEM_ERROR_PEER_FAILURE, "barrier after the failure");
    return 0;
  });
}

TEST(BootstrapTree, DeadInteriorPeReportedToEverySurvivor) { dead_pe_test(1); }
TEST(BootstrapTree, DeadLeafReportedToEverySurvivor) { dead_pe_test(12); }
TEST(BootstrapTree, DeadRootReportedToEverySurvivor) { dead_pe_test(0); }

// Ranks 3 and 6 of 8 never start: everyone fails naming both.
TEST(BootstrapTree, MissingRanksAreAllNamedByEveryone) {
  const int n = 8;
  gshmemx_uniqueid_t id = loopback_id();
  std::vector<Child> cs;
  for (int r = 0; r < n; ++r) {
    if (r == 3 || r == 6) continue;
    cs.push_back(spawn(r, 20, [&, r] {
      std::unique_ptr<Bootstrap> b;
      const int fds_before = open_fds();
      auto t0 = Clock::now();
      Status st = connect(id, r, n, opts(2), &b);
      CHILD_CHECK(st == GSHMEM_ERROR_BOOTSTRAP, "connect returned %s", status_name(st));
      CHILD_CHECK(seconds_since(t0) < 4.0, "took %.2f s", seconds_since(t0));
      // Nothing stays open (the listener inherited from the test process is closed, too).
      CHILD_CHECK(open_fds() <= fds_before, "%d descriptors open before connect, %d after", fds_before, open_fds());
      return 0;
    }));
  }
  release_uniqueid_listener(id);
  wait_all(cs, 25);
  for (const Child& c : cs) {
    EXPECT_TRUE(c.exited_with(0)) << c.describe();
    EXPECT_TRUE(contains(c.output, "missing ranks 3, 6")) << c.describe();
  }
}

// PEs 4 and 12 (under different children of rank 0) do not call a barrier: the others fail
// naming both; the late ones, when they call it, fail at once the same way.
TEST(BootstrapTree, LatePesAreAllNamedByEveryone) {
  const int n = 13;
  gshmemx_uniqueid_t id = loopback_id();
  std::vector<Child> cs;
  run_ranks(
      n, id, 30,
      [&](int rank) {
        std::unique_ptr<Bootstrap> b;
        Status st = connect(id, rank, n, opts(1), &b);
        CHILD_CHECK(st == GSHMEM_SUCCESS, "connect: %s", status_name(st));
        const bool late = rank == 4 || rank == 12;
        if (late) std::this_thread::sleep_for(std::chrono::milliseconds(6000));
        auto t0 = Clock::now();
        st = b->barrier();
        CHILD_CHECK(st == GSHMEM_ERROR_TIMEOUT, "barrier returned %s", status_name(st));
        if (late) CHILD_CHECK(seconds_since(t0) < 0.5, "late PE waited %.2f s", seconds_since(t0));
        return 0;
      },
      &cs);
  for (const Child& c : cs)
    EXPECT_TRUE(contains(c.output, "barrier timed out after 1 s waiting for PEs 4, 12")) << c.describe();
}

// A process joins rank 0 as PE 5 (13 PEs: its children are 6, 7, 8), then dies before the tree
// is wired. Every other PE's connect() fails within its bounds, naming PE 5.
TEST(BootstrapTree, PeDyingBetweenJoinAndWiringIsNamed) {
  const int n = 13;
  gshmemx_uniqueid_t id = loopback_id();
  std::vector<Child> cs;
  for (int r = 0; r < n; ++r) {
    cs.push_back(spawn(r, 30, [&, r] {
      if (r == 5) {  // joins like a PE, tells a port nobody listens on, and vanishes after `ready`
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        int fd = raw_connect(uniqueid_data(id).port);
        CHILD_CHECK(fd >= 0, "connect to rank 0");
        uint8_t hd[tcp::kHeaderBytes];
        tcp::Header answer;
        tcp::Io io;
        int err = 0;
        CHILD_CHECK(tcp::client_handshake(fd, tcp::auth_key(uniqueid_data(id).secret), 5, n, tcp::Deadline(5.0),
                                          &answer, &io, &err) == tcp::Proof::ok,
                    "handshake");
        CHILD_CHECK(recv(fd, hd, sizeof(hd), MSG_WAITALL) == (ssize_t)sizeof(hd), "ack");
        tcp::encode_header(tcp::Header{static_cast<uint32_t>(tcp::Op::addr), 0, 0, 1, 0}, hd);
        CHILD_CHECK(write(fd, hd, sizeof(hd)) == (ssize_t)sizeof(hd), "addr");
        CHILD_CHECK(recv(fd, hd, sizeof(hd), MSG_WAITALL) == (ssize_t)sizeof(hd), "ready");
        _exit(0);
      }
      std::unique_ptr<Bootstrap> b;
      const int fds_before = open_fds();
      auto t0 = Clock::now();
      Status st = connect(id, r, n, opts(3), &b);
      CHILD_CHECK(st != GSHMEM_SUCCESS, "connect succeeded");
      CHILD_CHECK(seconds_since(t0) < 12.0, "took %.2f s", seconds_since(t0));
      CHILD_CHECK(open_fds() <= fds_before, "%d descriptors open before connect, %d after", fds_before, open_fds());
      return 0;
    }));
  }
  release_uniqueid_listener(id);
  wait_all(cs, 35);
  for (const Child& c : cs) {
    EXPECT_TRUE(c.exited_with(0)) << c.describe();
    if (c.rank != 5) EXPECT_TRUE(contains(c.output, "PE 5")) << c.describe();
  }
}

}  // namespace
