# SPDX-License-Identifier: BSD-3-Clause
"""A Triton kernel calling gshmem's device API (gshmem.triton, bitcode linked through
extern_libs): each PE's program puts a tensor with a signal into the next PE
(putmem_signal_block), reads back what it put through ptr() (the next PE's copy over NVLink),
waits for its own signal (signal_wait_until) and copies what arrived; my_pe/n_pes checked.
A second kernel puts without a signal (putmem_block), then quiet + barrier_all_block (the
call whose byval callee Triton 3.6's LLVM aborted on before the bitcode inlined it) and reads
what arrived, then adds to the next PE's signal (signal_op, fence) and waits for its own.
Skipped when the bitcode is unavailable: no clang >= 19 here and no GSHMEM_TRITON_BITCODE."""
import pytest
import torch

import gshmem
import gshmem.torch as gt

triton = pytest.importorskip("triton")
tl = triton.language
gtr = pytest.importorskip("gshmem.triton")


@triton.jit
def _ring(dst, src, sig, out, back, info, n, value, BLOCK: tl.constexpr):
    me = gtr.my_pe()
    npes = gtr.n_pes()
    nxt = (me + 1) % npes
    gtr.putmem_signal_block(dst, src, n * 4, sig, value, gtr.SIGNAL_SET, nxt)
    peer = gtr.ptr(dst, nxt)
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(back + offs, tl.load(peer + offs, mask=m), mask=m)
    gtr.signal_wait_until(sig, gtr.CMP_EQ, value)
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(out + offs, tl.load(dst + offs, mask=m), mask=m)
    tl.store(info, me)
    tl.store(info + 1, npes)


def test_triton_put_signal_wait_ring(pe):
    rank, world, dev = pe
    try:
        gtr.bitcode_path()
    except gshmem.UnsupportedError as e:
        pytest.skip(str(e))
    prev = (rank - 1) % world
    for n in (1, 4099, 100_003):
        dst, sig = gt.empty(n), gt.zeros(1, dtype=torch.uint64)
        dst.fill_(float("nan"))
        src = torch.arange(n, device=dev, dtype=torch.float32) * 5 + 10_000 * rank
        out, back = torch.full((n,), -1.0, device=dev), torch.full((n,), -1.0, device=dev)
        info = torch.full((2,), -1, dtype=torch.int32, device=dev)
        gt.barrier()
        for value in (1, 2, 3):
            src += 1
            gtr.launch(_ring, (1,), dst, src, sig, out, back, info, n, value, BLOCK=1024, num_warps=4)
            want = torch.arange(n, device=dev, dtype=torch.float32) * 5 + 10_000 * prev + value
            assert torch.equal(out, want), (n, value)
            assert torch.equal(back, src), (n, value)  # the next PE's copy, read through ptr()
            assert info.tolist() == [rank, world]
            gt.barrier()  # the previous PE overwrites dst only after this PE read it
        torch.cuda.synchronize()
        gt.free(sig)
        gt.free(dst)


@triton.jit
def _put_barrier(dst, src, out, sig, got, n, value, total, BLOCK: tl.constexpr):
    nxt = (gtr.my_pe() + 1) % gtr.n_pes()
    gtr.putmem_block(dst, src, n * 4, nxt)
    gtr.quiet()
    gtr.barrier_all_block()  # every PE's put into this PE's dst is complete and visible
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(out + offs, tl.load(dst + offs, mask=m), mask=m)
    gtr.fence()
    gtr.signal_op(sig, value, gtr.SIGNAL_ADD, nxt)
    tl.store(got, gtr.signal_wait_until(sig, gtr.CMP_GE, total))


def test_triton_put_quiet_barrier_signal_add(pe):
    rank, world, dev = pe
    try:
        gtr.bitcode_path()
    except gshmem.UnsupportedError as e:
        pytest.skip(str(e))
    prev = (rank - 1) % world
    for n in (3, 5001):
        dst, sig = gt.empty(n), gt.zeros(1, dtype=torch.uint64)
        dst.fill_(float("nan"))
        got = torch.zeros(1, dtype=torch.uint64, device=dev)
        gt.barrier()
        total = 0
        for value in (1, 7, 100):
            total += value  # only the previous PE adds into this PE's signal
            src = torch.arange(n, device=dev, dtype=torch.float32) * 3 + 1000 * rank + value
            out = torch.full((n,), -1.0, device=dev)
            gtr.launch(_put_barrier, (1,), dst, src, out, sig, got, n, value, total, BLOCK=1024, num_warps=4)
            want = torch.arange(n, device=dev, dtype=torch.float32) * 3 + 1000 * prev + value
            assert torch.equal(out, want), (n, value)
            assert got.view(torch.int64).item() == total, (n, value, got)
            assert sig.view(torch.int64).item() == total, (n, value, sig)
            gt.barrier()  # the previous PE puts into dst again only after this PE read it
        torch.cuda.synchronize()
        gt.free(sig)
        gt.free(dst)
