# SPDX-License-Identifier: BSD-3-Clause
"""gshmem.torch collectives beside torch.distributed (NCCL), same run, same GPUs:

    torchrun --nproc-per-node 2 python/bench/bench_torch.py [--json out.json] [--quick]

For all_reduce (sum, bf16), all_to_all (all_to_all_single) and all_gather
(all_gather_into_tensor), sizes 8 KiB .. 256 MiB (the bytes of each rank's tensor: for
all_gather the gathered output), back-to-back calls on one stream: latency (us per call) and
bus bandwidth (nccl-tests' definition: all_reduce 2(n-1)/n, the others (n-1)/n of algbw);
all_reduce also beside torch symmetric memory's one-shot / two-shot all-reduce (CUDA backend).
Then the host cost per call at 8 KiB: gshmem.torch's Python entry, the custom op
(torch.ops.gshmem.*, what torch.compile emits) and the bare C function through ctypes, so
that the Python overhead over the C API shows. Last, the MoE step of
examples/python/moe_dispatch.py (8 K tokens x 4 K hidden, bf16, top-2) against
all_to_all_single. NVLS is left off for NCCL (NCCL_NVLS_ENABLE=0) unless set."""
import argparse
import json
import os
import pathlib
import sys
import time

os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
os.environ.setdefault("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1")

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

import gshmem.torch as gt  # noqa: E402

SIZES = [8 << 10, 64 << 10, 512 << 10, 1 << 20, 4 << 20, 16 << 20, 64 << 20, 256 << 20]


def time_calls(fn, iters, warmup=5):
    for _ in range(warmup):
        fn()
    dist.barrier()
    torch.cuda.synchronize()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    for _ in range(iters):
        fn()
    b.record()
    torch.cuda.synchronize()
    return a.elapsed_time(b) * 1e3 / iters  # us


def host_us(fn, iters=2000):
    """Host time per call, issuing `iters` calls (the GPU runs behind)."""
    fn()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(iters):
        fn()
    t = (time.perf_counter() - t0) * 1e6 / iters
    torch.cuda.synchronize()
    gt.barrier()
    torch.cuda.synchronize()
    return t


def symm_mem_all_reduce(e, dtype, dev):
    """torch symmetric memory's own all-reduce on its CUDA backend (one-shot up to 512 KiB,
    two-shot in place above), or None where this torch lacks it."""
    try:
        import torch.distributed._symmetric_memory as symm_mem
        name = dist.group.WORLD.group_name
        t = symm_mem.empty(e, dtype=dtype, device=dev)
        symm_mem.rendezvous(t, name)
        t.fill_(1)
        if e * t.element_size() <= 512 << 10:
            op = lambda: torch.ops.symm_mem.one_shot_all_reduce(t, "sum", name)  # noqa: E731
        else:
            op = lambda: torch.ops.symm_mem.two_shot_all_reduce_(t, "sum", name)  # noqa: E731
        op()
        torch.cuda.synchronize()
        return op
    except Exception as ex:  # an optional comparison: report, go on
        if gt.my_pe() == 0:
            print(f"(torch symmetric memory all-reduce unavailable at {e} elements: {type(ex).__name__}: {ex})")
        return None


