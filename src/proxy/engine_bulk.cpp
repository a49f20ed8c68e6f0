// SPDX-License-Identifier: BSD-3-Clause
// The engine's bulk path (docs/internode.md section 5, "Bulk data"): a large by-reference put
// is cut into chunks; each chunk is copied by the stager into an outbound slot of this PE's
// window, written by the transport's RMA into the slot this PE owns in the target's window and,
// once that write is complete at the target, announced by a descriptor (an active message with
// no payload) that carries the chunk's sequence number. The target applies the chunk like any
// put, in sequence order, straight from its window; its cumulative acknowledgement frees the
// slot. While chunk k travels, the stager copies chunk k+1, and the target's apply of chunk k
// overlaps the arrival of k+1.
//
// Ordering is the one of active messages: a chunk is an operation of the pair's sequence, so
// nothing after it is applied before it, and the signal of a put_signal rides on the last
// chunk, after the data of every chunk before it (docs/memory-model.md, "Across the proxy").
#include "engine.h"
#include "gshmem/detail/proxy_abi.h"

namespace gshmem::proxy {

bool Engine::bulk_eligible(const ProxyOp& op) const {
  return cfg_.bulk.window && op.op == GSHMEMI_PROXY_OP_PUT && op.by_ref() && op.size >= cfg_.bulk.min_size &&
         op.target != cfg_.my_pe;
}

void Engine::issue_bulk(uint64_t token, const ProxyOp& op, uint64_t first_seq, uint64_t chunks) {
  const uint64_t c = cfg_.bulk.chunk;
  for (uint64_t k = 0; k < chunks; ++k) {
    Chunk ch;
    ch.token = token;
    ch.target = op.target;
    ch.seq = first_seq + k;
    ch.src_addr = op.ref_addr + k * c;
    ch.offset = op.offset + k * c;
    ch.size = k + 1 < chunks ? c : op.size - k * c;
    ch.last = k + 1 == chunks;
    ch.flags = ch.last ? op.flags
                       : static_cast<uint16_t>(op.flags & ~(GSHMEMI_PROXY_F_HAS_SIGNAL | GSHMEMI_PROXY_F_SIGNAL_ADD));
    if (ch.last) {
      ch.sig_offset = op.sig_offset;
      ch.sig_value = op.sig_value;
    }
    bulk_wait_[op.target].push_back(ch);
  }
  // A blocking put returns once its source buffer was read: after the last chunk's copy.
  if (op.wants_reply() && !(token & kHostBit)) send_tag_[token] = op.target;
}

// Two steps per chunk: a slot at the target and an outbound one, then the stager's copy into
// the latter (a D2H copy for device data, running while the network carries earlier chunks);
// once the copy is done (put_copied), the RMA write.
bool Engine::pump_bulk() {
  if (!cfg_.bulk.window) return false;
  bool moved = put_copied();
  for (int q = 0; q < cfg_.n_pes; ++q) {
    std::deque<uint64_t>& in_use = bulk_in_use_[q];
    // Acknowledged means applied at q: the slot may be written again.
    while (!in_use.empty() && in_use.front() < acked_[q]) in_use.pop_front();
    std::deque<Chunk>& wait = bulk_wait_[q];
    while (!wait.empty() && !failed_[q] && in_use.size() < cfg_.bulk.slots_per_source && !out_free_.empty()) {
      Chunk ch = wait.front();
      wait.pop_front();
      moved = true;
      ch.in_slot = bulk_next_slot_[q]++ % cfg_.bulk.slots_per_source;
      ch.out_slot = out_free_.back();
      out_free_.pop_back();
      std::string why;
      if (!stager_.start_copy(ch.src_addr, ch.size, cfg_.bulk.window + cfg_.bulk.out_offset(cfg_.n_pes, ch.out_slot),
                              &why)) {
        // The chunk still goes (its sequence number must reach q), with what the slot holds;
        // the op is reported failed here.
        fail_op(ch.token, q,
                "PE " + std::to_string(cfg_.my_pe) + ": " + op_name(ch.token) + ": reading " + std::to_string(ch.size) +
                    " B of its payload failed: " + why,
                nullptr);
      }
      ch.copy = copies_started_++;
      in_use.push_back(ch.seq);
      bulk_copying_.push_back(ch);
    }
  }
  return put_copied() || moved;
}

bool Engine::put_copied() {
  const uint64_t done = bulk_copying_.empty() ? 0 : stager_.copies_done();
  bool moved = false;
  while (!bulk_copying_.empty() && bulk_copying_.front().copy < done) {
    const Chunk ch = bulk_copying_.front();
    bulk_copying_.pop_front();
    moved = true;
    const int q = ch.target;
    if (failed_[q]) {  // its ops failed meanwhile; the slot was being written until now
      out_free_.push_back(ch.out_slot);
      continue;
    }
    if (ch.last) {  // a blocking put returns once its source buffer was read
      auto it = send_tag_.find(ch.token);
      if (it != send_tag_.end()) {
        send_tag_.erase(it);
        ring_.reply_tag(ch.token, false);
      }
    }
    const uint64_t id = kBulkBit | bulk_next_id_++;
    bulk_flight_.emplace(id, ch);
    if (trace_) trace_->add(TraceEv::kBulkPut, q, ch.seq, id, 0, GSHMEMI_PROXY_OP_PUT, ch.flags);
    if (!transport_.bulk_put(q, cfg_.bulk.out_offset(cfg_.n_pes, ch.out_slot),
                             cfg_.bulk.in_offset(cfg_.my_pe, ch.in_slot), ch.size, id)) {
      bulk_flight_.erase(id);
      out_free_.push_back(ch.out_slot);
      on_peer_failed(q, "the transport refused a bulk put to it");
    }
  }
  return moved;
}

void Engine::on_bulk_complete(uint64_t token) {
  auto it = bulk_flight_.find(token);
  if (it == bulk_flight_.end()) return;  // its peer failed meanwhile
  const Chunk ch = it->second;
  bulk_flight_.erase(it);
  out_free_.push_back(ch.out_slot);
  if (failed_[ch.target]) return;
  // The bytes are in q's slot: the descriptor makes the chunk an operation there.
  WireHeader h;
  h.kind = static_cast<uint8_t>(MsgKind::kOp);
  h.op = GSHMEMI_PROXY_OP_PUT;
  h.flags = ch.flags;
  h.src = cfg_.my_pe;
  h.staged = 1;
  h.seq = ch.seq;
  h.offset = ch.offset;
  h.size = ch.size;
  h.operand = cfg_.bulk.in_offset(cfg_.my_pe, ch.in_slot);
  h.sig_offset = ch.sig_offset;
  h.sig_value = ch.sig_value;
  h.token = ch.token;
  send_to(ch.target, h, nullptr, 0, kCtlToken);
}

bool Engine::staged_in_window(int src, const WireHeader& h) const {
  if (!cfg_.bulk.window) return false;
  const uint64_t lo = cfg_.bulk.in_offset(src, 0), hi = cfg_.bulk.in_offset(src + 1, 0);
  return h.operand >= lo && h.operand <= hi && h.size <= hi - h.operand;
}

// q failed: its queued chunks go (their ops fail with the others to q, by the tracker), and
// the outbound slots of puts to it come back (those still being copied into: once copied).
void Engine::fail_bulk(int q) {
  bulk_wait_[q].clear();
  bulk_in_use_[q].clear();
  for (auto it = bulk_flight_.begin(); it != bulk_flight_.end();) {
    if (it->second.target == q) {
      out_free_.push_back(it->second.out_slot);
      it = bulk_flight_.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace gshmem::proxy
