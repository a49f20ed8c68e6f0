// SPDX-License-Identifier: BSD-3-Clause
// Harness of the UCX plugin tests: PEs as forked processes on this machine, each with a proxy
// engine over the plugin (PluginTransport) and a memcpy stager into a plain host heap. A shared
// anonymous mapping, made before the fork, stands for the bootstrap: the worker addresses, a
// barrier and the values the PEs report. A child never returns into GoogleTest: it _exits with
// 0 (passed), 1 (a check failed: it printed why) or 77 (no UCX: the test is skipped).
#pragma once

#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "proxy/engine.h"
#include "proxy/memcpy_stager.h"
#include "proxy/plugin_transport.h"

namespace transport_test {

using namespace gshmem::proxy;

constexpr int kMaxPes = 4;
constexpr int kMaxAddress = 4096;
constexpr int kMaxValues = 4096;
constexpr auto kTimeout = std::chrono::seconds(30);  // any wait of a child

struct Shared {
  std::atomic<int> barrier[16];
  std::atomic<int> address_ready[kMaxPes];
  uint32_t address_size[kMaxPes];
  uint8_t address[kMaxPes][kMaxAddress];
  std::atomic<int> key_ready[kMaxPes];  // the bulk path's window keys
  uint32_t key_size[kMaxPes];
  uint8_t key[kMaxPes][kMaxAddress];
  char skip_reason[1024];
  uint64_t values[kMaxPes][kMaxValues];  // what each PE reports (fetched AMO values)
};

#define TT_CHECK(cond, ...)                                         \
  do {                                                              \
    if (!(cond)) {                                                  \
      std::fprintf(stderr, "PE %d: check failed: %s: ", pe, #cond); \
      std::fprintf(stderr, __VA_ARGS__);                            \
      std::fprintf(stderr, "\n");                                   \
      std::fflush(stderr);                                          \
      _exit(1);                                                     \
    }                                                               \
  } while (0)

// One PE: its transport, heap, stager, host queue and engine.
struct Pe {
  int pe = 0, n = 0;
  Shared* sh = nullptr;
  std::unique_ptr<PluginTransport> transport;
  std::vector<uint64_t> heap;
  std::unique_ptr<MemcpyStager> stager;
  HostQueue host;
  SteadyClock clock;
  std::unique_ptr<Engine> engine;
  std::vector<uint8_t> window;  // the bulk path's staging window
  Trace* trace = nullptr;       // set before start(): the engine records a proxy trace into it
  uint64_t ack_delay_ns = 0;    // set before start(): EngineConfig::ack_delay_ns
  RingRegion ring;              // set before start(): a device ring the engine parses (none: words null)
  uint8_t* bytes() { return reinterpret_cast<uint8_t*>(heap.data()); }

  // Loads the plugin (exit 77 without UCX), exchanges addresses, connects to every other PE.
  // With `bulk`: a staging window registered with UCX, keys exchanged, the engine's bulk path on.
  void start(int my_pe, int n_pes, Shared* shared, uint64_t heap_bytes, const BulkConfig* bulk = nullptr) {
    pe = my_pe;
    n = n_pes;
    sh = shared;
    PluginOptions opt;
    opt.name = GSHMEM_TEST_UCX_PLUGIN;  // the file the build made
    opt.my_pe = pe;
    opt.n_pes = n;
    std::string err;
    transport = PluginTransport::load(opt, &err);
    if (!transport) {
      if (err.find("UCX was not found") != std::string::npos) {
        std::snprintf(sh->skip_reason, sizeof sh->skip_reason, "%s", err.c_str());
        _exit(77);
      }
      TT_CHECK(false, "%s", err.c_str());
    }
    const std::vector<uint8_t> a = transport->address();
    TT_CHECK(!a.empty() && a.size() <= kMaxAddress, "worker address of %zu B", a.size());
    std::memcpy(sh->address[pe], a.data(), a.size());
    sh->address_size[pe] = static_cast<uint32_t>(a.size());
    sh->address_ready[pe].store(1, std::memory_order_release);
    for (int q = 0; q < n; ++q) {
      const auto t0 = std::chrono::steady_clock::now();
      while (!sh->address_ready[q].load(std::memory_order_acquire)) {
        TT_CHECK(std::chrono::steady_clock::now() - t0 < kTimeout, "no address from PE %d", q);
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      if (q == pe) continue;
      std::vector<uint8_t> qa(sh->address[q], sh->address[q] + sh->address_size[q]);
      TT_CHECK(transport->connect(q, qa, &err), "connect to PE %d: %s", q, err.c_str());
    }
    heap.assign(heap_bytes / 8, 0);
    stager = std::make_unique<MemcpyStager>(bytes(), heap_bytes);
    EngineConfig cfg;
    cfg.my_pe = pe;
    cfg.n_pes = n;
    cfg.host_queue = &host;
    if (bulk) {
      TT_CHECK(transport->has_rma(), "the UCX plugin reports no RMA");
      window.assign(bulk->window_bytes(n), 0xa5);
      std::vector<uint8_t> key;
      TT_CHECK(transport->bulk_register(window.data(), window.size(), &key, &err), "mem_register: %s", err.c_str());
      TT_CHECK(!key.empty() && key.size() <= kMaxAddress, "window key of %zu B", key.size());
      std::memcpy(sh->key[pe], key.data(), key.size());
      sh->key_size[pe] = static_cast<uint32_t>(key.size());
      sh->key_ready[pe].store(1, std::memory_order_release);
      for (int q = 0; q < n; ++q) {
        const auto t0 = std::chrono::steady_clock::now();
        while (!sh->key_ready[q].load(std::memory_order_acquire)) {
          TT_CHECK(std::chrono::steady_clock::now() - t0 < kTimeout, "no window key from PE %d", q);
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        if (q == pe) continue;
        std::vector<uint8_t> qk(sh->key[q], sh->key[q] + sh->key_size[q]);
        TT_CHECK(transport->bulk_connect(q, qk, &err), "mem_connect to PE %d: %s", q, err.c_str());
      }
      cfg.bulk = *bulk;
      cfg.bulk.window = window.data();
    }
    cfg.trace = trace;
    cfg.ack_delay_ns = ack_delay_ns;
    cfg.ring = ring;
    engine = std::make_unique<Engine>(cfg, *transport, *stager, clock);
  }

  // Progresses until `done`; false after kTimeout. A pass that moved nothing yields the CPU:
  // on a host with fewer free cores than PEs (CI's 2 cores, shared), a PE that spins through
  // its time slice only delays the peer it waits for.
  bool pump_until(const std::function<bool()>& done) {
    const auto t0 = std::chrono::steady_clock::now();
    while (!done()) {
      if (std::chrono::steady_clock::now() - t0 > kTimeout) return false;
      if (!engine->progress()) std::this_thread::yield();
    }
    return true;
  }
  // Barrier `k` among `count` PEs, progressing meanwhile (the others may need this PE's acks).
  void barrier(int k, int count) {
    sh->barrier[k].fetch_add(1);
    TT_CHECK(pump_until([&] { return sh->barrier[k].load() >= count; }), "barrier %d timed out", k);
  }
  // Waits until every host op pushed so far is complete.
  void quiet(uint64_t pushed) {
    TT_CHECK(pump_until([&] { return host.completed() >= pushed; }), "quiet: %llu of %llu host ops completed",
             (unsigned long long)host.completed(), (unsigned long long)pushed);
  }
};

// A host put of n bytes from src to `offset` of PE q's heap: inline when it fits an entry, else
// by reference (non-blocking).
inline HostOp put(int q, uint64_t offset, const uint8_t* src, uint64_t n) {
  HostOp h;
  h.op.op = GSHMEMI_PROXY_OP_PUT;
  h.op.target = q;
  h.op.offset = offset;
  h.op.size = n;
  if (n <= GSHMEMI_PROXY_INLINE_MAX) {
    std::memcpy(h.op.inline_data, src, n);
  } else {
    h.op.flags = GSHMEMI_PROXY_F_BY_REF | GSHMEMI_PROXY_F_NBI;
    h.op.ref_addr = reinterpret_cast<uintptr_t>(src);
  }
  return h;
}

// Runs body(pe) in `n` forked children; returns their wait statuses, or skips the test with 77.
inline std::vector<int> run_pes(int n, Shared* sh, const std::function<void(int)>& body) {
  std::vector<pid_t> pids;
  for (int pe = 0; pe < n; ++pe) {
    const pid_t pid = fork();
    if (pid == 0) {
      body(pe);
      std::fflush(stdout);
      std::fflush(stderr);
      _exit(0);
    }
    pids.push_back(pid);
  }
  std::vector<int> status(n, -1);
  const auto t0 = std::chrono::steady_clock::now();
  for (int left = n; left > 0;) {
    for (int pe = 0; pe < n; ++pe) {
      if (status[pe] != -1) continue;
      int st = 0;
      if (waitpid(pids[pe], &st, WNOHANG) == pids[pe]) {
        status[pe] = st;
        --left;
      }
    }
    if (std::chrono::steady_clock::now() - t0 > kTimeout + std::chrono::seconds(15)) {
      for (int pe = 0; pe < n; ++pe)
        if (status[pe] == -1) kill(pids[pe], SIGKILL);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  for (int st : status)
    if (WIFEXITED(st) && WEXITSTATUS(st) == 77) {
      std::printf("SKIPPED: %s\n", sh->skip_reason);
      std::fflush(stdout);
      std::exit(77);  // ctest: SKIP_RETURN_CODE 77
    }
  return status;
}

inline Shared* make_shared_block() {
  void* p = mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  std::memset(p, 0, sizeof(Shared));
  return static_cast<Shared*>(p);
}

// A byte that depends on (a, b, i).
inline uint8_t pattern(uint64_t a, uint64_t b, uint64_t i) {
  uint64_t x = (a + 1) * 0x9e3779b97f4a7c15ull ^ (b + 7) * 0xc2b2ae3d27d4eb4full ^ (i + 3) * 0x165667b19e3779f9ull;
  x ^= x >> 29;
  x *= 0xbf58476d1ce4e5b9ull;
  return static_cast<uint8_t>(x >> 56);
}

}  // namespace transport_test
