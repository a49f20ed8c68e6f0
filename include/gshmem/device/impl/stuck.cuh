// SPDX-License-Identifier: BSD-3-Clause
// What a stuck wait of a barrier, sync or collective reports (issue 56, item 1): the call, the PE
// it waited for, and - where the library can tell from this PE's own memory - the sets of team
// members that arrived and that are missing, as world PEs, runs of three or more as ranges
// ("arrived: 0,2-5,7,8; missing: 1").
//
// Everything here runs only inside a report, which does not return: a collective's wait passes
// the word it polls and the value it waits for (both live in its loop anyway), a sync's the low
// half of its team's slots' address (a team field); the report finds the team in the device's
// team table and reads the team's other words of the same kind. No fast path pays for it, and no
// kernel a register (tests/registers: the 34 kernels compile to the counts they had without the
// sets). That constrains the code: a kernel's register count covers every function it may call,
// reports included, each level of calls and each argument costing some; a local array or a
// pointer to a local passed to a call gives it a stack frame (report.cuh). So the report's
// context, the members' states and the text live in a slot in global memory, and the work is cut
// into out-of-line functions that take the slot's number and make no call themselves.
//
// What each kind can tell:
//   sync   the counted signals of an all-to-all sync or barrier (impl/sync.cuh): slot j non-zero
//          means member j signalled and this PE has not taken it yet (arrived). A zero slot was
//          either taken already or never signalled: exact for the slots this thread takes (it
//          takes them in order: those before the one it waits on were taken), unknown for slots
//          other threads of a warp or block take (listed as "not seen by this thread"). The
//          dissemination sync of larger teams tells nothing beyond the PE waited for. A member
//          reached through the proxy: its slot counts the signals taken and the team's proxy sync
//          word those that arrived (impl/sync.cuh, take_proxied_signal); word > slot: arrived.
//   epoch  the sequence flags of the data-movement collectives (lanes[s][j] >= the awaited value:
//          arrived): exact, where every other member signals this PE in the call (an exchange:
//          lanes_wait of all members); a wait for one sender (a broadcast's root, a node's
//          leader, the spanning path's ranges) passes no flag and names only the PE.
//   ll     the LL collectives' tagged words (impl/ll_layout.cuh): every member sends every other
//          a tagged word in each LL call (a broadcast's non-roots tag-only words), so member j
//          arrived when the first word of its message here carries the call's tag: exact.
#pragma once

#include <cstdint>

#include "gshmem/detail/device_state.h"
#include "gshmem/detail/host_entry_coll.h"
#include "ll_layout.cuh"
#include "memops.cuh"
#include "report.cuh"
#include "state.cuh"

