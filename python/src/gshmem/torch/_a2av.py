# SPDX-License-Identifier: BSD-3-Clause
"""all_to_all_v: the uneven all-to-all of MoE dispatch and combine, with the split sizes on the
device (no host synchronisation, so a CUDA graph captures it and routing never stalls the CPU).

Design: rows (dim 0) of `inp` go to PE 0, 1, ... in runs of in_splits[p] rows. On the stream:
  1. team sync: every peer is done with its `out` and the workspace of the previous call;
  2. gshmemx_fcollectmem_on_stream of the splits: every PE holds the n x n matrix S
     (S[i, j] = rows PE i sends to PE j) in a symmetric workspace;
  3. torch ops on S: this PE's send offsets (exclusive cumsum of its row), the row in each
     peer's `out` where its run lands (sum of S[:me, p]) and out_splits = S[:, me];
  4. one Triton kernel, a grid of (n, about SMs / n CTAs), copies each run straight into the peer's
     `out` through its NVLink mapping (gshmem_ptr, as a byte offset from this PE's `out`);
  5. team barrier on the stream: every run has landed and is visible everywhere.
A run that would pass the end of `out` (capacity rows), or read past the end of `inp`, is cut
there; out_splits still tells the rows sent, so a program compares out_splits.sum() with its
capacity.

Without Triton, or when a peer's memory is not mapped here (another node), steps 3-4 become
host-side: S is copied to the host (a synchronisation, so not capturable) and each run is a
gshmemx_putmem_nbi_on_stream; the barrier completes them."""
import math

import torch

from .._lib import capi, check_logged
from ..errors import InvalidValueError, UnsupportedError
from ..teams import WORLD
from ._coll import _check, _c, _contiguous, _n_pes, _Staging, _sync, release_staging, stream_of, team_handle
from ._tensors import describe, require_symmetric
from . import _tensors

try:
    import triton
    import triton.language as tl
except ImportError:  # pragma: no cover - depends on the environment
    triton = None

_BLOCK = 2048
_sms = {}


