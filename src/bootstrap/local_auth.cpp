// SPDX-License-Identifier: BSD-3-Clause
// Names and proofs of node-local endpoints (local_auth.h), with OpenSSL's libcrypto.
#include "bootstrap/local_auth.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <cstdio>
#include <string>

namespace gshmem::bootstrap {
namespace {

void mac(const JobToken& token, const std::string& msg, uint8_t out[32]) {
  unsigned int len = 32;
  HMAC(EVP_sha256(), token.bytes, sizeof(token.bytes), reinterpret_cast<const unsigned char*>(msg.data()), msg.size(),
       out, &len);
}

}  // namespace

std::string local_endpoint_name(const JobToken& token, const char* what, int pe, int generation) {
  uint8_t h[32];
  mac(token,
      std::string("gshmem endpoint name v1|") + what + "|" + std::to_string(pe) + "|" + std::to_string(generation), h);
  char hex[33];
  for (int i = 0; i < 16; ++i) snprintf(hex + 2 * i, 3, "%02x", h[i]);
  return std::string("gshmem-") + hex;
}

void local_proof(const JobToken& token, const char* what, int pe, int generation, bool server,
                 uint8_t out[kLocalProofBytes]) {
  mac(token,
      std::string(server ? "gshmem endpoint server v1|" : "gshmem endpoint client v1|") + what + "|" +
          std::to_string(pe) + "|" + std::to_string(generation),
      out);
}

bool same_local_proof(const uint8_t* a, const uint8_t* b) { return CRYPTO_memcmp(a, b, kLocalProofBytes) == 0; }

}  // namespace gshmem::bootstrap
