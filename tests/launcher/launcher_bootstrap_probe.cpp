// SPDX-License-Identifier: BSD-3-Clause
// launcher_bootstrap_probe: end-to-end check of the gshmrun <-> bootstrap
// contract. Run under gshmrun, each PE discovers itself from the environment
// (detect_from_env must say "gshmrun"), joins the TCP rendezvous (rank 0 on
// the socket gshmrun passed in GSHMEM_BOOTSTRAP_LISTEN_FD), all-gathers the
// ranks and pids, checks them, and finalizes. Rank 0 then connects to the
// rendezvous port as a late stranger would: the connection must be refused or
// answered within 2 s, never left waiting in a backlog nobody accepts from.
// All of it twice, as a second init after finalize would. Prints
// "bootstrap ok <rank>" and exits 0, or names what went wrong and exits 1.
//
// `launcher_bootstrap_probe --nodes N` is the multi-host form (gshmrun -H, e.g. across the
// network namespaces of scripts/netns-nodes.sh): no inherited socket is expected (PE 0 binds
// the id's port itself), each PE all-gathers 4099 bytes of a pattern of (rank, index) and checks
// every byte of every block, and the host ids group the PEs into exactly N nodes whose local
// ranks and sizes are the ones gshmrun gave (GSHMEM_LOCAL_RANK/_SIZE).
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bootstrap/bootstrap.h"
#include "bootstrap/env.h"
#include "bootstrap/init_exchange.h"
#include "host/core/config.h"

namespace {

int fail(int rank, const std::string& what) {
  fprintf(stderr, "launcher_bootstrap_probe[%d]: %s\n", rank, what.c_str());
  return 1;
}

// The port of the listening socket gshmrun gave rank 0, or -1.
int inherited_port() {
  const char* v = getenv("GSHMEM_BOOTSTRAP_LISTEN_FD");
  if (!v) return -1;
  sockaddr_in a{};
  socklen_t len = sizeof(a);
  if (getsockname(atoi(v), reinterpret_cast<sockaddr*>(&a), &len) != 0 || a.sin_family != AF_INET) return -1;
  return ntohs(a.sin_port);
}

// "" when a connection to 127.0.0.1:port is refused, or accepted and then answered or closed,
// within 2 s; else what happened.
std::string late_connection(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return std::string("socket: ") + strerror(errno);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string what;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0 && errno != EINPROGRESS) {
    if (errno != ECONNREFUSED) what = std::string("connect: ") + strerror(errno);
  } else {
    pollfd p{fd, POLLOUT, 0};
    int so_err = 0;
    socklen_t sl = sizeof(so_err);
    if (poll(&p, 1, 2000) != 1) {
      what = "connect neither completed nor failed in 2 s";
    } else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &so_err, &sl) == 0 && so_err != 0) {
      if (so_err != ECONNREFUSED) what = std::string("connect: ") + strerror(so_err);
    } else {
      // Connected: somebody must answer or close within 2 s.
      p = {fd, POLLIN, 0};
      if (poll(&p, 1, 2000) != 1) what = "a late connection was accepted by nobody and left waiting";
    }
  }
  close(fd);
  return what;
}

uint8_t pattern(int rank, size_t i) {
  uint64_t x = (static_cast<uint64_t>(rank) + 1) * 0x9e3779b97f4a7c15ull ^ (i + 3) * 0xc2b2ae3d27d4eb4full;
  x ^= x >> 29;
  return static_cast<uint8_t>(x * 0xbf58476d1ce4e5b9ull >> 56);
}

