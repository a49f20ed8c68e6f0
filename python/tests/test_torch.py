# SPDX-License-Identifier: BSD-3-Clause
"""gshmem.torch without a GPU (skipped without torch): the dtype map against torch's own
dtypes, the unique-id exchange over a real torch.distributed TCPStore between two processes,
start-up errors, and the custom ops' registration and fake implementations under make_fx and
torch.compile (on CPU, with stand-in CPU kernels: the real ones need GPUs, python/tests/gpu/)."""
import datetime
import pathlib
import re
import socket
import subprocess
import sys
import unittest

try:
    import torch
except ImportError:
    torch = None

import gshmem

from util import library_or_skip

UID_BYTES = gshmem._capi.GSHMEMX_UNIQUEID_BYTES


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# One rank of the exchange, in a fresh interpreter: meet through the TCPStore, print the id.
_EXCHANGE = """
import datetime, sys
import torch.distributed as dist
import gshmem, gshmem.torch as gt
rank, port, fake = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "1"
if fake:  # no library to make a real id with: the exchange is what is tested
    import gshmem.runtime as rt
    rt.get_unique_id = lambda: rt.UniqueId(bytes(i % 251 for i in range(gshmem._capi.GSHMEMX_UNIQUEID_BYTES)))
store = dist.TCPStore("127.0.0.1", port, 2, rank == 0, timeout=datetime.timedelta(seconds=60))
uid = gt.exchange_unique_id(store, rank, 2, key="gshmem/uid/test", timeout=datetime.timedelta(seconds=60))
print(bytes(uid).hex())
"""


@unittest.skipIf(torch is None, "torch is not installed")
class TorchDtypesTest(unittest.TestCase):
    def test_every_torch_dtype_maps_with_its_size(self):
        from gshmem import dtypes
        seen = 0
        for name in dir(torch):
            dt = getattr(torch, name)
            # Not covered: quantized types (a scale beside the data), raw bit containers and
            # the sub-byte integers (no byte-addressable element).
            if not isinstance(dt, torch.dtype) or re.fullmatch(r"q.*|bits.*|bit|u?int[1-7]|bcomplex32", name):
                continue
            d = dtypes.resolve(dt)
            self.assertEqual(d.itemsize, dt.itemsize, str(dt))
            seen += 1
        # bf16, the float8 types and the 4-bit pair included
        for name in ("bfloat16", "float8_e4m3fn", "float8_e5m2", "float8_e8m0fnu", "float4_e2m1fn_x2", "complex32"):
            if hasattr(torch, name):
                self.assertEqual(dtypes.resolve(getattr(torch, name)).name, name)
        self.assertGreaterEqual(seen, 20)

    def test_reduce_names_exist_for_the_reducible_dtypes(self):
        from gshmem import _capi, dtypes
        for d in dtypes.DTYPES.values():
            for op in d.reduce_ops:
                self.assertIn(d.reduce_name(op), _capi.PROTOTYPES)
                if d.reducescatter:
                    self.assertIn(d.reduce_name(op, scatter=True), _capi.PROTOTYPES)


