# SPDX-License-Identifier: BSD-3-Clause
"""gshmem.torch on GPUs, under torchrun (1, 2 or more processes, one GPU each): every API on
every dtype, every element checked against a reference computed from the ranks' known inputs
and against torch.distributed's NCCL result; CUDA graph capture and torch.compile of on-stream
collectives; the error paths. Collective: all ranks run the same tests in the same order."""
import functools

import pytest
import torch
import torch.distributed as dist

import gshmem
import gshmem.torch as gt
from gshmem import dtypes as gdt

EVERY = [getattr(torch, d.name) for d in gdt.DTYPES.values() if hasattr(torch, d.name)]
REDUCIBLE = [dt for dt in EVERY if gdt.resolve(dt).reduce_ops]
SIZES = [1, 1000, 300_001]  # the reductions' small path, and past the scratch (large path)


def _bytes(t):
    return t.contiguous().view(-1).view(torch.uint8)


def _pattern_bytes(rank, nbytes, salt, dtype):
    """A rank-dependent byte pattern, valid for every dtype (bool: 0/1)."""
    v = (torch.arange(nbytes, dtype=torch.int64) * 7 + rank * 13 + salt * 31 + 1) % 251
    if dtype == torch.bool:
        v = v % 2
    return v.to(torch.uint8)


def _fill(t, rank, salt):
    _bytes(t).copy_(_pattern_bytes(rank, t.numel() * t.element_size(), salt, t.dtype))


def _values(rank, n, dtype, op):
    """Small integer-valued inputs (exact in every reducible dtype, bf16 included), in a wide
    type: int64, float64 or complex128."""
    i = torch.arange(n, dtype=torch.int64)
    if op == "prod":
        v = (i * 5 + rank) % 2 + 1
    else:
        v = (i * 7 + rank * 3) % 8
    if dtype == torch.bool:
        return (v % 2).to(torch.int64)
    if dtype.is_signed and not dtype.is_floating_point and not dtype.is_complex and op != "prod":
        v = v - 4
    if dtype.is_complex:
        return torch.complex(v.double(), ((i + rank) % 3).double())
    return v.double() if dtype.is_floating_point else v


def _reference(world, n, dtype, op):
    vals = torch.stack([_values(r, n, dtype, op) for r in range(world)])
    if op == "sum":
        ref = vals.sum(0)
    elif op == "prod":
        ref = vals.prod(0)
    elif op == "min":
        ref = vals.amin(0)
    elif op == "max":
        ref = vals.amax(0)
    else:
        fn = {"and": torch.bitwise_and, "or": torch.bitwise_or, "xor": torch.bitwise_xor}[op]
        ref = functools.reduce(fn, list(vals))
    return ref


def _wide(t):
    t = t.cpu()
    if t.dtype.is_complex:
        return t.to(torch.complex128)
    return t.double() if t.dtype.is_floating_point else t.to(torch.int64)


def test_rank_and_size(pe):
    rank, world, dev = pe
    assert gt.my_pe() == rank and gt.n_pes() == world
    assert gshmem.is_initialized()
    assert torch.cuda.current_device() == dev.index


@pytest.mark.parametrize("dtype", EVERY, ids=str)
def test_symmetric_tensor_and_peer_view(pe, dtype):
    rank, world, dev = pe
    t = gt.empty(3, 257, dtype=dtype)
    assert t.shape == (3, 257) and t.dtype == dtype and t.is_cuda and gt.is_symmetric(t)
    assert gt.is_symmetric(t[1:, 5:9]) and not gt.is_symmetric(torch.empty(4, device=dev))
    z = gt.zeros(5, dtype=dtype)
    assert int(_bytes(z).count_nonzero()) == 0
    _fill(t, rank, 1)
    gt.barrier()
    torch.cuda.synchronize()
    for p in range(world):
        v = gt.peer(t, p)
        assert v.shape == t.shape and v.dtype == dtype
        assert torch.equal(_bytes(v).cpu(), _pattern_bytes(p, t.numel() * t.element_size(), 1, dtype))
        sub = gt.peer(t[1:, 3:], p)  # a strided view: same offsets in the peer's copy
        assert torch.equal(_bytes(sub.contiguous()).cpu(), _bytes(v[1:, 3:].contiguous()).cpu())
    gt.barrier()
    torch.cuda.synchronize()
    gt.free(z)
    gt.free(t)


