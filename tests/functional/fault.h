// SPDX-License-Identifier: BSD-3-Clause
// Pieces the fault programs share (kill_in_barrier, stuck_pe, kill_matrix): their events, printed
// with the time so that the drivers (fault_lib.sh) measure from the event itself:
//   "<prog>: PE p pid X <verb> at <ns> ns"   the victim, just before it stops or dies
//   "<prog>: PE p: <case> ended at <ns> ns (<how>)"   a survivor whose call came back
//   "<prog>: PE p STILL RUNNING ..."          a survivor the library did not end (exit 5)
#pragma once

#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>

#include "common.h"

namespace fault {

inline long long realtime_ns() {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<long long>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

// The victim: prints its event and raises `sig` on itself (SIGKILL: does not return).
inline void raise_now(const char* prog, int pe, int sig, const char* verb) {
  gt::emit(stdout, "%s: PE %d pid %d %s at %lld ns\n", prog, pe, static_cast<int>(getpid()), verb, realtime_ns());
  fflush(nullptr);
  raise(sig);
}

// A survivor whose call came back: prints when, then waits for the library to end the process
// (GSHMEM_PEER_FAILURE_ABORT); returns 5 if it is still running `grace_s` later.
inline int survivor_ended(const char* prog, int pe, const char* what, const char* how, int grace_s = 20) {
  gt::emit(stdout, "%s: PE %d: %s ended at %lld ns (%s)\n", prog, pe, what, realtime_ns(), how);
  fflush(nullptr);
  sleep(grace_s);
  gt::emit(stdout, "%s: PE %d STILL RUNNING %d s after its %s ended\n", prog, pe, grace_s, what);
  return 5;
}

}  // namespace fault
