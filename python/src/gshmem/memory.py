# SPDX-License-Identifier: BSD-3-Clause
"""Symmetric buffers: GPU memory at the same heap offset on every PE, exposed through
__cuda_array_interface__ (version 3) so that CuPy, Numba and torch (torch.as_tensor) use it
without a copy."""
import traceback
import warnings

from . import dtypes as _dtypes
from ._lib import capi, take_error
from .errors import (AllocationError, AllocationMismatchError, InvalidValueError, NotInitializedError,
                     OutOfMemoryError, PeerNotAccessibleError)


def _cai(ptr, nbytes, dtype, shape, readonly=False):
    d = _dtypes.resolve(dtype)
    if shape is None:
        if nbytes % d.itemsize:
            raise InvalidValueError("gshmem buffer view", f"{nbytes} bytes are not a whole number of {d.name}")
        shape = (nbytes // d.itemsize,)
    # No "stream" key: gshmem orders nothing on a consumer's stream, so consumers need not sync.
    return {"shape": tuple(shape), "typestr": d.typestr, "data": (ptr, readonly), "version": 3,
            "strides": None}


class _View:
    """A typed, shaped view of GPU memory (its owner kept alive) with __cuda_array_interface__."""

    __slots__ = ("owner", "ptr", "nbytes", "dtype", "shape")

    def __init__(self, owner, ptr, nbytes, dtype, shape):
        self.owner, self.ptr, self.nbytes, self.dtype, self.shape = owner, ptr, nbytes, _dtypes.resolve(dtype), shape

    @property
    def __cuda_array_interface__(self):
        return _cai(self.ptr, self.nbytes, self.dtype, self.shape)

    def __int__(self):
        return self.ptr


class SymmetricBuffer:
    """`nbytes` of symmetric memory (gshmem_malloc / gshmem_align / gshmem_calloc). Collective:
    every PE creates its buffers in the same order with the same sizes; otherwise the call fails
    on every PE (AllocationMismatchError) instead of hanging. Release it with free() (also
    collective) or a `with` block; one collected without free() warns (ResourceWarning) and its
    memory stays allocated until gshmem.finalize(), because freeing is collective."""

    def __init__(self, nbytes, *, align=None, zero=False):
        nbytes = int(nbytes)
        if nbytes <= 0:
            raise InvalidValueError("gshmem.SymmetricBuffer", f"nbytes must be positive, got {nbytes}")
        api = capi()
        self.ptr = None
        if not api.gshmemx_initialized():
            raise NotInitializedError("gshmem.SymmetricBuffer", "gshmem is not initialized; call gshmem.init() first")
        take_error()  # forget errors older than this call
        if align is not None:
            ptr = api.gshmem_align(int(align), nbytes)
        elif zero:
            ptr = api.gshmem_calloc(1, nbytes)
        else:
            ptr = api.gshmem_malloc(nbytes)
        if not ptr:
            _, message = take_error()
            # The classes follow the messages of src/host/mem/symmetric.cpp.
            cls = (AllocationMismatchError if "different calls" in message
                   else OutOfMemoryError if "heap exhausted" in message else AllocationError)
            raise cls("gshmem.SymmetricBuffer", message or "allocation returned NULL")
        self.ptr, self.nbytes = ptr, nbytes
        self._site = "".join(traceback.format_stack(limit=4)[:-1])

    @property
    def __cuda_array_interface__(self):
        self._check_live("__cuda_array_interface__")
        return _cai(self.ptr, self.nbytes, "uint8", None)

    def __int__(self):
        self._check_live("int")
        return self.ptr

    def __repr__(self):
        state = f"at 0x{self.ptr:x}" if self.ptr else "freed"
        return f"gshmem.SymmetricBuffer({getattr(self, 'nbytes', 0)} bytes {state})"

    def view(self, dtype, shape=None):
        """This buffer as `dtype` (a name, torch or NumPy dtype) of `shape` (default: 1-D)."""
        self._check_live("view")
        return _View(self, self.ptr, self.nbytes, dtype, shape)

    def peer(self, pe, dtype="uint8", shape=None):
        """PE `pe`'s copy of this buffer, mapped into this process (NVLink or PCIe loads and
        stores): PeerNotAccessibleError when `pe` is not reachable so."""
        self._check_live("peer")
        p = capi().gshmem_ptr(self.ptr, int(pe))
        if not p:
            raise PeerNotAccessibleError("gshmem.SymmetricBuffer.peer",
                                         f"PE {pe}'s memory cannot be mapped into this PE (another node?); "
                                         "use put/get instead")
        return _View(self, p, self.nbytes, dtype, shape)

    def free(self):
        """Release the buffer (collective, in the same order on every PE); waits for this GPU's
        outstanding work first."""
        self._check_live("free")
        take_error()
        capi().gshmem_free(self.ptr)
        n, message = take_error()
        if n:
            # The library agrees on every free first (src/host/mem/symmetric.cpp): when the PEs
            # freed different blocks, or in another order, nothing is freed on any PE and every
            # PE gets this error. The buffer stays live, so that the program may free it right.
            cls = AllocationMismatchError if "different calls" in message else AllocationError
            raise cls("gshmem.SymmetricBuffer.free", message)
        self.ptr = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.ptr:
            self.free()

    def __del__(self):
        if getattr(self, "ptr", None) and warnings is not None:  # None late in interpreter shutdown
            warnings.warn(f"gshmem.SymmetricBuffer of {self.nbytes} bytes was never freed; its memory stays "
                          "allocated until gshmem.finalize() (free is collective). Allocated at:\n"
                          f"{self._site}", ResourceWarning, stacklevel=2)

    def _check_live(self, what):
        if not self.ptr:
            raise InvalidValueError(f"gshmem.SymmetricBuffer.{what}", "the buffer was freed")


def malloc(nbytes, *, align=None):
    """A SymmetricBuffer of `nbytes` (collective)."""
    return SymmetricBuffer(nbytes, align=align)


def calloc(nbytes):
    """A zeroed SymmetricBuffer of `nbytes` (collective)."""
    return SymmetricBuffer(nbytes, zero=True)


def free(buf):
    """buf.free() (collective)."""
    buf.free()
