// SPDX-License-Identifier: BSD-3-Clause
// Rank 0, after the rendezvous failed for the whole job (a duplicate rank, a size mismatch, a PE
// that died, missing PEs): the PEs that had not joined yet - waiting in the listen backlog, or
// between retries - would otherwise find the port closed and fail at their timeout saying only
// that PE 0 could not be reached. Until `dl` rank 0 accepts them, authenticates them (auth.h) and
// answers with an error ack carrying the job's failure (`why`), which they log as the reason;
// strangers (bad magic, no proof of the secret) are closed without an answer. Returns how many
// PEs were answered.
#pragma once

#include <string>

#include "bootstrap/tcp/auth.h"
#include "bootstrap/tcp/protocol.h"
#include "bootstrap/tcp/socket.h"

namespace gshmem::bootstrap::tcp {

int answer_late_joiners(int listener, const AuthKey& key, Status st, const std::string& why, const Deadline& dl);

}  // namespace gshmem::bootstrap::tcp
