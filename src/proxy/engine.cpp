// SPDX-License-Identifier: BSD-3-Clause
// The engine's pass and its source side: parsing the ring and the host queue, numbering and
// sending operations, completion. The target side, replies and faults: engine_target.cpp.
#include "engine.h"

#include "gshmem/detail/proxy_abi.h"

namespace gshmem::proxy {

Engine::Engine(const EngineConfig& cfg, Transport& transport, Stager& stager, Clock& clock)
    : cfg_(cfg),
      transport_(transport),
      stager_(stager),
      clock_(clock),
      ring_(cfg.ring),
      next_seq_(cfg.n_pes, 0),
      acked_(cfg.n_pes, 0),
      failed_(cfg.n_pes, 0),
      inbound_(cfg.n_pes),
      bulk_wait_(cfg.n_pes),
      bulk_in_use_(cfg.n_pes),
      bulk_next_slot_(cfg.n_pes, 0),
      trace_(cfg.trace) {
  if (cfg_.bulk.window)
    for (uint32_t s = cfg_.bulk.out_slots; s-- > 0;) out_free_.push_back(s);
  transport_.set_callbacks(this);
}

Engine::~Engine() { transport_.set_callbacks(nullptr); }

bool Engine::progress() {
  // The one test tracing costs a pass when off: the untraced pass reads no extra clock.
  return trace_ ? run_pass<true>() : run_pass<false>();
}

// One pass: arrivals, send completions and failures (the callbacks below), finished applies,
// the ring, host calls, bulk chunks, acknowledgements, then what completed. Traced, each phase
// is timed for the trace's counters (Trace::pass).
template <bool Traced>
bool Engine::run_pass() {
  [[maybe_unused]] uint64_t phase[kPhases] = {};
  [[maybe_unused]] const uint64_t start = Traced ? Trace::now_ns() : 0;
  [[maybe_unused]] uint64_t t = start;
  const auto lap = [&](int p) {
    if constexpr (Traced) {
      const uint64_t u = Trace::now_ns();
      phase[p] = u - t;
      t = u;
    }
  };
  last_progress_ns_ = clock_.now_ns();
  const uint64_t events = events_;
  transport_.progress();
  const bool busy = events_ != events;
  bool moved = busy;
  lap(kPhaseTransport);
  moved |= poll_stager();
  lap(kPhaseStager);
  moved |= parse_ring();
  lap(kPhaseRing);
  moved |= drain_host_queue();
  lap(kPhaseHost);
  moved |= pump_bulk();
  lap(kPhaseBulk);
  moved |= send_acks();
  lap(kPhaseAcks);
  publish();
  lap(kPhasePublish);
  if constexpr (Traced) trace_->pass(start, t - start, phase, moved, busy);
  return moved;
}

bool Engine::parse_ring() {
  if (!ring_.present()) return false;
  bool moved = false;
  for (uint32_t n = 0; n < cfg_.batch; ++n) {
    // Back-pressure: completed() only grows, so a value from earlier in the pass is safe.
    if (ring_.head() - ring_done_.completed() >= cfg_.max_outstanding) break;
    uint64_t w[GSHMEMI_PROXY_ENTRY_WORDS];
    bool wants_reply = false;
    if (!ring_.take(w, &wants_reply)) break;
    moved = true;
    const uint64_t ticket = ring_.head() - 1;
    ProxyOp op;
    std::string why;
    if (!decode_entry(w, &op, &why)) {
      if (trace_) trace_->add(TraceEv::kRing, -1, ticket);
      ring_done_.add_finished(ticket);
      fail_op(ticket, -1,
              "PE " + std::to_string(cfg_.my_pe) + ": bad proxy entry at ring ticket " + std::to_string(ticket) + ": " +
                  why,
              nullptr);
      if (wants_reply) {
        if (gshmemi_proxy_w0_flags(w[0]) & GSHMEMI_PROXY_F_FETCH)
          ring_.reply_value(ticket, 0, true);
        else
          ring_.reply_tag(ticket, true);
      }
      continue;
    }
    if (trace_) trace_->add(TraceEv::kRing, op.target, ticket, 0, 0, op.op, op.flags);
    issue(ticket, op, nullptr, nullptr);
  }
  return moved;
}

bool Engine::drain_host_queue() {
  if (!cfg_.host_queue) return false;
  const uint64_t room = cfg_.max_outstanding - (host_done_.added() - host_done_.completed());
  if (room == 0) return false;
  host_scratch_.clear();
  cfg_.host_queue->pop(host_scratch_, room < cfg_.batch ? room : cfg_.batch);
  for (auto& [id, hop] : host_scratch_) {
    if (trace_) trace_->add(TraceEv::kHost, hop.op.target, id, 0, 0, hop.op.op, hop.op.flags);
    issue(kHostBit | id, hop.op, hop.result, hop.failed);
  }
  return !host_scratch_.empty();
}

std::string Engine::op_name(uint64_t token) const {
  return (token & kHostBit) ? "host operation " + std::to_string(token & ~kHostBit)
                            : "ring ticket " + std::to_string(token);
}

void Engine::issue(uint64_t token, const ProxyOp& op, uint64_t* host_result, std::atomic<int>* host_failed) {
  CompletionTracker& tr = tracker(token);
  const uint64_t id = token & ~kHostBit;
  const int q = op.target;
  // Only a failure names the op: its text costs allocations every op would pay.
  const auto who = [&] {
    return "PE " + std::to_string(cfg_.my_pe) + ": " + op_name(token) + " (" + op.describe() + ")";
  };
  if (q < 0 || q >= cfg_.n_pes) {
    tr.add_finished(id);
    fail_op(
        token, q,
        who() + ": PE " + std::to_string(q) + " is out of range: valid PEs are 0.." + std::to_string(cfg_.n_pes - 1),
        host_failed);
    reply_failed(token, op, host_failed);
    return;
  }
  if (failed_[q]) {
    tr.add_finished(id);
    fail_op(token, q, who() + ": PE " + std::to_string(q) + " has failed", host_failed);
    reply_failed(token, op, host_failed);
    return;
  }
  if ((token & kHostBit) && host_failed && !op.fetches() && !op.gets_data()) host_watch_[token] = host_failed;
  if (bulk_eligible(op)) {
    // A sequence number per chunk; the op is complete when its last one is acknowledged.
    const uint64_t chunks = (op.size + cfg_.bulk.chunk - 1) / cfg_.bulk.chunk;
    const uint64_t first = next_seq_[q];
    next_seq_[q] += chunks;
    tr.add(id, q, first + chunks - 1);
    issue_bulk(token, op, first, chunks);
    return;
  }
  const uint64_t seq = next_seq_[q]++;
  // An untracked signal (a team sync's) is complete once sent: it still takes its place in the
  // pair's sequence, so the target applies it after everything sent before it.
  if (is_untracked(op.op, op.flags))
    tr.add_finished(id);
  else
    tr.add(id, q, seq);
  WireHeader h;
  h.kind = static_cast<uint8_t>(MsgKind::kOp);
  h.op = op.op;
  h.flags = op.flags;
  h.src = cfg_.my_pe;
  h.seq = seq;
  h.offset = op.offset;
  h.size = op.size;
  h.operand = op.operand;
  h.compare = op.compare;
  h.sig_offset = op.sig_offset;
  h.sig_value = op.sig_value;
  h.token = token;
  const uint8_t* payload = nullptr;
  size_t payload_size = 0;
  if (op.op == GSHMEMI_PROXY_OP_PUT) {
    payload = op.by_ref() ? stager_.source_view(op.ref_addr, op.size) : op.inline_data;
    payload_size = op.size;
  }
  if (op.fetches() || op.gets_data()) {
    pending_[token] = {op, host_result, host_failed};
    tr.await_reply(id);
  } else if (op.wants_reply() && !(token & kHostBit)) {
    send_tag_[token] = q;  // a blocking by-reference put returns at local completion
  }
  send_to(q, h, payload, payload_size, token);
}

void Engine::send_to(int dst, const WireHeader& header, const uint8_t* payload, size_t size, uint64_t token) {
  // Every message to dst carries what this PE applied of dst's ops: an acknowledgement that
  // costs no message of its own (acknowledgements are cumulative, so a repeat says nothing new).
  WireHeader h = header;
  Inbound& in = inbound_[dst];
  const uint64_t acked_before = in.acked;
  h.ack = in.applied;
  in.acked = in.applied;
  in.ack_due = false;
  const uint64_t t0 = trace_ ? Trace::now_ns() : 0;
  const bool ok = transport_.send(dst, reinterpret_cast<const uint8_t*>(&h), sizeof h, payload, size, token);
  if (trace_) {
    // At the hand-over, with the call's duration: on tcp the send syscall, and on `lo` the
    // receiving socket's work too.
    trace_->add_at(t0, TraceEv::kSend, dst, h.seq, h.token, h.kind, h.op, h.flags, Trace::now_ns() - t0);
    ++trace_->counters().messages_sent[h.kind & 3];
    // An acknowledgement riding on another message: an ack record (b = 1), no message counted.
    if (h.kind != static_cast<uint8_t>(MsgKind::kAck) && h.ack > acked_before)
      trace_->add_at(t0, TraceEv::kSend, dst, h.ack, 1, static_cast<uint8_t>(MsgKind::kAck));
  }
  if (!ok) on_peer_failed(dst, "the transport refused a send to it");
}

void Engine::fail_op(uint64_t token, int target, const std::string& message, std::atomic<int>* host_failed) {
  failures_.push_back({(token & kHostBit) != 0, token & ~kHostBit, target, message});
  if (host_failed) host_failed->store(1, std::memory_order_release);
}

void Engine::reply_failed(uint64_t token, const ProxyOp& op, std::atomic<int>* host_failed) {
  if (token & kHostBit) {
    if (host_failed) host_failed->store(1, std::memory_order_release);
    return;
  }
  if (op.fetches())
    ring_.reply_value(token, 0, true);
  else if (op.wants_reply())
    ring_.reply_tag(token, true);
}

void Engine::publish() {
  const auto acked = [this](int q) { return acked_[q]; };
  const auto failed = [this](int q) { return failed_[q] != 0; };
  if (ring_.present()) {
    const uint64_t before = ring_done_.completed();
    const uint64_t c = ring_done_.advance(acked, failed);
    // Release: a quiet that reads it (acquire) then sees the data its gets brought back.
    if (c != before && cfg_.ring.completed) __atomic_store_n(cfg_.ring.completed, c, __ATOMIC_RELEASE);
    if (c != before && trace_) trace_->add(TraceEv::kCompleted, -1, c);
    ring_.advance_released();
  }
  host_done_.advance(acked, failed);
  const uint64_t done = host_done_.completed();
  if (trace_ && done != traced_host_done_) {
    traced_host_done_ = done;
    trace_->add(TraceEv::kHostCompleted, -1, done);
  }
  for (auto it = host_watch_.begin(); it != host_watch_.end() && (it->first & ~kHostBit) < done;)
    it = host_watch_.erase(it);  // complete: acknowledged, or failed and flagged before
  if (cfg_.host_queue) cfg_.host_queue->publish_completed(done);
}

}  // namespace gshmem::proxy
