# SPDX-License-Identifier: BSD-3-Clause
"""Teams: queries and PE translation (host + device), split / destroy / get_config (host),
team synchronisation: gshmem_team_sync, gshmem_barrier (host + device), their _warp / _block
device forms and _on_stream host forms. (barrier_all / sync_all are in rma.py.)"""

from .types import SCOPES

ORDER = 40


def build(a):
    a.needs(host_entry_header="gshmem/detail/host_entry_coll.h", device_header="impl/team.cuh")
    team = "gshmem_team_t team"
    a.dual("int", "gshmem_team_my_pe", team, "return gshmem::team_my_pe(team);",
           "return gshmemi_host_team_my_pe(team);")
    a.dual("int", "gshmem_team_n_pes", team, "return gshmem::team_n_pes(team);",
           "return gshmemi_host_team_n_pes(team);")
    a.dual("int", "gshmem_team_translate_pe", "gshmem_team_t src_team, int src_pe, gshmem_team_t dest_team",
           "return gshmem::team_translate_pe(src_team, src_pe, dest_team);",
           "return gshmemi_host_team_translate_pe(src_team, src_pe, dest_team);")
    a.dual("void*", "gshmem_team_ptr", "gshmem_team_t team, const void* dest, int pe",
           "return gshmem::team_ptr(team, dest, pe);", "return gshmemi_host_team_ptr(team, dest, pe);")
    a.host_only("int", "gshmem_team_get_config", "gshmem_team_t team, long config_mask, gshmem_team_config_t* config",
                "return gshmemi_host_team_get_config(team, config_mask, config);")
    a.host_only("int", "gshmem_team_split_strided",
                "gshmem_team_t parent_team, int start, int stride, int size, const gshmem_team_config_t* config, "
                "long config_mask, gshmem_team_t* new_team",
                "return gshmemi_host_team_split_strided(parent_team, start, stride, size, config, config_mask, "
                "new_team);")
    a.host_only("int", "gshmem_team_split_2d",
                "gshmem_team_t parent_team, int xrange, const gshmem_team_config_t* xaxis_config, long xaxis_mask, "
                "gshmem_team_t* xaxis_team, const gshmem_team_config_t* yaxis_config, long yaxis_mask, "
                "gshmem_team_t* yaxis_team",
                "return gshmemi_host_team_split_2d(parent_team, xrange, xaxis_config, xaxis_mask, xaxis_team, "
                "yaxis_config, yaxis_mask, yaxis_team);")
    a.host_only("void", "gshmem_team_destroy", team, "gshmemi_host_team_destroy(team);")

    # (C stem, C++ template, quiet first)
    for stem, cpp, quiet in (("team_sync", "team_sync", 0), ("barrier", "barrier", 1)):
        a.dual("int", f"gshmem_{stem}", team, f'return gshmem::detail::{cpp}<gshmem::thread_scope>("gshmem_{stem}", team);',
               f'return gshmemi_host_team_sync("gshmem_{stem}", team, {quiet}, GSHMEMI_COLL_BLOCKING, 0);')
        for suffix, scope in SCOPES:
            a.device("int", f"gshmemx_{stem}{suffix}", team,
                     f'return gshmem::detail::{cpp}<{scope}>("gshmemx_{stem}{suffix}", team);')
        a.host_only("int", f"gshmemx_{stem}_on_stream", f"{team}, cudaStream_t stream",
                    f'return gshmemi_host_team_sync("gshmemx_{stem}_on_stream", team, {quiet}, GSHMEMI_COLL_STREAM, '
                    "stream);")
