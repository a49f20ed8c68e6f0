# SPDX-License-Identifier: BSD-3-Clause
"""Finding and loading libgshmem.so, and calling it.

The library is loaded on the first call that needs it, not at `import gshmem`, so that the
package imports on any machine (no GPU, no driver, a source checkout without a build) and the
first real call says what is missing. libgshmem links the CUDA runtime statically and fetches
the driver at run time, so loading it never needs a GPU.

Functions are bound on first use from the generated PROTOTYPES (_capi.py): setting argtypes
and restype for ~2,000 names at import would cost milliseconds that most programs never use.
ctypes releases the GIL for the duration of each call."""
import ctypes
import os
import pathlib
import threading

from . import _capi
from .errors import GshmemError, LibraryNotFoundError, NotInitializedError, from_status

_HERE = pathlib.Path(__file__).resolve().parent


def library_path():
    """Where libgshmem.so is: $GSHMEM_LIBRARY if set, else the copy inside the installed
    package (gshmem/lib/, where the wheel puts it)."""
    env = os.environ.get("GSHMEM_LIBRARY")
    if env:
        return pathlib.Path(env)
    return _HERE / "lib" / "libgshmem.so"


class _CApi:
    """Attribute access gives the C function with its prototype set: capi().gshmem_my_pe()."""

    def __init__(self, cdll, path):
        self._cdll, self._path = cdll, path

    def __getattr__(self, name):
        try:
            restype, argtypes = _capi.PROTOTYPES[name]
        except KeyError:
            raise AttributeError(f"gshmem: {name} is not a C name of gshmem's API") from None
        try:
            fn = getattr(self._cdll, name)
        except AttributeError:
            raise LibraryNotFoundError(
                name, f"the library {self._path} has no symbol {name}: it is older than this Python "
                "package; rebuild and reinstall them together (pip install ./python), or point "
                "GSHMEM_LIBRARY at a matching build") from None
        fn.restype, fn.argtypes = restype, argtypes
        setattr(self, name, fn)  # later lookups skip __getattr__
        return fn


_lock = threading.Lock()
_api = None


def capi():
    """The bound C API, loading the library on first use (LibraryNotFoundError if it can't)."""
    global _api
    if _api is None:
        with _lock:
            if _api is None:
                path = library_path()
                if not path.exists():
                    raise LibraryNotFoundError(
                        "gshmem", f"libgshmem.so not found at {path}. Install the package with "
                        "`pip install ./python` (it builds the library), or set GSHMEM_LIBRARY to "
                        "a built build/<preset>/lib/libgshmem.so")
                try:
                    cdll = ctypes.CDLL(str(path))
                except OSError as e:
                    raise LibraryNotFoundError("gshmem", f"cannot load {path}: {e}") from None
                _api = _CApi(cdll, path)
    return _api


# The C library keeps the last error each thread logged (gshmemx_take_error); each Python
# thread takes its own into its own buffer.
_tls = threading.local()
_MESSAGE_BYTES = 2048


def take_error():
    """(count, message) of the errors this thread's C calls logged since the last take."""
    buf = getattr(_tls, "buf", None)
    if buf is None:
        buf = _tls.buf = ctypes.create_string_buffer(_MESSAGE_BYTES)
    n = capi().gshmemx_take_error(buf, _MESSAGE_BYTES)
    return n, (buf.value.decode(errors="replace") if n else "")


def check_status(call, status):
    """Raise the status's exception, with the library's message, unless status is 0."""
    n, message = take_error()
    if status != 0:
        raise from_status(call, status, message or capi().gshmemx_status_string(status).decode())


def check_logged(call):
    """After a C call that returns no status: raise if it logged an error."""
    n, message = take_error()
    if n:
        # These calls return no status; the library words this one case so (runtime.h).
        raise (NotInitializedError if "is not initialized" in message else GshmemError)(call, message)