@pytest.mark.parametrize("dtype", EVERY, ids=str)
def test_put_signal_wait_get(pe, dtype):
    rank, world, dev = pe
    nxt, prv = (rank + 1) % world, (rank - 1) % world
    n = 4099
    dst = gt.empty(n, dtype=dtype)
    sig = gt.zeros(1, dtype=torch.uint64)
    _bytes(dst).fill_(0xAB)  # poison
    src = torch.empty(n, dtype=dtype, device=dev)
    _fill(src, rank, 2)
    gt.barrier()  # every poison is in place before any put
    gt.put(dst, src, nxt, signal=sig, signal_value=7)
    gt.signal_wait(sig, ">=", 7)  # on the stream: what follows sees prv's data
    got = _bytes(dst).clone()  # ordered after the wait, no host synchronisation
    assert torch.equal(got.cpu(), _pattern_bytes(prv, n * src.element_size(), 2, dtype))
    back = torch.empty_like(src)
    _bytes(back).fill_(0xCD)
    gt.get(back, dst, nxt)  # nxt's dst holds this rank's src
    assert torch.equal(_bytes(back).cpu(), _bytes(src).cpu())
    gt.barrier()
    torch.cuda.synchronize()
    gt.free(sig)
    gt.free(dst)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", REDUCIBLE, ids=str)
def test_all_reduce_every_op(pe, dtype, n):
    rank, world, dev = pe
    d = gdt.resolve(dtype)
    inp, out = gt.empty(n, dtype=dtype), gt.empty(n, dtype=dtype)
    for op in d.reduce_ops:
        inp.copy_(_values(rank, n, dtype, op).to(dtype))
        _bytes(out).fill_(0x5A)
        gt.all_reduce(inp, op, out=out)
        ref = _reference(world, n, dtype, op)
        got = _wide(out)
        if dtype == torch.bool:
            ref = (ref != 0).to(torch.int64)
        assert torch.equal(got, _wide(ref.to(dtype))), (dtype, op, n)
        gt.all_reduce(inp, op)  # in place
        assert torch.equal(_wide(inp), got), (dtype, op, n, "in place")
        gt.barrier()
    torch.cuda.synchronize()
    gt.free(out)
    gt.free(inp)


NCCL_OPS = {"sum": dist.ReduceOp.SUM, "min": dist.ReduceOp.MIN, "max": dist.ReduceOp.MAX,
            "prod": dist.ReduceOp.PRODUCT}


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16, torch.int32, torch.int64,
                                   torch.float64, torch.uint8, torch.int8], ids=str)
def test_all_reduce_matches_nccl(pe, dtype):
    rank, world, dev = pe
    n = 100_003
    t = gt.empty(n, dtype=dtype)
    for op, nccl in NCCL_OPS.items():
        ref = _values(rank, n, dtype, op).to(dtype).to(dev)
        t.copy_(ref)
        dist.all_reduce(ref, op=nccl)
        gt.all_reduce(t, op)
        assert torch.equal(_bytes(t), _bytes(ref)), (dtype, op)
        gt.barrier()
    torch.cuda.synchronize()
    gt.free(t)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int32, torch.int64], ids=str)
def test_reduce_scatter_matches_nccl(pe, dtype):
    rank, world, dev = pe
    n = 7919
    inp, out = gt.empty(world * n, dtype=dtype), gt.empty(n, dtype=dtype)
    inp.copy_(_values(rank, world * n, dtype, "sum").to(dtype))
    ref = torch.empty(n, dtype=dtype, device=dev)
    dist.reduce_scatter_tensor(ref, inp.clone())
    _bytes(out).fill_(0x11)
    gt.reduce_scatter(out, inp)
    assert torch.equal(_bytes(out), _bytes(ref))
    gt.barrier()
    torch.cuda.synchronize()
    gt.free(out)
    gt.free(inp)


