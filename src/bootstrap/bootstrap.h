// SPDX-License-Identifier: BSD-3-Clause
// Bootstrap: rank discovery and out-of-band exchange during init/teardown.
// Never on the data path. One implementation today (TCP rendezvous, tcp/),
// selected from an explicit unique id or from launcher environment (env.h).
//
// Topology (GSHMEM_BOOTSTRAP_TOPOLOGY, read by rank 0; docs/bootstrap.md): every
// rank joins rank 0 (the rendezvous, where rank 0 holds N-1 connections); then
//   tree (default): the ranks connect along a 3-ary tree (tcp/tree.h), so each
//     holds at most 4 connections and an allgather of N items moves O(N) bytes
//     through every PE, rank 0 included;
//   star: rank 0 keeps every connection and relays every collective (O(N^2)
//     bytes through rank 0 per allgather); PEs need to reach only rank 0.
//
// Failure semantics: every operation is bounded by GSHMEM_BOOTSTRAP_TIMEOUT;
// a peer that disconnects or dies makes the operation return
// GSHMEM_ERROR_PEER_FAILURE with a log line naming the peer, never hang.
//
// fork(): a child forked without exec does not keep the connections (they are
// closed in the child, so the PE's peers still see it die while the child
// lives); the child's copy of a Bootstrap refuses every call with
// GSHMEM_ERROR_NOT_INITIALIZED and a message saying why.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "gshmem/types.h"
#include "host/core/status.h"

