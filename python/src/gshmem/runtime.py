# SPDX-License-Identifier: BSD-3-Clause
"""Start-up and teardown, and this PE's place in the job."""
import contextlib
import ctypes

from . import _capi
from ._lib import capi, check_status
from .errors import InvalidValueError, NotInitializedError


class UniqueId:
    """The rendezvous id of a job (GSHMEMX_UNIQUEID_BYTES bytes): made by one process with
    get_unique_id(), handed to every process by the program (a torch store, a file, MPI), and
    passed to init(uid=..., rank=..., world_size=...). It holds the rendezvous address and the
    job's secret: treat it as a credential."""

    __slots__ = ("_raw",)

    def __init__(self, raw):
        raw = bytes(raw)
        if len(raw) != _capi.GSHMEMX_UNIQUEID_BYTES:
            raise InvalidValueError("gshmem.UniqueId", f"{len(raw)} bytes; a unique id has "
                                    f"{_capi.GSHMEMX_UNIQUEID_BYTES}")
        self._raw = raw

    def __bytes__(self):
        return self._raw

    def __eq__(self, other):
        return isinstance(other, UniqueId) and other._raw == self._raw

    def __hash__(self):
        return hash(self._raw)

    def __repr__(self):
        return "gshmem.UniqueId(<secret>)"


class _InitAttr(ctypes.Structure):
    # gshmemx_init_attr_t of gshmem/types.h, field for field (filled by
    # gshmemx_set_attr_uniqueid_args; version first, so a mismatch is refused by the library).
    _fields_ = [("version", ctypes.c_int), ("rank", ctypes.c_int), ("nranks", ctypes.c_int),
                ("uniqueid", ctypes.c_char * _capi.GSHMEMX_UNIQUEID_BYTES), ("mpi_comm", ctypes.c_void_p),
                ("reserved", ctypes.c_char * 64)]


def get_unique_id():
    """A new UniqueId (call on one process, usually rank 0). Needs no GPU."""
    buf = ctypes.create_string_buffer(_capi.GSHMEMX_UNIQUEID_BYTES)
    check_status("gshmem.get_unique_id", capi().gshmemx_get_uniqueid(buf))
    return UniqueId(buf.raw)


def init(*, uid=None, rank=None, world_size=None, group=None, store=None, device=None):
    """Start gshmem on this process (collective over the job).

    Without arguments the rank, size and rendezvous come from the launcher's environment
    (gshmrun, torchrun, mpirun, srun; a lone process is PE 0 of 1). With `uid` (a UniqueId or
    its bytes), `rank` and `world_size` are required and the processes meet at the id's
    address. The GPU is this process's current CUDA device if a context is current, else the
    one of its node-local rank. Raises NoGpuError without a GPU, BootstrapError when the
    rendezvous fails; never ends the process (unlike the C gshmem_init).

    With `group` (a torch.distributed process group), `store` (a torch.distributed Store, with
    `rank` and `world_size`) or `device`, or whenever torch.distributed is initialized, this is
    gshmem.torch.init: the unique id is made on rank 0 and sent through the group's store."""
    if group is not None or store is not None or device is not None or (uid is None and _torch_dist_ready()):
        from .torch import init as torch_init
        return torch_init(group, store=store, rank=rank, world_size=world_size, device=device)
    api = capi()
    attr = _InitAttr()
    attr.version, attr.rank, attr.nranks = _capi.GSHMEMX_INIT_ATTR_VERSION, -1, -1
    flags = _capi.GSHMEMX_INIT_DEFAULT
    if uid is not None or rank is not None or world_size is not None:
        if uid is None or rank is None or world_size is None:
            raise InvalidValueError("gshmem.init", "pass uid, rank and world_size together (or none of them "
                                    "to take them from the launcher)")
        raw = ctypes.create_string_buffer(bytes(uid if isinstance(uid, UniqueId) else UniqueId(uid)),
                                          _capi.GSHMEMX_UNIQUEID_BYTES)
        check_status("gshmem.init", api.gshmemx_set_attr_uniqueid_args(rank, world_size, raw, ctypes.byref(attr)))
        flags = _capi.GSHMEMX_INIT_WITH_UNIQUEID
    check_status("gshmem.init", api.gshmemx_init_attr(flags, ctypes.byref(attr)))


# Called (no arguments) by finalize() before the library stops: gshmem.torch forgets its
# symmetric tensors there, which the heap's release makes invalid.
finalize_hooks = []


def _torch_dist_ready():
    # Only when the program imported torch.distributed itself: init() never imports torch.
    import sys
    dist = sys.modules.get("torch.distributed")
    return bool(dist is not None and dist.is_available() and dist.is_initialized())


def finalize():
    """Stop gshmem (collective): completes outstanding operations and releases the symmetric
    heap; buffers not freed become invalid. init() may follow."""
    if is_initialized():
        for hook in list(finalize_hooks):
            hook()
        capi().gshmem_finalize()


def is_initialized():
    return bool(capi().gshmemx_initialized())


@contextlib.contextmanager
def session(**init_args):
    """`with gshmem.session(): ...`: init() on entry, finalize() on exit."""
    init(**init_args)
    try:
        yield
    finally:
        finalize()


def _require(call):
    if not capi().gshmemx_initialized():
        raise NotInitializedError(call, "gshmem is not initialized; call gshmem.init() first")


def my_pe():
    """This process's PE number in the world team."""
    pe = capi().gshmem_my_pe()
    if pe < 0:
        _require("gshmem.my_pe")
    return pe


def n_pes():
    """The number of PEs in the world team."""
    n = capi().gshmem_n_pes()
    if n < 0:
        _require("gshmem.n_pes")
    return n


def version():
    """The package's version, e.g. '0.1.0': the CMake project's, which the library it carries shares."""
    from importlib import metadata
    try:
        return metadata.version("gshmem")
    except metadata.PackageNotFoundError:
        return "unknown (not installed)"


def spec_version():
    """The OpenSHMEM specification version the library follows, (major, minor)."""
    major, minor = ctypes.c_int(), ctypes.c_int()
    capi().gshmem_info_get_version(ctypes.byref(major), ctypes.byref(minor))
    return major.value, minor.value


def pe_accessible(pe):
    """Whether this PE can reach PE `pe` with gshmem's transfers (in this build: same node)."""
    return bool(capi().gshmem_pe_accessible(pe))
