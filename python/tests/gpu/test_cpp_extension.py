# SPDX-License-Identifier: BSD-3-Clause
"""A CUDA kernel built with torch.utils.cpp_extension.load_inline against gshmem's headers (no
-rdc; examples/python/put_signal_kernel.py): each PE puts with a signal into the next PE, which
waits for it in the same kernel; every element checked, several rounds, no host sync between
the launch and the check's own stream work."""
import pathlib
import sys

import torch

import gshmem.torch as gt

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3] / "examples" / "python"))
import put_signal_kernel  # noqa: E402


def test_load_inline_kernel_put_signal_ring(pe):
    rank, world, dev = pe
    ext = put_signal_kernel.build()
    prev = (rank - 1) % world
    for count in (1, 4099, 1 << 20):
        dst, sig = gt.empty(count), gt.zeros(1, dtype=torch.uint64)
        dst.fill_(float("nan"))  # poison
        src = torch.arange(count, device=dev, dtype=torch.float32) * 3 + 1000 * rank
        out = torch.full((count,), -1.0, device=dev)
        gt.barrier()
        for value in (1, 2, 3):
            src += 1
            put_signal_kernel.ring(ext, src, dst, sig, value, out)
            want = torch.arange(count, device=dev, dtype=torch.float32) * 3 + 1000 * prev + value
            assert torch.equal(out, want), (count, value)
            gt.barrier()  # prev overwrites this PE's dst only after it was read
        torch.cuda.synchronize()
        gt.free(sig)
        gt.free(dst)