namespace gshmem {
namespace detail {

// Teams up to this size synchronise all-to-all (one round trip, the scope's
// threads share the members); larger ones by dissemination (ceil(log2 M) rounds).
// GSHMEMI_ALLTOALL_SYNC_MAX lets a test force dissemination on small teams (all
// code syncing one team must then agree on it: the library's host forms do not).
#if defined(GSHMEMI_ALLTOALL_SYNC_MAX)
constexpr int kAllToAllSyncMax = GSHMEMI_ALLTOALL_SYNC_MAX;
#else
constexpr int kAllToAllSyncMax = 32;
#endif

enum stuck_kind : int { kStuckSync = 0, kStuckEpoch = 1, kStuckLL = 2, kStuckFlags = 3 /* epoch or ll */ };

// One report's context and text, in global memory (one slot per report, as report_slots; the
// first kStuckSlots reports of a translation unit are printed: each ends the kernel).
constexpr unsigned kStuckSlots = 8;
constexpr unsigned kStuckTextBytes = 240;
constexpr int kStuckMembers = 512;  // members whose state a report lists (larger teams: the first)
struct stuck_slot {
  const char* what;      // the call
  const uint64_t* flag;  // the word polled (sync: the low half of the address of the team's slots)
  uint64_t want;         // sync: the threads that share the slots (Scope::size()); epoch: the value
                         // awaited; ll: the call's tag
  int waiting_for;       // the world PE the wait was for
  int kind;
  int team;   // index in the device's team table
  int idx;    // sync: the member whose slot is polled (the round, dissemination); else the sender
  int row;    // epoch: the lane; ll: the parity
  bool sets;  // whether the members' states are known here
  unsigned len;
  char text[kStuckTextBytes];
  unsigned char member[kStuckMembers];  // each member's state (stuck_state)
};
static __device__ stuck_slot stuck_slots[kStuckSlots];
static __device__ unsigned stuck_slots_taken;

__device__ __forceinline__ void stuck_put(stuck_slot& o, const char* str) {
  unsigned n = o.len;
  if (n > kStuckTextBytes - 4) return;  // already cut
  while (*str && n < kStuckTextBytes - 4) o.text[n++] = *str++;
  if (*str) {  // cut: say so
    o.text[n++] = '.';
    o.text[n++] = '.';
    o.text[n++] = '.';
    o.len = kStuckTextBytes - 1;  // nothing more fits
    return;
  }
  o.len = n;
}

// Digits from the top: no array (an array would give every waiting kernel a stack frame).
__device__ __forceinline__ void stuck_put_int(stuck_slot& o, int v) {
  unsigned n = o.len;
  const unsigned u = v < 0 ? 0u - static_cast<unsigned>(v) : static_cast<unsigned>(v);
  if (v < 0 && n < kStuckTextBytes - 4) o.text[n++] = '-';
  unsigned top = 1;
  while (u / top >= 10) top *= 10;
  for (; top && n < kStuckTextBytes - 4; top /= 10) o.text[n++] = static_cast<char>('0' + u / top % 10);
  o.len = n;
}

// Finds the team whose words hold the slot's flag (sync: its sync flags; else its lanes or its
// LL words, which also says which kind); false if none does. 32-bit offsets (a team's words are
// far fewer than 2^32): a 64-bit division is a call.
__device__ __forceinline__ bool stuck_find(stuck_slot& o) {
  const gshmemi_device_state& s = state();
  if (s.version == 0 || s.teams == nullptr) return false;
  for (int k = 0; k < s.max_teams; ++k) {
    const gshmemi_team& t = s.teams[k];
    const unsigned size = static_cast<unsigned>(t.size);
    if (t.size <= 0 || t.my_pe < 0) continue;
    int kind = o.kind;
    unsigned off, per = 1;
    if (kind == kStuckSync) {  // o.flag: the low half of the address of the team's slots
      if (static_cast<uint32_t>(reinterpret_cast<uintptr_t>(t.sync_flags)) !=
          static_cast<uint32_t>(reinterpret_cast<uintptr_t>(o.flag)))
        continue;
      const int d = o.waiting_for - t.start;  // team_index_of
      if (d < 0 || d % t.stride != 0 || d / t.stride >= t.size) continue;
      off = static_cast<unsigned>(d / t.stride);
    } else if (o.flag >= t.coll_flags + size && o.flag < t.coll_flags + size + size * GSHMEMI_COLL_MAX_LANES) {
      kind = kStuckEpoch;  // team_lanes: [lane][member]
      off = static_cast<unsigned>(o.flag - (t.coll_flags + size));
    } else {
      const ll_area a = ll_area_of(t);  // [parity][sender][word]
      if (a.count == nullptr || a.w <= 0 || o.flag < a.words || o.flag >= a.words + 2 * size * a.w) continue;
      kind = kStuckLL;
      per = static_cast<unsigned>(a.w);
      off = static_cast<unsigned>(o.flag - a.words);
    }
    const unsigned unit = off / per;
    o.kind = kind;
    o.team = k;
    o.idx = static_cast<int>(unit % size);
    o.row = static_cast<int>(unit / size);
    // A sync's scope 0: dissemination (a round's slot, not a member's)
    o.sets = kind != kStuckSync || (t.size <= kAllToAllSyncMax && o.want != 0);
    return true;
  }
  return false;
}

// 0: team member j arrived; 1: missing; 2: not known here (the head of this file says how).
__device__ __forceinline__ int stuck_state(const stuck_slot& o, const gshmemi_team& t, int j) {
  if (j == t.my_pe) return 0;
  if (o.kind == kStuckSync) {
    // A member reached through the proxy: its slot counts the signals taken, the team's proxy
    // sync word those that arrived (impl/sync.cuh, take_proxied_signal).
    const uint64_t* posted = proxy_sync_words(t.flags);
    if (posted != nullptr && state().peer_base[t.start + j * t.stride] == nullptr) {  // the seam's test, no call
      if (ld_volatile(posted + j) > ld_volatile(t.sync_flags + j)) return 0;
    } else if (ld_volatile(t.sync_flags + j) != 0) {
      return 0;
    }
    const unsigned scope = static_cast<unsigned>(o.want);
    if (scope > 1 && static_cast<unsigned>(j) % scope != static_cast<unsigned>(o.idx) % scope) return 2;
    return j < o.idx ? 0 : 1;  // taken by this thread before the slot it waits on, or not yet signalled
  }
  if (o.kind == kStuckEpoch)
    return ld_volatile(t.coll_flags + t.size + static_cast<size_t>(o.row) * t.size + j) >= o.want ? 0 : 1;
  const ll_area a = ll_area_of(t);
  return static_cast<uint32_t>(ld_volatile(a.buf(o.row, j)) >> 32) == static_cast<uint32_t>(o.want) ? 0 : 1;
}

// Each call below is out of line and makes no call itself, and the report calls them one after
// another: each level of calls, and each value live across a call, costs the kernels that wait
// registers (a barrier's kernel sits at its bound, tests/registers).

// Finds the slot's flag and, where the states are known, every member's state (at most
// kStuckMembers).
static __device__ __noinline__ inline void stuck_states(unsigned slot) {
  stuck_slot& o = stuck_slots[slot];
  o.len = 0;
  o.text[0] = '\0';
  o.sets = false;
  if (!stuck_find(o) || !o.sets) return;
  const gshmemi_team& t = state().teams[o.team];
  for (int j = 0; j < t.size && j < kStuckMembers; ++j) o.member[j] = static_cast<unsigned char>(stuck_state(o, t, j));
}

// Appends "; <label>: a,b-c" for the members in state `which` (0 arrived, 1 missing, 2 unknown):
// world PEs, runs of consecutive PEs as ranges; arrived and missing say "none" when empty.
static __device__ __noinline__ inline void stuck_list(unsigned slot, int which) {
  stuck_slot& o = stuck_slots[slot];
  if (!o.sets) return;
  const gshmemi_team& t = state().teams[o.team];
  const int n = t.size < kStuckMembers ? t.size : kStuckMembers;
  int first = -1, last = -2;
  bool started = false;
  for (int j = 0; j <= n; ++j) {
    int pe = -1;
    if (j < n) {
      if (o.member[j] != which) continue;
      pe = t.start + j * t.stride;
      if (!started)
        stuck_put(o, which == 0 ? "; arrived: " : which == 1 ? "; missing: " : "; not seen by this thread: ");
      if (pe == last + 1) {
        last = pe;
        started = true;
        continue;
      }
    }
    if (first >= 0) {  // the run first..last ends
      stuck_put_int(o, first);
      if (last > first) {
        stuck_put(o, last == first + 1 ? "," : "-");
        stuck_put_int(o, last);
      }
      if (pe >= 0) stuck_put(o, ",");
    }
    started = started || pe >= 0;
    first = last = pe;
  }
  if (!started && which < 2) stuck_put(o, which == 0 ? "; arrived: none" : "; missing: none");
  if (which == 1 && t.size > kStuckMembers) stuck_put(o, " (of the first 512 members)");
  o.text[o.len] = '\0';
}

// Composes the sets, prints the report and traps.
[[noreturn]] static __device__ __noinline__ inline void stuck_print(unsigned slot) {
  stuck_states(slot);
  stuck_list(slot, 0);
  stuck_list(slot, 1);
  stuck_list(slot, 2);
  const stuck_slot& o = stuck_slots[slot];
  const uint64_t w = abort_word();
  const long long me = state().my_pe;
  if (w != 0)
    report_printf(
        "gshmem ERROR [PE %lld]: %s: PE %lld failed (died, stopped or unreachable; this PE's log says how); "
        "stopped waiting for PE %lld (missing)%s. Trapping.\n",
        me, o.what, static_cast<long long>(static_cast<int32_t>(static_cast<uint32_t>(w))),
        static_cast<long long>(o.waiting_for), o.text);
  else
    report_printf(
        "gshmem ERROR [PE %lld]: %s: still waiting for PE %lld after %llu s (GSHMEM_WAIT_TIMEOUT)%s; "
        "that PE is stuck, dead, or did not enter the same collective. Trapping.\n",
        me, o.what, static_cast<long long>(o.waiting_for),
        static_cast<unsigned long long>(state().wait_timeout_ns / 1000000000ull), o.text);
  __trap();
}

// A slot for a report; past the last one the thread traps without a word, after a pause that
// lets the first reports out (trap_after_report). gshmemx_abort: the thread exits (report_aborted).
__device__ __forceinline__ unsigned stuck_take(const char* what, int waiting_for) {
  if (abort_reason() == GSHMEMI_ABORT_USER) report_aborted(what, waiting_for);  // exits
  const unsigned slot = atomicAdd(&stuck_slots_taken, 1u);
  if (slot >= kStuckSlots) trap_after_report(false);  // the first kStuckSlots reports are printed
  return slot;
}

// A stuck wait of a collective on its flag (an epoch of the lanes, or an LL word): as
// report_wait_timeout (impl/sync.cuh) and report_aborted (state.cuh), with the sets. `want`: the
// value awaited (epoch) or the call's tag (ll). Does not return. Four arguments: each more cost
// the kernels that sync registers (tests/registers).
[[noreturn]] static __device__ __noinline__ void report_stuck(const char* what, const uint64_t* flag, uint64_t want,
                                                              int waiting_for) {
  const unsigned slot = stuck_take(what, waiting_for);
  stuck_slot& o = stuck_slots[slot];
  o.what = what;
  o.flag = flag;
  o.want = want;
  o.waiting_for = waiting_for;
  o.kind = kStuckFlags;
  stuck_print(slot);
}

// The same for a sync's counted signal slot: `slots_lo`, the low 32 bits of the address of the
// team's slots (impl/sync.cuh, take_signal, says why not the slot's own); `waiting_for`, the world
// PE that signals it; `scope`: the threads that share the slots (Scope::size()), 0 for the
// dissemination sync (whose slots are rounds: no sets). Teams whose slots lie a multiple of 4 GiB
// apart could be taken for each other: the sets would then be wrong, the PE waited for is not.
[[noreturn]] static __device__ __noinline__ void report_sync_stuck(const char* what, int waiting_for, uint32_t slots_lo,
                                                                   unsigned scope) {
  const unsigned slot = stuck_take(what, waiting_for);
  stuck_slot& o = stuck_slots[slot];
  o.what = what;
  o.flag = reinterpret_cast<const uint64_t*>(static_cast<uintptr_t>(slots_lo));
  o.want = scope;
  o.waiting_for = waiting_for;
  o.kind = kStuckSync;
  stuck_print(slot);
}

}  // namespace detail
}  // namespace gshmem
