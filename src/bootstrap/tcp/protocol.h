// SPDX-License-Identifier: BSD-3-Clause
// Wire format of the TCP bootstrap. All integers are big-endian on the wire.
//
// Rendezvous: a joining rank connects to rank 0 and sends a Hello; the two prove to each other
// that they hold the job secret (auth.h: rank 0's `challenge`, the joiner's proof); rank 0
// answers with an `ack` message (status 0, or an error code and a reason), and once every rank
// has joined sends `ready` to all (or `abort`). A child joins its parent in the tree alike.
//
// After that every exchange is a framed message: a 24-byte Header followed by
// `len` payload bytes (for requests to rank 0, `len` is the collective's
// declared byte count and the payload size follows from the op; see
// collectives.cpp). `seq` counts collective calls, so rank 0 detects a rank
// that called a different collective, a different byte count or root, or is
// one call ahead, and reports GSHMEM_ERROR_MISMATCH instead of corrupting data.
#pragma once

#include <climits>
#include <cstddef>
#include <cstdint>
#include <string>

#include "bootstrap/tcp/socket.h"

namespace gshmem::bootstrap::tcp {

constexpr uint32_t kHelloMagic = 0x67736862;  // "gshb"
constexpr uint32_t kProtocolVersion = 3;      // 2: the topology in the ack, the tree messages;
                                              // 3: mutual authentication (auth.h)

enum class Op : uint32_t {
  ack = 1,    // rank 0 -> joiner: hello accepted (status 0) or rejected (status, reason)
  ready = 2,  // rank 0 -> all: every rank joined
  allgather = 3,
  barrier = 4,
  broadcast = 5,  // arg: root
  bye = 6,        // finalize: a barrier after which connections close without alarm
  abort = 7,      // rank 0 -> others: the job failed; status = code, payload = message text,
                  // arg = the PE it is about (dead, late, mismatched, or the member that
                  // reported it) or -1.
                  // member -> rank 0 (arg = its rank, seq = its call): its collective failed
                  // on its own (timed out, protocol error); sent only at a message boundary
  // Tree topology (tree.h):
  addr = 8,        // member -> rank 0 after its ack: arg = the port it listens on for its children
  notice = 9,      // a failure flooded along the tree: seq = the PE that found it, arg = the PE it is
                   // about (or -1), status = code, payload = message text
  late = 10,       // child -> parent: a collective timed out below; seq = call, arg = count, payload =
                   // the PEs waited for (int32 each)
  challenge = 11,  // server -> client after a Hello: payload = server nonce, server proof (auth.h)
  heartbeat = 12,  // neighbour -> neighbour, each second from the monitor's thread (heartbeat.h);
                   // nothing follows; whoever reads a header skips it
};

// Topology rank 0 chose, sent in the `seq` field of every ack (0 before the tree existed).
constexpr uint32_t kTopologyStar = 0;
constexpr uint32_t kTopologyTree = 1;

// The first bytes a client sends. It carries no secret: the proofs of auth.h follow.
struct Hello {
  uint32_t magic = kHelloMagic;
  uint32_t version = kProtocolVersion;  // checked as soon as 8 bytes came (an older Hello is shorter)
  int32_t rank = -1;
  int32_t size = 0;
  uint8_t nonce[16] = {};  // the client's (auth.h)
};
constexpr size_t kHelloBytes = 32;

struct Header {
  uint32_t op = 0;
  uint32_t seq = 0;
  uint64_t len = 0;
  int32_t arg = 0;
  int32_t status = 0;
};
constexpr size_t kHeaderBytes = 24;

void encode_hello(const Hello& h, uint8_t out[kHelloBytes]);
Hello decode_hello(const uint8_t in[kHelloBytes]);
void encode_header(const Header& h, uint8_t out[kHeaderBytes]);
Header decode_header(const uint8_t in[kHeaderBytes]);

// "allgather of 16 bytes per PE", "barrier", "broadcast of 8 bytes from PE 2",
// "finalize", "an unknown message (type 99)".
std::string describe_op(uint32_t op, uint64_t len, int32_t arg);
// Short name: "allgather", "barrier", "broadcast", "finalize", ...
const char* op_name(uint32_t op);

// Ranks other than 0 wait this much longer than timeout_s for rank 0's answer
// (in collectives and for `ready`), so that rank 0's own timeout -- which knows
// and names the PEs that are missing -- reaches them first.
inline int member_grace_s(int timeout_s) {
  int g = timeout_s / 10;
  return g < 1 ? 1 : g > 10 ? 10 : g;
}
// What ranks other than 0 wait in all: timeout_s + member_grace_s(timeout_s),
// saturating at INT_MAX (GSHMEM_BOOTSTRAP_TIMEOUT is bounded far below that,
// but ConnectOptions can be given any positive int).
inline int member_wait_s(int timeout_s) {
  const int g = member_grace_s(timeout_s);
  return timeout_s > INT_MAX - g ? INT_MAX : timeout_s + g;
}

// Largest abort/ack reason text accepted from the wire.
constexpr uint64_t kMaxReasonBytes = 64 * 1024;

// Send a header followed by `len` payload bytes (Io as in socket.h).
Io send_message(int fd, const Header& h, const void* payload, size_t len, const Deadline& dl, int* err);
// Read a `len`-byte text payload (ack reason, abort message); text beyond
// kMaxReasonBytes is read and dropped.
Io read_text(int fd, uint64_t len, const Deadline& dl, std::string* out, int* err);

// Big-endian integers into the wire format (the headers above, the authentication messages).
void put32(uint8_t* p, uint32_t v);
void put64(uint8_t* p, uint64_t v);

}  // namespace gshmem::bootstrap::tcp