namespace gshmem::bootstrap {

// Contents of gshmemx_uniqueid_t (fits in GSHMEMX_UNIQUEID_BYTES).
struct UniqueIdData {
  uint32_t magic;    // kUniqueIdMagic
  uint32_t version;  // 1
  uint64_t secret;   // random job secret: peers prove they hold it, never send it (tcp/auth.h)
  uint64_t job_key;  // random job id (names Unix sockets etc.)
  uint16_t family;   // AF_INET or AF_INET6
  uint16_t port;     // host byte order
  uint8_t addr[16];  // IPv4 in the first 4 bytes, or IPv6
};
static_assert(sizeof(UniqueIdData) <= GSHMEMX_UNIQUEID_BYTES, "unique id too large");
constexpr uint32_t kUniqueIdMagic = 0x67736831;  // "gsh1"

// Text encoding of a unique id (used in the GSHMEM_UNIQUEID variable that
// gshmrun exports): "<addr>:<port>:<secret hex>:<job hex>"; IPv6 in brackets.
// Secret and job key are 16 lowercase hex digits each, e.g.
// "10.0.0.5:41234:0123456789abcdef:fedcba9876543210" or "[fe80::1]:41234:...".
std::string encode_uniqueid(const gshmemx_uniqueid_t& id);

// Decode rejects malformed text (GSHMEM_ERROR_INVALID_VALUE) with a log line
// saying what is wrong; the address must be numeric.
Status decode_uniqueid(const char* text, gshmemx_uniqueid_t* out);

// Copy of the fields of an id (for inspection; no validation).
UniqueIdData uniqueid_data(const gshmemx_uniqueid_t& id);

// Make a fresh unique id: picks an address (GSHMEM_BOOTSTRAP_IFNAME or the
// first non-loopback IPv4 interface that is up, else 127.0.0.1), opens the
// listening socket now (wildcard address, port chosen by the kernel,
// close-on-exec) and keeps it open in a process-wide registry keyed by the
// id's job_key, so the rank-0 process that later connects with this id accepts
// on it. Secret and job key come from getrandom()/dev/urandom.
// GSHMEM_BOOTSTRAP_IFNAME is taken from config::get(), or from the environment
// when the configuration was not loaded yet (gshmemx_get_uniqueid before init).
Status create_uniqueid(gshmemx_uniqueid_t* out);
// Build an id for an explicit host (name or numeric; resolved now with
// getaddrinfo, IPv4 preferred) and port, WITHOUT listening: used by env-based
// init, where every rank derives the same id independently; rank 0's connect()
// then binds the port itself.
Status make_uniqueid(const char* host, uint16_t port, uint64_t secret, uint64_t job_key, gshmemx_uniqueid_t* out);

// The listening socket create_uniqueid() opened for `id` in this process, or
// -1. The registry keeps ownership (it is close-on-exec): a launcher that wants
// to hand it to a child dup()s it without FD_CLOEXEC and exports the number as
// GSHMEM_BOOTSTRAP_LISTEN_FD.
int uniqueid_listener_fd(const gshmemx_uniqueid_t& id);
// Close and forget that listener (a process that made the id but will not be
// rank 0, e.g. a launcher after forking rank 0). No-op if there is none.
// connect() as a rank other than 0 does this itself.
void release_uniqueid_listener(const gshmemx_uniqueid_t& id);

// Environment variable through which a launcher passes an already-listening
// socket to rank 0 (gshmrun does). Rank 0's connect() adopts that socket when
// it is a listening socket bound to the id's port (else it logs why not and
// falls back to the registry / binding the port itself); it is adopted at most
// once per process.
constexpr const char* kListenFdEnvVar = "GSHMEM_BOOTSTRAP_LISTEN_FD";

// 32 bytes that only the PEs of a job can compute (derived from the job secret): node-local
// endpoints of the job (the heap's Unix sockets) are named with it, so that their names cannot be
// foreseen, and peers prove with it that they belong to the job (local_auth.h).
struct JobToken {
  uint8_t bytes[32];
};

class Bootstrap {
 public:
  virtual ~Bootstrap() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Job key of the rendezvous (same on every rank; not secret: it appears in logs).
  virtual uint64_t job_key() const = 0;
  // The job's token (same on every rank; see JobToken). Zero in a Bootstrap that did not come
  // from connect() (tests' fakes).
  const JobToken& job_token() const { return job_token_; }
  // Every rank contributes `bytes` from `mine`; `all` receives size()*bytes,
  // rank r's block at offset r*bytes. Collective.
  virtual Status allgather(const void* mine, void* all, size_t bytes) = 0;
  // Collective barrier.
  virtual Status barrier() = 0;
  // Root's `bytes` at `buf` copied to every rank's `buf`. Collective.
  virtual Status broadcast(void* buf, size_t bytes, int root) = 0;
  // How long a rank waiting in a collective polls before it sleeps, in
  // microseconds (0, the default: it sleeps at once). Spinning saves a wake-up
  // per message but takes a CPU: worth it only when the node has CPUs to spare.
  virtual void set_wait_spin_us(int us) { (void)us; }
  // Liveness without a TCP close (GSHMEM_HEARTBEAT_TIMEOUT): from start_failure_monitor on,
  // every PE sends its neighbours a heartbeat each second (at most), from the monitor's thread,
  // and a neighbour from which no byte came for timeout_s seconds is reported like a dead one
  // (stopped, wedged or cut off). 0: off. Call before start_failure_monitor. Both topologies
  // (tree_monitor.cpp: every tree link; monitor.cpp: PE 0 and each member).
  virtual void set_heartbeat(int timeout_s) { (void)timeout_s; }
  // After init succeeded: watch the connections in a background thread. When a
  // peer dies (disconnects without saying goodbye) on_failure(dead_rank, how)
  // is called once, on that thread, on every surviving rank (rank 0 relays it;
  // dead_rank is 0 when rank 0 itself vanished). A collective failure that
  // reaches an idle rank this way (e.g. rank 0 timed out waiting for a PE that
  // is not calling it) is reported the same way, with dead_rank the PE it
  // concerns and `how` the cause. The monitor only watches while
  // no collective is running; a failure found by a collective is reported by
  // that collective's status instead. on_failure must not call finalize() or
  // destroy the Bootstrap (it may end the process). Calling it twice is an error.
  virtual Status start_failure_monitor(std::function<void(int dead_rank, const std::string& how)> on_failure) = 0;
  // Orderly shutdown: collective; stops the monitor, then a barrier-like
  // goodbye so no failure is reported, then closes the connections. After an
  // earlier failure it only closes and returns that failure's code. A second
  // call does nothing. The destructor cleans up without finalize() too (peers
  // then see a disconnect), bounded in time.
  virtual Status finalize() = 0;

