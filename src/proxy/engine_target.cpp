// SPDX-License-Identifier: BSD-3-Clause
// The engine's target side (applying other PEs' operations in their sequence order,
// acknowledging), the replies that come back to the source, and failed peers.
#include <algorithm>
#include <cstring>

#include "engine.h"
#include "gshmem/detail/proxy_abi.h"

namespace gshmem::proxy {

void Engine::on_message(int src, const uint8_t* bytes, size_t size) {
  ++events_;
  WireHeader h;
  const uint8_t* payload = nullptr;
  size_t payload_size = 0;
  // A message from a failed peer is dropped: its operations were failed, not half-applied.
  if (src < 0 || src >= cfg_.n_pes || failed_[src]) return;
  if (!decode_message(bytes, size, &h, &payload, &payload_size)) {
    on_peer_failed(src, "it sent a malformed message of " + std::to_string(size) + " B");
    return;
  }
  if (trace_) {
    trace_->add(TraceEv::kRecv, src, h.seq, h.token, h.kind, h.op, h.flags);
    ++trace_->counters().messages_received[h.kind & 3];
  }
  if (h.ack > acked_[src]) {  // an acknowledgement riding on the message
    if (trace_ && h.kind != static_cast<uint8_t>(MsgKind::kAck))
      trace_->add(TraceEv::kRecv, src, h.ack, 1, static_cast<uint8_t>(MsgKind::kAck));
    acked_[src] = h.ack;
  }
  switch (static_cast<MsgKind>(h.kind)) {
    case MsgKind::kOp:
      on_op(src, bytes, size);
      break;
    case MsgKind::kAck:
      if (h.seq > acked_[src]) acked_[src] = h.seq;
      break;
    case MsgKind::kReply:
      on_reply(src, h, payload, payload_size);
      break;
  }
}

void Engine::on_op(int src, const uint8_t* bytes, size_t size) {
  Inbound& in = inbound_[src];
  WireHeader h;
  std::memcpy(&h, bytes, sizeof h);
  if (h.seq < in.next_seq || in.held.count(h.seq)) return;  // a duplicate: applied or held already
  if (h.op == GSHMEMI_PROXY_OP_PUT && h.staged && !staged_in_window(src, h)) {
    on_peer_failed(src, cfg_.bulk.window ? "it sent a bulk chunk outside its slots of this PE's staging window"
                                         : "it sent a bulk chunk, but this PE has no staging window");
    return;
  }
  std::vector<uint8_t> msg(bytes, bytes + size);
  if (h.seq > in.next_seq) {
    in.held.emplace(h.seq, std::move(msg));  // early: wait for the ones before it
    return;
  }
  submit_target(src, std::move(msg));
  for (auto it = in.held.begin(); it != in.held.end() && it->first == in.next_seq; it = in.held.erase(it))
    submit_target(src, std::move(it->second));
}

void Engine::submit_target(int src, std::vector<uint8_t> msg) {
  WireHeader h;
  const uint8_t* payload = nullptr;
  size_t payload_size = 0;
  decode_message(msg.data(), msg.size(), &h, &payload, &payload_size);
  ++inbound_[src].next_seq;
  auto a = std::make_unique<Applying>();
  a->kind = ApplyOp::kTarget;
  a->src = src;
  a->seq = h.seq;
  a->token = h.token;
  a->op = h.op;
  a->flags = h.flags;
  ApplyOp op;
  op.kind = ApplyOp::kTarget;
  op.op = h.op;
  op.flags = h.flags;
  op.src_pe = src;
  op.seq = h.seq;
  op.offset = h.offset;
  op.size = h.size;
  op.operand = h.operand;
  op.compare = h.compare;
  op.sig_offset = h.sig_offset;
  op.sig_value = h.sig_value;
  if (h.op == GSHMEMI_PROXY_OP_PUT && h.staged) {
    op.data = cfg_.bulk.window + h.operand;  // checked by on_op; the source reuses it after our ack
    op.staged = true;
    op.operand = 0;
  } else if (h.op == GSHMEMI_PROXY_OP_PUT) {
    a->data.assign(payload, payload + payload_size);
    op.data = a->data.data();
  } else if (h.op == GSHMEMI_PROXY_OP_GET && !(h.flags & GSHMEMI_PROXY_F_FETCH)) {
    a->data.resize(h.size);
    op.local = a->data.data();  // the stager reads the heap into it; sent back as the reply
  }
  const uint64_t t0 = trace_ ? Trace::now_ns() : 0;
  stager_.submit(op);
  if (trace_) trace_->add_at(t0, TraceEv::kApply, src, h.seq, 0, 0, h.op, h.flags, Trace::now_ns() - t0);
  applying_.push_back(std::move(a));
}

bool Engine::poll_stager() {
  done_scratch_.clear();
  stager_.poll(done_scratch_);
  for (const Stager::Done& d : done_scratch_) {
    std::unique_ptr<Applying> a = std::move(applying_.front());
    applying_.pop_front();
    if (trace_) trace_->add(TraceEv::kApplied, a->src, a->seq, a->token, a->kind, a->op, a->flags);
    if (a->kind == ApplyOp::kLocalWrite) {
      auto it = pending_.find(a->token);
      if (it == pending_.end()) continue;  // failed meanwhile
      if (!d.error.empty())
        fail_op(a->token, it->second.op.target,
                "PE " + std::to_string(cfg_.my_pe) + ": " + op_name(a->token) + " (" + it->second.op.describe() +
                    "): writing the data that came back failed: " + d.error,
                it->second.host_failed);
      finish_reply(a->token, it->second, 0, !d.error.empty());
      continue;
    }
    // Applied (or failed) at this PE: part of the cumulative acknowledgement from now on.
    inbound_[a->src].applied = a->seq + 1;
    if (!is_untracked(a->op, a->flags) && !inbound_[a->src].ack_due) {
      inbound_[a->src].ack_due = true;
      inbound_[a->src].due_ns = last_progress_ns_;
    }
    if (failed_[a->src]) continue;
    WireHeader r;
    r.kind = static_cast<uint8_t>(MsgKind::kReply);
    r.op = a->op;
    r.src = cfg_.my_pe;
    r.seq = a->seq;
    r.token = a->token;
    if (!d.error.empty()) {
      r.error = 1;
      send_to(a->src, r, reinterpret_cast<const uint8_t*>(d.error.data()), d.error.size(), 0);
    } else if (a->flags & GSHMEMI_PROXY_F_FETCH) {
      r.operand = d.value;
      send_to(a->src, r, nullptr, 0, 0);
    } else if (a->op == GSHMEMI_PROXY_OP_GET) {
      r.size = a->data.size();
      send_to(a->src, r, a->data.data(), a->data.size(), 0);
    }
  }
  return !done_scratch_.empty();
}

bool Engine::send_acks() {
  bool sent = false;
  for (int src = 0; src < cfg_.n_pes; ++src) {
    Inbound& in = inbound_[src];
    // Only when a tracked op was applied: every ack costs both ends a message (a barrier's
    // untracked signals would each get one), and none of the source's waits needs it else.
    if (in.applied == in.acked || !in.ack_due || failed_[src]) continue;
    // A message to src within ack_delay_ns takes it along (send_to): a ping's reply, an
    // exchange's next round. The proxy spins 100 us after work, so a delay below that ends on
    // time; a longer one may end up to a nap (50 us) late.
    if (last_progress_ns_ - in.due_ns < cfg_.ack_delay_ns) continue;
    in.ack_due = false;
    WireHeader h;
    h.kind = static_cast<uint8_t>(MsgKind::kAck);
    h.src = cfg_.my_pe;
    h.seq = in.applied;
    in.acked = in.applied;
    send_to(src, h, nullptr, 0, 0);
    sent = true;
  }
  return sent;
}

void Engine::on_reply(int src, const WireHeader& h, const uint8_t* payload, size_t size) {
  auto it = pending_.find(h.token);
  if (h.error) {
    const std::string msg = "PE " + std::to_string(cfg_.my_pe) + ": " + op_name(h.token) + " to PE " +
                            std::to_string(src) +
                            " failed there: " + std::string(reinterpret_cast<const char*>(payload), size);
    fail_op(h.token, src, msg, it == pending_.end() ? nullptr : it->second.host_failed);
    if (it != pending_.end()) finish_reply(h.token, it->second, 0, true);
    return;
  }
  if (it == pending_.end()) return;
  const Pending& p = it->second;
  if (p.op.fetches()) {
    finish_reply(h.token, p, h.operand, false);
    return;
  }
  if (size != p.op.size) {
    fail_op(h.token, src,
            "PE " + std::to_string(cfg_.my_pe) + ": " + op_name(h.token) + ": PE " + std::to_string(src) +
                " returned " + std::to_string(size) + " B, not " + std::to_string(p.op.size),
            p.host_failed);
    finish_reply(h.token, p, 0, true);
    return;
  }
  // Get data: written to its destination by the stager, in order with everything else applied
  // here; the reply (tag) and completion follow that write.
  auto a = std::make_unique<Applying>();
  a->kind = ApplyOp::kLocalWrite;
  a->src = src;
  a->seq = h.seq;
  a->token = h.token;
  a->op = h.op;
  a->flags = 0;
  a->data.assign(payload, payload + size);
  ApplyOp op;
  op.kind = ApplyOp::kLocalWrite;
  op.op = h.op;
  op.size = size;
  op.data = a->data.data();
  op.offset = p.op.ref_addr;
  op.local = reinterpret_cast<uint8_t*>(static_cast<uintptr_t>(p.op.ref_addr));
  const uint64_t t0 = trace_ ? Trace::now_ns() : 0;
  stager_.submit(op);
  if (trace_) trace_->add_at(t0, TraceEv::kApply, src, h.seq, h.token, 1, h.op, 0, Trace::now_ns() - t0);
  applying_.push_back(std::move(a));
}

void Engine::finish_reply(uint64_t token, const Pending& p, uint64_t value, bool error) {
  if (token & kHostBit) {
    if (p.op.fetches() && p.host_result && !error) *p.host_result = value;
    if (error && p.host_failed) p.host_failed->store(1, std::memory_order_release);
  } else if (p.op.fetches()) {
    ring_.reply_value(token, value, error);
    if (trace_) trace_->add(TraceEv::kReply, p.op.target, token);
  } else if (p.op.wants_reply()) {  // a non-blocking get has no waiter: quiet reads `completed`
    ring_.reply_tag(token, error);
    if (trace_) trace_->add(TraceEv::kReply, p.op.target, token);
  }
  tracker(token).reply_done(token & ~kHostBit);
  pending_.erase(token);  // p is gone after this
}

void Engine::on_send_complete(uint64_t token) {
  ++events_;
  if (trace_) trace_->add(TraceEv::kSendDone, -1, 0, token);
  if ((token & (kHostBit | kBulkBit)) == kBulkBit) {
    on_bulk_complete(token);
    return;
  }
  auto it = send_tag_.find(token);
  if (it == send_tag_.end()) return;
  const int target = it->second;
  send_tag_.erase(it);
  ring_.reply_tag(token, false);  // the source buffer may be reused: a blocking put returns
  if (trace_) trace_->add(TraceEv::kReply, target, token);
}

void Engine::on_peer_failed(int q, const std::string& why) {
  ++events_;
  if (q < 0 || q >= cfg_.n_pes || failed_[q]) return;
  failed_[q] = 1;
  if (cfg_.ring.fault) {
    uint64_t none = 0;
    __atomic_compare_exchange_n(cfg_.ring.fault, &none, uint64_t(q) + 1, false, __ATOMIC_RELEASE, __ATOMIC_RELAXED);
  }
  const std::string cause = "PE " + std::to_string(q) + " failed (" + why + ")";
  const std::string me = "PE " + std::to_string(cfg_.my_pe) + ": ";
  // Every op to q it had not acknowledged fails; what it acknowledged was applied and stays.
  std::vector<uint64_t> tokens;
  ring_done_.for_each_unacked(q, acked_[q], [&](uint64_t id) { tokens.push_back(id); });
  host_done_.for_each_unacked(q, acked_[q], [&](uint64_t id) { tokens.push_back(kHostBit | id); });
  for (const auto& [token, p] : pending_)  // acknowledged, but the reply did not come
    if (p.op.target == q && (token & ~kHostBit) >= tracker(token).completed()) tokens.push_back(token);
  std::sort(tokens.begin(), tokens.end());
  tokens.erase(std::unique(tokens.begin(), tokens.end()), tokens.end());
  for (uint64_t token : tokens) {
    auto it = pending_.find(token);
    auto w = host_watch_.find(token);
    std::atomic<int>* host_failed = it != pending_.end()     ? it->second.host_failed
                                    : w != host_watch_.end() ? w->second
                                                             : nullptr;
    fail_op(token, q, me + op_name(token) + " to PE " + std::to_string(q) + " failed: " + cause, host_failed);
    if (it != pending_.end()) {
      finish_reply(token, it->second, 0, true);
    } else if (send_tag_.erase(token)) {
      ring_.reply_tag(token, true);
    }
  }
  inbound_[q].held.clear();
  fail_bulk(q);
}

}  // namespace gshmem::proxy
