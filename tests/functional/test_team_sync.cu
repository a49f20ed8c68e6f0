// SPDX-License-Identifier: BSD-3-Clause
// Team barriers and syncs on WORLD and split teams (tail 1..N-1, evens, 2D rows
// and columns; the rows run concurrently in one shared slot):
//   - stamped rounds: in round r every member puts a stamp into the next team
//     member and then synchronises the team; after it the stamp from the
//     previous member must be there. With gshmem_barrier(team) (quiet included)
//     and with quiet + gshmem_team_sync(team), at device thread / warp / block
//     scope (C names and C++ templates), from the host and on a stream, phases
//     interleaved on the same team (they share one sequence of counted signals);
//   - a PE outside a team is not needed by its barrier: PE 0 waits, in a kernel,
//     for the "tail" team to finish its rounds without PE 0;
//   - every signal is taken back once: after a split team's rounds, each of the
//     member's sync slots of that team is 0 again (white-box: it reads the team's
//     control words; not on WORLD, whose slots the next world barrier reuses at once);
//   - invalid teams return an error at once (host) / -1 (device).
// Built twice: test_team_sync (teams of up to 32 PEs sync all-to-all) and
// test_team_sync_dissemination (GSHMEMI_ALLTOALL_SYNC_MAX=1 forces the
// dissemination barrier; only the device forms run there, since the library's
// host forms use the all-to-all exchange).
#include "coll_test.cuh"

using namespace gt;
using gshmem::block_scope;
using gshmem::thread_scope;
using gshmem::warp_scope;

