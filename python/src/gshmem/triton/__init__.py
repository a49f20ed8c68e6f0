# SPDX-License-Identifier: BSD-3-Clause
"""gshmem's device API in Triton kernels: extern calls into LLVM bitcode of C wrappers over
<gshmem/gshmem.h> (device.cu, built by clang: _bitcode.py), linked through Triton's
`extern_libs`, and the module's device state filled by gshmemx_cumodule_init before the first
launch.

    import triton, triton.language as tl
    import gshmem.triton as gtr

    @triton.jit
    def ring(dst, src, sig, n, value):
        nxt = (gtr.my_pe() + 1) % gtr.n_pes()
        gtr.putmem_signal_block(dst, src, n * 4, sig, value, gtr.SIGNAL_SET, nxt)
        gtr.signal_wait_until(sig, gtr.CMP_EQ, value)

    gtr.launch(ring, (1,), dst, src, sig, n, 1)   # compile + init the module + launch

Every thread of the program calls each function with the same arguments (the *_block calls
are block-scope: the program's threads are the block). Pointers may be of any element type;
sizes are in bytes. Needs Triton >= 3.4 (extern calls with `_semantic`); without Triton only bitcode_path() and
build() are here (to make the bitcode for another machine:
`python -m gshmem.triton OUT.bc`)."""
from ._bitcode import bitcode_path, build

_NAMES = ["my_pe", "n_pes", "ptr", "putmem_block", "putmem_signal_block", "signal_op", "signal_wait_until", "fence",
          "quiet", "barrier_all_block", "extern_libs", "init_module", "launch", "SIGNAL_SET", "SIGNAL_ADD", "CMP_EQ",
          "CMP_NE", "CMP_GT", "CMP_GE", "CMP_LT", "CMP_LE"]
try:
    from ._lang import (CMP_EQ, CMP_GE, CMP_GT, CMP_LE, CMP_LT, CMP_NE, SIGNAL_ADD, SIGNAL_SET, barrier_all_block,  # noqa: F401
                        extern_libs, fence, init_module, launch, my_pe, n_pes, ptr, putmem_block, putmem_signal_block,
                        quiet, signal_op, signal_wait_until)
except ImportError as _e:  # no Triton: the bitcode can still be built here
    _missing = _e

    def __getattr__(name):
        if name in _NAMES:
            raise ImportError(f"gshmem.triton.{name} needs Triton (pip install triton): {_missing}") from _missing
        raise AttributeError(f"module 'gshmem.triton' has no attribute {name!r}")

__all__ = _NAMES + ["bitcode_path", "build"]
