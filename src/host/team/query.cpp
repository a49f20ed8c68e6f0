// SPDX-License-Identifier: BSD-3-Clause
// Host side of the team queries (gshmem_team_my_pe, _n_pes, _translate_pe,
// _get_config). Invalid teams give -1 (get_config: nonzero), never an abort.
#include "gshmem/detail/host_entry.h"
#include "gshmem/detail/host_entry_coll.h"
#include "team.h"

using namespace gshmem;

extern "C" {

GSHMEM_API int gshmemi_host_team_my_pe(gshmem_team_t team) {
  const gshmemi_team* t = team::lookup(team);
  return t ? t->my_pe : -1;
}

GSHMEM_API int gshmemi_host_team_n_pes(gshmem_team_t team) {
  const gshmemi_team* t = team::lookup(team);
  return t ? t->size : -1;
}

GSHMEM_API int gshmemi_host_team_translate_pe(gshmem_team_t src_team, int src_pe, gshmem_team_t dest_team) {
  const gshmemi_team* s = team::lookup(src_team);
  const gshmemi_team* d = team::lookup(dest_team);
  if (!s || !d || src_pe < 0 || src_pe >= s->size) return -1;
  const int offset = s->start + src_pe * s->stride - d->start;
  if (offset < 0 || offset % d->stride != 0 || offset / d->stride >= d->size) return -1;
  return offset / d->stride;
}

GSHMEM_API void* gshmemi_host_team_ptr(gshmem_team_t team, const void* dest, int pe) {
  const gshmemi_team* t = team::lookup(team);
  if (!t || pe < 0 || pe >= t->size) return nullptr;  // the spec's answer for "not accessible"
  return gshmemi_host_ptr(dest, t->start + pe * t->stride);
}

GSHMEM_API int gshmemi_host_team_get_config(gshmem_team_t team, long config_mask, gshmem_team_config_t* config) {
  const char* call = "gshmem_team_get_config";
  const gshmemi_team* t = team::lookup(team);
  if (!t) {
    GSHMEM_LOG_INFO("%s: team %d is not a valid team of this PE; nothing returned", call, team);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  if (!config) {
    GSHMEM_LOG_ERROR("%s: config is NULL; pass the address of a gshmem_team_config_t", call);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  if (config_mask & GSHMEM_TEAM_NUM_CONTEXTS) config->num_contexts = rt().team_configs[team].num_contexts;
  return GSHMEM_SUCCESS;
}

}  // extern "C"
