// SPDX-License-Identifier: BSD-3-Clause
// Faults the harness injects at scale (docs/bootstrap.md, "Failures"): --absent R,... (never
// started), --twice R (started twice), --die R (exits right after joining), --stranger (a process
// that is no PE connects to the rendezvous and sends junk). run_harness.py --expect checks that
// every PE fails naming the rank(s), all of them, and leaves no descriptor open.
#pragma once

#include <string>
#include <vector>

#include "gshmem/types.h"

// "3,77,400" -> {3, 77, 400}; false on anything else.
bool parse_ranks(const std::string& text, std::vector<int>* out);

// Connects to the rendezvous of `id` (retrying while rank 0 is not listening yet, up to 3 s),
// sends 24 bytes of junk in place of a Hello and waits up to 1 s for rank 0 to close.
void connect_stranger(const gshmemx_uniqueid_t& id);

// Descriptors this process has open (the harness compares them before connect and after a failure).
int open_fds();