namespace {

#if defined(GSHMEMI_ALLTOALL_SYNC_MAX)
constexpr bool kDeviceOnly = true;
#else
constexpr bool kDeviceOnly = false;
#endif

__host__ __device__ inline int stamp(long r, int from) {
  return static_cast<int>(1 + (r % 100000) * 7919 + from * 131);
}

// slots: symmetric int[2][npes] (round parity x sender's team index).
template <class S>
__global__ void k_rounds(gshmem_team_t team, int* slots, long first, long count, int barrier, int api, DevErrors* err) {
  const int me = gshmem_team_my_pe(team), n = gshmem_team_n_pes(team), npes = gshmem_n_pes();
  const int next = gshmem_team_translate_pe(team, (me + 1) % n, GSHMEM_TEAM_WORLD);
  const int prev = gshmem_team_translate_pe(team, (me + n - 1) % n, GSHMEM_TEAM_WORLD);
  for (long r = first; r < first + count; ++r) {
    int* row = slots + (r & 1) * npes;
    if (S::rank() == 0) gshmem_int_p(row + me, stamp(r, gshmem_my_pe()), next);
    int rc;
    if (barrier) {
      rc = api == 0 ? GT_BY_SCOPE(S, gshmem_barrier, gshmemx_barrier_warp, gshmemx_barrier_block, team)
                    : gshmem::barrier<S>(team);
    } else {
      gshmem::quiet<S>();
      rc = api == 0 ? GT_BY_SCOPE(S, gshmem_team_sync, gshmemx_team_sync_warp, gshmemx_team_sync_block, team)
                    : gshmem::team_sync<S>(team);
    }
    if (rc != 0) dev_fail(err, r, 1, 0, rc);
    const int got = gshmem::detail::ld_volatile(row + (me + n - 1) % n);
    if (S::rank() == 0 && got != stamp(r, prev)) dev_fail(err, r, 0, stamp(r, prev), got);
  }
}

__global__ void k_put_stamp(gshmem_team_t team, int* slots, long r) {
  const int me = gshmem_team_my_pe(team), n = gshmem_team_n_pes(team);
  gshmem_int_p(slots + (r & 1) * gshmem_n_pes() + me, stamp(r, gshmem_my_pe()),
               gshmem_team_translate_pe(team, (me + 1) % n, GSHMEM_TEAM_WORLD));
}
__global__ void k_check_stamp(gshmem_team_t team, int* slots, long r, DevErrors* err) {
  const int me = gshmem_team_my_pe(team), n = gshmem_team_n_pes(team);
  const int prev = gshmem_team_translate_pe(team, (me + n - 1) % n, GSHMEM_TEAM_WORLD);
  const int got = gshmem::detail::ld_volatile(slots + (r & 1) * gshmem_n_pes() + (me + n - 1) % n);
  if (got != stamp(r, prev)) dev_fail(err, r, 0, stamp(r, prev), got);
}

struct Rounds {
  int* slots = nullptr;
  long r = 0;  // next round number; advances identically on every member
  DevErrorsHost err;
};

template <class S>
void device_phase(Rounds& R, const TestTeam& t, long count, bool barrier, int api) {
  set_context("team %s rounds %ld..: device %s %s (%s)", t.name.c_str(), R.r, scope_name<S>(),
              barrier ? "barrier" : "quiet + team_sync", api ? "C++" : "C");
  R.err.reset();
  const int threads = is_thread_v<S> ? 1 : is_warp_v<S> ? 32 : 256;
  k_rounds<S><<<1, threads>>>(t.team, R.slots, R.r, count, barrier ? 1 : 0, api, R.err.d);
  KERNEL_CHECK();
  R.err.check("round", "what (0 stamp, 1 return value)", __FILE__, __LINE__);
  R.r += count;
}

void host_phase(Rounds& R, const TestTeam& t, long count, bool barrier) {
  set_context("team %s rounds %ld..: host %s", t.name.c_str(), R.r,
              barrier ? "gshmem_barrier" : "quiet + gshmem_team_sync");
  R.err.reset();
  for (long end = R.r + count; R.r < end; ++R.r) {
    k_put_stamp<<<1, 1>>>(t.team, R.slots, R.r);  // a device put: the barrier's quiet does not cover it,
    KERNEL_CHECK();                               // kernel completion does
    GT_CHECK_EQ(0, barrier ? gshmem_barrier(t.team) : (gshmem_quiet(), gshmem_team_sync(t.team)));
    k_check_stamp<<<1, 1>>>(t.team, R.slots, R.r, R.err.d);
    KERNEL_CHECK();
  }
  R.err.check("round", "-", __FILE__, __LINE__);
}

void stream_phase(Rounds& R, const TestTeam& t, long count, bool barrier) {
  set_context("team %s rounds %ld..: on-stream %s", t.name.c_str(), R.r,
              barrier ? "gshmemx_barrier_on_stream" : "gshmemx_team_sync_on_stream");
  R.err.reset();
  cudaStream_t st = test_stream();
  for (long end = R.r + count; R.r < end; ++R.r) {
    k_put_stamp<<<1, 1, 0, st>>>(t.team, R.slots, R.r);
    GT_CHECK_EQ(0, barrier ? gshmemx_barrier_on_stream(t.team, st) : gshmemx_team_sync_on_stream(t.team, st));
    k_check_stamp<<<1, 1, 0, st>>>(t.team, R.slots, R.r, R.err.d);
  }
  CUDA_CHECK(cudaStreamSynchronize(st));
  KERNEL_CHECK();
  R.err.check("round", "-", __FILE__, __LINE__);
}

void team_rounds(Rounds& R, const TestTeam& t) {
  if (!t.member()) return;
  for (int api = 0; api < 2; ++api)
    for (int barrier = 1; barrier >= 0; --barrier) {
      device_phase<thread_scope>(R, t, 101, barrier, api);
      if (!kDeviceOnly) host_phase(R, t, 20, barrier);
      device_phase<warp_scope>(R, t, 101, barrier, api);
      if (!kDeviceOnly) stream_phase(R, t, 30, barrier);
      device_phase<block_scope>(R, t, 101, barrier, api);
    }
}

// The counted signals of a team's syncs all taken back: every sync slot of this
// member is 0 once all members finished the same syncs and none has started another.
// A slot whose signaller is reached through the proxy counts the signals taken instead,
// and the team's proxy sync word those that arrived (impl/sync.cuh, take_proxied_signal):
// there the two are equal. The value checked is the slot less that word.
__global__ void k_sync_slots_zero(gshmem_team_t team, DevErrors* err) {
  namespace d = gshmem::detail;
  const gshmemi_team t = d::team_entry(team);
  for (int i = threadIdx.x; i < t.size; i += blockDim.x) {
    uint64_t v = d::ld_volatile(t.sync_flags + i);
    // The slot's signaller: member i, or (dissemination) round i's, member my_pe - 2^i.
    int from = -1;
    if (t.size <= d::kAllToAllSyncMax)
      from = i != t.my_pe ? i : -1;
    else if (i < 30 && (1 << i) < t.size)
      from = (t.my_pe + t.size - (1 << i)) % t.size;
    const uint64_t* posted = d::proxy_sync_words(t.flags);
    if (from >= 0 && posted != nullptr && d::peer_address(t.sync_flags, d::team_world_pe(t, from)) == nullptr)
      v -= d::ld_volatile(posted + i);
    if (v != 0) dev_fail(err, static_cast<unsigned long long>(i), 0, 0, v);
  }
}

void slots_zero_test(Rounds& R, const TestTeam& t) {
  if (!t.member()) return;
  set_context("team %s: every sync slot back at 0 after its rounds", t.name.c_str());
  R.err.reset();
  k_sync_slots_zero<<<1, 64>>>(t.team, R.err.d);
  KERNEL_CHECK();
  R.err.check("slot (signaller's team PE)", "-", __FILE__, __LINE__);
}

// PE 0 is not in "tail": it waits in a kernel until tail's first member has done
// its rounds, so tail's barriers must not involve PE 0.
__global__ void k_wait_flag(int* flag, int value) { gshmem_int_wait_until(flag, GSHMEM_CMP_GE, value); }

void outsider_test(Rounds& R, const TestTeam& tail, int* flag, int id) {
  if (gshmem_my_pe() == 0) {
    set_context("PE 0 waits outside team %s while it runs its barriers", tail.name.c_str());
    k_wait_flag<<<1, 1>>>(flag, id);
    KERNEL_CHECK();
    GT_CHECK(true);
  } else {
    device_phase<block_scope>(R, tail, 500, true, 0);
    if (tail.me == 0) gshmem_int_p(flag, id, 0);
  }
  gshmem_barrier_all();
}

__global__ void k_invalid(int* out) {
  out[0] = gshmem_team_sync(GSHMEM_TEAM_INVALID);
  out[1] = gshmemx_barrier_block(12345);
  out[2] = gshmem::team_sync<thread_scope>(-3);
}

void invalid_tests() {
  set_context("team sync / barrier on invalid teams");
  GT_CHECK(gshmem_team_sync(GSHMEM_TEAM_INVALID) != 0);
  GT_CHECK(gshmem_barrier(GSHMEM_TEAM_INVALID) != 0);
  GT_CHECK(gshmemx_team_sync_on_stream(99999, test_stream()) != 0);
  GT_CHECK(gshmemx_barrier_on_stream(-2, test_stream()) != 0);
#if !defined(GSHMEM_DEBUG_CHECKS)  // debug builds trap instead
  int* out = nullptr;
  CUDA_CHECK(cudaMalloc(&out, 3 * sizeof(int)));
  k_invalid<<<1, 1>>>(out);
  KERNEL_CHECK();
  int h[3];
  CUDA_CHECK(cudaMemcpy(h, out, sizeof(h), cudaMemcpyDeviceToHost));
  for (int v : h) GT_CHECK_EQ(-1, v);
  CUDA_CHECK(cudaFree(out));
#endif
}

}  // namespace