@unittest.skipIf(torch is None, "torch is not installed")
class StoreStartupTest(unittest.TestCase):
    def _run_pair(self, fake):
        port = _free_port()
        procs = [subprocess.Popen([sys.executable, "-c", _EXCHANGE, str(r), str(port), "1" if fake else "0"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for r in (0, 1)]
        got = []
        for p in procs:
            out, err = p.communicate(timeout=120)
            self.assertEqual(p.returncode, 0, err)
            got.append(bytes.fromhex(out.strip().splitlines()[-1]))
        self.assertEqual(len(got[0]), UID_BYTES)
        self.assertEqual(got[0], got[1])  # rank 1 got rank 0's id through the store
        return got[0]

    def test_unique_id_through_a_tcp_store(self):
        fake = not pathlib.Path(gshmem.library_path()).exists()
        uid = self._run_pair(fake)
        self.assertNotEqual(uid, bytes(UID_BYTES))

    def test_rank_without_rank0_times_out_with_a_clear_error(self):
        import torch.distributed as dist
        import gshmem.torch as gt
        store = dist.HashStore()
        with self.assertRaises(gshmem.BootstrapError) as cm:
            gt.exchange_unique_id(store, 1, 2, key="k", timeout=datetime.timedelta(seconds=0.2))
        self.assertIn("rank 0 did not publish", str(cm.exception))
        self.assertIn("gshmem.torch.init", str(cm.exception))

    def test_init_through_a_store_without_gpu_raises_no_gpu(self):
        library_or_skip(self)
        if torch.cuda.is_available():
            self.skipTest("a GPU is visible: the GPU tests cover start-up")
        import torch.distributed as dist
        store = dist.TCPStore("127.0.0.1", _free_port(), 1, True, timeout=datetime.timedelta(seconds=10))
        with self.assertRaises(gshmem.NoGpuError) as cm:
            gshmem.init(store=store, rank=0, world_size=1)
        self.assertIn("gshmem.init", str(cm.exception))
        self.assertFalse(gshmem.is_initialized())

    def test_bad_arguments(self):
        import gshmem.torch as gt
        with self.assertRaises(gshmem.InvalidValueError):
            gt.init(rank=0, world_size=2)  # no store to meet through
        with self.assertRaises(gshmem.InvalidValueError):
            gt.exchange_unique_id(None, 2, 2)
        with self.assertRaises(gshmem.InvalidValueError):
            gt.select_device("cpu")


def _cpu_kernels():
    """Stand-in CPU kernels (one PE: the collectives reduce to copies) so that compiled graphs
    run on CPU; registered once per process."""
    lib = torch.library

    def all_reduce(out, inp, op, team):
        if inp is not None:
            out.copy_(inp)

    def copy(out, inp, team, sync):
        out.view(-1).copy_(inp.view(-1))

    def a2av(out, inp, in_splits, out_splits, team):
        out[:inp.shape[0]].copy_(inp)
        out_splits.copy_(in_splits)
    lib.register_kernel("gshmem::all_reduce", "cpu", all_reduce)
    lib.register_kernel("gshmem::reduce_scatter", "cpu", all_reduce)
    lib.register_kernel("gshmem::all_gather", "cpu", copy)
    lib.register_kernel("gshmem::all_to_all", "cpu", copy)
    lib.register_kernel("gshmem::broadcast", "cpu", lambda t, root, team, sync: None)
    lib.register_kernel("gshmem::all_to_all_v", "cpu", a2av)


@unittest.skipIf(torch is None, "torch is not installed")
class CustomOpsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        import gshmem.torch  # noqa: F401  registers torch.ops.gshmem.*
        _cpu_kernels()

    def test_registered_with_mutation_schemas(self):
        for name in ("all_reduce", "reduce_scatter", "all_gather", "all_to_all", "broadcast", "all_to_all_v"):
            schema = str(getattr(torch.ops.gshmem, name).default._schema)
            self.assertIn("!)", schema, schema)  # the output is declared mutated
            self.assertTrue(schema.endswith("-> ()"), schema)

    def test_fake_implementations_trace(self):
        from torch.fx.experimental.proxy_tensor import make_fx

        def f(x, y, s):
            torch.ops.gshmem.all_reduce(x, None, "sum", 0)
            torch.ops.gshmem.all_gather(y, x, 0, True)
            torch.ops.gshmem.all_to_all_v(y, x, s, s, 0)
            return y + 1
        g = make_fx(f, tracing_mode="fake")(torch.empty(8), torch.empty(8), torch.zeros(1, dtype=torch.int64))
        code = g.code
        for op in ("gshmem.all_reduce", "gshmem.all_gather", "gshmem.all_to_all_v"):
            self.assertIn(op, code)

    def test_meta_tensors(self):
        m = torch.empty(16, 4, device="meta", dtype=torch.bfloat16)
        torch.ops.gshmem.all_reduce(m, None, "sum", 0)
        torch.ops.gshmem.all_to_all_v(m, m[:3], torch.empty(2, dtype=torch.int64, device="meta"),
                                      torch.empty(2, dtype=torch.int64, device="meta"), 0)

    def test_compile_fullgraph_through_the_wrappers(self):
        import gshmem.torch as gt

        def step(x, y, z, splits):
            gt.all_reduce(x, out=y)
            gt.all_gather(z, y)
            out, got = gt.all_to_all_v(z, x, splits)
            return z * 2 + got.sum()
        compiled = torch.compile(step, fullgraph=True, backend="aot_eager")
        x, y, z = torch.arange(8.), torch.zeros(8), torch.zeros(8)
        splits = torch.tensor([8])
        r = compiled(x, y, z, splits)
        self.assertTrue(torch.equal(y, x))  # the mutation reached the caller's tensor
        self.assertTrue(torch.equal(r, x * 2 + 8))


if __name__ == "__main__":
    unittest.main()
