// SPDX-License-Identifier: BSD-3-Clause
// The engine's three seams (docs/internode.md section 4): the network (Transport), the memory
// it applies into (Stager) and time (Clock). The engine knows neither CUDA nor UCX: the CUDA
// side (src/host/proxy/) and the UCX plugin (src/transport/ucx/) implement these; the tests use
// the loopback transport and the memcpy stager of this folder.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace gshmem::proxy {

// Time in nanoseconds, monotonic. The engine and the loopback transport read it through this
// interface so that tests can drive time by hand and stay deterministic.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual uint64_t now_ns() = 0;
};

class SteadyClock final : public Clock {
 public:
  uint64_t now_ns() override {
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
            .count());
  }
};

// Advances only when told: tests step it once per round of progress calls.
class ManualClock final : public Clock {
 public:
  uint64_t now_ns() override { return now_.load(std::memory_order_relaxed); }
  void advance(uint64_t ns) { now_.fetch_add(ns, std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> now_{0};
};

// What a transport tells its engine. Called only from inside Transport::progress(), on the
// engine's thread, so the engine needs no lock for its own state.
class TransportCallbacks {
 public:
  virtual ~TransportCallbacks() = default;
  // A message from `src` arrived; the bytes are valid for the call only.
  virtual void on_message(int src, const uint8_t* bytes, size_t size) = 0;
  // The send that passed `token` completed locally: its buffer may be reused.
  virtual void on_send_complete(uint64_t token) = 0;
  // `pe` is gone (closed connection, endpoint error, heartbeat): no message to or from it
  // will arrive. `why` is a human-readable cause for the error the engine reports.
  virtual void on_peer_failed(int pe, const std::string& why) = 0;
};

// Active messages between engines. Messages to one peer may arrive in any order (UCX documents
// no order for active messages): the engine orders them by its sequence numbers.
class Transport {
 public:
  virtual ~Transport() = default;
  virtual void set_callbacks(TransportCallbacks* cb) = 0;
  // Sends one message to `dst`: the engine's header and the payload (put or get data), in two
  // parts so that a network can carry the header eagerly and the payload by its own protocol
  // (UCX: an active message's header and data). The receiver's on_message sees them joined.
  // Both are copied before the call returns (the engine's buffers are gone after it);
  // on_send_complete(token) follows once the send completed locally. Returns false when `dst`
  // is known to have failed (nothing is sent, no completion follows).
  virtual bool send(int dst, const uint8_t* header, size_t header_size, const uint8_t* payload, size_t payload_size,
                    uint64_t token) = 0;
  // Delivers what has arrived and what has completed, through the callbacks.
  virtual void progress() = 0;

  // Bulk data by RMA (docs/internode.md section 5, "Bulk data"); optional, a transport without
  // it keeps the defaults and the engine sends every payload as an active message. Each PE's
  // engine owns a staging window of host memory, registered here at set-up, that peers write
  // into. bulk_put writes `size` bytes from this PE's window at `local_off` into `dst`'s window
  // at `remote_off`; on_send_complete(token) follows once the bytes are in dst's window (remote
  // completion: a message sent to dst afterwards finds them there), not merely sent. Returns
  // false when `dst` is known to have failed or has no window (nothing is written, no
  // completion follows).
  virtual bool bulk_put(int dst, uint64_t local_off, uint64_t remote_off, uint64_t size, uint64_t token) {
    (void)dst, (void)local_off, (void)remote_off, (void)size, (void)token;
    return false;
  }
};

// One operation for the stager. kTarget: an operation another PE issued, applied into this
// PE's heap at `offset` (put data, then its signal; an AMO; the read of a get into `local`).
// kLocalWrite: data that came back for this PE (a get's), copied to the local address `local`.
struct ApplyOp {
  enum Kind : uint8_t { kTarget, kLocalWrite };
  Kind kind = kTarget;
  uint8_t op = 0;      // gshmemi_proxy_op
  uint16_t flags = 0;  // GSHMEMI_PROXY_F_*
  int src_pe = -1;     // kTarget: the issuing PE
  uint64_t seq = 0;    // kTarget: its sequence number from src_pe (for the stager's records)
  uint64_t offset = 0;
  uint64_t size = 0;
  const uint8_t* data = nullptr;  // put payload; kLocalWrite: the data to copy
  uint8_t* local = nullptr;       // kTarget GET: where the read lands; kLocalWrite: destination
  uint64_t operand = 0, compare = 0;
  uint64_t sig_offset = 0, sig_value = 0;
  // kTarget put: `data` lies in this PE's registered staging window (the bulk path), which
  // stays untouched until the op completed; a stager may copy from it without staging it again.
  bool staged = false;
};

// Applies operations. Operations complete in submission order (one stream: that is what keeps
// a signal behind its data and a source's operations in sequence order); completion may come
// later than submission (an apply kernel, a copy). Buffers an operation points to stay valid
// until poll() reported it complete.
class Stager {
 public:
  virtual ~Stager() = default;
  virtual void submit(const ApplyOp& op) = 0;
  // Appends one value per operation completed since the last call, in submission order: the
  // fetched value of a fetching AMO, else 0. A non-empty `error` says the stager could not
  // apply (a bad offset): the engine reports it and fails the operation.
  struct Done {
    uint64_t value = 0;
    std::string error;
  };
  virtual void poll(std::vector<Done>& done) = 0;
  // The bytes of a by-reference put's payload at `addr` (an address a producer wrote into an
  // entry: a stage-ring slot, a bounce buffer), readable on the host until the op completes.
  // By default the address is this process's own.
  virtual const uint8_t* source_view(uint64_t addr, uint64_t size) {
    (void)size;
    return reinterpret_cast<const uint8_t*>(static_cast<uintptr_t>(addr));
  }
  // Copies a by-reference put's payload bytes [addr, addr + size) into `to` (a chunk slot of
  // the staging window, host memory) before it returns: the bulk path's source-side copy (a
  // D2H copy for device memory). false with *why when the bytes cannot be read.
  virtual bool copy_source(uint64_t addr, uint64_t size, uint8_t* to, std::string* why) {
    (void)why;
    if (size) std::memcpy(to, source_view(addr, size), size);
    return true;
  }
  // The same, asynchronous: starts the copy and returns at once; copies complete in the order
  // they were started, and copies_done() counts those complete (all started so far, for a
  // stager that copies at once). The engine reads the slot only after its copy is counted, and
  // has at most BulkConfig::out_slots (<= 64) copies outstanding.
  virtual bool start_copy(uint64_t addr, uint64_t size, uint8_t* to, std::string* why) {
    return copy_source(addr, size, to, why);
  }
  virtual uint64_t copies_done() { return ~uint64_t{0}; }
};

}  // namespace gshmem::proxy
