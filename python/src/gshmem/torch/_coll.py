# SPDX-License-Identifier: BSD-3-Clause
"""Collectives on the current torch stream, over symmetric tensors, and the same as
torch.library custom ops (torch.ops.gshmem.*) so that torch.compile traces them and CUDA graphs
capture them.

Each maps onto one C on-stream collective (gshmemx_<type>_<op>_reduce_on_stream,
gshmemx_fcollectmem_on_stream, ...): one launch on the stream, no host synchronisation, no
allocation, so a CUDA graph captures it. Eager calls go to C directly (a custom op's dispatcher
round trip costs more Python time); under torch.compile the wrappers emit the custom op.

Buffers (the C contract, include/gshmem/device/coll.cuh): `out` is symmetric, and so is `inp`
of the reductions; the data-movement collectives (all_gather, all_to_all, broadcast) push into
the peers' `out` as soon as each PE arrives, so with sync=True (the default) they first sync
the team on the stream: a peer still reading its `out` from earlier work is then never
overwritten (what torch.distributed users expect). sync=False skips that (about one barrier's
latency) when the program knows every peer is done with `out`."""
from typing import Optional

import torch

from .. import dtypes as _dtypes
from .. import runtime as _runtime
from .._lib import capi, take_error
from ..errors import InvalidValueError, NotSymmetricError, from_status
from ..teams import WORLD
from ._tensors import describe, require_symmetric

_fns = {}


def team_handle(team):
    return WORLD.handle if team is None else int(getattr(team, "handle", team))


def stream_of(t):
    """The current torch stream of `t`'s device, as a cudaStream_t int."""
    return torch._C._cuda_getCurrentRawStream(t.get_device())


def _check(call, status):
    if status != 0:
        _, message = take_error()
        raise from_status(call, status, message or capi().gshmemx_status_string(status).decode())


def _c(name):
    fn = _fns.get(name)
    if fn is None:
        fn = _fns[name] = getattr(capi(), name)
    return fn


def _reduce_fn(call, dtype, op, scatter):
    key = (dtype, op, scatter)
    fn = _fns.get(key)
    if fn is None:
        d = _dtypes.resolve(dtype)
        try:
            name = d.reduce_name(op, scatter=scatter)
        except InvalidValueError as e:
            raise InvalidValueError(call, e.message) from None
        fn = _fns[key] = getattr(capi(), name)
    return fn


def _contiguous(call, arg, t):
    if not t.is_contiguous():
        raise InvalidValueError(call, f"`{arg}` ({describe(t)}) is not contiguous; pass a contiguous tensor")
    if not t.is_cuda:
        raise InvalidValueError(call, f"`{arg}` ({describe(t)}) is not on a CUDA device")


def _n_pes(team):
    n = capi().gshmem_team_n_pes(team)
    if n <= 0:
        raise InvalidValueError("gshmem.torch collective", f"team {team} is not a valid team of this PE "
                                "(destroyed, or this PE is not a member); is gshmem initialized?")
    return n


def _sync(call, team, stream):
    _check(call, _c("gshmemx_team_sync_on_stream")(team, stream))


# ---- the implementations (eager calls and the custom ops' bodies) -------------------------------

def all_reduce_impl(out, inp, op, team):
    call = "gshmem.torch.all_reduce"
    src = out if inp is None else inp
    _contiguous(call, "out", out)
    require_symmetric(call, "out", out)
    if inp is not None:
        _contiguous(call, "inp", inp)
        require_symmetric(call, "inp", inp)
        if inp.dtype != out.dtype or inp.numel() != out.numel():
            raise InvalidValueError(call, f"`inp` ({describe(inp)}) and `out` ({describe(out)}) differ in dtype or "
                                    "size")
    fn = _reduce_fn(call, out.dtype, op, False)
    if out.numel():  # (every PE has the same size: all skip alike)
        _check(call, fn(team, out.data_ptr(), src.data_ptr(), out.numel(), stream_of(out)))


def reduce_scatter_impl(out, inp, op, team):
    call = "gshmem.torch.reduce_scatter"
    _contiguous(call, "out", out)
    _contiguous(call, "inp", inp)
    require_symmetric(call, "out", out)
    require_symmetric(call, "inp", inp)
    n = _n_pes(team)
    if inp.dtype != out.dtype or inp.numel() != n * out.numel():
        raise InvalidValueError(call, f"`inp` ({describe(inp)}) must hold n_pes ({n}) x `out`'s elements "
                                f"({describe(out)}), same dtype")
    fn = _reduce_fn(call, out.dtype, op, True)
    if out.numel():
        _check(call, fn(team, out.data_ptr(), inp.data_ptr(), out.numel(), stream_of(out)))


