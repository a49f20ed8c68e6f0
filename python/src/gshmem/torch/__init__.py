# SPDX-License-Identifier: BSD-3-Clause
"""gshmem for PyTorch (imported on first use: `gshmem.torch` or `import gshmem.torch`; `import
gshmem` alone never imports torch).

    import torch, torch.distributed as dist, gshmem.torch as gt
    dist.init_process_group("nccl")            # torchrun --nproc-per-node N app.py
    gt.init()                                   # unique id through the group's store; GPU = LOCAL_RANK
    x = gt.zeros(4096, dtype=torch.bfloat16)    # symmetric tensor (collective)
    gt.all_reduce(x)                            # on the current stream; torch.ops.gshmem.* under compile
    y = gt.peer(x, (gt.my_pe() + 1) % gt.n_pes())  # the next PE's x, over NVLink
    gt.free(x); gt.finalize()

Everything that takes a stream uses the current torch stream by default."""
try:
    import torch as _torch
except ImportError as e:  # pragma: no cover - depends on the environment
    raise ImportError("gshmem.torch needs PyTorch (pip install torch); the rest of gshmem works without it") from e

from .. import dtypes as _dtypes
from .. import rma as _rma
from ..errors import InvalidValueError
from ..runtime import finalize, is_initialized, my_pe, n_pes
from ..teams import NODE, SHARED, WORLD, Team
from ._a2av import all_to_all_v, release_workspaces
from ._ext import extension_kwargs, load_inline
from ._coll import all_gather, all_reduce, all_to_all, broadcast, reduce_scatter
from ._startup import exchange_unique_id, init, select_device
from ._tensors import empty, empty_like, free, is_symmetric, peer, zeros, zeros_like


def dtype_of(dtype):
    """gshmem's DType of a torch.dtype (every dtype but the quantized ones)."""
    return _dtypes.resolve(dtype)


def _stream(stream):
    return _torch.cuda.current_stream() if stream is None else stream


def put(dst, src, pe, *, signal=None, signal_value=1, signal_op="set", nbi=False, stream=None):
    """Copy tensor `src` (this PE's) into symmetric `dst` on PE `pe`, ordered on the current
    torch stream (or `stream`); with `signal` (a symmetric uint64 tensor element), update it on
    PE `pe` by `signal_op` ('set'/'add') with `signal_value` once the data is visible there."""
    if dst.dtype != src.dtype:
        raise InvalidValueError("gshmem.torch.put", f"dtypes differ: dst {dst.dtype}, src {src.dtype}")
    _rma.put(dst, src, pe, signal=signal, signal_value=signal_value, signal_op=signal_op, nbi=nbi,
             stream=_stream(stream))


def get(dst, src, pe, *, nbi=False, stream=None):
    """Copy symmetric `src` of PE `pe` into tensor `dst` (this PE's), on the current stream."""
    if dst.dtype != src.dtype:
        raise InvalidValueError("gshmem.torch.get", f"dtypes differ: dst {dst.dtype}, src {src.dtype}")
    _rma.get(dst, src, pe, nbi=nbi, stream=_stream(stream))


def signal_op(signal, value, pe, *, op="set", stream=None):
    _rma.signal_op(signal, value, pe, op=op, stream=_stream(stream))


def signal_wait(sig, cmp, value, *, stream=None):
    """Later work on the current stream waits until this PE's uint64 `sig` compares to `value`
    by `cmp` ('==', '>=', ...; 'eq', 'ge', ...). The host does not wait."""
    _rma.signal_wait(sig, cmp, value, stream=_stream(stream))


def quiet(*, stream=None):
    _rma.quiet(stream=_stream(stream))


def barrier(team=None, *, stream=None):
    """Barrier over `team` (default WORLD) on the current stream: every PE's earlier operations
    on its stream are complete and visible before any PE's later work on its stream runs."""
    _rma.barrier(team, stream=_stream(stream))


def sync(team=None, *, stream=None):
    """Every PE of `team` has reached this point of its stream (no completion of puts)."""
    (team or WORLD).sync(stream=_stream(stream))


__all__ = [
    "init", "finalize", "is_initialized", "my_pe", "n_pes", "select_device", "exchange_unique_id",
    "empty", "zeros", "empty_like", "zeros_like", "free", "is_symmetric", "peer", "dtype_of",
    "put", "get", "signal_op", "signal_wait", "quiet", "barrier", "sync",
    "all_reduce", "reduce_scatter", "all_gather", "all_to_all", "all_to_all_v", "broadcast", "release_workspaces",
    "Team", "WORLD", "SHARED", "NODE", "load_inline", "extension_kwargs",
]