def bench_collectives(n, dev, quick):
    rows = []
    dtype = torch.bfloat16
    for size in SIZES[:4] if quick else SIZES:
        iters = max(5, min(200, (2 << 30) // max(size, 1) // 4))
        e = size // 2
        # all_reduce, in place
        x = gt.empty(e, dtype=dtype)
        x.fill_(1)
        y = torch.ones(e, dtype=dtype, device=dev)
        tg = time_calls(lambda: gt.all_reduce(x), iters)
        tn = time_calls(lambda: dist.all_reduce(y), iters)
        sm = symm_mem_all_reduce(e, dtype, dev)
        ts = time_calls(sm, iters) if sm is not None else None
        rows.append(("all_reduce", size, tg, tn, 2 * (n - 1) / n, ts))
        gt.free(x)
        y = None  # (NCCL buffers go back to the caching allocator)
        # all_to_all: size bytes in and out per rank
        if e % n == 0:
            inp = torch.ones(e, dtype=dtype, device=dev)
            out = gt.empty(e, dtype=dtype)
            ref = torch.empty_like(inp)
            tg = time_calls(lambda: gt.all_to_all(out, inp), iters)
            tn = time_calls(lambda: dist.all_to_all_single(ref, inp), iters)
            rows.append(("all_to_all", size, tg, tn, (n - 1) / n, None))
            gt.free(out)
            del inp, ref
        # all_gather: size bytes gathered per rank
        if e % n == 0:
            inp = torch.ones(e // n, dtype=dtype, device=dev)
            out = gt.empty(e, dtype=dtype)
            ref = torch.empty(e, dtype=dtype, device=dev)
            tg = time_calls(lambda: gt.all_gather(out, inp), iters)
            tn = time_calls(lambda: dist.all_gather_into_tensor(ref, inp), iters)
            rows.append(("all_gather", size, tg, tn, (n - 1) / n, None))
            gt.free(out)
            del inp, ref
        torch.cuda.empty_cache()
    return rows


def bench_host(dev):
    from gshmem.torch import _coll
    x = gt.empty(4096, dtype=torch.bfloat16)
    fn = _coll._reduce_fn("bench", torch.bfloat16, "sum", False)
    ptr, s = x.data_ptr(), torch.cuda.current_stream().cuda_stream
    team = gt.WORLD.handle
    out = {
        "gshmem.torch.all_reduce": host_us(lambda: gt.all_reduce(x)),
        "torch.ops.gshmem.all_reduce": host_us(lambda: torch.ops.gshmem.all_reduce(x, None, "sum", team)),
        "C gshmemx_bfloat16_sum_reduce_on_stream (ctypes)": host_us(lambda: fn(team, ptr, ptr, 4096, s)),
        "dist.all_reduce (NCCL)": host_us(lambda: dist.all_reduce(x)),
    }
    gt.free(x)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", help="also write the results here")
    ap.add_argument("--quick", action="store_true", help="sizes up to 1 MiB, a small MoE step")
    a = ap.parse_args()
    dist.init_process_group("nccl")
    dev = gt.init()
    n, me = gt.n_pes(), gt.my_pe()
    rows = bench_collectives(n, dev, a.quick)
    host = bench_host(dev)
    # The MoE step (examples/python/moe_dispatch.py) in the same process group and gshmem job.
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "examples" / "python"))
    import moe_dispatch
    moe_args = ["--tokens", "1024", "--hidden", "1024"] if a.quick else ["--tokens", "8192", "--hidden", "4096"]
    t_g, t_n, t_graph = moe_dispatch.main(moe_args + ["--iters", "20"])
    gt.release_workspaces()
    gt.finalize()
    dist.destroy_process_group()
    if me == 0:
        print(f"\n{n} x {torch.cuda.get_device_name(dev)}, torch {torch.__version__}, bf16, back-to-back on one "
              "stream (gshmem data-movement collectives with their entry sync)")
        print("| op | size | gshmem us | NCCL us | symm_mem us | gshmem busbw GB/s | NCCL busbw GB/s | busbw ratio |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        for op, size, tg, tn, f, ts in rows:
            bg, bn = size / tg / 1e3 * f, size / tn / 1e3 * f
            ratio = bg / bn if bn else 0
            sm = f"{ts:.2f}" if ts is not None else "-"
            print(f"| {op} | {size >> 10} KiB | {tg:.2f} | {tn:.2f} | {sm} | {bg:.1f} | {bn:.1f} | {ratio:.2f} |")
        print("\nhost time per call (all_reduce, 8 KiB bf16):")
        for k, v in host.items():
            print(f"  {k:52s} {v:7.2f} us")
        over = host["gshmem.torch.all_reduce"] - host["C gshmemx_bfloat16_sum_reduce_on_stream (ctypes)"]
        print(f"  Python overhead over the C call: {over:.2f} us")
    if me == 0 and a.json:
        pathlib.Path(a.json).write_text(json.dumps({
            "pes": n, "rows": [dict(op=o, bytes=s, gshmem_us=g, nccl_us=c, symm_mem_us=t, busbw_factor=f)
                               for o, s, g, c, f, t in rows],
            "host_us": host, "moe_step_ms": {"gshmem": t_g, "all_to_all_single": t_n, "gshmem_graph": t_graph},
        }, indent=1))


if __name__ == "__main__":
    main()
