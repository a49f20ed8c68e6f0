// SPDX-License-Identifier: BSD-3-Clause
// bootstrap_probe: latency of the TCP bootstrap's collectives, the floor under every
// collective host call that agrees through it (gshmem_malloc / free / realloc, team
// creation). N ranks are forked on this host and meet over loopback; each times
// back-to-back 16-byte allgathers and barriers (median and p90 of the slowest rank),
// once per spin setting (Bootstrap::set_wait_spin_us: how long a waiting rank polls
// before it sleeps). No GPU needed.
//   gshmem-bootstrap-probe [ranks=2] [spin_us ...=0 50]
// Every allgather's result is checked (each rank contributes its rank and the round).
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "bootstrap/bootstrap.h"

namespace {

using gshmem::bootstrap::Bootstrap;
constexpr int kWarmup = 300, kIters = 3000;

struct Stats {
  double median, p90;
};
Stats stats_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return {v[v.size() / 2], v[v.size() * 9 / 10]};
}

// One rank: connect, time, write its results to `fd` (a pipe to the parent).
int rank_main(const gshmemx_uniqueid_t& id, int rank, int n, const std::vector<int>& spins, int fd) {
  std::unique_ptr<Bootstrap> b;
  gshmem::bootstrap::ConnectOptions o;
  o.timeout_s = 30;
  if (gshmem::bootstrap::connect(id, rank, n, o, &b) != GSHMEM_SUCCESS) return 2;
  using clock = std::chrono::steady_clock;
  for (int spin : spins) {
    b->set_wait_spin_us(spin);
    std::vector<double> ag, bar;
    std::vector<uint64_t> all(2 * static_cast<size_t>(n));
    for (int i = 0; i < kWarmup + kIters; ++i) {
      const uint64_t mine[2] = {static_cast<uint64_t>(rank), static_cast<uint64_t>(i)};
      const auto t0 = clock::now();
      if (b->allgather(mine, all.data(), sizeof(mine)) != GSHMEM_SUCCESS) return 3;
      const auto t1 = clock::now();
      for (int r = 0; r < n; ++r)
        if (all[2 * r] != static_cast<uint64_t>(r) || all[2 * r + 1] != static_cast<uint64_t>(i)) {
          fprintf(stderr, "rank %d: allgather %d: block of rank %d is (%llu, %llu)\n", rank, i, r,
                  (unsigned long long)all[2 * r], (unsigned long long)all[2 * r + 1]);
          return 4;
        }
      if (i >= kWarmup) ag.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    }
    for (int i = 0; i < kWarmup + kIters; ++i) {
      const auto t0 = clock::now();
      if (b->barrier() != GSHMEM_SUCCESS) return 3;
      const auto t1 = clock::now();
      if (i >= kWarmup) bar.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    }
    const Stats s[2] = {stats_of(ag), stats_of(bar)};
    if (write(fd, s, sizeof(s)) != static_cast<ssize_t>(sizeof(s))) return 5;
  }
  return b->finalize() == GSHMEM_SUCCESS ? 0 : 6;
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 2;
  std::vector<int> spins;
  for (int i = 2; i < argc; ++i) spins.push_back(atoi(argv[i]));
  if (spins.empty()) spins = {0, 50};
  if (n < 2) {
    fprintf(stderr, "usage: %s [ranks >= 2] [spin_us ...]\n", argv[0]);
    return 1;
  }
  setenv("GSHMEM_BOOTSTRAP_IFNAME", "lo", 1);
  gshmemx_uniqueid_t id;
  if (gshmem::bootstrap::create_uniqueid(&id) != GSHMEM_SUCCESS) return 1;
  std::vector<pid_t> pids;
  std::vector<int> fds;
  for (int r = 0; r < n; ++r) {
    int p[2];
    if (pipe(p) != 0) return 1;
    const pid_t pid = fork();
    if (pid == 0) {
      close(p[0]);
      _exit(rank_main(id, r, n, spins, p[1]));
    }
    close(p[1]);
    pids.push_back(pid);
    fds.push_back(p[0]);
  }
  gshmem::bootstrap::release_uniqueid_listener(id);
  printf("# %d ranks on loopback, %d timed calls each (after %d), us; the slowest rank's median and p90\n", n, kIters,
         kWarmup);
  printf("%8s %16s %12s %16s %12s\n", "spin_us", "allgather 16 B", "p90", "barrier", "p90");
  bool ok = true;
  for (int spin : spins) {
    Stats worst[2] = {{0, 0}, {0, 0}};
    for (int fd : fds) {
      Stats s[2];
      if (read(fd, s, sizeof(s)) != static_cast<ssize_t>(sizeof(s))) {
        ok = false;
        continue;
      }
      for (int k = 0; k < 2; ++k) {
        worst[k].median = std::max(worst[k].median, s[k].median);
        worst[k].p90 = std::max(worst[k].p90, s[k].p90);
      }
    }
    printf("%8d %16.2f %12.2f %16.2f %12.2f\n", spin, worst[0].median, worst[0].p90, worst[1].median, worst[1].p90);
  }
  for (pid_t pid : pids) {
    int st = 0;
    waitpid(pid, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
      fprintf(stderr, "a rank failed (status %d)\n", st);
      ok = false;
    }
  }
  return ok ? 0 : 1;
}