@pytest.mark.parametrize("dtype", EVERY, ids=str)
def test_all_gather_all_to_all_broadcast_match_nccl(pe, dtype):
    rank, world, dev = pe
    n = 1031 * world
    inp = torch.empty(n, dtype=dtype, device=dev)
    _fill(inp, rank, 3)
    # all_gather (all_gather_into_tensor), compared as bytes with NCCL's
    out = gt.empty(world * n, dtype=dtype)
    _bytes(out).fill_(0xEE)
    gt.all_gather(out, inp)
    ref = torch.empty(world * n * inp.element_size(), dtype=torch.uint8, device=dev)
    dist.all_gather_into_tensor(ref, _bytes(inp))
    assert torch.equal(_bytes(out), ref)
    # all_to_all (all_to_all_single, even chunks)
    a2a = gt.empty(n, dtype=dtype)
    _bytes(a2a).fill_(0xEE)
    gt.all_to_all(a2a, inp)
    ref = torch.empty(n * inp.element_size(), dtype=torch.uint8, device=dev)
    dist.all_to_all_single(ref, _bytes(inp))
    assert torch.equal(_bytes(a2a), ref)
    # broadcast from the last rank
    b = gt.empty(n, dtype=dtype)
    _fill(b, rank, 4)
    gt.broadcast(b, world - 1)
    assert torch.equal(_bytes(b).cpu(), _pattern_bytes(world - 1, n * inp.element_size(), 4, dtype))
    gt.barrier()
    torch.cuda.synchronize()
    for t in (b, a2a, out):
        gt.free(t)


def _splits(rank, world, seed):
    g = torch.Generator().manual_seed(seed * 1000 + rank)
    return torch.randint(0, 37, (world,), generator=g)


@pytest.mark.parametrize("hidden,dtype", [(129, torch.bfloat16), (4096, torch.bfloat16), (7, torch.float32),
                                          (16, torch.float8_e4m3fn), (3, torch.int64)], ids=str)
def test_all_to_all_v_matches_nccl(pe, hidden, dtype):
    rank, world, dev = pe
    cap = 40 * world
    out = gt.empty(cap, hidden, dtype=dtype)
    for seed in range(3):
        sp = _splits(rank, world, seed)
        recv = torch.stack([_splits(r, world, seed)[rank] for r in range(world)])
        rows = int(sp.sum())
        inp = torch.empty(rows, hidden, dtype=dtype, device=dev)
        _fill(inp, rank, 5 + seed)
        _bytes(out).fill_(0x77)
        o, got_splits = gt.all_to_all_v(out, inp, sp.to(dev))
        assert o is out
        assert torch.equal(got_splits.cpu(), recv)
        ref = torch.empty(int(recv.sum()), hidden, dtype=dtype, device=dev)
        dist.all_to_all_single(_bytes(ref).view(-1, hidden * inp.element_size()),
                               _bytes(inp).view(-1, hidden * inp.element_size()),
                               recv.tolist(), sp.tolist())
        m = int(recv.sum())
        assert torch.equal(_bytes(out[:m]), _bytes(ref))
        assert int((_bytes(out[m:]) != 0x77).sum()) == 0  # nothing written past the received rows
    torch.cuda.synchronize()
    gt.free(out)


