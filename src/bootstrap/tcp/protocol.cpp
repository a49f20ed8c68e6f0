// SPDX-License-Identifier: BSD-3-Clause
#include "bootstrap/tcp/protocol.h"

#include <cstring>

namespace gshmem::bootstrap::tcp {

void put32(uint8_t* p, uint32_t v) {
  for (int i = 3; i >= 0; --i, v >>= 8) p[i] = static_cast<uint8_t>(v);
}
void put64(uint8_t* p, uint64_t v) {
  for (int i = 7; i >= 0; --i, v >>= 8) p[i] = static_cast<uint8_t>(v);
}

namespace {
uint32_t get32(const uint8_t* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v = (v << 8) | p[i];
  return v;
}
uint64_t get64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | p[i];
  return v;
}

}  // namespace

void encode_hello(const Hello& h, uint8_t out[kHelloBytes]) {
  put32(out, h.magic);
  put32(out + 4, h.version);
  put32(out + 8, static_cast<uint32_t>(h.rank));
  put32(out + 12, static_cast<uint32_t>(h.size));
  memcpy(out + 16, h.nonce, sizeof(h.nonce));
}

Hello decode_hello(const uint8_t in[kHelloBytes]) {
  Hello h;
  h.magic = get32(in);
  h.version = get32(in + 4);
  h.rank = static_cast<int32_t>(get32(in + 8));
  h.size = static_cast<int32_t>(get32(in + 12));
  memcpy(h.nonce, in + 16, sizeof(h.nonce));
  return h;
}

void encode_header(const Header& h, uint8_t out[kHeaderBytes]) {
  put32(out, h.op);
  put32(out + 4, h.seq);
  put64(out + 8, h.len);
  put32(out + 16, static_cast<uint32_t>(h.arg));
  put32(out + 20, static_cast<uint32_t>(h.status));
}

Header decode_header(const uint8_t in[kHeaderBytes]) {
  Header h;
  h.op = get32(in);
  h.seq = get32(in + 4);
  h.len = get64(in + 8);
  h.arg = static_cast<int32_t>(get32(in + 16));
  h.status = static_cast<int32_t>(get32(in + 20));
  return h;
}

const char* op_name(uint32_t op) {
  switch (static_cast<Op>(op)) {
    case Op::ack:
      return "ack";
    case Op::ready:
      return "ready";
    case Op::allgather:
      return "allgather";
    case Op::barrier:
      return "barrier";
    case Op::broadcast:
      return "broadcast";
    case Op::bye:
      return "finalize";
    case Op::abort:
      return "abort";
    case Op::addr:
      return "address";
    case Op::notice:
      return "failure notice";
    case Op::late:
      return "timeout report";
    case Op::challenge:
      return "challenge";
    case Op::heartbeat:
      return "heartbeat";
  }
  return "unknown";
}

std::string describe_op(uint32_t op, uint64_t len, int32_t arg) {
  switch (static_cast<Op>(op)) {
    case Op::allgather:
      return "allgather of " + std::to_string(len) + " bytes per PE";
    case Op::barrier:
      return "barrier";
    case Op::broadcast:
      return "broadcast of " + std::to_string(len) + " bytes from PE " + std::to_string(arg);
    case Op::bye:
      return "finalize";
    case Op::ack:
    case Op::ready:
    case Op::abort:
    case Op::addr:
    case Op::notice:
    case Op::late:
    case Op::challenge:
    case Op::heartbeat:
      return std::string("a protocol message (") + op_name(op) + ")";
  }
  return "an unknown message (type " + std::to_string(op) + ")";
}

Io send_message(int fd, const Header& h, const void* payload, size_t len, const Deadline& dl, int* err) {
  uint8_t hb[kHeaderBytes];
  encode_header(h, hb);
  return send_pair(fd, hb, sizeof(hb), payload, len, dl, err);
}

Io read_text(int fd, uint64_t len, const Deadline& dl, std::string* out, int* err) {
  out->clear();
  char buf[4096];
  *err = 0;
  while (len > 0) {
    size_t n = len < sizeof(buf) ? static_cast<size_t>(len) : sizeof(buf);
    Io io = recv_all(fd, buf, n, dl, err);
    if (io != Io::ok) return io;
    if (out->size() < kMaxReasonBytes) out->append(buf, n);
    len -= n;
  }
  return Io::ok;
}

}  // namespace gshmem::bootstrap::tcp
