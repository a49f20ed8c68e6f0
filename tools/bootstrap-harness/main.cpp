// SPDX-License-Identifier: BSD-3-Clause
// gshmem-bootstrap-harness: one PE of a host-only start-up. It runs exactly the bootstrap and the
// out-of-band exchanges gshmem_init makes before and around the GPU (no GPU, no heap):
//   connect; allgather of the 104-byte host id (discover_node); allgather of the 48-byte shared
//   configuration (check_shared_config); allgather of 1 byte (all_agree, twice); allgather of the
//   16-byte GPU UUID (find_gpu_peers); a broadcast (64 bytes from PE 0, 8 from the last PE);
//   barriers; finalize.
// Every gathered array is checked in full: each PE's entry, each byte, against a pattern of the
// PE's rank. It reads the launch the way gshmrun passes it (GSHMEM_RANK, GSHMEM_SIZE,
// GSHMEM_UNIQUEID) and prints one line of JSON: times, peak RSS (getrusage), descriptors held
// after the rendezvous (/proc/self/fd), bytes this process's bootstrap sent and received (in all,
// and in the host-id allgather alone). Exit 0 when every step and check passed, else 1 (the log
// says which).
//   --out DIR   write the JSON line to DIR/<rank>.json instead of stdout
//   --timeout S bootstrap timeout (default: GSHMEM_BOOTSTRAP_TIMEOUT, else 120)
//   --rounds K  repeat the host-id allgather K times (default 1; timing of the collective)
#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bootstrap/bootstrap.h"

