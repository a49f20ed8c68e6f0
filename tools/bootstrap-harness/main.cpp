// SPDX-License-Identifier: BSD-3-Clause
// gshmem-bootstrap-harness: one PE of a host-only start-up. It runs the bootstrap and the very
// functions gshmem_init calls for its host-side exchanges (bootstrap/init_exchange.h), in its
// order, without a GPU:
//   connect; discover_node (24-byte host ids); agree_on_values (the shared configuration: a
//   broadcast and a 1-byte allgather); all_agree (GPU set up); same_device_pes (16-byte device
//   ids); the team slot plan init reserves (host/team/slot_plan.h); all_agree (internal
//   objects); a barrier; finalize.
// Every gathered table is checked in full: each PE's entry against what that PE must have sent,
// and what each PE derives from it (its node's PEs, its local rank, the node count, the largest
// node, the PEs on its device) against the placement the harness simulates: --ppn P PEs a node
// (consecutive ranks), --gpus G devices a node (local rank % G); --ppn 0 (the default) uses the
// real host id, so every PE of this machine is on one node. It reads the launch the way gshmrun
// passes it (GSHMEM_RANK, GSHMEM_SIZE, GSHMEM_UNIQUEID) and prints one line of JSON: times, peak
// RSS (getrusage), descriptors held after the rendezvous (/proc/self/fd), bytes this process's
// bootstrap sent and received (in all, and in the host-id allgather alone), the node, and the
// team region's bytes. Exit 0 when every step and check passed, else 1 (the log says which).
//   --out DIR   write the JSON line to DIR/<rank>.json instead of stdout
//   --timeout S bootstrap timeout (default: GSHMEM_BOOTSTRAP_TIMEOUT, else 120)
//   --rounds K  repeat the host-id exchange K times (default 1; timing of the collective)
//   --ppn P     simulated PEs per node (default 0: the real host id)
//   --gpus G    simulated devices per node (default 6)
//   --spawn N   fork the N PEs from this process (spawn.h); faults.h: --absent, --twice, --die,
//               --stranger
#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bootstrap/bootstrap.h"
#include "bootstrap/init_exchange.h"
#include "host/team/slot_plan.h"
#include "faults.h"
#include "spawn.h"

