// SPDX-License-Identifier: BSD-3-Clause
// launcher_bootstrap_probe: end-to-end check of the gshmrun <-> bootstrap
// contract. Run under gshmrun, each PE discovers itself from the environment
// (detect_from_env must say "gshmrun"), joins the TCP rendezvous (rank 0 on
// the socket gshmrun passed in GSHMEM_BOOTSTRAP_LISTEN_FD), all-gathers the
// ranks and pids, checks them, and finalizes. Prints "bootstrap ok <rank>" and
// exits 0, or names what went wrong and exits 1.
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "bootstrap/bootstrap.h"
#include "bootstrap/env.h"
#include "host/core/config.h"

namespace {

int fail(int rank, const std::string& what) {
  fprintf(stderr, "launcher_bootstrap_probe[%d]: %s\n", rank, what.c_str());
  return 1;
}

}  // namespace

int main() {
  using namespace gshmem;
  if (config::load() != GSHMEM_SUCCESS) return fail(-1, "config::load failed");
  bootstrap::EnvInfo info;
  if (bootstrap::detect_from_env(&info) != GSHMEM_SUCCESS) return fail(-1, "detect_from_env failed");
  const int rank = info.rank;
  log::set_identity(info.rank, info.size);
  if (info.launcher != "gshmrun") return fail(rank, "launcher detected as '" + info.launcher + "'");
  if (info.local_rank != info.rank || info.local_size != info.size)
    return fail(rank, "local rank/size differ from rank/size on one node");

  bootstrap::ConnectOptions opts;
  opts.timeout_s = 30;
  std::unique_ptr<bootstrap::Bootstrap> b;
  if (bootstrap::connect(info.id, info.rank, info.size, opts, &b) != GSHMEM_SUCCESS || !b)
    return fail(rank, "connect failed");
  if (b->rank() != info.rank || b->size() != info.size) return fail(rank, "bootstrap rank/size mismatch");

  struct Entry {
    int rank;
    int pid;
  } mine = {rank, static_cast<int>(getpid())};
  std::vector<Entry> all(static_cast<size_t>(info.size));
  if (b->allgather(&mine, all.data(), sizeof(Entry)) != GSHMEM_SUCCESS) return fail(rank, "allgather failed");
  for (int r = 0; r < info.size; ++r)
    if (all[static_cast<size_t>(r)].rank != r) return fail(rank, "allgather block " + std::to_string(r) + " is wrong");
  if (b->barrier() != GSHMEM_SUCCESS) return fail(rank, "barrier failed");
  if (b->finalize() != GSHMEM_SUCCESS) return fail(rank, "finalize failed");
  printf("bootstrap ok %d\n", rank);
  return 0;
}
