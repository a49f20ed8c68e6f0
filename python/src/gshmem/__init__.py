# SPDX-License-Identifier: BSD-3-Clause
"""gshmem: GPU-side OpenSHMEM from Python.

    import gshmem
    gshmem.init()                          # rank/size from gshmrun, torchrun, mpirun, srun
    buf = gshmem.malloc(1 << 20)           # symmetric: same offset on every PE
    gshmem.put(buf, buf, (gshmem.my_pe() + 1) % gshmem.n_pes(), stream=s)
    gshmem.barrier_all()
    buf.free(); gshmem.finalize()

`import gshmem` needs no GPU and loads nothing; the library (libgshmem.so, inside the package)
is loaded by the first call. gshmem.capi() is the whole C API through ctypes, prototypes
generated from the same tables as the C names. PyTorch: gshmem.torch (imported on first use)."""
import importlib as _importlib
import os as _os
import pathlib as _pathlib

from . import dtypes
from ._lib import capi, library_path
from .errors import (AbortedError, AllocationError, AllocationMismatchError, AuthError, BootstrapError, CudaError,
                     GshmemError, GshmemTimeoutError, InternalError, InvalidValueError, LaunchError,
                     LibraryNotFoundError, MismatchError, NoGpuError, NotInitializedError, NotSymmetricError,
                     OutOfMemoryError, PeerFailureError, PeerNotAccessibleError, SystemCallError, UnsupportedError)
from .memory import SymmetricBuffer, calloc, free, malloc
from .rma import barrier, barrier_all, fence, get, put, quiet, signal_fetch, signal_op, signal_wait, sync_all
from .runtime import (UniqueId, finalize, get_unique_id, init, is_initialized, my_pe, n_pes, pe_accessible, session,
                      spec_version, version)
from .teams import NODE, SHARED, WORLD, Team

_PKG = _pathlib.Path(__file__).resolve().parent


def get_include():
    """The directory to add to the include path for `#include <gshmem/gshmem.h>` (kernels built
    with torch.utils.cpp_extension, nvcc, CMake): the package's include/ when installed; in a
    source checkout, the tree's include/ (gshmem/version.h is then in the build's include/)."""
    installed = _PKG / "include"
    if (installed / "gshmem" / "gshmem.h").exists():
        return str(installed)
    return str(_PKG.parent.parent.parent / "include")


def include_dirs():
    """Every directory a kernel that includes <gshmem/gshmem.h> needs: get_include(), and in a
    source checkout the build's generated include/ (gshmem/version.h) beside the library that
    GSHMEM_LIBRARY names, or $GSHMEM_INCLUDE_DIR."""
    dirs = [get_include()]
    if not (_pathlib.Path(dirs[0]) / "gshmem" / "version.h").exists():
        for extra in (_os.environ.get("GSHMEM_INCLUDE_DIR"), str(library_path().resolve().parent.parent / "include")):
            if extra and (_pathlib.Path(extra) / "gshmem" / "version.h").exists():
                dirs.append(extra)
                break
    return dirs


def get_library_dir():
    """The directory holding libgshmem.so (for -L and the run-time path)."""
    return str(library_path().parent)


def cmake_prefix_path():
    """For find_package(gshmem): pass as CMAKE_PREFIX_PATH (the installed package only)."""
    return str(_PKG)


def __getattr__(name):
    # gshmem.torch and gshmem.triton on first use, so that `import gshmem` never imports them.
    if name in ("torch", "triton"):
        return _importlib.import_module("." + name, __name__)
    raise AttributeError(f"module 'gshmem' has no attribute {name!r}")


__all__ = [
    "init", "finalize", "session", "is_initialized", "my_pe", "n_pes", "pe_accessible", "version", "spec_version",
    "UniqueId", "get_unique_id", "Team", "WORLD", "SHARED", "NODE", "SymmetricBuffer", "malloc", "calloc", "free",
    "put", "get", "signal_op", "signal_fetch", "signal_wait", "quiet", "fence", "barrier", "barrier_all",
    "sync_all", "dtypes", "capi", "get_include", "include_dirs", "get_library_dir", "cmake_prefix_path", "GshmemError",
    "InvalidValueError", "NotInitializedError", "OutOfMemoryError", "CudaError", "NoGpuError", "BootstrapError",
    "PeerFailureError", "GshmemTimeoutError", "UnsupportedError", "SystemCallError", "MismatchError",
    "AllocationMismatchError", "LaunchError", "AuthError", "InternalError", "AbortedError", "AllocationError",
    "LibraryNotFoundError", "NotSymmetricError", "PeerNotAccessibleError",
]
