# SPDX-License-Identifier: BSD-3-Clause
"""Run by test_triton.py in a child process (an LLVM assertion inside Triton aborts the whole
process, as Triton 3.6's did on a byval call): compiles, for sm_90 without a GPU, one kernel per
gshmem.triton device call and then a ring kernel calling them all, printing one JSON line per
kernel as soon as it compiled, so that the parent names the kernel that took the process down."""
import json
import re
import sys

import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

import gshmem.triton as gtr


@triton.jit
def k_my_pe_n_pes(dst, src, sig, n, value):
    tl.store(src, (gtr.my_pe() * 100 + gtr.n_pes()).to(tl.float32))


@triton.jit
def k_putmem_block(dst, src, sig, n, value):
    gtr.putmem_block(dst, src, n * 4, 1)


@triton.jit
def k_putmem_signal_block(dst, src, sig, n, value):
    gtr.putmem_signal_block(dst, src, n * 4, sig, value, gtr.SIGNAL_ADD, 1)


@triton.jit
def k_signal_op(dst, src, sig, n, value):
    gtr.signal_op(sig, value, gtr.SIGNAL_SET, 1)


@triton.jit
def k_signal_wait_until(dst, src, sig, n, value):
    tl.store(sig + 1, gtr.signal_wait_until(sig, gtr.CMP_GE, value))


@triton.jit
def k_ptr(dst, src, sig, n, value):
    tl.store(gtr.ptr(dst, 1), 1.0)


@triton.jit
def k_fence(dst, src, sig, n, value):
    gtr.fence()


@triton.jit
def k_quiet(dst, src, sig, n, value):
    gtr.quiet()


@triton.jit
def k_barrier_all_block(dst, src, sig, n, value):
    gtr.barrier_all_block()


@triton.jit
def k_ring(dst, src, sig, n, value):
    nxt = (gtr.my_pe() + 1) % gtr.n_pes()
    gtr.putmem_signal_block(dst, src, n * 4, sig, value, gtr.SIGNAL_SET, nxt)
    gtr.signal_wait_until(sig, gtr.CMP_EQ, value)
    peer = gtr.ptr(dst, nxt)
    offs = tl.arange(0, 1024)
    m = offs < n
    tl.store(src + offs, tl.load(dst + offs, mask=m) + tl.load(peer + offs, mask=m), mask=m)
    gtr.quiet()
    gtr.barrier_all_block()


KERNELS = [k_my_pe_n_pes, k_putmem_block, k_putmem_signal_block, k_signal_op, k_signal_wait_until, k_ptr, k_fence,
           k_quiet, k_barrier_all_block, k_ring]
SIGNATURE = {"dst": "*fp32", "src": "*fp32", "sig": "*u64", "n": "i32", "value": "i64"}


def main():
    names = sys.argv[1:] or [k.fn.__name__ for k in KERNELS]
    print(json.dumps({"triton": triton.__version__}), flush=True)
    for k in KERNELS:
        if k.fn.__name__ not in names:
            continue
        print(json.dumps({"compiling": k.fn.__name__}), flush=True)
        c = triton.compile(ASTSource(fn=k, signature=SIGNATURE, constexprs={}), target=GPUTarget("cuda", 90, 32),
                           options={"num_warps": 4, "extern_libs": gtr.extern_libs()})
        ptx = c.asm["ptx"]
        print(json.dumps({"kernel": k.fn.__name__, "cubin_bytes": len(c.asm["cubin"]),
                          "state": bool(re.search(r"\.visible \.const \.align \d+ \.b8 gshmemi_tu_state\[\d+\]", ptx)),
                          "externs": re.findall(r"\.extern \.func[^;]*?(gshmem_triton_\w+)", ptx)}), flush=True)


if __name__ == "__main__":
    main()
