// SPDX-License-Identifier: BSD-3-Clause
// Every multi-process bootstrap test of test_bootstrap.cpp, run over the star topology
// (GSHMEM_BOOTSTRAP_TOPOLOGY=star), which stays selectable: test_bootstrap itself runs over the
// default (tree). The suite is renamed so that ctest tells the two apart.
#include <cstdlib>

namespace {
// Before any test forks its ranks: they inherit it.
const int kStar = setenv("GSHMEM_BOOTSTRAP_TOPOLOGY", "star", 1);
}  // namespace

#define BootstrapMulti BootstrapMultiStar
#include "test_bootstrap.cpp"  // NOLINT(bugprone-suspicious-include)

namespace {

// The switch works: over the star, rank 0 holds a socket per other PE (the tree: at most 3).
TEST(BootstrapMultiStar, RankZeroHoldsASocketPerPe) {
  gshmemx_uniqueid_t id = loopback_id();
  run_ranks(6, id, 30, [&](int rank) {
    std::unique_ptr<Bootstrap> b;
    Status st = connect(id, rank, 6, opts(20), &b);
    CHILD_CHECK(st == GSHMEM_SUCCESS, "connect: %s", status_name(st));
    int sockets = 0;
    for (int fd = 0; fd < 1024; ++fd) {
      sockaddr_storage ss{};
      socklen_t len = sizeof(ss);
      if (getpeername(fd, reinterpret_cast<sockaddr*>(&ss), &len) == 0) ++sockets;
    }
    CHILD_CHECK(sockets == (rank == 0 ? 5 : 1), "PE %d holds %d connected sockets", rank, sockets);
    CHILD_CHECK(b->finalize() == GSHMEM_SUCCESS, "finalize");
    return 0;
  });
}

}  // namespace