// The multi-host checks (see the top): "" or what is wrong.
std::string check_nodes(gshmem::bootstrap::Bootstrap& b, const gshmem::bootstrap::EnvInfo& info, int nodes) {
  using namespace gshmem;
  constexpr size_t kBytes = 4099;  // odd: no block is aligned
  std::vector<uint8_t> mine(kBytes), all(kBytes * static_cast<size_t>(info.size), 0xA5);
  for (size_t i = 0; i < kBytes; ++i) mine[i] = pattern(info.rank, i);
  if (b.allgather(mine.data(), all.data(), kBytes) != GSHMEM_SUCCESS) return "pattern allgather failed";
  for (int r = 0; r < info.size; ++r)
    for (size_t i = 0; i < kBytes; ++i)
      if (all[static_cast<size_t>(r) * kBytes + i] != pattern(r, i))
        return "pattern allgather: block " + std::to_string(r) + " byte " + std::to_string(i) + " is wrong";
  bootstrap::NodeInfo node;
  if (bootstrap::discover_node(b, bootstrap::local_host_id(), &node) != GSHMEM_SUCCESS) return "discover_node failed";
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  if (node.n_nodes != nodes)
    return "the host ids make " + std::to_string(node.n_nodes) + " nodes, not " + std::to_string(nodes) +
           " (this host: " + host + ")";
  if (static_cast<int>(node.local_pes.size()) != info.local_size || node.local_rank != info.local_rank)
    return "node " + std::string(host) + ": local rank/size " + std::to_string(node.local_rank) + "/" +
           std::to_string(node.local_pes.size()) + " differ from the launcher's " + std::to_string(info.local_rank) +
           "/" + std::to_string(info.local_size);
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  using namespace gshmem;
  if (config::load() != GSHMEM_SUCCESS) return fail(-1, "config::load failed");
  bootstrap::EnvInfo info;
  if (bootstrap::detect_from_env(&info) != GSHMEM_SUCCESS) return fail(-1, "detect_from_env failed");
  const int rank = info.rank;
  log::set_identity(info.rank, info.size);
  int nodes = 0;  // --nodes N: the multi-host form
  if (argc == 3 && std::string(argv[1]) == "--nodes") nodes = atoi(argv[2]);
  if (argc != 1 && nodes <= 0) return fail(rank, "usage: launcher_bootstrap_probe [--nodes N]");
  if (info.launcher != "gshmrun") return fail(rank, "launcher detected as '" + info.launcher + "'");
  if (nodes == 0 && (info.local_rank != info.rank || info.local_size != info.size))
    return fail(rank, "local rank/size differ from rank/size on one node");

  const int port = rank == 0 && nodes == 0 ? inherited_port() : -1;
  if (rank == 0 && nodes == 0 && port < 0) return fail(rank, "no inherited listening socket");
  bootstrap::ConnectOptions opts;
  opts.timeout_s = 30;
  for (int round = 0; round < 2; ++round) {
    const std::string in = " (init " + std::to_string(round + 1) + ")";
    std::unique_ptr<bootstrap::Bootstrap> b;
    if (bootstrap::connect(info.id, info.rank, info.size, opts, &b) != GSHMEM_SUCCESS || !b)
      return fail(rank, "connect failed" + in);
    if (b->rank() != info.rank || b->size() != info.size) return fail(rank, "bootstrap rank/size mismatch" + in);

    struct Entry {
      int rank;
      int pid;
    } mine = {rank, static_cast<int>(getpid())};
    std::vector<Entry> all(static_cast<size_t>(info.size));
    if (b->allgather(&mine, all.data(), sizeof(Entry)) != GSHMEM_SUCCESS) return fail(rank, "allgather failed" + in);
    for (int r = 0; r < info.size; ++r)
      if (all[static_cast<size_t>(r)].rank != r)
        return fail(rank, "allgather block " + std::to_string(r) + " is wrong" + in);
    if (nodes > 0) {
      const std::string what = check_nodes(*b, info, nodes);
      if (!what.empty()) return fail(rank, what + in);
    }
    if (rank == 0 && nodes == 0) {
      const std::string what = late_connection(port);
      if (!what.empty()) return fail(rank, "port " + std::to_string(port) + ": " + what + in);
    }
    if (b->barrier() != GSHMEM_SUCCESS) return fail(rank, "barrier failed" + in);
    if (b->finalize() != GSHMEM_SUCCESS) return fail(rank, "finalize failed" + in);
  }
  printf("bootstrap ok %d\n", rank);
  return 0;
}