 protected:
  JobToken job_token_{};
};

// Bytes this process's bootstrap sockets have sent and received since it
// started (every connection, every Bootstrap; protocol headers included). For
// tools and benchmarks (tools/bootstrap-harness).
struct Traffic {
  uint64_t sent;
  uint64_t received;
};
Traffic traffic();

struct ConnectOptions {
  int timeout_s = 120;  // bound on the whole rendezvous and on each later operation (> 0)
};

// Join the rendezvous described by `id` as `rank` of `size`. Rank 0 accepts on
// the socket from GSHMEM_BOOTSTRAP_LISTEN_FD, else on the listener made by
// create_uniqueid in this process, else binds the id's port itself. Other
// ranks connect to rank 0, retrying until it is up or the timeout passes.
// Returns when all ranks have joined or with an error naming the ranks that
// did not arrive in time. size == 1 needs no network (the id is not used).
//
// Status codes (connect and the Bootstrap operations):
//   GSHMEM_ERROR_INVALID_VALUE  bad arguments / malformed id (nothing sent)
//   GSHMEM_ERROR_BOOTSTRAP      rendezvous failed: timeout (root lists the
//                               missing ranks), duplicate rank, size mismatch,
//                               port in use, rank 0 unreachable, rank 0 out of
//                               file descriptors (names the RLIMIT_NOFILE limit)
//   GSHMEM_ERROR_AUTH           this process and PE 0 (or its parent) do not share the job
//                               secret: refused by the other side, or refusing it
//   GSHMEM_ERROR_PEER_FAILURE   a PE disconnected (the log names it); rank 0
//                               relays it so every rank fails the same way
//   GSHMEM_ERROR_MISMATCH       PEs called different collectives / sizes / roots
//   GSHMEM_ERROR_TIMEOUT        a collective did not complete within timeout_s
//                               (rank 0 names the PEs it waited for and tells
//                               the others; ranks != 0 wait a grace of
//                               max(1, min(10, timeout_s/10)) s longer so that
//                               rank 0's report reaches them first)
//   GSHMEM_ERROR_SYSTEM         an unexpected socket error (logged with errno)
//   GSHMEM_ERROR_NOT_INITIALIZED  called after finalize, or in a fork()ed child
// A rank other than 0 whose collective fails on its own (timeout, protocol
// error) tells rank 0, which fails with that rank's code and message too and
// passes it on, naming that rank.
// After any failure of a collective the Bootstrap is unusable: later calls
// return the same code at once (finalize() then only closes). Strangers (wrong magic, or no proof
// of the job secret) connecting to rank 0 or to a parent are rejected with a WARN and do not
// disturb the job. Authentication is mutual (tcp/auth.h): a PE whose PE 0 (or parent) cannot
// prove it holds the secret -- a port squatter -- fails at once with GSHMEM_ERROR_AUTH, naming
// the address, having sent nothing derived from the secret.
//
// Note: ids derived from launcher variables (env.h) are predictable unless
// GSHMEM_BOOTSTRAP_SECRET is set, so their secret only keeps processes of other jobs out by
// accident; it is not a security boundary. Ids from create_uniqueid carry a random secret.
Status connect(const gshmemx_uniqueid_t& id, int rank, int size, const ConnectOptions& opts,
               std::unique_ptr<Bootstrap>* out);

}  // namespace gshmem::bootstrap