int main() {
  test_main_prologue(2, 0);
  const int npes = gshmem_n_pes();
  std::vector<TestTeam> teams = make_test_teams();
  Rounds R;
  R.slots = static_cast<int*>(gshmem_calloc(2 * npes, sizeof(int)));
  int* flag = static_cast<int*>(gshmem_calloc(1, sizeof(int)));
  gshmem_barrier_all();
  for (int pass = 0; pass < 2; ++pass)
    for (size_t k = kDeviceOnly ? 1 : 0; k < teams.size(); ++k) {
      // Fresh slots for every team (members of different teams use different
      // neighbours), then the rounds; the world barrier separates the teams.
      CUDA_CHECK(cudaMemset(R.slots, 0, 2 * npes * sizeof(int)));
      gshmem_barrier_all();
      team_rounds(R, teams[k]);
      if (k > 0) slots_zero_test(R, teams[k]);
      gshmem_barrier_all();
      R.r = 1000 * (k + 1) + 100000 * pass;  // every PE the same, whatever it ran
    }
  if (npes >= 2) outsider_test(R, teams[1], flag, 1);
  invalid_tests();
  gshmem_barrier_all();
  gshmem_free(flag);
  gshmem_free(R.slots);
  destroy_test_teams(teams);
  return test_main_epilogue(kDeviceOnly ? "team_sync_dissemination" : "team_sync");
}
