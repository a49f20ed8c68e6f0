// SPDX-License-Identifier: BSD-3-Clause
// Mutual authentication of bootstrap connections (auth.h), with OpenSSL's libcrypto.
#include "bootstrap/tcp/auth.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <cerrno>
#include <cstring>

#include "bootstrap/tcp/protocol.h"
#include "host/core/log.h"

namespace gshmem::bootstrap::tcp {
namespace {

// SHA-256 of a label and `n` bytes.
void sha256_labelled(const char* label, const void* data, size_t n, uint8_t out[32]) {
  EVP_MD_CTX* c = EVP_MD_CTX_new();
  unsigned int len = 32;
  // The NUL separates the label from the data. Failures (no memory) leave `out` zero, which no
  // peer matches: the handshake then fails, saying the secret is not shared.
  memset(out, 0, 32);
  if (!c || EVP_DigestInit_ex(c, EVP_sha256(), nullptr) != 1 || EVP_DigestUpdate(c, label, strlen(label) + 1) != 1 ||
      EVP_DigestUpdate(c, data, n) != 1 || EVP_DigestFinal_ex(c, out, &len) != 1)
    GSHMEM_LOG_ERROR("bootstrap: SHA-256 failed in OpenSSL's libcrypto (out of memory?)");
  EVP_MD_CTX_free(c);
}

}  // namespace

AuthKey auth_key(uint64_t secret) {
  uint8_t s[8];
  put64(s, secret);
  AuthKey k;
  sha256_labelled("gshmem bootstrap key v1", s, sizeof(s), k.bytes);
  return k;
}

JobToken job_token_of(const AuthKey& key) {
  JobToken t;
  sha256_labelled("gshmem node-local token v1", key.bytes, sizeof(key.bytes), t.bytes);
  return t;
}

uint64_t secret_from_text(const std::string& text, uint64_t salt) {
  std::string m = text;
  uint8_t s[8];
  put64(s, salt);
  m.append(reinterpret_cast<const char*>(s), sizeof(s));
  uint8_t h[32];
  sha256_labelled("gshmem user secret v1", m.data(), m.size(), h);
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | h[i];
  return v;
}

void handshake_mac(const AuthKey& key, Role role, const uint8_t nc[kNonceBytes], const uint8_t ns[kNonceBytes],
                   int32_t rank, int32_t size, uint8_t out[kMacBytes]) {
  const char* label = role == Role::server ? "gshmem bootstrap v3 server proof" : "gshmem bootstrap v3 client proof";
  uint8_t msg[40 + 2 * kNonceBytes + 8] = {};
  const size_t ln = strlen(label) + 1;
  memcpy(msg, label, ln);
  memcpy(msg + ln, nc, kNonceBytes);
  memcpy(msg + ln + kNonceBytes, ns, kNonceBytes);
  put32(msg + ln + 2 * kNonceBytes, static_cast<uint32_t>(rank));
  put32(msg + ln + 2 * kNonceBytes + 4, static_cast<uint32_t>(size));
  unsigned int len = kMacBytes;
  HMAC(EVP_sha256(), key.bytes, sizeof(key.bytes), msg, ln + 2 * kNonceBytes + 8, out, &len);
}

bool same_mac(const uint8_t* a, const uint8_t* b, size_t len) { return CRYPTO_memcmp(a, b, len) == 0; }

bool fresh_nonce(uint8_t out[kNonceBytes]) {
  if (RAND_bytes(out, static_cast<int>(kNonceBytes)) == 1) return true;
  GSHMEM_LOG_ERROR("bootstrap: no random bytes for the authentication nonce (OpenSSL RAND_bytes failed)");
  return false;
}

KnockStep knock_step(Knock* k, const AuthKey& key, const Deadline& dl) {
  const size_t want = k->challenged ? kMacBytes : kHelloBytes;
  const ssize_t n = recv_counted(k->fd, k->buf + k->got, want - k->got, MSG_DONTWAIT);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return KnockStep::more;
  if (n <= 0) return KnockStep::closed;
  k->got += static_cast<size_t>(n);
  if (!k->challenged) {
    if (k->got < 8) return KnockStep::more;
    const Hello head = decode_hello(k->buf);  // magic and version are in (the rest is still 0)
    if (head.magic != kHelloMagic) {
      k->hello = head;
      return KnockStep::bad_magic;
    }
    if (head.version != kProtocolVersion) {
      k->hello = head;
      return KnockStep::bad_version;
    }
    if (k->got < want) return KnockStep::more;
    k->hello = decode_hello(k->buf);
    uint8_t payload[kChallengeBytes];
    if (!fresh_nonce(k->ns)) return KnockStep::error;
    memcpy(payload, k->ns, kNonceBytes);
    handshake_mac(key, Role::server, k->hello.nonce, k->ns, k->hello.rank, k->hello.size, payload + kNonceBytes);
    int err = 0;
    const Io io = send_message(k->fd, Header{static_cast<uint32_t>(Op::challenge), 0, kChallengeBytes, 0, 0}, payload,
                               sizeof(payload), dl, &err);
    if (io != Io::ok) return io == Io::closed ? KnockStep::closed : KnockStep::error;
    k->challenged = true;
    k->got = 0;
    return KnockStep::more;
  }
  if (k->got < want) return KnockStep::more;
  uint8_t expect[kMacBytes];
  handshake_mac(key, Role::client, k->hello.nonce, k->ns, k->hello.rank, k->hello.size, expect);
  return same_mac(expect, k->buf) ? KnockStep::authenticated : KnockStep::wrong_secret;
}

Proof client_handshake(int fd, const AuthKey& key, int32_t rank, int32_t size, const Deadline& dl, Header* h, Io* io,
                       int* err) {
  *err = 0;
  Hello hello;
  hello.rank = rank;
  hello.size = size;
  if (!fresh_nonce(hello.nonce)) {
    *io = Io::error;
    *err = EIO;
    return Proof::io;
  }
  uint8_t hb[kHelloBytes];
  encode_hello(hello, hb);
  uint8_t head[kHeaderBytes];
  *io = send_all(fd, hb, sizeof(hb), dl, err);
  if (*io == Io::ok) *io = recv_all(fd, head, sizeof(head), dl, err);
  if (*io != Io::ok) return Proof::io;
  *h = decode_header(head);
  if (h->op != static_cast<uint32_t>(Op::challenge)) return Proof::answered;
  if (h->len != kChallengeBytes) return Proof::unproven;
  uint8_t payload[kChallengeBytes];
  *io = recv_all(fd, payload, sizeof(payload), dl, err);
  if (*io != Io::ok) return Proof::io;
  uint8_t expect[kMacBytes];
  handshake_mac(key, Role::server, hello.nonce, payload, rank, size, expect);
  if (!same_mac(expect, payload + kNonceBytes)) return Proof::unproven;  // nothing of ours sent
  uint8_t mine[kMacBytes];
  handshake_mac(key, Role::client, hello.nonce, payload, rank, size, mine);
  *io = send_all(fd, mine, sizeof(mine), dl, err);
  return *io == Io::ok ? Proof::ok : Proof::io;
}

}  // namespace gshmem::bootstrap::tcp