def _ctas_per_peer(device, n):
    """CTAs per destination: together about one per SM (NVLink stores need many in flight),
    at least 4 and at most 64 per peer."""
    sms = _sms.get(device.index)
    if sms is None:
        sms = _sms[device.index] = torch.cuda.get_device_properties(device).multi_processor_count
    return max(4, min(64, sms // n))

if triton is not None:
    @triton.jit
    def _copy_runs(src, dst, deltas, send_cnt, send_off, dst_off, src_rows, cap_rows, row_words,
                   BLOCK: tl.constexpr, PAIRS: tl.constexpr):
        p = tl.program_id(0)
        j = tl.program_id(1).to(tl.int64)
        g = tl.num_programs(1).to(tl.int64)
        cnt = tl.load(send_cnt + p).to(tl.int64)
        so = tl.load(send_off + p).to(tl.int64)
        do = tl.load(dst_off + p).to(tl.int64)
        delta = tl.load(deltas + p).to(tl.int64)
        # Never past the end of `inp` (splits summing to more than its rows) or of the peer's
        # `out` (its capacity): the host cannot check splits that live on the device.
        cnt = tl.minimum(cnt, tl.maximum(src_rows - so, 0))
        cnt = tl.minimum(cnt, tl.maximum(cap_rows - do, 0))
        total = cnt * row_words
        s_off = so * row_words
        d_off = delta + do * row_words
        if PAIRS:  # rows of an even number of words, 16-byte aligned bases: 16-byte accesses
            s_off = tl.multiple_of(s_off, 2)
            d_off = tl.multiple_of(d_off, 2)
            total = tl.multiple_of(total, 2)
        s_base = src + s_off
        d_base = dst + d_off
        offs = tl.arange(0, BLOCK)
        for start in range(j * BLOCK, total, g * BLOCK):
            idx = start + offs
            m = idx < total
            tl.store(d_base + idx, tl.load(s_base + idx, mask=m), mask=m)


def plan(S, in_splits, me, out_splits):
    """From the split matrix S (S[i, j]: rows PE i sends to PE j) on PE `me`: where each run
    starts in this PE's `inp` (send_off[p]) and in PE p's `out` (dst_off[p]: the rows that the
    PEs before `me` send to p), and out_splits = S[:, me]. Torch ops on the stream, no host
    synchronisation."""
    send_off = torch.cumsum(in_splits, 0) - in_splits
    dst_off = S[:me].sum(0)
    out_splits.copy_(S[:, me])
    return send_off, dst_off


class _Workspace:
    """Per team: the symmetric split matrix and the NVLink offsets of the `out` buffers used."""

    def __init__(self, team, n, device):
        from ._tensors import empty
        self.team, self.n = team, n
        self.splits = empty(n * n, dtype=torch.int64, device=device)
        self.world = [capi().gshmem_team_translate_pe(team, p, WORLD.handle) for p in range(n)]
        self.deltas = {}  # (base address, word size) -> int64 tensor [n] or None (a peer not mapped)

    def deltas_for(self, out, word):
        buf = require_symmetric("gshmem.torch.all_to_all_v", "out", out)
        key = (buf.ptr, word)
        if key not in self.deltas:
            if torch.cuda.is_current_stream_capturing():
                raise UnsupportedError("gshmem.torch.all_to_all_v", f"first call with this `out` ({describe(out)}) "
                                       "inside CUDA graph capture; call it once before capturing (it maps the peers' "
                                       "copies of `out` then)")
            ds = []
            for w in self.world:
                peer = capi().gshmem_ptr(buf.ptr, w)
                if not peer:
                    ds = None
                    break
                ds.append((peer - buf.ptr) // word)
            self.deltas[key] = None if ds is None else torch.tensor(ds, dtype=torch.int64, device=out.device)
        return self.deltas[key]


_workspaces = {}


def _forget():
    _workspaces.clear()


# A workspace lives in the heap: finalize releases it (no free: the heap goes with it).
from .. import runtime as _runtime  # noqa: E402
_runtime.finalize_hooks.insert(0, _forget)


def _workspace(call, team, device):
    ws = _workspaces.get(team)
    if ws is None:
        if torch.cuda.is_current_stream_capturing():
            raise UnsupportedError(call, "first all_to_all_v on this team inside CUDA graph capture; call it once "
                                   "before capturing (it allocates its symmetric workspace, collectively)")
        ws = _workspaces[team] = _Workspace(team, _n_pes(team), device)
    return ws


def release_workspaces():
    """Free the all_to_all_v workspaces and the compiled ops' staging buffer (collective; they
    come back when needed). Before finalize() they need no release."""
    for ws in list(_workspaces.values()):
        _tensors.free(ws.splits)
    _workspaces.clear()
    release_staging()


def all_to_all_v_impl(out, inp, in_splits, out_splits, team):
    call = "gshmem.torch.all_to_all_v"
    _contiguous(call, "out", out)
    _contiguous(call, "inp", inp)
    require_symmetric(call, "out", out)
    if out.dtype != inp.dtype or out.shape[1:] != inp.shape[1:] or out.dim() == 0:
        raise InvalidValueError(call, f"`out` ({describe(out)}) and `inp` ({describe(inp)}) must have the same dtype "
                                "and the same shape but for dim 0 (rows)")
    ws = _workspace(call, team, out.device)
    n = ws.n
    for arg, t in (("in_splits", in_splits), ("out_splits", out_splits)):
        if t.dtype != torch.int64 or t.numel() != n or t.device != out.device or not t.is_contiguous():
            raise InvalidValueError(call, f"`{arg}` ({describe(t)}) must be a contiguous int64 tensor of n_pes ({n}) "
                                    f"elements on {out.device}")
    row_bytes = math.prod(out.shape[1:]) * out.element_size()
    word = 8 if row_bytes % 8 == 0 else 4 if row_bytes % 4 == 0 else 1
    me = capi().gshmem_team_my_pe(team)
    s = stream_of(out)
    _sync(call, team, s)
    _check(call, _c("gshmemx_fcollectmem_on_stream")(team, ws.splits.data_ptr(), in_splits.data_ptr(), n * 8, s))
    send_off, dst_off = plan(ws.splits.view(n, n), in_splits, me, out_splits)
    deltas = ws.deltas_for(out, word) if triton is not None else None
    if deltas is not None:
        wtype = {8: torch.int64, 4: torch.int32, 1: torch.uint8}[word]
        dst = out.view(-1).view(wtype)
        src = inp.view(-1).view(wtype) if inp.numel() else dst  # (an empty tensor has no address; nothing is read)
        grid = (n, _ctas_per_peer(out.device, n))
        _copy_runs[grid](src, dst, deltas, in_splits, send_off, dst_off, inp.shape[0], out.shape[0], row_bytes // word,
                         BLOCK=_BLOCK, PAIRS=row_bytes % 16 == 0 and word == 8, num_warps=8)
    else:
        if torch.cuda.is_current_stream_capturing():
            raise UnsupportedError(call, "this team has PEs whose memory is not mapped here (or Triton is missing), "
                                   "and the host path reads the splits on the host, which graph capture forbids")
        cnt, so, do = in_splits.tolist(), send_off.tolist(), dst_off.tolist()
        cap = out.shape[0]
        put = _c("gshmemx_putmem_nbi_on_stream")
        for p in range(n):
            rows = max(0, min(cnt[p], cap - do[p], inp.shape[0] - so[p]))
            if rows:
                put(out.data_ptr() + do[p] * row_bytes, inp.data_ptr() + so[p] * row_bytes, rows * row_bytes,
                    ws.world[p], s)
        check_logged(call)
    _check(call, _c("gshmemx_barrier_on_stream")(team, s))


@torch.library.custom_op("gshmem::all_to_all_v", mutates_args=("out", "out_splits"), device_types="cuda")
def _op_all_to_all_v(out: torch.Tensor, inp: torch.Tensor, in_splits: torch.Tensor, out_splits: torch.Tensor,
                     team: int) -> None:
    _Staging.run("gshmem.torch.all_to_all_v", all_to_all_v_impl, (out, inp, in_splits, out_splits, team), (0,))


_op_all_to_all_v.register_fake(lambda *args, **kwargs: None)


def all_to_all_v(out, inp, in_splits, out_splits=None, *, team=None):
    """Uneven all-to-all of rows (dim 0), the split sizes on the device (MoE dispatch/combine):
    the first in_splits[0] rows of `inp` go to PE 0, the next in_splits[1] to PE 1, ...; `out`
    (symmetric, its dim 0 the capacity) receives PE 0's rows first, then PE 1's, and
    `out_splits[i]` = rows received from PE i. `in_splits`: int64 CUDA tensor of n_pes.
    Returns (out, out_splits). No host synchronisation; capturable in a CUDA graph once called
    outside capture with the same `out`."""
    if out_splits is None:
        out_splits = torch.empty_like(in_splits)
    th = team_handle(team)
    if torch.compiler.is_compiling():
        torch.ops.gshmem.all_to_all_v(out, inp, in_splits, out_splits, th)
    else:
        all_to_all_v_impl(out, inp, in_splits, out_splits, th)
    return out, out_splits
