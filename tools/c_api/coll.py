# SPDX-License-Identifier: BSD-3-Clause
"""Data-movement collectives on teams (OpenSHMEM 1.5 + NVSHMEM's extensions):
broadcast, fcollect, collect, alltoall, alltoalls, for every standard RMA type
(gshmem_TYPE_OP) and untyped (gshmem_OPmem, counts in bytes):
  host+device  gshmem_TYPE_OP / gshmem_OPmem           (device: one calling thread)
  device       gshmemx_TYPE_OP_warp / _block, gshmemx_OPmem_warp / _block
  host         gshmemx_TYPE_OP_on_stream, gshmemx_OPmem_on_stream
long double has no device forms. Every form returns int (0 on success) and passes its
own C name to the implementation for messages."""

from .types import RMA_TYPES, SCOPES

ORDER = 41

# (op, GSHMEMI_COLL_*, parameters between source and nelems, parameters after nelems)
OPS = [
    ("broadcast", "BROADCAST", "", ", int PE_root"),
    ("fcollect", "FCOLLECT", "", ""),
    ("collect", "COLLECT", "", ""),
    ("alltoall", "ALLTOALL", "", ""),
    ("alltoalls", "ALLTOALLS", "ptrdiff_t dst, ptrdiff_t sst, ", ""),
]
THREAD = "gshmem::thread_scope"


def device_call(op, scope, call, elem):
    """Body of a device form: the C++ implementation with the byte count (alltoalls: elements)."""
    if op == "broadcast":
        return f'return gshmem::detail::broadcastmem<{scope}>("{call}", team, dest, source, nelems * {elem}, PE_root);'
    if op == "alltoalls":
        return (f'return gshmem::detail::alltoallsmem<{scope}>("{call}", team, dest, source, dst, sst, nelems, '
                f"static_cast<int>({elem}));")
    return f'return gshmem::detail::{op}mem<{scope}>("{call}", team, dest, source, nelems * {elem});'


def host_call(op, code, call, elem, mode, stream):
    strides = "dst, sst" if op == "alltoalls" else "1, 1"
    root = "PE_root" if op == "broadcast" else "0"
    return (f'return gshmemi_host_coll("{call}", GSHMEMI_COLL_{code}, team, dest, source, nelems, {elem}, {strides}, '
            f"{root}, GSHMEMI_COLL_{mode}, {stream});")


def family(a, op, code, mid, tail, name, ptrs, elem, on_device):
    """One element kind of one collective: name is the C name without gshmem_ (e.g. int_broadcast)."""
    params = f"gshmem_team_t team, {ptrs}, {mid}size_t nelems{tail}"
    c = f"gshmem_{name}"
    host = host_call(op, code, c, elem, "BLOCKING", "0")
    if on_device:
        a.dual("int", c, params, device_call(op, THREAD, c, elem), host)
        for suffix, scope in SCOPES:
            x = f"gshmemx_{name}{suffix}"
            a.device("int", x, params, device_call(op, scope, x, elem))
    else:
        a.host_only("int", c, params, host, cuda_wrapper=True)
    s = f"gshmemx_{name}_on_stream"
    a.host_only("int", s, f"{params}, cudaStream_t stream", host_call(op, code, s, elem, "STREAM", "stream"))


def build(a):
    a.needs(host_entry_header="gshmem/detail/host_entry_coll.h", device_header="impl/coll_bcast.cuh")
    a.needs(device_header="impl/coll_collect.cuh")
    a.needs(device_header="impl/coll_alltoall.cuh")
    for op, code, mid, tail in OPS:
        for ctype, name, on_device in RMA_TYPES:
            family(a, op, code, mid, tail, f"{name}_{op}", f"{ctype}* dest, const {ctype}* source",
                   f"sizeof({ctype})", on_device)
        family(a, op, code, mid, tail, f"{op}mem", "void* dest, const void* source", "1", True)
