// SPDX-License-Identifier: BSD-3-Clause
#include "op.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "gshmem/detail/proxy_abi.h"

namespace gshmem::proxy {

bool ProxyOp::by_ref() const { return flags & GSHMEMI_PROXY_F_BY_REF; }
bool ProxyOp::fetches() const { return flags & GSHMEMI_PROXY_F_FETCH; }
bool ProxyOp::gets_data() const { return op == GSHMEMI_PROXY_OP_GET && !fetches(); }
unsigned ProxyOp::width() const { return 1u << ((flags & GSHMEMI_PROXY_F_WIDTH_MASK) >> GSHMEMI_PROXY_F_WIDTH_SHIFT); }

bool ProxyOp::wants_reply() const { return gshmemi_proxy_wants_reply(gshmemi_proxy_w0(op, flags, 0, 0)) != 0; }

bool is_untracked(uint8_t op, uint16_t flags) {
  return op == GSHMEMI_PROXY_OP_SIGNAL && (flags & GSHMEMI_PROXY_F_UNTRACKED);
}

std::string ProxyOp::describe() const {
  static const char* const names[] = {"none",       "put",         "get",          "signal",
                                      "atomic set", "atomic add",  "atomic and",   "atomic or",
                                      "atomic xor", "atomic swap", "atomic cswap", "atomic fetch"};
  const char* name = op < sizeof(names) / sizeof(names[0]) ? names[op] : "op";
  char buf[160];
  std::snprintf(buf, sizeof buf, "%s%s of %" PRIu64 " B to PE %d at offset 0x%" PRIx64, name,
                (flags & GSHMEMI_PROXY_F_HAS_SIGNAL) ? " with signal" : "", size, target, offset);
  return buf;
}

namespace {

uint64_t field(uint64_t w) { return w & GSHMEMI_PROXY_FIELD_MASK; }

bool is_amo(unsigned op) { return op >= GSHMEMI_PROXY_OP_AMO_SET && op <= GSHMEMI_PROXY_OP_AMO_FETCH; }

}  // namespace

bool decode_entry(const uint64_t w[8], ProxyOp* out, std::string* why) {
  ProxyOp o;
  const uint64_t w0 = w[0];
  o.op = static_cast<uint8_t>(gshmemi_proxy_w0_op(w0));
  o.flags = static_cast<uint16_t>(gshmemi_proxy_w0_flags(w0));
  o.target = static_cast<int>(gshmemi_proxy_w0_pe(w0));
  o.offset = field(w[1]);
  const uint32_t len = gshmemi_proxy_w0_len(w0);
  const bool has_signal = o.flags & GSHMEMI_PROXY_F_HAS_SIGNAL;
  if (has_signal || o.op == GSHMEMI_PROXY_OP_SIGNAL) {
    o.sig_offset = field(w[4]);
    o.sig_value = gshmemi_proxy_join(w[5], w[6]);
  }
  switch (o.op) {
    case GSHMEMI_PROXY_OP_PUT:
      if (o.by_ref()) {
        o.ref_addr = field(w[2]);
        o.size = field(w[3]);
      } else {
        const uint32_t max = has_signal ? GSHMEMI_PROXY_INLINE_SIGNAL_MAX : GSHMEMI_PROXY_INLINE_MAX;
        if (len > max) {
          *why = "inline put of " + std::to_string(len) + " B (at most " + std::to_string(max) + ")";
          return false;
        }
        o.size = len;
        for (uint32_t i = 0; i < len; ++i) o.inline_data[i] = static_cast<uint8_t>(w[2 + i / 4] >> (8 * (i % 4)));
      }
      break;
    case GSHMEMI_PROXY_OP_GET:
      if (o.fetches()) {
        o.size = o.width();
      } else if (o.by_ref()) {
        o.ref_addr = field(w[2]);
        o.size = field(w[3]);
      } else {
        *why = "get without a destination (neither by-reference nor fetch)";
        return false;
      }
      break;
    case GSHMEMI_PROXY_OP_SIGNAL:
      if (o.flags & GSHMEMI_PROXY_F_FETCH) {
        *why = "a signal does not fetch";
        return false;
      }
      break;
    default:
      if (!is_amo(o.op)) {
        *why = "unknown op " + std::to_string(o.op);
        return false;
      }
      if (o.width() != 4 && o.width() != 8) {
        *why = "atomic of width " + std::to_string(o.width()) + " B (4 or 8)";
        return false;
      }
      o.size = o.width();
      o.operand = gshmemi_proxy_join(w[2], w[3]);
      o.compare = gshmemi_proxy_join(w[4], w[5]);
  }
  *out = o;
  return true;
}

void encode_entry(const ProxyOp& o, uint64_t parity, uint64_t w[8]) {
  uint64_t f[8] = {};
  const bool has_signal = o.flags & GSHMEMI_PROXY_F_HAS_SIGNAL;
  uint32_t len = 0;
  if (o.op == GSHMEMI_PROXY_OP_PUT && !o.by_ref()) {
    len = static_cast<uint32_t>(o.size);
    for (uint32_t i = 0; i < len; ++i) f[2 + i / 4] |= uint64_t{o.inline_data[i]} << (8 * (i % 4));
  } else if (o.by_ref()) {
    f[2] = o.ref_addr;
    f[3] = o.size;
  } else if (is_amo(o.op)) {
    f[2] = gshmemi_proxy_lo(o.operand);
    f[3] = gshmemi_proxy_hi(o.operand);
    f[4] = gshmemi_proxy_lo(o.compare);
    f[5] = gshmemi_proxy_hi(o.compare);
  }
  if (has_signal || o.op == GSHMEMI_PROXY_OP_SIGNAL) {
    f[4] = o.sig_offset;
    f[5] = gshmemi_proxy_lo(o.sig_value);
    f[6] = gshmemi_proxy_hi(o.sig_value);
  }
  f[0] = gshmemi_proxy_w0(o.op, o.flags, len, static_cast<uint32_t>(o.target));
  f[1] = o.offset;
  for (int i = 0; i < 8; ++i) w[i] = gshmemi_proxy_word(parity, f[i]);
}

std::vector<uint8_t> encode_message(const WireHeader& h, const uint8_t* payload, size_t size) {
  std::vector<uint8_t> m(sizeof h + size);
  std::memcpy(m.data(), &h, sizeof h);
  if (size) std::memcpy(m.data() + sizeof h, payload, size);
  return m;
}

bool decode_message(const uint8_t* bytes, size_t size, WireHeader* h, const uint8_t** payload, size_t* payload_size) {
  if (size < sizeof *h) return false;
  std::memcpy(h, bytes, sizeof *h);
  *payload = bytes + sizeof *h;
  *payload_size = size - sizeof *h;
  if (h->kind == static_cast<uint8_t>(MsgKind::kOp) && h->op == GSHMEMI_PROXY_OP_PUT &&
      *payload_size != (h->staged ? 0 : h->size))
    return false;
  return h->kind >= static_cast<uint8_t>(MsgKind::kOp) && h->kind <= static_cast<uint8_t>(MsgKind::kReply);
}

}  // namespace gshmem::proxy