def all_gather_impl(out, inp, team, sync):
    call = "gshmem.torch.all_gather"
    _contiguous(call, "out", out)
    _contiguous(call, "inp", inp)
    require_symmetric(call, "out", out)
    n = _n_pes(team)
    nbytes = inp.numel() * inp.element_size()
    if out.numel() * out.element_size() != n * nbytes:
        raise InvalidValueError(call, f"`out` ({describe(out)}) must hold n_pes ({n}) x `inp` ({describe(inp)})")
    if not nbytes:
        return
    s = stream_of(out)
    if sync:
        _sync(call, team, s)
    _check(call, _c("gshmemx_fcollectmem_on_stream")(team, out.data_ptr(), inp.data_ptr(), nbytes, s))


def all_to_all_impl(out, inp, team, sync):
    call = "gshmem.torch.all_to_all"
    _contiguous(call, "out", out)
    _contiguous(call, "inp", inp)
    require_symmetric(call, "out", out)
    n = _n_pes(team)
    nbytes = inp.numel() * inp.element_size()
    if out.numel() * out.element_size() != nbytes or nbytes % n:
        raise InvalidValueError(call, f"`out` ({describe(out)}) and `inp` ({describe(inp)}) must have the same "
                                f"size, a multiple of n_pes ({n}) chunks")
    if not nbytes:
        return
    s = stream_of(out)
    if sync:
        _sync(call, team, s)
    _check(call, _c("gshmemx_alltoallmem_on_stream")(team, out.data_ptr(), inp.data_ptr(), nbytes // n, s))


def broadcast_impl(t, root, team, sync):
    call = "gshmem.torch.broadcast"
    _contiguous(call, "t", t)
    require_symmetric(call, "t", t)
    if not t.numel():
        return
    s = stream_of(t)
    if sync:
        _sync(call, team, s)
    _check(call, _c("gshmemx_broadcastmem_on_stream")(team, t.data_ptr(), t.data_ptr(),
                                                      t.numel() * t.element_size(), root, s))


# ---- custom ops: what torch.compile traces and CUDA graphs capture --------------------------------

class _Staging:
    """Symmetric stand-ins for tensors that torch.compile's functionalisation copied out of the
    symmetric heap (inductor may run a mutating op on a clone of its input): the op bodies copy
    them into one symmetric staging buffer, run there, and copy the results back. Every rank
    runs the same compiled graph, so every rank stages alike and the buffer's (collective)
    growth agrees. Not inside CUDA graph capture (it allocates): warm up first."""

    buf = None

    @classmethod
    def run(cls, call, fn, args, staged):
        """fn(*args) with args[i] (i in `staged`: indexes of tensors that must be symmetric, the
        first of them the output) replaced by staging views where they are not symmetric."""
        from ._tensors import buffer_of, empty, free
        todo = [i for i in staged if args[i] is not None and not _is_sym(args[i])]
        if not todo:
            return fn(*args)
        sizes = [(args[i].numel() * args[i].element_size() + 255) // 256 * 256 for i in todo]
        need = max(sum(sizes), 256)
        if cls.buf is None or cls.buf.numel() < need:
            if torch.cuda.is_current_stream_capturing():
                raise NotSymmetricError(call, "an argument is not in the symmetric heap (torch.compile copied it) "
                                        "and the staging buffer must grow, which CUDA graph capture forbids; run "
                                        "the compiled function once before capturing")
            if cls.buf is not None and buffer_of(cls.buf.data_ptr()) is not None:
                free(cls.buf)
            cls.buf = empty(need, dtype=torch.uint8, device=args[todo[0]].device)
        args, views, off = list(args), {}, 0
        for i, n in zip(todo, sizes):
            t = args[i]
            v = cls.buf[off:off + t.numel() * t.element_size()].view(t.dtype).view(t.shape)
            v.copy_(t)
            args[i], views[i] = v, t
            off += n
        fn(*args)
        out = staged[0]
        if out in views:
            views[out].copy_(args[out])


def _forget_staging():
    _Staging.buf = None  # the heap goes with finalize


_runtime.finalize_hooks.append(_forget_staging)


def release_staging():
    """Free the staging buffer (collective), if any."""
    from ._tensors import free
    if _Staging.buf is not None:
        free(_Staging.buf)
        _Staging.buf = None


def _is_sym(t):
    from ._tensors import is_symmetric
    return t.is_contiguous() and is_symmetric(t)


@torch.library.custom_op("gshmem::all_reduce", mutates_args=("out",), device_types="cuda")
def _op_all_reduce(out: torch.Tensor, inp: Optional[torch.Tensor], op: str, team: int) -> None:
    _Staging.run("gshmem.torch.all_reduce", all_reduce_impl, (out, inp, op, team), (0, 1))


@torch.library.custom_op("gshmem::reduce_scatter", mutates_args=("out",), device_types="cuda")
def _op_reduce_scatter(out: torch.Tensor, inp: torch.Tensor, op: str, team: int) -> None:
    _Staging.run("gshmem.torch.reduce_scatter", reduce_scatter_impl, (out, inp, op, team), (0, 1))


@torch.library.custom_op("gshmem::all_gather", mutates_args=("out",), device_types="cuda")
def _op_all_gather(out: torch.Tensor, inp: torch.Tensor, team: int, sync: bool) -> None:
    _Staging.run("gshmem.torch.all_gather", all_gather_impl, (out, inp, team, sync), (0,))


@torch.library.custom_op("gshmem::all_to_all", mutates_args=("out",), device_types="cuda")
def _op_all_to_all(out: torch.Tensor, inp: torch.Tensor, team: int, sync: bool) -> None:
    _Staging.run("gshmem.torch.all_to_all", all_to_all_impl, (out, inp, team, sync), (0,))


@torch.library.custom_op("gshmem::broadcast", mutates_args=("t",), device_types="cuda")
def _op_broadcast(t: torch.Tensor, root: int, team: int, sync: bool) -> None:
    _Staging.run("gshmem.torch.broadcast", broadcast_impl, (t, root, team, sync), (0,))


# Fake (meta) implementations: the ops only write into their mutated argument, whose shape and
# dtype are given, so tracing needs no output; the shape rules are checked at run time.
for _op in (_op_all_reduce, _op_reduce_scatter, _op_all_gather, _op_all_to_all, _op_broadcast):
    _op.register_fake(lambda *args, **kwargs: None)


def _compiling():
    return torch.compiler.is_compiling()


# ---- the Python API ------------------------------------------------------------------------------

def all_reduce(t, op="sum", *, out=None, team=None):
    """Reduce `t` over the team's PEs into `out` (default: in place into `t`) with `op` ('sum',
    'min', 'max', 'prod'; 'and'/'or'/'xor' for integers) on the current stream. Both symmetric.
    The result is bitwise identical on every PE. Returns the result tensor."""
    dst, src = (t, None) if out is None else (out, t)
    if _compiling():
        torch.ops.gshmem.all_reduce(dst, src, op, team_handle(team))
    else:
        all_reduce_impl(dst, src, op, team_handle(team))
    return dst


def reduce_scatter(out, inp, op="sum", *, team=None):
    """PE i's `out` = the reduction over PEs of chunk i of `inp` (n_pes chunks of out.numel())."""
    (torch.ops.gshmem.reduce_scatter if _compiling() else reduce_scatter_impl)(out, inp, op, team_handle(team))
    return out


def all_gather(out, inp, *, team=None, sync=True):
    """`out` (symmetric) = every PE's `inp` in PE order (all_gather_into_tensor); any dtype."""
    (torch.ops.gshmem.all_gather if _compiling() else all_gather_impl)(out, inp, team_handle(team), sync)
    return out


def all_to_all(out, inp, *, team=None, sync=True):
    """Chunk j of `inp` on PE i lands as chunk i of `out` on PE j (n_pes equal chunks;
    all_to_all_single without splits). `out` symmetric; any dtype."""
    (torch.ops.gshmem.all_to_all if _compiling() else all_to_all_impl)(out, inp, team_handle(team), sync)
    return out


def broadcast(t, root=0, *, team=None, sync=True):
    """Team PE `root`'s `t` (symmetric) into `t` on every PE."""
    (torch.ops.gshmem.broadcast if _compiling() else broadcast_impl)(t, int(root), team_handle(team), sync)
    return t
