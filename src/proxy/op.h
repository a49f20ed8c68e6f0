// SPDX-License-Identifier: BSD-3-Clause
// An operation as the engine handles it, decoded from a ring entry (include/gshmem/detail/
// proxy_abi.h) or handed over by a host call, and the messages engines exchange about it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gshmem::proxy {

struct ProxyOp {
  uint8_t op = 0;      // gshmemi_proxy_op
  uint16_t flags = 0;  // GSHMEMI_PROXY_F_*
  int target = -1;
  uint64_t offset = 0;  // at the target
  uint64_t size = 0;    // payload bytes (put), bytes read (get), element width (AMO, g)
  uint8_t inline_data[16] = {};
  uint64_t ref_addr = 0;  // by-reference: the payload (put) or the destination (get)
  uint64_t operand = 0, compare = 0;
  uint64_t sig_offset = 0, sig_value = 0;

  bool by_ref() const;
  bool fetches() const;          // a value comes back (fetching AMO, g)
  bool gets_data() const;        // data comes back into ref_addr (by-reference get)
  unsigned width() const;        // AMO / g element bytes
  bool wants_reply() const;      // the producer waits on the slot's reply words (gshmemi_proxy_wants_reply)
  std::string describe() const;  // "put of 256 B to PE 2 at offset 0x40": for error messages
};

// An operation complete once sent (a team sync's counted signal, GSHMEMI_PROXY_F_UNTRACKED):
// nothing waits for its acknowledgement (docs/internode.md section 6, barrier). The source
// and the target decide it alike from the op and its flags.
bool is_untracked(uint8_t op, uint16_t flags);

// Decodes the eight words of a whole entry (parity already checked). Returns false, with the
// reason, for an entry no producer should write (unknown op, inline payload too long, ...).
bool decode_entry(const uint64_t w[8], ProxyOp* out, std::string* why);

// Encodes `op` as entry words under `parity`: what a device writer does, here for the CPU
// producers of the tests and for round-trip checks. Words 6-7 get zero fields.
void encode_entry(const ProxyOp& op, uint64_t parity, uint64_t w[8]);

// Messages between engines: a fixed header, then a payload (put data, get data, error text).
enum class MsgKind : uint8_t { kOp = 1, kAck = 2, kReply = 3 };

struct WireHeader {
  uint8_t kind = 0;  // MsgKind
  uint8_t op = 0;
  uint16_t flags = 0;
  int32_t src = -1;
  uint32_t error = 0;   // kReply: 1 when the operation failed at the target (payload: why)
  uint32_t staged = 0;  // kOp put: 1 when the payload is in the target's window at `operand` (no payload follows)
  uint64_t seq = 0;     // kOp: the pair's sequence number; kAck: applied through (a count); kReply: the op's
  uint64_t offset = 0, size = 0, operand = 0, compare = 0, sig_offset = 0, sig_value = 0;
  uint64_t token = 0;  // kOp: the source's name for the op, echoed by its kReply
  // Any kind: the sender applied the receiver's ops through this count (0: says nothing), an
  // acknowledgement riding on a message that goes anyway (Engine::send_to).
  uint64_t ack = 0;
};
static_assert(sizeof(WireHeader) == 88, "wire header layout");

std::vector<uint8_t> encode_message(const WireHeader& h, const uint8_t* payload, size_t size);
// Splits a message; false when it is shorter than a header or its payload size disagrees.
bool decode_message(const uint8_t* bytes, size_t size, WireHeader* h, const uint8_t** payload, size_t* payload_size);

}  // namespace gshmem::proxy
