// SPDX-License-Identifier: BSD-3-Clause
// The abort word (gshmemi_device_state.abort_word, include/gshmem/detail/device_state.h): one
// word of mapped pinned memory per init that says the job ends on this PE, and why. Set once,
// from any thread: gshmemx_abort (the user's), the bootstrap's failure monitor and the proxy
// thread (a peer failed). Every library spin loop on the device reads it on its slow path
// (device/impl/state.cuh, wait_deadline) and returns or traps; host calls read it through
// require_init and fail. Init allocates a fresh word (0), teardown frees it after the threads
// that may set it stopped.
#pragma once

#include <cstdint>

#include "host/core/status.h"

namespace gshmem::abort_word {

// Makes `word` (mapped pinned, 0) the process's abort word; nullptr: none (at teardown).
void attach(uint64_t* word);
// Sets the word to GSHMEMI_ABORT_VALUE(kind, arg) unless a reason is already there; true when
// this call set it. Nothing without a word (before init, after teardown).
bool raise(uint32_t kind, int32_t arg);
// The word's value (0 without a word).
uint64_t value();
// The status a host call returns while the word is set: GSHMEM_ERROR_ABORTED after
// gshmemx_abort, GSHMEM_ERROR_PEER_FAILURE after a peer failed; GSHMEM_SUCCESS while 0.
Status status();
// "gshmemx_abort(3) was called on this PE" / "PE 2 failed" (empty while 0).
const char* reason(char* buf, unsigned size);

}  // namespace gshmem::abort_word