namespace {

using gshmem::bootstrap::Bootstrap;
using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

uint8_t pattern(int rank, size_t i, int salt) {
  return static_cast<uint8_t>(rank * 131 + (rank >> 8) * 17 + i * 7 + salt * 29 + 1);
}

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

// Allgather `bytes` per PE of a pattern keyed by `salt` and check every PE's entry.
int checked_allgather(Bootstrap& b, size_t bytes, int salt, const char* what) {
  const int n = b.size(), me = b.rank();
  std::vector<uint8_t> mine(bytes), all(bytes * static_cast<size_t>(n) + 1, 0xEE);
  for (size_t i = 0; i < bytes; ++i) mine[i] = pattern(me, i, salt);
  gshmem::Status st = b.allgather(mine.data(), all.data(), bytes);
  if (st != GSHMEM_SUCCESS) return fail(me, what, st);
  for (int r = 0; r < n; ++r)
    for (size_t i = 0; i < bytes; ++i)
      if (all[static_cast<size_t>(r) * bytes + i] != pattern(r, i, salt)) {
        fprintf(stderr,
                "gshmem-bootstrap-harness: PE %d: %s: byte %zu of PE %d's entry is %u, expected %u "
                "(the bootstrap delivered wrong data)\n",
                me, what, i, r, all[static_cast<size_t>(r) * bytes + i], pattern(r, i, salt));
        return 1;
      }
  if (all[bytes * static_cast<size_t>(n)] != 0xEE) {
    fprintf(stderr, "gshmem-bootstrap-harness: PE %d: %s wrote past the end of the array\n", me, what);
    return 1;
  }
  return 0;
}

int checked_broadcast(Bootstrap& b, size_t bytes, int root, int salt) {
  std::vector<uint8_t> buf(bytes + 1, 0xCC);
  if (b.rank() == root)
    for (size_t i = 0; i < bytes; ++i) buf[i] = pattern(root, i, salt);
  gshmem::Status st = b.broadcast(buf.data(), bytes, root);
  if (st != GSHMEM_SUCCESS) return fail(b.rank(), "broadcast", st);
  for (size_t i = 0; i < bytes; ++i)
    if (buf[i] != pattern(root, i, salt)) {
      fprintf(stderr, "gshmem-bootstrap-harness: PE %d: broadcast from PE %d: byte %zu is wrong\n", b.rank(), root, i);
      return 1;
    }
  if (buf[bytes] != 0xCC) {
    fprintf(stderr, "gshmem-bootstrap-harness: PE %d: broadcast wrote past the end\n", b.rank());
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const auto t0 = Clock::now();
  std::string out_dir;
  long timeout = 0, rounds = 1;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--out" && i + 1 < argc)
      out_dir = argv[++i];
    else if (a == "--timeout" && i + 1 < argc)
      timeout = atol(argv[++i]);
    else if (a == "--rounds" && i + 1 < argc)
      rounds = atol(argv[++i]);
    else {
      fprintf(stderr,
              "usage: %s [--out DIR] [--timeout S] [--rounds K] (rank, size and id from GSHMEM_RANK, "
              "GSHMEM_SIZE, GSHMEM_UNIQUEID)\n",
              argv[0]);
      return 2;
    }
  }
  long rank = -1, size = -1;
  const char* idtext = getenv("GSHMEM_UNIQUEID");
  if (!env_int("GSHMEM_RANK", &rank) || !env_int("GSHMEM_SIZE", &size) || !idtext) {
    fprintf(stderr,
            "gshmem-bootstrap-harness: GSHMEM_RANK, GSHMEM_SIZE and GSHMEM_UNIQUEID must be set (run it "
            "through tools/bootstrap-harness/run_harness.py or gshmrun)\n");
    return 2;
  }
  if (timeout <= 0 && !env_int("GSHMEM_BOOTSTRAP_TIMEOUT", &timeout)) timeout = 120;
  gshmemx_uniqueid_t id;
  gshmem::Status st = gshmem::bootstrap::decode_uniqueid(idtext, &id);
  if (st != GSHMEM_SUCCESS) return fail(static_cast<int>(rank), "decoding GSHMEM_UNIQUEID", st);
  const int me = static_cast<int>(rank), n = static_cast<int>(size);

  std::unique_ptr<Bootstrap> b;
  gshmem::bootstrap::ConnectOptions o;
  o.timeout_s = static_cast<int>(timeout);
  st = gshmem::bootstrap::connect(id, me, n, o, &b);
  if (st != GSHMEM_SUCCESS) return fail(me, "connect", st);
  const double t_connect = since(t0);
  int fds = 0, sockets = 0;
  count_fds(&fds, &sockets);

  // gshmem_init's exchanges, in its order.
  const auto before = gshmem::bootstrap::traffic();
  auto t1 = Clock::now();
  for (long k = 0; k < rounds; ++k)
    if (checked_allgather(*b, 104, 1 + static_cast<int>(k), "allgather of the host ids")) return 1;
  const double t_hostid = since(t1) / static_cast<double>(rounds);
  const auto after = gshmem::bootstrap::traffic();
  if (checked_allgather(*b, 48, 101, "allgather of the shared configuration")) return 1;
  if (checked_allgather(*b, 1, 102, "all_agree (GPU set up)")) return 1;
  if (checked_allgather(*b, 16, 103, "allgather of the GPU UUIDs")) return 1;
  if (checked_broadcast(*b, 64, 0, 104)) return 1;
  if (checked_broadcast(*b, 8, n - 1, 105)) return 1;
  if (checked_allgather(*b, 1, 106, "all_agree (internal objects)")) return 1;
  if ((st = b->barrier()) != GSHMEM_SUCCESS) return fail(me, "barrier", st);
  if ((st = b->finalize()) != GSHMEM_SUCCESS) return fail(me, "finalize", st);
  const auto total = gshmem::bootstrap::traffic();
  b.reset();

  char line[768];
  snprintf(line, sizeof(line),
           "{\"rank\": %d, \"size\": %d, \"wall_s\": %.4f, \"connect_s\": %.4f, \"hostid_allgather_s\": %.6f, "
           "\"peak_rss_kb\": %ld, \"fds_after_rendezvous\": %d, \"sockets_after_rendezvous\": %d, "
           "\"bytes_sent\": %llu, \"bytes_received\": %llu, \"hostid_allgather_sent\": %llu, "
           "\"hostid_allgather_received\": %llu, \"rounds\": %ld}\n",
           me, n, since(t0), t_connect, t_hostid, peak_rss_kb(), fds, sockets, (unsigned long long)total.sent,
           (unsigned long long)total.received, (unsigned long long)((after.sent - before.sent) / rounds),
           (unsigned long long)((after.received - before.received) / rounds), rounds);
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