namespace {

using gshmem::bootstrap::Bootstrap;
using gshmem::bootstrap::HostId;
using gshmem::bootstrap::NodeInfo;
using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Descriptors open now, and how many of them are sockets.
void count_fds(int* fds, int* sockets) {
  *fds = *sockets = 0;
  DIR* d = opendir("/proc/self/fd");
  if (!d) return;
  const int self = dirfd(d);
  char path[64], target[128];
  for (dirent* e; (e = readdir(d));) {
    if (e->d_name[0] == '.') continue;
    const int fd = atoi(e->d_name);
    if (fd == self) continue;
    ++*fds;
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    ssize_t n = readlink(path, target, sizeof(target) - 1);
    if (n > 0 && strncmp(target, "socket:", 7) == 0) ++*sockets;
  }
  closedir(d);
}

// CPU seconds this process used (user + system): on a real cluster the PEs do not share CPUs,
// so rank 0's CPU time, not the wall time of N processes on a few cores, bounds its start-up.
double cpu_s() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + 1e-6 * (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

long peak_rss_kb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

bool env_int(const char* name, long* out) {
  const char* t = getenv(name);
  if (!t || !*t) return false;
  char* end = nullptr;
  *out = strtol(t, &end, 10);
  return *end == '\0';
}

int fail(int rank, const char* step, gshmem::Status st) {
  fprintf(stderr, "gshmem-bootstrap-harness: PE %d: %s failed: %s (%s)\n", rank, step, gshmem::status_name(st),
          gshmem::status_message(st));
  return 1;
}

int check_failed(int me, const char* what) {
  fprintf(stderr, "gshmem-bootstrap-harness: PE %d: %s (the bootstrap delivered wrong data)\n", me, what);
  return 1;
}

// The placement the harness simulates (--ppn, --gpus): PE r's host id and device id.
struct Placement {
  int ppn = 0;  // 0: the real host id, one node
  int gpus = 6;
  HostId base{};
  HostId host(int pe) const {
    HostId h = base;
    if (ppn > 0) h.host_hash ^= 0x9e3779b97f4a7c15ull * static_cast<uint64_t>(pe / ppn + 1);
    return h;
  }
  int node_first(int pe) const { return ppn > 0 ? pe / ppn * ppn : 0; }
  int node_end(int pe, int n) const { return ppn > 0 ? std::min(n, node_first(pe) + ppn) : n; }
  void device(int pe, uint8_t out[16]) const {
    const int node = ppn > 0 ? pe / ppn : 0, local = pe - node_first(pe);
    memset(out, 0, 16);
    memcpy(out, &node, sizeof(node));
    out[8] = static_cast<uint8_t>(local % gpus);
    out[15] = 0xD5;
  }
};

// discover_node, and every entry of its table and of what it derived.
int checked_discover_node(Bootstrap& b, const Placement& pl, NodeInfo* node) {
  const int n = b.size(), me = b.rank();
  std::vector<HostId> table;
  gshmem::Status st = gshmem::bootstrap::discover_node(b, pl.host(me), node, &table);
  if (st != GSHMEM_SUCCESS) return fail(me, "discover_node (host ids)", st);
  if (static_cast<int>(table.size()) != n) return check_failed(me, "discover_node: the table has the wrong size");
  for (int pe = 0; pe < n; ++pe) {
    const HostId want = pl.host(pe);
    if (memcmp(&table[pe], &want, sizeof(HostId))) {
      fprintf(stderr, "gshmem-bootstrap-harness: PE %d: discover_node: PE %d's host id is wrong\n", me, pe);
      return 1;
    }
  }
  const int first = pl.node_first(me), end = pl.node_end(me, n);
  if (static_cast<int>(node->local_pes.size()) != end - first) return check_failed(me, "wrong number of local PEs");
  for (int i = 0; i < end - first; ++i)
    if (node->local_pes[i] != first + i) return check_failed(me, "wrong local PE");
  if (node->local_rank != me - first) return check_failed(me, "wrong local rank");
  const int nodes = pl.ppn > 0 ? (n + pl.ppn - 1) / pl.ppn : 1, largest = pl.ppn > 0 ? std::min(n, pl.ppn) : n;
  if (node->n_nodes != nodes || node->max_node_size != largest) {
    fprintf(stderr, "gshmem-bootstrap-harness: PE %d: %d nodes, largest %d; expected %d and %d\n", me, node->n_nodes,
            node->max_node_size, nodes, largest);
    return 1;
  }
  return 0;
}

int checked_same_device(Bootstrap& b, const Placement& pl, const NodeInfo& node) {
  const int n = b.size(), me = b.rank();
  uint8_t mine[16], want[16];
  pl.device(me, mine);
  std::vector<int> pes;
  std::vector<uint8_t> table;
  gshmem::Status st = gshmem::bootstrap::same_device_pes(b, mine, node.local_pes, &pes, &table);
  if (st != GSHMEM_SUCCESS) return fail(me, "same_device_pes (GPU UUIDs)", st);
  for (int pe = 0; pe < n; ++pe) {
    pl.device(pe, want);
    if (memcmp(&table[static_cast<size_t>(pe) * 16], want, 16)) {
      fprintf(stderr, "gshmem-bootstrap-harness: PE %d: same_device_pes: PE %d's device id is wrong\n", me, pe);
      return 1;
    }
  }
  std::vector<int> expect;
  for (int pe : node.local_pes)
    if ((pe - node.local_pes[0]) % pl.gpus == (me - node.local_pes[0]) % pl.gpus) expect.push_back(pe);
  if (pes != expect) return check_failed(me, "same_device_pes: wrong PEs on this device");
  return 0;
}

int checked_all_agree(Bootstrap& b, const char* what) {
  bool all = false;
  gshmem::Status st = gshmem::bootstrap::all_agree(b, true, &all);
  if (st != GSHMEM_SUCCESS) return fail(b.rank(), what, st);
  return all ? 0 : check_failed(b.rank(), "all_agree: false where every PE said true");
}

struct Args {
  std::string out_dir;
  long timeout = 0, rounds = 1, spawn = 0;
  Placement pl;
  int die = -1;  // --die R: PE R exits right after joining
  SpawnFaults faults;
  bool stranger = false;
};

// One PE: the bootstrap and gshmem_init's exchanges; 0 when every check passed.
int run_pe_steps(const Args& a, const gshmemx_uniqueid_t& id, int me, int n) {
  const auto t0 = Clock::now();
  gshmem::Status st;
  Placement pl = a.pl;
  const long rounds = a.rounds;
  const std::string& out_dir = a.out_dir;
  std::unique_ptr<Bootstrap> b;
  gshmem::bootstrap::ConnectOptions o;
  o.timeout_s = static_cast<int>(a.timeout);
  st = gshmem::bootstrap::connect(id, me, n, o, &b);
  if (st != GSHMEM_SUCCESS) return fail(me, "connect", st);
  if (me == a.die) _exit(3);  // dies during start-up: its peers must name it
  const double t_connect = since(t0);
  int fds = 0, sockets = 0;
  count_fds(&fds, &sockets);

  // gshmem_init's exchanges, in its order (host/init/init.cpp, init_steps).
  if (pl.gpus < 1 || pl.ppn < 0) return fail(me, "arguments (--ppn >= 0, --gpus >= 1)", GSHMEM_ERROR_INVALID_VALUE);
  pl.base = gshmem::bootstrap::local_host_id();
  NodeInfo node;
  const auto before = gshmem::bootstrap::traffic();
  auto t1 = Clock::now();
  for (long k = 0; k < rounds; ++k)
    if (checked_discover_node(*b, pl, &node)) return 1;
  const double t_hostid = since(t1) / static_cast<double>(rounds);
  const auto after = gshmem::bootstrap::traffic();
  static const char* const kNames[6] = {"GSHMEM_TEAM_SCRATCH_SIZE", "GSHMEM_MAX_TEAMS",          "GSHMEM_LL_MAX_BYTES",
                                        "GSHMEM_SYMMETRIC_SIZE",    "GSHMEM_SYMMETRIC_SIZE_MAX", "GSHMEM_DISABLE_VMM"};
  const uint64_t config[6] = {1ull << 20, 64, 256, 1ull << 30, 64ull << 30, 0};
  if ((st = gshmem::bootstrap::agree_on_values(*b, "gshmem_init", config, kNames, 6)) != GSHMEM_SUCCESS)
    return fail(me, "agree_on_values (shared configuration)", st);
  if (checked_all_agree(*b, "all_agree (GPU set up)")) return 1;
  if (checked_same_device(*b, pl, node)) return 1;
  // The team slots gshmem_init reserves for this job (the region is heap memory there).
  const gshmem::team::SlotPlan plan = gshmem::team::plan_slots(n, node.max_node_size, 64, config[0]);
  uint64_t team_ctrl = 0;
  for (uint64_t c : plan.ctrl) team_ctrl += c;
  if (plan.capacity[0] != n || plan.capacity[1] < node.max_node_size) return check_failed(me, "team slot plan");
  if (checked_all_agree(*b, "all_agree (internal objects)")) return 1;
  if ((st = b->barrier()) != GSHMEM_SUCCESS) return fail(me, "barrier", st);
  if ((st = b->finalize()) != GSHMEM_SUCCESS) return fail(me, "finalize", st);
  const auto total = gshmem::bootstrap::traffic();
  b.reset();

  char line[1024];
  snprintf(line, sizeof(line),
           "{\"rank\": %d, \"size\": %d, \"wall_s\": %.4f, \"connect_s\": %.4f, \"hostid_allgather_s\": %.6f, "
           "\"cpu_s\": %.4f, \"peak_rss_kb\": %ld, \"fds_after_rendezvous\": %d, \"sockets_after_rendezvous\": %d, "
           "\"bytes_sent\": %llu, \"bytes_received\": %llu, \"hostid_allgather_sent\": %llu, "
           "\"hostid_allgather_received\": %llu, \"rounds\": %ld, \"n_nodes\": %d, \"max_node_size\": %d, "
           "\"local_size\": %zu, \"team_region_bytes\": %llu, \"team_control_bytes\": %llu}\n",
           me, n, since(t0), t_connect, t_hostid, cpu_s(), peak_rss_kb(), fds, sockets, (unsigned long long)total.sent,
           (unsigned long long)total.received, (unsigned long long)((after.sent - before.sent) / rounds),
           (unsigned long long)((after.received - before.received) / rounds), rounds, node.n_nodes, node.max_node_size,
           node.local_pes.size(), (unsigned long long)plan.region_bytes(), (unsigned long long)team_ctrl);
  if (out_dir.empty()) {
    fputs(line, stdout);
  } else {
    std::string path = out_dir + "/" + std::to_string(me) + ".json";
    FILE* f = fopen(path.c_str(), "w");
    if (!f || fputs(line, f) < 0 || fclose(f) != 0) {
      fprintf(stderr, "gshmem-bootstrap-harness: PE %d: cannot write %s\n", me, path.c_str());
      return 1;
    }
  }
  return 0;
}

// run_pe_steps, and after a failure (its Bootstrap destroyed) a line comparing the descriptors
// open before connect and now: a failed start-up must not leave any behind.
int run_pe(const Args& a, const gshmemx_uniqueid_t& id, int me, int n) {
  const int before = open_fds();
  const int rc = run_pe_steps(a, id, me, n);
  if (rc != 0)
    fprintf(stderr, "gshmem-bootstrap-harness: PE %d: descriptors before connect %d, after the failure %d\n", me,
            before, open_fds());
  return rc;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--out" && i + 1 < argc)
      a.out_dir = argv[++i];
    else if (arg == "--timeout" && i + 1 < argc)
      a.timeout = atol(argv[++i]);
    else if (arg == "--rounds" && i + 1 < argc)
      a.rounds = atol(argv[++i]);
    else if (arg == "--ppn" && i + 1 < argc)
      a.pl.ppn = atoi(argv[++i]);
    else if (arg == "--gpus" && i + 1 < argc)
      a.pl.gpus = atoi(argv[++i]);
    else if (arg == "--spawn" && i + 1 < argc)
      a.spawn = atol(argv[++i]);
    else if (arg == "--absent" && i + 1 < argc && parse_ranks(argv[i + 1], &a.faults.absent))
      ++i;
    else if (arg == "--twice" && i + 1 < argc)
      a.faults.twice = atoi(argv[++i]);
    else if (arg == "--die" && i + 1 < argc)
      a.die = atoi(argv[++i]);
    else if (arg == "--stranger")
      a.stranger = true;
    else {
      fprintf(stderr,
              "usage: %s [--out DIR] [--timeout S] [--rounds K] [--ppn P] [--gpus G] [--spawn N] [--absent R,...] "
              "[--twice R] [--die R] [--stranger] (rank, size and id from GSHMEM_RANK, GSHMEM_SIZE, "
              "GSHMEM_UNIQUEID; with --spawn N, the id only; --absent, --twice, --stranger need --spawn)\n",
              argv[0]);
      return 2;
    }
  }
  long rank = -1, size = a.spawn;
  const char* idtext = getenv("GSHMEM_UNIQUEID");
  if (!idtext || (a.spawn <= 0 && (!env_int("GSHMEM_RANK", &rank) || !env_int("GSHMEM_SIZE", &size)))) {
    fprintf(stderr,
            "gshmem-bootstrap-harness: GSHMEM_UNIQUEID, and without --spawn GSHMEM_RANK and GSHMEM_SIZE, must be "
            "set (run it through tools/bootstrap-harness/run_harness.py or gshmrun)\n");
    return 2;
  }
  if (a.timeout <= 0 && !env_int("GSHMEM_BOOTSTRAP_TIMEOUT", &a.timeout)) a.timeout = 120;
  gshmemx_uniqueid_t id;
  gshmem::Status st = gshmem::bootstrap::decode_uniqueid(idtext, &id);
  if (st != GSHMEM_SUCCESS) return fail(static_cast<int>(rank), "decoding GSHMEM_UNIQUEID", st);
  if (a.spawn > 0) {
    if (a.out_dir.empty()) return fail(-1, "--spawn (needs --out DIR)", GSHMEM_ERROR_INVALID_VALUE);
    if (a.stranger) a.faults.after_rank0 = [&] { connect_stranger(id); };
    return spawn_ranks(
        static_cast<int>(a.spawn), a.out_dir, static_cast<unsigned>(a.timeout + 30),
        [&](int r) { return run_pe(a, id, r, static_cast<int>(a.spawn)); }, a.faults);
  }
  return run_pe(a, id, static_cast<int>(rank), static_cast<int>(size));
}
