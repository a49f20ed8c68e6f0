# SPDX-License-Identifier: BSD-3-Clause
"""Symmetric tensors: torch tensors over gshmem's symmetric heap, of every torch dtype (the raw
bytes viewed as the dtype, so bfloat16 and the float8 types need nothing NumPy lacks)."""
import bisect
import math

import torch

from .. import dtypes as _dtypes
from .. import runtime as _runtime
from .._lib import capi
from ..errors import InvalidValueError, NotSymmetricError, PeerNotAccessibleError
from ..memory import SymmetricBuffer

# The live buffers made here, by base address, and their sorted bases, so that any address
# inside one (a view, a slice) finds its buffer (bisect: O(log n) per collective call).
_buffers = {}
_starts = []


def _forget_all():
    # gshmem.finalize: the heap goes away; the buffers are invalid without a (collective) free.
    for buf in _buffers.values():
        buf.ptr = None
    _buffers.clear()
    _starts.clear()


_runtime.finalize_hooks.append(_forget_all)


def _addr(t):
    # A tensor without elements has no data_ptr (0); its storage still starts at its buffer.
    return t.data_ptr() if t.numel() else t.untyped_storage().data_ptr() + t.storage_offset() * t.element_size()


def buffer_of(addr):
    """The live SymmetricBuffer holding address `addr`, or None."""
    i = bisect.bisect_right(_starts, addr) - 1
    if i >= 0:
        buf = _buffers[_starts[i]]
        if addr < buf.ptr + buf.nbytes:
            return buf
    return None


def describe(t):
    return f"{str(t.dtype).removeprefix('torch.')}{list(t.shape)} on {t.device} at 0x{t.data_ptr():x}"


def require_symmetric(call, arg, t):
    """`t`'s buffer; NotSymmetricError unless all of `t` lies in one symmetric tensor made here."""
    # Fast path (every collective call checks its operands): `t` starts a buffer.
    buf = _buffers.get(t.data_ptr()) if isinstance(t, torch.Tensor) else None
    if buf is not None and t.numel() * t.element_size() <= buf.nbytes:
        return buf
    if not isinstance(t, torch.Tensor):
        raise InvalidValueError(call, f"`{arg}` must be a torch.Tensor, got {type(t).__name__}")
    buf = buffer_of(_addr(t))
    if buf is None or _addr(t) + t.numel() * t.element_size() > buf.ptr + buf.nbytes:
        raise NotSymmetricError(call, f"`{arg}` ({describe(t)}) is not in the symmetric heap; allocate it with "
                                "gshmem.torch.empty/zeros (every PE the same shape and dtype)")
    return buf


def _from_address(ptr, nbytes, device):
    """A uint8 tensor of `nbytes` at GPU address `ptr` that does not own the memory."""
    make = getattr(torch._C, "_construct_storage_from_data_pointer", None)
    if make is not None:
        storage = make(ptr, device, nbytes)
        return torch.empty(0, dtype=torch.uint8, device=device).set_(storage, 0, (nbytes,), (1,))
    # Older torch: through __cuda_array_interface__ (needs NumPy to read the type string).
    from ..memory import _View
    return torch.as_tensor(_View(None, ptr, nbytes, "uint8", (nbytes,)), device=device)


def _shape(shape):
    if len(shape) == 1 and not isinstance(shape[0], int):
        shape = tuple(shape[0])
    return tuple(int(s) for s in shape)


def _alloc(call, shape, dtype, device, zero):
    shape = _shape(shape)
    if any(s < 0 for s in shape):
        raise InvalidValueError(call, f"negative dimension in shape {shape}")
    d = _dtypes.resolve(dtype)
    nbytes = math.prod(shape) * d.itemsize
    # 256-byte alignment: every dtype's views and vectorised kernels are aligned.
    buf = SymmetricBuffer(max(nbytes, 1), align=256)
    dev = torch.device("cuda", torch.cuda.current_device()) if device is None else torch.device(device)
    raw = _from_address(buf.ptr, buf.nbytes, dev)
    if zero:
        raw.zero_()  # as bytes: float4 and complex32 tensors have no fill kernel
    t = raw[:nbytes].view(dtype).view(shape)
    _buffers[buf.ptr] = buf
    bisect.insort(_starts, buf.ptr)
    return t


def empty(*shape, dtype=torch.float32, device=None):
    """A tensor of `shape` and `dtype` (every torch dtype but the quantized ones) in symmetric
    memory on this PE's GPU. Collective: every PE calls with the same shape and dtype, in the
    same order; a mismatch fails on every PE (AllocationMismatchError), never hangs. Release it
    with gshmem.torch.free(t) (collective); until then it stays allocated."""
    return _alloc("gshmem.torch.empty", shape, dtype, device, False)


def zeros(*shape, dtype=torch.float32, device=None):
    """empty(), zeroed on the current stream (collective)."""
    return _alloc("gshmem.torch.zeros", shape, dtype, device, True)


def empty_like(t):
    return empty(t.shape, dtype=t.dtype, device=t.device)


def zeros_like(t):
    return zeros(t.shape, dtype=t.dtype, device=t.device)


def is_symmetric(t):
    """Whether all of tensor `t` lies in a live symmetric tensor made by empty/zeros."""
    buf = buffer_of(_addr(t))
    return buf is not None and _addr(t) + t.numel() * t.element_size() <= buf.ptr + buf.nbytes


def free(t):
    """Release a tensor made by empty/zeros (collective: every PE frees the same tensors in the
    same order). Waits for this GPU's work first. When the PEs disagree, nothing is freed and
    every PE raises AllocationMismatchError. `t` and its views must not be used afterwards."""
    buf = _buffers.get(_addr(t)) if t.storage_offset() == 0 else None
    if buf is None:
        raise NotSymmetricError("gshmem.torch.free", f"`t` ({describe(t)}) is not a tensor returned by "
                                "gshmem.torch.empty/zeros (pass the tensor itself, not a view into it)")
    ptr = buf.ptr
    buf.free()  # raises on a mismatch, the buffer still live on every PE
    del _buffers[ptr]
    _starts.remove(ptr)


def peer(t, pe):
    """PE `pe`'s copy of symmetric tensor `t` (same shape, strides and dtype), mapped into this
    process over NVLink: loads and stores reach PE `pe`'s memory. PeerNotAccessibleError when
    that PE's memory is not mapped here (another node)."""
    buf = require_symmetric("gshmem.torch.peer", "t", t)
    base = capi().gshmem_ptr(buf.ptr, int(pe))
    if not base:
        n = _runtime.n_pes()
        why = f"PE {pe} is not a PE (0..{n - 1})" if not 0 <= pe < n else \
            f"PE {pe}'s memory cannot be mapped into this PE (another node?); use put/get"
        raise PeerNotAccessibleError("gshmem.torch.peer", why)
    raw = _from_address(base, buf.nbytes, t.device)
    itemsize = t.element_size()
    off = _addr(t) - buf.ptr
    typed = raw.view(t.dtype) if buf.nbytes % itemsize == 0 else raw[:buf.nbytes - buf.nbytes % itemsize].view(t.dtype)
    return typed.as_strided(t.shape, t.stride(), off // itemsize)
