// SPDX-License-Identifier: BSD-3-Clause
// A few words from every member of a team, on the device (fcollect into the
// team's check words): the team-only exchange behind slot agreement in
// gshmem_team_split_* and the host debug checks of collectives. The bootstrap
// cannot do it: its collectives involve every PE of the job.
#include <gshmem/gshmem.h>

#include "gshmem/device/impl/coll_collect.cuh"
#include "bootstrap/bootstrap.h"
#include "host/core/runtime.h"
#include "host/launch/preload.h"

#include "team.h"

namespace gshmem::team {
namespace {

struct Words {
  uint64_t w[GSHMEMI_TEAM_CHECK_WORDS];
};

// Gathers into `out` (the library's mapped pinned memory). Every exchange of a team
// gathers into the same check words, and the data-movement collectives have no exit
// synchronisation: on the LL path that is safe (its buffers alternate and carry tags),
// but a team whose scratch leaves no room for 32-byte LL messages (or
// GSHMEM_LL_MAX_BYTES=16) takes the direct path, where a member's next exchange pushes
// into the check words of a member still reading this one's. So the words are read
// here, in the kernel, and then the team syncs.
__global__ void k_allgather_words(gshmem_team_t team, Words mine, uint64_t* out) {
  __shared__ uint64_t src[GSHMEMI_TEAM_CHECK_WORDS];
  if (threadIdx.x < GSHMEMI_TEAM_CHECK_WORDS) src[threadIdx.x] = mine.w[threadIdx.x];
  __syncthreads();
  const gshmemi_team t = detail::team_entry(team);
  uint64_t* words = detail::team_check(t);
  const bool spans = (t.flags & GSHMEMI_TEAM_SPANS_NODES) != 0;
  if (spans) {  // members on other nodes (a sub-team's split; the world's goes by the bootstrap)
    detail::span_fcollect<block_scope>("gshmem team exchange", team, reinterpret_cast<char*>(words),
                                       reinterpret_cast<const char*>(src), sizeof(src));
  } else {
    detail::fcollect_op op("gshmem team exchange", words, src, sizeof(src), t);
    detail::run_collective<block_scope>(t, op);
  }
  const int n = t.size * GSHMEMI_TEAM_CHECK_WORDS;
  for (int i = threadIdx.x; i < n; i += blockDim.x) out[i] = detail::ld_volatile(words + i);
  if (spans || detail::ll_plan(t, sizeof(src)).count == nullptr)
    detail::sync_members<block_scope>(t, "gshmem team exchange");
}

// Loaded by gshmem_init, not at their first launch (host/launch/preload.h).
const preload::Entry kPreload(+[] { return preload::load({preload::K(k_allgather_words)}); });

}  // namespace

Status allgather_words(const char* call, gshmem_team_t team, const uint64_t* mine, cudaStream_t stream,
                       std::vector<uint64_t>* all) {
  const gshmemi_team* t = lookup(team);
  if (!t) {
    GSHMEM_LOG_ERROR("%s: internal: team %d is not valid here", call, team);
    return GSHMEM_ERROR_INTERNAL;
  }
  if ((t->flags & GSHMEMI_TEAM_SPANS_NODES) && t->start == 0 && t->stride == 1 && t->size == rt().n_pes) {
    // The world team across nodes: through the bootstrap, which reaches every PE without the
    // proxy. A sub-team across nodes takes the kernel below (the device fcollect's spanning path,
    // device/impl/coll_span.cuh): the bootstrap's collectives take every PE.
    all->assign(static_cast<size_t>(t->size) * GSHMEMI_TEAM_CHECK_WORDS, 0);
    return rt().boot->allgather(mine, all->data(), GSHMEMI_TEAM_CHECK_WORDS * sizeof(uint64_t));
  }
  Words w;
  for (int i = 0; i < GSHMEMI_TEAM_CHECK_WORDS; ++i) w.w[i] = mine[i];
  // The words come back on `stream` through the library's pinned memory: a cudaMemcpy would
  // wait for the kernels of the legacy default stream (the application's, often).
  const size_t n = static_cast<size_t>(t->size) * GSHMEMI_TEAM_CHECK_WORDS;
  auto* staged = static_cast<uint64_t*>(rt().call_memory.pinned(call, n * sizeof(uint64_t)));
  if (!staged) return GSHMEM_ERROR_OUT_OF_MEMORY;
  k_allgather_words<<<1, 32, 0, stream>>>(team, w, staged);
  GSHMEM_CUDA_TRY(call, cudaGetLastError());
  GSHMEM_CUDA_TRY(call, cudaStreamSynchronize(stream));
  all->assign(staged, staged + n);
  return GSHMEM_SUCCESS;
}

}  // namespace gshmem::team
