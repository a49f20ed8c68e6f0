// SPDX-License-Identifier: BSD-3-Clause
// Node-local endpoints of a job (the heap's Unix sockets, host/mem/heap_fd_exchange.cpp): names
// that cannot be foreseen without the job secret, and proofs that a peer belongs to the job.
// Abstract Unix socket names are visible to every user of the node once bound (/proc/net/unix),
// so the name alone only keeps a squatter from taking it first; who connects is checked with the
// proofs (and the server by SO_PEERCRED too). Both come from the job's token (bootstrap.h,
// JobToken), which the PEs derive from the job secret and never send.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "bootstrap/bootstrap.h"

namespace gshmem::bootstrap {

constexpr size_t kLocalProofBytes = 32;

// "gshmem-" and 32 hex digits of HMAC-SHA256(token, what | pe | generation): the abstract name of
// PE `pe`'s endpoint `what` in exchange `generation`.
std::string local_endpoint_name(const JobToken& token, const char* what, int pe, int generation);

// What the client (server = false) or the server (true) of PE `pe`'s endpoint `what`, exchange
// `generation`, proves it belongs to the job with. Distinct per side, so that neither can replay
// the other's.
void local_proof(const JobToken& token, const char* what, int pe, int generation, bool server,
                 uint8_t out[kLocalProofBytes]);

// Constant-time comparison of two proofs.
bool same_local_proof(const uint8_t* a, const uint8_t* b);

}  // namespace gshmem::bootstrap
