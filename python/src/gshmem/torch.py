# SPDX-License-Identifier: BSD-3-Clause
"""gshmem for PyTorch: symmetric tensors, and the host and on-stream calls on the current torch
stream. Imported on first use (`gshmem.torch` or `import gshmem.torch`); `import gshmem` alone
never imports torch.

Scaffolding: written against torch's documented interfaces but not yet run (the CI machine has
no torch; the GPU runs test it). Collectives as torch.library custom ops, peer tensors of
every dtype and the store-based start-up come next (issue 54)."""
try:
    import torch as _torch
except ImportError as e:  # pragma: no cover - depends on the environment
    raise ImportError("gshmem.torch needs PyTorch (pip install torch); the rest of gshmem works without it") from e

from . import dtypes as _dtypes
from . import rma as _rma
from .errors import InvalidValueError, NotSymmetricError
from .memory import SymmetricBuffer

# data_ptr -> SymmetricBuffer of the tensors made by empty/zeros, so that free() and
# is_symmetric() find a tensor's buffer (views of it share the base's data_ptr range).
_buffers = {}


def dtype_of(dtype):
    """gshmem's DType of a torch.dtype (every dtype but the quantized ones)."""
    return _dtypes.resolve(dtype)


def empty(shape, dtype=_torch.float32):
    """A tensor of `shape` and `dtype` in symmetric memory on this PE's GPU (collective: every PE
    calls with the same shape and dtype). Release it with gshmem.torch.free (collective)."""
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    d = dtype_of(dtype)
    n = d.itemsize
    for s in shape:
        n *= s
    buf = SymmetricBuffer(max(n, 1))
    # As uint8 through __cuda_array_interface__ (whose NumPy types lack bfloat16 and float8),
    # then viewed as `dtype`; the tensor keeps `buf` alive.
    raw = _torch.as_tensor(buf, device="cuda")
    t = raw[:n].view(dtype).view(shape)
    _buffers[buf.ptr] = buf
    return t


def zeros(shape, dtype=_torch.float32):
    t = empty(shape, dtype)
    t.zero_()
    return t


def _buffer_of(call, t):
    buf = _buffers.get(t.data_ptr())
    if buf is None:
        raise NotSymmetricError(call, f"`t` ({t.dtype}{list(t.shape)} at 0x{t.data_ptr():x}) is not a tensor "
                                "made by gshmem.torch.empty/zeros (or not its whole base)")
    return buf


def is_symmetric(t):
    return t.data_ptr() in _buffers


def free(t):
    """Release a tensor made by empty/zeros (collective). The tensor must not be used after."""
    buf = _buffer_of("gshmem.torch.free", t)
    del _buffers[buf.ptr]
    buf.free()


def peer(t, pe):
    """PE `pe`'s copy of symmetric tensor `t`, as a tensor mapped over NVLink."""
    buf = _buffer_of("gshmem.torch.peer", t)
    view = buf.peer(pe)
    return _torch.as_tensor(view, device="cuda")[:t.numel() * t.element_size()].view(t.dtype).view(t.shape)


def _stream(stream):
    return _torch.cuda.current_stream() if stream is None else stream


def put(dst, src, pe, *, signal=None, signal_value=1, signal_op="set", stream=None):
    """gshmem.put on the current torch stream (or `stream`)."""
    if dst.dtype != src.dtype:
        raise InvalidValueError("gshmem.torch.put", f"dtypes differ: dst {dst.dtype}, src {src.dtype}")
    _rma.put(dst, src, pe, signal=signal, signal_value=signal_value, signal_op=signal_op, stream=_stream(stream))


def get(dst, src, pe, *, stream=None):
    """gshmem.get on the current torch stream (or `stream`)."""
    _rma.get(dst, src, pe, stream=_stream(stream))


def signal_wait(sig, cmp, value, *, stream=None):
    _rma.signal_wait(sig, cmp, value, stream=_stream(stream))


def barrier(team=None, *, stream=None):
    _rma.barrier(team, stream=_stream(stream))
