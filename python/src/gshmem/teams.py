# SPDX-License-Identifier: BSD-3-Clause
"""Teams: the predefined WORLD, SHARED and NODE, and splits of them (docs/teams.md)."""
import ctypes

from . import _capi
from ._convert import stream_handle
from ._lib import capi, check_logged, check_status


class Team:
    """A team handle of this PE. WORLD, SHARED (PEs whose memory this PE maps) and NODE exist
    from init() to finalize(); split_* make new ones (collective over the parent team)."""

    __slots__ = ("handle",)

    def __init__(self, handle):
        self.handle = int(handle)

    def __repr__(self):
        names = {_capi.GSHMEM_TEAM_WORLD: "WORLD", _capi.GSHMEM_TEAM_SHARED: "SHARED",
                 _capi.GSHMEMX_TEAM_NODE: "NODE"}
        return f"gshmem.Team({names.get(self.handle, self.handle)})"

    def __eq__(self, other):
        return isinstance(other, Team) and other.handle == self.handle

    def __hash__(self):
        return hash(self.handle)

    def my_pe(self):
        """This PE's number in the team, -1 if not a member."""
        return capi().gshmem_team_my_pe(self.handle)

    def n_pes(self):
        return capi().gshmem_team_n_pes(self.handle)

    def translate_pe(self, pe, to=None):
        """PE `pe` of this team as numbered in team `to` (default WORLD), -1 if not in it."""
        return capi().gshmem_team_translate_pe(self.handle, pe, (to or WORLD).handle)

    def split_strided(self, start, stride, size):
        """The team of PEs start, start+stride, ... (size of them) of this team; None on PEs
        outside it. Collective over this team."""
        new = ctypes.c_int(_capi.GSHMEM_TEAM_INVALID)
        check_status("gshmem.Team.split_strided",
                     capi().gshmem_team_split_strided(self.handle, start, stride, size, None, 0, ctypes.byref(new)))
        return None if new.value == _capi.GSHMEM_TEAM_INVALID else Team(new.value)

    def split_2d(self, xrange):
        """(x team, y team) of a 2-D grid `xrange` PEs wide over this team. Collective."""
        x, y = ctypes.c_int(_capi.GSHMEM_TEAM_INVALID), ctypes.c_int(_capi.GSHMEM_TEAM_INVALID)
        check_status("gshmem.Team.split_2d", capi().gshmem_team_split_2d(
            self.handle, xrange, None, 0, ctypes.byref(x), None, 0, ctypes.byref(y)))
        return tuple(None if t.value == _capi.GSHMEM_TEAM_INVALID else Team(t.value) for t in (x, y))

    def destroy(self):
        """Release the team (collective over it); waits for this GPU's work first."""
        capi().gshmem_team_destroy(self.handle)
        check_logged("gshmem.Team.destroy")

    def barrier(self, *, stream=None):
        """Every PE of the team's earlier operations are complete and visible (a quiet, then a
        sync). With `stream`: ordered on that stream instead, the host returns at once."""
        s = stream_handle("gshmem.Team.barrier", stream)
        if s is None:
            check_status("gshmem.Team.barrier", capi().gshmem_barrier(self.handle))
        else:
            check_status("gshmem.Team.barrier", capi().gshmemx_barrier_on_stream(self.handle, s))

    def sync(self, *, stream=None):
        """Every PE of the team has arrived (no quiet). With `stream`: on that stream."""
        s = stream_handle("gshmem.Team.sync", stream)
        if s is None:
            check_status("gshmem.Team.sync", capi().gshmem_team_sync(self.handle))
        else:
            check_status("gshmem.Team.sync", capi().gshmemx_team_sync_on_stream(self.handle, s))


WORLD = Team(_capi.GSHMEM_TEAM_WORLD)
SHARED = Team(_capi.GSHMEM_TEAM_SHARED)
NODE = Team(_capi.GSHMEMX_TEAM_NODE)
