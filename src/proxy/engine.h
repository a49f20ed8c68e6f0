// SPDX-License-Identifier: BSD-3-Clause
// The proxy engine of one PE (docs/internode.md section 4), run by its proxy thread: each
// progress() pass takes, at most a batch each, the ring's whole entries and the host queue's
// operations, numbers them per target, sends them, applies what other PEs sent here in their
// sequence order, acknowledges, and publishes `released` and `completed`.
//
// Source side: an operation to PE q takes the pair's next 64-bit sequence number in parse
// order; the ring stops being parsed while max_outstanding operations are incomplete, so a slow
// network fills the ring and producers wait (no queue grows without bound).
// Target side: each source's operations are applied in sequence order, early arrivals held; a
// cumulative acknowledgement ("applied through s") goes back at most once per source per pass,
// after the stager reported the apply complete; values and get data go back as replies.
// Faults: a failed peer fails the operations to it that it had not acknowledged, and only those;
// each is recorded with a message naming the peer, and the ring's fault word names it too.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "completion.h"
#include "host_queue.h"
#include "interfaces.h"
#include "op.h"
#include "ring.h"

namespace gshmem::proxy {

struct EngineConfig {
  int my_pe = 0;
  int n_pes = 1;
  RingRegion ring;                  // words == nullptr: host queue only
  HostQueue* host_queue = nullptr;  // optional
  uint32_t batch = 64;              // entries (and host ops) taken per pass
  uint64_t max_outstanding = 1024;  // incomplete ring operations before parsing stops
};

// One operation that failed, with a message naming the peer (or the bad entry).
struct Failure {
  bool host = false;  // a host-queue op (id) or a ring entry (ticket)
  uint64_t id = 0;
  int target = -1;
  std::string message;
};

class Engine final : private TransportCallbacks {
 public:
  Engine(const EngineConfig& cfg, Transport& transport, Stager& stager, Clock& clock);
  ~Engine() override;
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // One pass; returns whether anything moved (for the proxy thread's spin-then-sleep).
  bool progress();

  uint64_t parsed() const { return ring_.head(); }  // next ticket to take
  uint64_t released() const { return ring_.released(); }
  uint64_t completed() const { return ring_done_.completed(); }
  uint64_t host_completed() const { return host_done_.completed(); }
  uint64_t last_progress_ns() const { return last_progress_ns_; }
  bool peer_failed(int pe) const { return failed_[pe] != 0; }
  const std::vector<Failure>& failures() const { return failures_; }

 private:
  // A token names an op in messages and send completions: host ops carry kHostBit.
  static constexpr uint64_t kHostBit = uint64_t{1} << 63;

  // What the source side remembers of an op until its reply landed.
  struct Pending {
    ProxyOp op;
    uint64_t* host_result = nullptr;
    std::atomic<int>* host_failed = nullptr;
  };
  // One operation submitted to the stager, in submission order (the stager completes in order).
  struct Applying {
    ApplyOp::Kind kind;
    int src;
    uint64_t seq;
    uint64_t token;  // kTarget: the source's token; kLocalWrite: ours
    uint8_t op;
    uint16_t flags;
    std::vector<uint8_t> data;  // the payload (kTarget put) or the data read / to write
  };
  struct Inbound {
    uint64_t next_seq = 0;                          // the next seq to apply
    std::map<uint64_t, std::vector<uint8_t>> held;  // early arrivals, by seq
    uint64_t applied = 0;                           // applied through (a count)
    uint64_t acked = 0;                             // last count acknowledged
  };

  // TransportCallbacks
  void on_message(int src, const uint8_t* bytes, size_t size) override;
  void on_send_complete(uint64_t token) override;
  void on_peer_failed(int pe, const std::string& why) override;

  // engine.cpp: the source side.
  bool parse_ring();
  bool drain_host_queue();
  void issue(uint64_t token, const ProxyOp& op, uint64_t* host_result, std::atomic<int>* host_failed);
  void fail_op(uint64_t token, int target, const std::string& message, std::atomic<int>* host_failed);
  void reply_failed(uint64_t token, const ProxyOp& op, std::atomic<int>* host_failed);
  std::string op_name(uint64_t token) const;  // "ring ticket 17" / "host operation 3"
  void publish();
  CompletionTracker& tracker(uint64_t token) { return (token & kHostBit) ? host_done_ : ring_done_; }

  // engine_target.cpp: the target side, replies and faults.
  void on_op(int src, const uint8_t* bytes, size_t size);
  void submit_target(int src, std::vector<uint8_t> msg);
  void on_reply(int src, const WireHeader& h, const uint8_t* payload, size_t size);
  bool poll_stager();
  void finish_reply(uint64_t token, const Pending& p, uint64_t value, bool error);
  bool send_acks();
  void send_to(int dst, const WireHeader& h, const uint8_t* payload, size_t size, uint64_t token);

  EngineConfig cfg_;
  Transport& transport_;
  Stager& stager_;
  Clock& clock_;
  Ring ring_;
  CompletionTracker ring_done_, host_done_;
  std::vector<uint64_t> next_seq_;                 // per target: the next sequence number
  std::vector<uint64_t> acked_;                    // per target: acknowledged through (a count)
  std::vector<uint8_t> failed_;                    // per PE
  std::vector<Inbound> inbound_;                   // per source
  std::unordered_map<uint64_t, Pending> pending_;  // by token: ops waiting for a reply
  std::unordered_map<uint64_t, int> send_tag_;     // blocking by-reference puts: token -> target
  std::deque<std::unique_ptr<Applying>> applying_;
  std::vector<Stager::Done> done_scratch_;
  std::vector<std::pair<uint64_t, HostOp>> host_scratch_;
  std::vector<Failure> failures_;
  uint64_t host_next_id_ = 0;
  uint64_t last_progress_ns_ = 0;
  uint64_t events_ = 0;  // callbacks that moved something, for progress()'s answer
};

}  // namespace gshmem::proxy
