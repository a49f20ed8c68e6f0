# SPDX-License-Identifier: BSD-3-Clause
"""One-sided transfers, signals, ordering and barriers from the host.

Every call has two forms. Without `stream` it is the blocking host call: it returns when the
operation is complete (put: delivered and visible at the target; nbi=True: on return of quiet()),
without waiting for the application's kernels. With `stream` (an int cudaStream_t or anything
with __cuda_stream__, such as torch.cuda.current_stream()) it is ordered on that stream after
the work already queued there, and the host returns at once.

`dst`/`src`/`sig` take an int address, a gshmem buffer or view, or any object with
__cuda_array_interface__ or a torch tensor. The remote operand must be symmetric (a gshmem
buffer); the local one may be any GPU memory of this PE (or, for the host forms, host memory)."""
from . import _capi
from ._convert import address, nbytes_of, stream_handle
from ._lib import capi, check_logged
from .errors import InvalidValueError
from .teams import WORLD

_SIGNAL_OPS = {"set": _capi.GSHMEM_SIGNAL_SET, "add": _capi.GSHMEM_SIGNAL_ADD}
_CMPS = {"eq": _capi.GSHMEM_CMP_EQ, "ne": _capi.GSHMEM_CMP_NE, "gt": _capi.GSHMEM_CMP_GT,
         "ge": _capi.GSHMEM_CMP_GE, "lt": _capi.GSHMEM_CMP_LT, "le": _capi.GSHMEM_CMP_LE,
         "==": _capi.GSHMEM_CMP_EQ, "!=": _capi.GSHMEM_CMP_NE, ">": _capi.GSHMEM_CMP_GT,
         ">=": _capi.GSHMEM_CMP_GE, "<": _capi.GSHMEM_CMP_LT, "<=": _capi.GSHMEM_CMP_LE}


def _lookup(call, table, what, key):
    try:
        return table[key] if isinstance(key, str) else int(key)
    except KeyError:
        raise InvalidValueError(call, f"unknown {what} {key!r}; one of {', '.join(table)}") from None


def put(dst, src, pe, *, nbytes=None, signal=None, signal_value=1, signal_op="set", nbi=False, stream=None):
    """Copy `src` (this PE) into `dst` on PE `pe`: `nbytes`, default the smaller of the two
    operands' sizes. With `signal` (a symmetric uint64): afterwards update it on PE `pe` by
    `signal_op` ('set' or 'add') with `signal_value`, after the data is visible there."""
    call = "gshmem.put"
    d, dn = address(call, "dst", dst)
    s, sn = address(call, "src", src)
    n = nbytes_of(call, "nbytes", nbytes, dn, sn)
    h = stream_handle(call, stream)
    api = capi()
    sfx = ("_nbi" if nbi else "") + ("_on_stream" if h is not None else "")
    extra = (h,) if h is not None else ()
    if signal is None:
        getattr(api, f"gshmem{'x' if h is not None else ''}_putmem{sfx}")(d, s, n, pe, *extra)
    else:
        sig, _ = address(call, "signal", signal)
        op = _lookup(call, _SIGNAL_OPS, "signal_op", signal_op)
        getattr(api, f"gshmem{'x' if h is not None else ''}_putmem_signal{sfx}")(d, s, n, sig, signal_value, op, pe,
                                                                                 *extra)
    check_logged(call)


def get(dst, src, pe, *, nbytes=None, nbi=False, stream=None):
    """Copy `src` of PE `pe` into `dst` (this PE): `nbytes`, default the smaller size."""
    call = "gshmem.get"
    d, dn = address(call, "dst", dst)
    s, sn = address(call, "src", src)
    n = nbytes_of(call, "nbytes", nbytes, dn, sn)
    h = stream_handle(call, stream)
    api = capi()
    if h is None:
        (api.gshmem_getmem_nbi if nbi else api.gshmem_getmem)(d, s, n, pe)
    else:
        (api.gshmemx_getmem_nbi_on_stream if nbi else api.gshmemx_getmem_on_stream)(d, s, n, pe, h)
    check_logged(call)


def signal_op(signal, value, pe, *, op="set", stream=None):
    """Update the symmetric uint64 `signal` on PE `pe` by `op` ('set', 'add') with `value`."""
    call = "gshmem.signal_op"
    sig, _ = address(call, "signal", signal)
    o = _lookup(call, _SIGNAL_OPS, "op", op)
    h = stream_handle(call, stream)
    if h is None:
        capi().gshmemx_signal_op(sig, value, o, pe)
    else:
        capi().gshmemx_signal_op_on_stream(sig, value, o, pe, h)
    check_logged(call)


def signal_fetch(signal):
    """The current value of this PE's uint64 `signal`."""
    call = "gshmem.signal_fetch"
    sig, _ = address(call, "signal", signal)
    v = capi().gshmem_signal_fetch(sig)
    check_logged(call)
    return v


def signal_wait(signal, cmp, value, *, stream=None):
    """Wait until this PE's uint64 `signal` compares to `value` by `cmp` ('eq', '>=', ...).
    Host form: returns the signal's value then. With `stream`: later work on the stream
    waits, the host returns at once (None)."""
    call = "gshmem.signal_wait"
    sig, _ = address(call, "signal", signal)
    c = _lookup(call, _CMPS, "cmp", cmp)
    h = stream_handle(call, stream)
    if h is None:
        v = capi().gshmem_signal_wait_until(sig, c, value)
    else:
        v = None
        capi().gshmemx_signal_wait_until_on_stream(sig, c, value, h)
    check_logged(call)
    return v


def quiet(*, stream=None):
    """Every put, get and AMO this PE issued (nbi included) is complete."""
    h = stream_handle("gshmem.quiet", stream)
    if h is None:
        capi().gshmem_quiet()
    else:
        capi().gshmemx_quiet_on_stream(h)
    check_logged("gshmem.quiet")


def fence():
    """This PE's puts to each PE are delivered in order."""
    capi().gshmem_fence()
    check_logged("gshmem.fence")


def barrier(team=None, *, stream=None):
    """Barrier over `team` (default WORLD): every PE's earlier operations are complete and
    visible before any PE goes on."""
    (team or WORLD).barrier(stream=stream)


def barrier_all(*, stream=None):
    h = stream_handle("gshmem.barrier_all", stream)
    if h is None:
        capi().gshmem_barrier_all()
    else:
        capi().gshmemx_barrier_all_on_stream(h)
    check_logged("gshmem.barrier_all")


def sync_all(*, stream=None):
    h = stream_handle("gshmem.sync_all", stream)
    if h is None:
        capi().gshmem_sync_all()
    else:
        capi().gshmemx_sync_all_on_stream(h)
    check_logged("gshmem.sync_all")
