# SPDX-License-Identifier: BSD-3-Clause
"""The Triton side of gshmem.triton (see its docstring): the device calls as Triton jit
functions over extern calls into the bitcode, and the module set-up before a launch."""
import triton
import triton.language as tl
from triton.language import core

from .. import _capi
from .._lib import capi
from ..errors import GshmemError
from ._bitcode import bitcode_path

SIGNAL_SET, SIGNAL_ADD = _capi.GSHMEM_SIGNAL_SET, _capi.GSHMEM_SIGNAL_ADD
CMP_EQ, CMP_NE, CMP_GT, CMP_GE, CMP_LT, CMP_LE = (_capi.GSHMEM_CMP_EQ, _capi.GSHMEM_CMP_NE, _capi.GSHMEM_CMP_GT,
                                                  _capi.GSHMEM_CMP_GE, _capi.GSHMEM_CMP_LT, _capi.GSHMEM_CMP_LE)

_P8 = _P64 = core.uint64  # addresses, as uint64 (device.cu)


def _call(name, args, types, ret, _semantic):
    return core.extern_elementwise("", "", args, {tuple(types): (name, ret)}, is_pure=False, _semantic=_semantic)


@core.extern
def _my_pe(_semantic=None):
    return _call("gshmem_triton_my_pe", [], [], core.int32, _semantic)


@core.extern
def _n_pes(_semantic=None):
    return _call("gshmem_triton_n_pes", [], [], core.int32, _semantic)


@core.extern
def _putmem_block(dst, src, nbytes, pe, _semantic=None):
    return _call("gshmem_triton_putmem_block", [dst, src, nbytes, pe], [_P8, _P8, core.uint64, core.int32],
                 core.int32, _semantic)


@core.extern
def _putmem_signal_block(dst, src, nbytes, sig, value, sig_op, pe, _semantic=None):
    return _call("gshmem_triton_putmem_signal_block", [dst, src, nbytes, sig, value, sig_op, pe],
                 [_P8, _P8, core.uint64, _P64, core.uint64, core.int32, core.int32], core.int32, _semantic)


@core.extern
def _signal_op(sig, value, sig_op, pe, _semantic=None):
    return _call("gshmem_triton_signal_op", [sig, value, sig_op, pe], [_P64, core.uint64, core.int32, core.int32],
                 core.int32, _semantic)


@core.extern
def _signal_wait_until(sig, cmp, value, _semantic=None):
    return _call("gshmem_triton_signal_wait_until", [sig, cmp, value], [_P64, core.int32, core.uint64], core.uint64,
                 _semantic)


@core.extern
def _ptr(dest, pe, _semantic=None):
    return _call("gshmem_triton_ptr", [dest, pe], [_P8, core.int32], core.uint64, _semantic)


@core.extern
def _fence(_semantic=None):
    return _call("gshmem_triton_fence", [], [], core.int32, _semantic)


@core.extern
def _quiet(_semantic=None):
    return _call("gshmem_triton_quiet", [], [], core.int32, _semantic)


@core.extern
def _barrier_all_block(_semantic=None):
    return _call("gshmem_triton_barrier_all_block", [], [], core.int32, _semantic)


# The public names: jit helpers that cast their arguments to the wrappers' C types, so that a
# kernel passes any pointer and plain integers.
@triton.jit
def my_pe():
    return _my_pe()


@triton.jit
def n_pes():
    return _n_pes()


@triton.jit
def putmem_block(dst, src, nbytes, pe):
    return _putmem_block(dst.to(tl.uint64, bitcast=True), src.to(tl.uint64, bitcast=True),
                         tl.cast(nbytes, tl.uint64), tl.cast(pe, tl.int32))


@triton.jit
def putmem_signal_block(dst, src, nbytes, sig, value, sig_op, pe):
    return _putmem_signal_block(dst.to(tl.uint64, bitcast=True),
                                src.to(tl.uint64, bitcast=True), tl.cast(nbytes, tl.uint64),
                                sig.to(tl.uint64, bitcast=True), tl.cast(value, tl.uint64),
                                tl.cast(sig_op, tl.int32), tl.cast(pe, tl.int32))


@triton.jit
def signal_op(sig, value, sig_op, pe):
    return _signal_op(sig.to(tl.uint64, bitcast=True), tl.cast(value, tl.uint64),
                      tl.cast(sig_op, tl.int32), tl.cast(pe, tl.int32))


@triton.jit
def signal_wait_until(sig, cmp, value):
    return _signal_wait_until(sig.to(tl.uint64, bitcast=True), tl.cast(cmp, tl.int32),
                              tl.cast(value, tl.uint64))


@triton.jit
def ptr(dest, pe):
    """PE `pe`'s address of symmetric `dest` (same pointer type), or a null pointer when it is
    not mapped here (another node): then use the put calls."""
    return _ptr(dest.to(tl.uint64, bitcast=True), tl.cast(pe, tl.int32)).to(dest.dtype, bitcast=True)


@triton.jit
def fence():
    return _fence()


@triton.jit
def quiet():
    return _quiet()


@triton.jit
def barrier_all_block():
    return _barrier_all_block()


def extern_libs():
    """The `extern_libs` argument that links the wrappers: {"gshmem": bitcode path}."""
    return {"gshmem": bitcode_path()}


_ready = set()


def init_module(compiled):
    """Fill the device state of a compiled Triton kernel's module (gshmemx_cumodule_init), once
    per module; gshmem refills it after heap growth and re-init until the process ends."""
    compiled._init_handles()
    module = compiled.module
    if module in _ready:
        return
    from .._lib import check_status
    check_status("gshmem.triton.init_module", capi().gshmemx_cumodule_init(module))
    _ready.add(module)


def launch(fn, grid, *args, **kwargs):
    """fn[grid](*args, **kwargs) with gshmem's bitcode linked and the module's device state
    filled before the first launch (compiles once per signature, as Triton does)."""
    kwargs.setdefault("extern_libs", extern_libs())
    compiled = fn.warmup(*args, grid=grid, **kwargs)
    if compiled is None:
        raise GshmemError("gshmem.triton.launch", "Triton returned no compiled kernel from warmup")
    init_module(compiled)
    return fn[grid](*args, **kwargs)
