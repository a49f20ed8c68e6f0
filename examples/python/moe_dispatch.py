# SPDX-License-Identifier: BSD-3-Clause
"""MoE token dispatch and combine on symmetric tensors, checked against torch.distributed.

Each PE holds `tokens` tokens of `hidden` bf16 values, routed to `topk` of the
n_pes * experts_per_pe experts (expert e lives on PE e // experts_per_pe). One step:
  dispatch  every (token, expert) pair goes to its expert's PE: gshmem.torch.all_to_all_v,
            the split sizes computed and exchanged on the GPU (no host synchronisation, so
            the whole step can be one CUDA graph); the expert id rides in two extra bf16
            columns of each row;
  experts   each received row is scaled by its expert's factor (a stand-in for the MLP);
  combine   the rows go back the same way (all_to_all_v with the received splits), and
            each token sums its topk results weighted by the router.
The reference does the same with torch.distributed.all_to_all_single (NCCL), which needs the
split sizes on the host (a .tolist() per all-to-all). The outputs must be bitwise equal.

    torchrun --nproc-per-node 2 examples/python/moe_dispatch.py [--tokens 8192 --hidden 4096]
"""
import argparse

import torch
import torch.distributed as dist

import gshmem.torch as gt


class Moe:
    def __init__(self, tokens, hidden, topk, experts_per_pe, device):
        self.T, self.H, self.k, self.epr = tokens, hidden, topk, experts_per_pe
        self.n, self.me = gt.n_pes(), gt.my_pe()
        self.E = self.n * experts_per_pe
        self.dev = device
        cap = self.n * tokens * topk  # worst case: every pair of every PE comes here
        # symmetric: what peers write into (dispatch's and combine's outputs)
        self.recv = gt.empty(cap, hidden + 2, dtype=torch.bfloat16)
        self.back = gt.empty(tokens * topk, hidden + 2, dtype=torch.bfloat16)
        self.out_splits = torch.zeros(self.n, dtype=torch.int64, device=device)
        self.back_splits = torch.zeros(self.n, dtype=torch.int64, device=device)
        self.scale = (torch.arange(self.E, device=device, dtype=torch.float32) % 7 + 1).to(torch.bfloat16) / 4

    def free(self):
        gt.free(self.back)
        gt.free(self.recv)

    def inputs(self, seed):
        g = torch.Generator(device=self.dev).manual_seed(seed * 7919 + self.me)
        x = torch.randn(self.T, self.H, generator=g, device=self.dev).to(torch.bfloat16)
        logits = torch.randn(self.T, self.E, generator=g, device=self.dev)
        w, topi = torch.topk(torch.softmax(logits, -1), self.k, dim=-1)
        return x, topi, w.to(torch.bfloat16)

    def pack(self, x, topi):
        """The send rows in destination-PE order, the expert id in the last two columns, the
        split sizes, and the permutation (to put the returned rows back)."""
        flat = topi.reshape(-1)
        dest = flat // self.epr
        order = torch.argsort(dest * self.E + flat, stable=True)
        send = torch.empty(order.numel(), self.H + 2, dtype=torch.bfloat16, device=self.dev)
        send[:, :self.H] = x[order // self.k]
        send[:, self.H:].view(torch.int32)[:, 0] = flat[order].to(torch.int32)
        # (bincount would read its maximum on the host: a synchronisation, and no graph)
        splits = torch.zeros(self.n, dtype=torch.int64, device=self.dev).scatter_add_(0, dest, torch.ones_like(dest))
        return send, splits, order

    def experts(self, rows):
        ids = rows[:, self.H:].view(torch.int32)[:, 0].long().clamp_(0, self.E - 1)  # rows past the data: any id
        rows[:, :self.H] *= self.scale[ids].unsqueeze(1)

    def unpack(self, back, order, w):
        pairs = torch.empty_like(back[:, :self.H])
        pairs[order] = back[:, :self.H]
        return (pairs.view(self.T, self.k, self.H).float() * w.unsqueeze(-1).float()).sum(1).to(torch.bfloat16)

    def step_gshmem(self, x, topi, w):
        send, splits, order = self.pack(x, topi)
        gt.all_to_all_v(self.recv, send, splits, self.out_splits)          # dispatch
        self.experts(self.recv)                                             # every row up to capacity
        gt.all_to_all_v(self.back, self.recv, self.out_splits, self.back_splits)  # combine
        return self.unpack(self.back, order, w)

    def step_nccl(self, x, topi, w):
        send, splits, order = self.pack(x, topi)
        out_splits = torch.empty_like(splits)
        dist.all_to_all_single(out_splits, splits)
        ins, outs = splits.tolist(), out_splits.tolist()  # host synchronisation
        recv = torch.empty(sum(outs), self.H + 2, dtype=torch.bfloat16, device=self.dev)
        dist.all_to_all_single(recv, send, outs, ins)
        self.experts(recv)
        back = torch.empty_like(send)
        dist.all_to_all_single(back, recv, ins, outs)
        return self.unpack(back, order, w)


def timed(fn, iters):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    dist.barrier()
    torch.cuda.synchronize()
    start.record()
    for _ in range(iters):
        fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / iters


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tokens", type=int, default=4096)
    ap.add_argument("--hidden", type=int, default=2048)
    ap.add_argument("--topk", type=int, default=2)
    ap.add_argument("--experts-per-pe", type=int, default=4)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--no-graph", action="store_true", help="skip the CUDA-graph timing")
    a = ap.parse_args(argv)
    # Run inside a caller's job (python/bench/bench_torch.py) or on its own: start and end only
    # what it started. A second NCCL process group in one torchrun job failed to connect.
    own_group, own_gshmem = not dist.is_initialized(), not gt.is_initialized()
    if own_group:
        dist.init_process_group("nccl")
    dev = gt.init() if own_gshmem else torch.cuda.current_device()
    moe = Moe(a.tokens, a.hidden, a.topk, a.experts_per_pe, dev)
    me = gt.my_pe()
    for seed in range(3):  # correctness: bitwise equal to the NCCL path, every element
        x, topi, w = moe.inputs(seed)
        got, want = moe.step_gshmem(x, topi, w), moe.step_nccl(x, topi, w)
        bad = int((got.view(torch.int16) != want.view(torch.int16)).sum())
        assert bad == 0, f"PE {me}: {bad} of {got.numel()} outputs differ from the all_to_all_single reference"
        assert int(moe.out_splits.sum()) > 0 or a.tokens == 0
    x, topi, w = moe.inputs(99)
    t_g = timed(lambda: moe.step_gshmem(x, topi, w), a.iters)
    t_n = timed(lambda: moe.step_nccl(x, topi, w), a.iters)
    t_graph = None
    if not a.no_graph:
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            y_static = moe.step_gshmem(x, topi, w)
        g.replay()
        want = moe.step_nccl(x, topi, w)
        assert torch.equal(y_static, want), f"PE {me}: the CUDA graph's output differs"
        t_graph = timed(g.replay, a.iters)
    if me == 0:
        print(f"moe_dispatch OK on {gt.n_pes()} PEs: {a.tokens} tokens x {a.hidden} bf16, top-{a.topk} of "
              f"{moe.E} experts; outputs bitwise equal to all_to_all_single")
        print(f"  step (dispatch + experts + combine): gshmem {t_g:.3f} ms, all_to_all_single {t_n:.3f} ms"
              + (f", gshmem in a CUDA graph {t_graph:.3f} ms" if t_graph is not None else ""))
    torch.cuda.synchronize()
    gt.release_workspaces()
    moe.free()
    if own_gshmem:
        gt.finalize()
    if own_group:
        dist.destroy_process_group()
    return t_g, t_n, t_graph


if __name__ == "__main__":
    main()
