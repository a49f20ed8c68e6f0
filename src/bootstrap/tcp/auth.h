// SPDX-License-Identifier: BSD-3-Clause
// Mutual authentication of bootstrap connections (docs/reliability.md): every connection of the
// rendezvous and of the tree proves, both ways, that its ends hold the job secret, without the
// secret or anything that stands in for it crossing the wire.
//
//   client -> server  Hello: magic, version, rank, size, client nonce Nc (16 random bytes)
//   server -> client  challenge (a Header, op `challenge`): server nonce Ns, server proof
//                     HMAC-SHA256(K, "server" | Nc | Ns | rank | size)
//   client            checks the server's proof: a process that does not hold the secret (a
//                     port squatter posing as PE 0 or as a parent) is refused here, having
//                     learnt only a random nonce
//   client -> server  client proof HMAC-SHA256(K, "client" | Nc | Ns | rank | size)
//   server -> client  ack (accepted, or rejected with a reason), as before
// K = SHA-256 of a label and the job secret. The server proves first so that the side that
// connects -- the one a squatter can trap -- never answers a challenge it has not verified.
// Labels keep one side's proof from being replayed as the other's; fresh nonces from both sides
// keep a proof from being replayed on another connection. The secret is 64 bits (the unique
// id's); the bootstrap authenticates its peers, it does not encrypt or sign later messages.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "bootstrap/bootstrap.h"
#include "bootstrap/tcp/protocol.h"

namespace gshmem::bootstrap::tcp {

constexpr size_t kNonceBytes = 16;
constexpr size_t kMacBytes = 32;
constexpr size_t kChallengeBytes = kNonceBytes + kMacBytes;  // the challenge's payload

struct AuthKey {
  uint8_t bytes[32];
};
// K for a job secret.
AuthKey auth_key(uint64_t secret);
// The token node-local endpoints of the job are named and checked with (bootstrap.h, JobToken).
JobToken job_token_of(const AuthKey& key);
// 64 bits of SHA-256 over `text` and `salt` (GSHMEM_BOOTSTRAP_SECRET mixed into a derived secret).
uint64_t secret_from_text(const std::string& text, uint64_t salt);

enum class Role { client, server };
// The proof `role` gives in the handshake of (rank, size) with nonces nc (client's), ns (server's).
void handshake_mac(const AuthKey& key, Role role, const uint8_t nc[kNonceBytes], const uint8_t ns[kNonceBytes],
                   int32_t rank, int32_t size, uint8_t out[kMacBytes]);
// Constant-time comparison of two proofs.
bool same_mac(const uint8_t* a, const uint8_t* b, size_t len = kMacBytes);
// kNonceBytes from the system's random source (OpenSSL's RAND_bytes); false when it has none.
bool fresh_nonce(uint8_t out[kNonceBytes]);

// ---- the server's half, fed by a poll loop (rank 0's rendezvous, a parent accepting children,
// rank 0 answering late joiners) ----
struct Knock {
  int fd = -1;
  std::string peer;  // "addr:port"
  uint8_t buf[kHelloBytes > kMacBytes ? kHelloBytes : kMacBytes] = {};
  size_t got = 0;
  bool challenged = false;  // the challenge went out; now reading the client's proof
  Hello hello;
  uint8_t ns[kNonceBytes] = {};
};
enum class KnockStep {
  more,           // nothing complete yet (poll again)
  closed,         // the peer closed or reset before the end of the handshake
  bad_magic,      // not a gshmem bootstrap peer (close it silently)
  bad_version,    // another protocol version (tell it, close)
  wrong_secret,   // its proof does not match the job secret (tell it, close)
  authenticated,  // k.hello is its Hello, proven; answer it with an ack
  error,          // the challenge could not be sent (a socket error)
};
// Reads what has arrived on k.fd without blocking and takes the next step; the challenge is sent
// within `dl` (72 bytes: it fits an empty socket buffer).
KnockStep knock_step(Knock* k, const AuthKey& key, const Deadline& dl);

// ---- the client's half (a PE joining PE 0, a child joining its parent) ----
enum class Proof {
  ok,        // both proven: the ack follows
  answered,  // the server answered the Hello with *h (an ack with an error, or an abort) instead
  unproven,  // the server does not hold the job secret (or sent a malformed challenge)
  io,        // a socket error or timeout: *io, *err
};
// Sends the Hello, checks the server's proof, sends this side's.
Proof client_handshake(int fd, const AuthKey& key, int32_t rank, int32_t size, const Deadline& dl, Header* h, Io* io,
                       int* err);

}  // namespace gshmem::bootstrap::tcp
