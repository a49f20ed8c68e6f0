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
#include "trace.h"

namespace gshmem::proxy {

// The bulk path (docs/internode.md section 5, "Bulk data"): a by-reference put of at least
// min_size bytes travels in chunks by RMA through registered staging windows instead of as one
// active message. Each PE's window holds, for every source, slots_per_source inbound chunk
// slots, then out_slots outbound ones where this PE's stager copies a chunk's bytes before the
// transport puts them into the target's slot. A chunk is one operation of the pair's sequence
// (applied in order, acknowledged cumulatively); an acknowledgement frees the target's slot, so
// the slots are the credits. Every PE must use the same chunk and slots_per_source.
struct BulkConfig {
  uint8_t* window = nullptr;        // this PE's registered window; nullptr: no bulk path
  uint64_t chunk = 256ull << 10;    // bytes per chunk
  uint32_t slots_per_source = 4;    // inbound slots each source owns in every window
  uint32_t out_slots = 4;           // this PE's outbound slots
  uint64_t min_size = 64ull << 10;  // smaller puts stay active messages
  uint64_t window_bytes(int n_pes) const { return (uint64_t(n_pes) * slots_per_source + out_slots) * chunk; }
  uint64_t in_offset(int src, uint32_t slot) const { return (uint64_t(src) * slots_per_source + slot) * chunk; }
  uint64_t out_offset(int n_pes, uint32_t slot) const { return in_offset(n_pes, 0) + uint64_t(slot) * chunk; }
};

struct EngineConfig {
  int my_pe = 0;
  int n_pes = 1;
  RingRegion ring;                  // words == nullptr: host queue only
  HostQueue* host_queue = nullptr;  // optional
  uint32_t batch = 64;              // entries (and host ops) taken per pass
  uint64_t max_outstanding = 1024;  // incomplete ring operations before parsing stops
  // How long an acknowledgement may wait for a message to the same PE to ride on
  // (GSHMEM_PROXY_ACK_DELAY_US): a reply to a ping, the next round of an exchange. 0: sent in
  // the pass that applied the op, as a message of its own unless one goes to that PE anyway.
  uint64_t ack_delay_ns = 0;
  BulkConfig bulk;         // window == nullptr: every payload as an active message
  Trace* trace = nullptr;  // GSHMEM_PROXY_TRACE: records of every stage (trace.h); nullptr: off
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
  uint64_t bulk_chunks() const { return bulk_next_id_; }  // chunks sent by RMA so far

 private:
  // A token names an op in messages and send completions: host ops carry kHostBit. A bulk
  // put's completion carries kBulkBit and the chunk's number; control messages (descriptors,
  // acknowledgements of nothing to wait for) kCtlToken, which names no op.
  static constexpr uint64_t kHostBit = uint64_t{1} << 63;
  static constexpr uint64_t kBulkBit = uint64_t{1} << 62;
  static constexpr uint64_t kCtlToken = uint64_t{1} << 61;

  // One chunk of a bulk put (engine_bulk.cpp), from its queueing to its descriptor's send.
  struct Chunk {
    uint64_t token = 0;  // the op's
    int target = -1;
    uint64_t seq = 0;
    uint64_t src_addr = 0;          // this chunk's payload bytes at the source
    uint64_t offset = 0, size = 0;  // at the target
    uint16_t flags = 0;             // the op's; the signal only on the last chunk
    uint64_t sig_offset = 0, sig_value = 0;
    bool last = false;
    uint32_t in_slot = 0, out_slot = 0;
    uint64_t copy = 0;  // the stager's copy into out_slot (start_copy's count)
  };

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
    // An op the source tracks was applied since the last acknowledgement: only then is one
    // sent (send_acks). A team sync's untracked signals need none; a later one covers them.
    bool ack_due = false;
    uint64_t due_ns = 0;  // when ack_due was set: a lone acknowledgement goes ack_delay_ns later
  };

  // TransportCallbacks
  void on_message(int src, const uint8_t* bytes, size_t size) override;
  void on_send_complete(uint64_t token) override;
  void on_peer_failed(int pe, const std::string& why) override;

  // engine.cpp: the source side.
  template <bool Traced>
  bool run_pass();  // progress()'s pass; Traced: each phase timed (trace_ set)
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

  // engine_bulk.cpp: the bulk path.
  bool bulk_eligible(const ProxyOp& op) const;
  void issue_bulk(uint64_t token, const ProxyOp& op, uint64_t first_seq, uint64_t chunks);
  bool pump_bulk();
  bool put_copied();
  void on_bulk_complete(uint64_t token);
  bool staged_in_window(int src, const WireHeader& h) const;
  void fail_bulk(int q);

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
  // Host ops that wait for completion but not for a reply (a blocking put): their failure flag,
  // by token, until they complete, so that a put its target never acknowledged reports failure.
  std::map<uint64_t, std::atomic<int>*> host_watch_;
  std::unordered_map<uint64_t, int> send_tag_;  // blocking by-reference puts: token -> target
  std::deque<std::unique_ptr<Applying>> applying_;
  std::vector<Stager::Done> done_scratch_;
  std::vector<std::pair<uint64_t, HostOp>> host_scratch_;
  std::vector<Failure> failures_;
  std::vector<std::deque<Chunk>> bulk_wait_;       // per target: chunks waiting for slots, seq order
  std::vector<std::deque<uint64_t>> bulk_in_use_;  // per target: seqs holding its slots, oldest first
  std::vector<uint32_t> bulk_next_slot_;           // per target: the next inbound slot (a ring)
  std::vector<uint32_t> out_free_;                 // free outbound slots
  std::deque<Chunk> bulk_copying_;                 // source copies under way, in start order
  uint64_t copies_started_ = 0;
  std::unordered_map<uint64_t, Chunk> bulk_flight_;  // by completion token: puts not yet remote-complete
  uint64_t bulk_next_id_ = 0;
  uint64_t host_next_id_ = 0;
  uint64_t last_progress_ns_ = 0;
  uint64_t events_ = 0;  // callbacks that moved something, for progress()'s answer
  Trace* trace_ = nullptr;
  uint64_t traced_host_done_ = 0;  // the host completion count last recorded
};

}  // namespace gshmem::proxy