def test_all_reduce_and_all_to_all_v_in_a_cuda_graph(pe):
    rank, world, dev = pe
    n, hidden = 65_537, 64
    x, y = gt.empty(n, dtype=torch.float32), gt.empty(n, dtype=torch.float32)
    out = gt.empty(8 * world, hidden, dtype=torch.bfloat16)
    inp = torch.ones(4 * world, hidden, dtype=torch.bfloat16, device=dev)
    sp = torch.full((world,), 4, dtype=torch.int64, device=dev)
    x.fill_(1.0)
    gt.all_reduce(x, out=y)  # warm-up outside capture (the C side caches its grids)
    gt.all_to_all_v(out, inp, sp)  # maps the peers' `out` and allocates the workspace
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        gt.all_reduce(x, out=y)
        y.mul_(2)
        o, got = gt.all_to_all_v(out, inp, sp)
    for it in range(3):
        x.copy_(torch.arange(n, device=dev, dtype=torch.float32) * (rank + 1) + it)
        inp.fill_(rank + it)
        sp.copy_(torch.tensor([(it + p) % 3 + 1 for p in range(world)], device=dev))
        g.replay()
        want = 2 * sum(torch.arange(n, dtype=torch.float64) * (r + 1) + it for r in range(world))
        assert torch.equal(y.double().cpu(), want)
        recv = [(it + rank) % 3 + 1 for _ in range(world)]
        assert got.cpu().tolist() == recv
        off = 0
        for r in range(world):
            assert int((out[off:off + recv[r]].float() != r + it).sum()) == 0
            off += recv[r]
        gt.barrier()
    torch.cuda.synchronize()
    for t in (out, y, x):
        gt.free(t)


def test_torch_compile_fullgraph(pe):
    rank, world, dev = pe
    x, y = gt.empty(4096, dtype=torch.bfloat16), gt.empty(4096, dtype=torch.bfloat16)

    def step(a, b):
        b.copy_(a * 2)
        gt.all_reduce(b)
        return b + 1

    compiled = torch.compile(step, fullgraph=True)
    x.copy_(torch.arange(4096, device=dev) % 16 + rank)
    r = compiled(x, y)
    want = sum((torch.arange(4096) % 16 + q) * 2 for q in range(world)).to(torch.bfloat16) + 1
    assert torch.equal(r.cpu(), want)
    gt.barrier()
    torch.cuda.synchronize()
    gt.free(y)
    gt.free(x)


def test_errors(pe):
    rank, world, dev = pe
    with pytest.raises(gshmem.NotSymmetricError, match="gshmem.torch.all_reduce.*not in the symmetric heap"):
        gt.all_reduce(torch.ones(4, device=dev))
    t = gt.empty(8, dtype=torch.bool)
    with pytest.raises(gshmem.InvalidValueError, match="bool has no 'sum'"):
        gt.all_reduce(t, "sum")
    with pytest.raises(gshmem.NotSymmetricError):
        gt.free(t[2:])  # a view, not the tensor
    gt.free(t)
    if world > 1:
        # A mismatched allocation fails on every PE, none hangs.
        with pytest.raises(gshmem.AllocationMismatchError, match="different calls"):
            gt.empty(100 + rank, dtype=torch.float32)
        # A free out of order: nothing is freed anywhere, then the right order works.
        a, b = gt.empty(16), gt.empty(32)
        with pytest.raises(gshmem.AllocationMismatchError, match="different calls"):
            gt.free(a if rank == 0 else b)
        assert gt.is_symmetric(a) and gt.is_symmetric(b)
        gt.free(b)
        gt.free(a)


def test_teams(pe):
    rank, world, dev = pe
    assert gt.WORLD.n_pes() == world and gt.NODE.my_pe() >= 0
    if world < 2:
        pytest.skip("needs 2 PEs")
    evens = gt.WORLD.split_strided(0, 2, (world + 1) // 2)  # None on the odd ranks
    t = gt.empty(1000, dtype=torch.int32)  # allocation is world-collective
    t.fill_(rank + 1)
    if evens is not None:
        gt.all_reduce(t, team=evens)
        assert int(t[0]) == sum(r + 1 for r in range(0, world, 2))
        evens.destroy()
    gt.barrier()
    torch.cuda.synchronize()
    gt.free(t)


def test_zz_finalize_and_init_again(pe):
    gt.release_workspaces()
    gt.finalize()
    assert not gshmem.is_initialized()
    gt.init()
    assert gshmem.is_initialized() and gt.n_pes() == pe[1]
    t = gt.zeros(10, dtype=torch.float32)
    gt.all_reduce(t)
    torch.cuda.synchronize()
    gt.free(t)
