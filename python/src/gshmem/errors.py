# SPDX-License-Identifier: BSD-3-Clause
"""Exceptions: one class per status code of gshmem/types.h, plus the checks made in Python.

Every message names the Python call, then carries the C library's own message (which names the
C call, the PE, the cause and the fix), then the status code's name."""
from . import _capi


class GshmemError(RuntimeError):
    """A gshmem call failed. `call`: the Python call; `status`: the C status code (None when
    the C call returns none, as the void calls and the allocations); `message`: the library's
    message, or the Python check's."""

    def __init__(self, call, message, status=None):
        self.call, self.message, self.status = call, message, status
        name = status_name(status) if status is not None else None
        super().__init__(f"{call}: {message}" + (f" [{name}]" if name else ""))


class InvalidValueError(GshmemError, ValueError):
    pass


class NotInitializedError(GshmemError):
    pass


class OutOfMemoryError(GshmemError, MemoryError):
    pass


class CudaError(GshmemError):
    pass


class NoGpuError(CudaError):
    """gshmem.init() found no GPU (or no driver) for this process."""


class BootstrapError(GshmemError):
    pass


class PeerFailureError(GshmemError):
    pass


class GshmemTimeoutError(GshmemError, TimeoutError):
    pass


class UnsupportedError(GshmemError):
    pass


class SystemCallError(GshmemError, OSError):
    pass


class MismatchError(GshmemError):
    """The PEs passed different arguments to a collective call."""


class AllocationMismatchError(MismatchError):
    """A collective allocation or free differed between PEs; it failed on every PE."""


class LaunchError(GshmemError):
    pass


class AuthError(GshmemError):
    pass


class InternalError(GshmemError):
    pass


class AbortedError(GshmemError):
    """gshmemx_abort was called on this PE: finalize, then init again."""


class AllocationError(GshmemError):
    """An allocation returned NULL for a reason other than the heap or a mismatch."""


class LibraryNotFoundError(GshmemError):
    """libgshmem.so could not be found or loaded."""


class NotSymmetricError(GshmemError, ValueError):
    """An address that must be in the symmetric heap is not."""


class PeerNotAccessibleError(GshmemError):
    """A peer's memory cannot be mapped into this process (not on this node)."""


# Status code -> class. tests/test_errors.py checks every GSHMEM_ERROR_* has one.
BY_STATUS = {
    _capi.GSHMEM_ERROR_INVALID_VALUE: InvalidValueError,
    _capi.GSHMEM_ERROR_NOT_INITIALIZED: NotInitializedError,
    _capi.GSHMEM_ERROR_OUT_OF_MEMORY: OutOfMemoryError,
    _capi.GSHMEM_ERROR_CUDA: CudaError,
    _capi.GSHMEM_ERROR_BOOTSTRAP: BootstrapError,
    _capi.GSHMEM_ERROR_PEER_FAILURE: PeerFailureError,
    _capi.GSHMEM_ERROR_TIMEOUT: GshmemTimeoutError,
    _capi.GSHMEM_ERROR_UNSUPPORTED: UnsupportedError,
    _capi.GSHMEM_ERROR_SYSTEM: SystemCallError,
    _capi.GSHMEM_ERROR_MISMATCH: MismatchError,
    _capi.GSHMEM_ERROR_LAUNCH: LaunchError,
    _capi.GSHMEM_ERROR_AUTH: AuthError,
    _capi.GSHMEM_ERROR_INTERNAL: InternalError,
    _capi.GSHMEM_ERROR_ABORTED: AbortedError,
}

_STATUS_NAMES = {v: k for k, v in vars(_capi).items()
                 if k == "GSHMEM_SUCCESS" or k.startswith("GSHMEM_ERROR_")}


def status_name(status):
    """'GSHMEM_ERROR_CUDA' for 4; 'status 99' for a code this package does not know."""
    return _STATUS_NAMES.get(status, f"status {status}")


def from_status(call, status, message):
    """The exception for a failed C status. A CUDA failure of start-up whose message says no
    GPU is visible is a NoGpuError (src/host/init/init.cpp words it so), so that programs can
    tell a machine without GPUs from a broken one."""
    cls = BY_STATUS.get(status, GshmemError)
    if cls is CudaError and "no CUDA GPU" in message:
        cls = NoGpuError
    return cls(call, message, status)
