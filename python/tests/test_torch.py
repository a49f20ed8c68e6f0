# SPDX-License-Identifier: BSD-3-Clause
"""gshmem.torch without a GPU (skipped without torch; a failure instead where GSHMEM_TEST_REQUIRE
names torch, as in CI): the dtype map against every torch dtype, on real bytes too, the unique-id
exchange over a real torch.distributed TCPStore between three processes (the same id on every
rank; a key rank 0 never publishes, or a rank 0 that died, fails with a clear error instead of
hanging) and through a gloo process group, start-up errors, and the custom ops' registration,
opcheck and fake implementations under FakeTensorMode, make_fx and torch.compile (on CPU, with
stand-in CPU kernels: the real ones need GPUs, python/tests/gpu/)."""
import datetime
import json
import os
import pathlib
import re
import socket
import subprocess
import sys
import time
import unittest

from util import library_or_skip, required

try:
    import torch
except ImportError as e:
    if "torch" in required():  # a run that must test gshmem.torch: no silent skip
        raise ImportError(f"GSHMEM_TEST_REQUIRE names torch but `import torch` fails ({e}); install torch "
                          "(pip install torch) or leave torch out of GSHMEM_TEST_REQUIRE") from e
    torch = None

import gshmem

UID_BYTES = gshmem._capi.GSHMEMX_UNIQUEID_BYTES


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# One rank of the exchange, in a fresh interpreter, meeting the others through a TCPStore whose
# server is rank 0; prints what it saw as JSON. Three phases:
# 1. every rank gets rank 0's unique id (`uid`);
# 2. ranks but 0 wait for a key rank 0 never publishes (a rank out of step with the others): a
#    BootstrapError after the 1 s timeout (`unpublished`, with the `seconds` it took), while
#    rank 0 keeps the server up until they are done;
# 3. rank 0 dies (os._exit: no clean-up, as in a crash) and the others wait for its next id
#    with a 30 s timeout: they lose the store's server and must fail at once (`gone`).
_EXCHANGE = """
import datetime, json, os, sys, time
import torch.distributed as dist
import gshmem, gshmem.torch as gt
rank, port, n, fake = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
if fake:  # no library to make a real id with: the exchange is what is tested
    import gshmem.runtime as rt
    rt.get_unique_id = lambda: rt.UniqueId(bytes(i % 251 for i in range(gshmem._capi.GSHMEMX_UNIQUEID_BYTES)))
minute = datetime.timedelta(seconds=60)
store = dist.TCPStore("127.0.0.1", port, n, rank == 0, timeout=minute)
uid = gt.exchange_unique_id(store, rank, n, key="gshmem/uid/test", timeout=minute)
out = {"uid": bytes(uid).hex()}

def failure(key, seconds):
    t0 = time.monotonic()
    try:
        gt.exchange_unique_id(store, rank, n, key=key, timeout=datetime.timedelta(seconds=seconds))
        return {"error": None}
    except gshmem.BootstrapError as e:
        return {"error": str(e), "seconds": time.monotonic() - t0}
if rank == 0:
    store.wait([f"done/{r}" for r in range(1, n)], minute)
    print(json.dumps(out), flush=True)
    os._exit(0)
out["unpublished"] = failure("gshmem/uid/test-unpublished", 1)
store.set(f"done/{rank}", "1")
out["gone"] = failure("gshmem/uid/test-next", 30)
print(json.dumps(out))
"""

# Not byte-addressable data (left out of gshmem.dtypes): quantized types (a scale beside the
# data), torch's raw bit containers (no operations defined) and the sub-byte integers.
_NOT_MAPPED = re.compile(r"q.*|bits.*|bit|u?int[1-7]")
# The dtypes NumPy lacks: raw unsigned bits of their size in __cuda_array_interface__.
_RAW = {"bfloat16", "complex32", "bcomplex32", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz",
        "float8_e8m0fnu", "float4_e2m1fn_x2"}


def _torch_dtypes():
    """Every torch dtype gshmem maps, once each (aliases such as torch.half folded), by name."""
    found = {}
    for name in dir(torch):
        dt = getattr(torch, name)
        if isinstance(dt, torch.dtype) and not _NOT_MAPPED.fullmatch(str(dt).removeprefix("torch.")):
            found[str(dt).removeprefix("torch.")] = dt
    return found


@unittest.skipIf(torch is None, "torch is not installed")
class TorchDtypesTest(unittest.TestCase):
    def test_every_torch_dtype_maps_with_its_size_and_kind(self):
        from gshmem import dtypes
        import gshmem.torch as gt
        found = _torch_dtypes()
        for name, dt in found.items():
            with self.subTest(dtype=name):
                d = dtypes.resolve(dt)  # a dtype torch gained since fails here: map it (or list it above)
                self.assertIs(gt.dtype_of(dt), d)
                self.assertEqual(d.name, name)
                self.assertEqual(d.itemsize, dt.itemsize)
                kind = d.typestr[1]
                if name in _RAW:
                    self.assertEqual(kind, "u")
                    self.assertTrue(dt.is_floating_point or dt.is_complex)
                elif dt == torch.bool:
                    self.assertEqual(kind, "b")
                elif dt.is_complex:
                    self.assertEqual(kind, "c")
                elif dt.is_floating_point:
                    self.assertEqual(kind, "f")
                else:
                    self.assertEqual(kind, "i" if dt.is_signed else "u")
                # a typed C name only where the C type has the same layout
                if d.c_name in ("half", "bfloat16", "float", "double"):
                    self.assertTrue(dt.is_floating_point and not dt.is_complex)
                if d.c_name in ("complexf", "complexd"):
                    self.assertTrue(dt.is_complex)
        # bf16, the float8 types, the 4-bit pair and both 32-bit complex types among them
        for name in ("bfloat16", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
                     "float8_e8m0fnu", "float4_e2m1fn_x2", "complex32", "bcomplex32"):
            if hasattr(torch, name):
                self.assertIn(name, found)
        self.assertIn("bfloat16", found)
        self.assertIn("float8_e4m3fn", found)
        self.assertGreaterEqual(len(found), 20)
        # nothing in gshmem's map that this torch has under another name, and test_dtypes' list
        # (which runs without torch) holds every one of this torch's dtypes
        for name in dtypes.DTYPES:
            if hasattr(torch, name):
                self.assertIn(name, found)
        from test_dtypes import TORCH_DTYPES
        self.assertLessEqual(set(found), {t.removeprefix("torch.") for t in TORCH_DTYPES})

    def test_reduce_names_exist_for_the_reducible_dtypes(self):
        from gshmem import _capi, dtypes
        for d in dtypes.DTYPES.values():
            for op in d.reduce_ops:
                self.assertIn(d.reduce_name(op), _capi.PROTOTYPES)
                if d.reducescatter:
                    self.assertIn(d.reduce_name(op, scatter=True), _capi.PROTOTYPES)


# One rank of gshmem.init() under an initialized torch.distributed (gloo, CPU): the start-up
# takes rank and size from the group and the id from rank 0 through the group's store; the
# library's init is replaced by a recorder. The ranks run without a GPU even where there is one
# (_run_ranks): start-up makes a visible GPU current first (select_device), both ranks would
# take cuda:0 without torchrun's LOCAL_RANK (a GPU in exclusive-process mode refuses the second),
# and the GPU tests cover that part.
_GROUP_INIT = """
import sys
import torch.distributed as dist
import gshmem, gshmem.runtime as rt
rank, port = int(sys.argv[1]), int(sys.argv[2])
if not __import__("pathlib").Path(gshmem.library_path()).exists():
    rt.get_unique_id = lambda: rt.UniqueId(bytes(i % 241 for i in range(gshmem._capi.GSHMEMX_UNIQUEID_BYTES)))
real_init, seen = rt.init, []
def recorder(**kw):
    if kw.get("uid") is None:
        return real_init(**kw)
    seen.append(kw)
rt.init = recorder
dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=2)
gshmem.init()      # torch.distributed is initialized: goes through gshmem.torch.init
gshmem.init()      # a second start-up meets on a new key
assert len(seen) == 2 and all(k["rank"] == rank and k["world_size"] == 2 for k in seen), seen
# The recorder does not block as the library's init does until every PE is there: without this
# rank 0 could exit, its store's server with it, before rank 1 has read the ids.
dist.barrier()
print(" ".join(bytes(k["uid"]).hex() for k in seen))
dist.destroy_process_group()
"""


@unittest.skipIf(torch is None, "torch is not installed")
class StoreStartupTest(unittest.TestCase):
    def _run_ranks(self, script, *args, n=2, limit=90):
        """Runs `script` as ranks 0..n-1 (argv: rank, a free port, args), without GPUs; returns
        each rank's last stdout line, failing with every rank's output if any fails or if they
        are not all done within `limit` seconds (then they are killed: a hang fails the test)."""
        port = _free_port()
        # gloo's own sockets on the loopback too: by default it binds the address the host name
        # resolves to, which a sandbox's /etc/hosts may not route
        env = dict(os.environ, CUDA_VISIBLE_DEVICES="", GLOO_SOCKET_IFNAME="lo")
        env.pop("LOCAL_RANK", None)
        procs = [subprocess.Popen([sys.executable, "-c", script, str(r), str(port), *args], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, env=env) for r in range(n)]
        deadline = time.monotonic() + limit
        outs = []
        try:
            for p in procs:
                try:
                    outs.append(p.communicate(timeout=max(deadline - time.monotonic(), 1)))
                except subprocess.TimeoutExpired:
                    p.kill()
                    o, e = p.communicate()
                    outs.append((o, e + f"\n[killed: the ranks were not done after {limit} s]"))
        finally:
            for p in procs:
                if p.poll() is None:
                    p.kill()
                    p.wait()
        report = "\n".join(f"--- rank {r}: exit {p.returncode}\nstdout:\n{o[-2000:]}\nstderr:\n{e[-4000:]}"
                           for r, (p, (o, e)) in enumerate(zip(procs, outs)))
        if any(p.returncode for p in procs) or not all(o.strip() for o, _ in outs):
            self.fail(f"a rank failed (torch {torch.__version__}):\n{report}")
        return [o.strip().splitlines()[-1] for o, _ in outs], report

    def test_unique_id_and_failures_through_a_tcp_store(self):
        # three processes, the phases of _EXCHANGE
        fake = not pathlib.Path(gshmem.library_path()).exists()
        n = 3
        lines, report = self._run_ranks(_EXCHANGE, str(n), "1" if fake else "0", n=n)
        got = [json.loads(x) for x in lines]
        uids = [bytes.fromhex(g["uid"]) for g in got]
        self.assertEqual(len(uids[0]), UID_BYTES, report)
        self.assertNotEqual(uids[0], bytes(UID_BYTES), report)
        if fake:
            self.assertEqual(uids[0], bytes(i % 251 for i in range(UID_BYTES)), report)
        for r in range(1, n):
            self.assertEqual(uids[r], uids[0], report)  # rank r got rank 0's id through the store
            what = got[r]["unpublished"]
            self.assertIsNotNone(what["error"], f"rank {r}: waiting for an unpublished key returned\n{report}")
            for part in ("gshmem.torch.init", f"rank {r} of {n}", "rank 0 did not publish", "within 1 s",
                         "'gshmem/uid/test-unpublished'", "check that rank 0 is alive"):
                self.assertIn(part, what["error"])
            self.assertGreaterEqual(what["seconds"], 0.9, report)  # the timeout was honoured,
            self.assertLess(what["seconds"], 20, report)           # and ended the wait
            gone = got[r]["gone"]
            self.assertIsNotNone(gone["error"], f"rank {r}: waiting on a dead store returned\n{report}")
            for part in ("gshmem.torch.init", f"rank {r} of {n}", "lost its connection to the store",
                         "'gshmem/uid/test-next'", "check that rank 0 is alive"):
                self.assertIn(part, gone["error"])
            self.assertLess(gone["seconds"], 20, report)  # not the 30 s timeout: the store is gone

    def test_init_through_a_process_group(self):
        lines, report = self._run_ranks(_GROUP_INIT)
        got = [x.split() for x in lines]
        self.assertEqual(got[0], got[1], report)  # both start-ups: the same id on both ranks
        self.assertEqual(len(got[0]), 2, report)
        if pathlib.Path(gshmem.library_path()).exists():
            self.assertNotEqual(got[0][0], got[0][1], report)  # a fresh id per start-up

    def test_rank_without_rank0_times_out_with_a_clear_error(self):
        import torch.distributed as dist
        import gshmem.torch as gt
        store = dist.HashStore()
        with self.assertRaises(gshmem.BootstrapError) as cm:
            gt.exchange_unique_id(store, 1, 2, key="k", timeout=datetime.timedelta(seconds=0.2))
        self.assertIn("rank 0 did not publish", str(cm.exception))
        self.assertIn("gshmem.torch.init", str(cm.exception))
        # through init(store=): the per-start-up key, a timeout in seconds (no GPU made current
        # where there is one: the GPU tests cover select_device)
        from unittest import mock
        t0 = time.monotonic()
        with self.assertRaises(gshmem.BootstrapError) as cm, \
                mock.patch("gshmem.torch._startup.select_device", lambda device=None: None):
            gt.init(store=dist.HashStore(), rank=1, world_size=2, timeout=0.3)
        self.assertLess(time.monotonic() - t0, 10)
        self.assertRegex(str(cm.exception), r"rank 1 of 2: rank 0 did not publish .* within 0\.3 s "
                         r"\(store key 'gshmem/uid/world/\d+'")
        if pathlib.Path(gshmem.library_path()).exists():
            self.assertFalse(gshmem.is_initialized())

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


class _HeapApi:
    """A stand-in C library for the tensor registry: gshmem_align hands out increasing
    addresses, gshmem_ptr maps PE p to 0x7000_0000_0000 + p * 2**32 + the offset, and one
    error message may be queued for the next gshmemx_take_error."""

    def __init__(self):
        self.next, self.calls, self.error, self.team_size = 0x10_0000_0000, [], None, 1

    def __getattr__(self, name):
        assert name in gshmem._capi.PROTOTYPES, name

        def call(*args):
            self.calls.append((name, args))
            if name == "gshmemx_initialized":
                return 1
            if name == "gshmem_team_n_pes":
                return self.team_size
            if name == "gshmem_align":
                addr, self.next = self.next, self.next + (args[1] + 255) // 256 * 256 + 4096
                return addr
            if name == "gshmem_ptr":
                return 0x7000_0000_0000 + args[1] * (1 << 32) + (args[0] - 0x10_0000_0000)
            if name == "gshmemx_take_error":
                if self.error is None:
                    return 0
                args[0].value, self.error = self.error.encode(), None
                return 1
            return 0
        return call


@unittest.skipIf(torch is None, "torch is not installed")
class TensorRegistryTest(unittest.TestCase):
    """empty/free/peer/is_symmetric bookkeeping, on CPU tensors over fake addresses (no data is
    touched), and every dtype over real CPU memory standing in for the heaps."""

    def setUp(self):
        from gshmem import _lib
        import gshmem.torch as gt
        self.gt, self.saved, self.api = gt, _lib._api, _HeapApi()
        _lib._api = self.api

    def tearDown(self):
        from gshmem import _lib
        from gshmem.torch import _tensors
        _tensors._forget_all()
        _lib._api = self.saved

    def test_every_dtype_shape_and_lookup(self):
        gt = self.gt
        made = []
        for name in ("bfloat16", "float8_e4m3fn", "float4_e2m1fn_x2", "complex32", "bool", "uint64", "float32"):
            dt = getattr(torch, name)
            t = gt.empty(3, 5, dtype=dt, device="cpu")
            self.assertEqual((t.shape, t.dtype), (torch.Size([3, 5]), dt))
            self.assertEqual(self.api.calls[-1][0], "gshmem_align")
            self.assertEqual(self.api.calls[-1][1], (256, 15 * dt.itemsize))
            self.assertEqual(t.data_ptr() % 256, 0)
            made.append(t)
        for t in made:
            self.assertTrue(gt.is_symmetric(t) and gt.is_symmetric(t[1:, 2:]))
        self.assertFalse(gt.is_symmetric(torch.zeros(4)))
        e = gt.empty(0, 4, device="cpu")  # no elements: still a (1-byte) allocation
        self.assertEqual(e.shape, (0, 4))
        with self.assertRaises(gshmem.InvalidValueError):
            gt.empty(2, -1, device="cpu")
        with self.assertRaises(gshmem.NotSymmetricError) as cm:
            gt.free(made[0][1:])
        self.assertIn("gshmem.torch.free", str(cm.exception))
        for t in made + [e]:
            gt.free(t)
            self.assertFalse(gt.is_symmetric(t))
        self.assertEqual(sum(1 for n, _ in self.api.calls if n == "gshmem_free"), len(made) + 1)

    def test_every_torch_dtype_on_real_bytes(self):
        # The map's sizes carried into memory: poisoned CPU buffers stand in for this PE's heap
        # and PE 1's. zeros() must clear exactly the tensor's bytes, a pattern written through
        # the typed tensor must land byte for byte, and one written through peer(t[2:], 1) in PE
        # 1's heap at the same offset, nowhere else.
        gt, api, poison = self.gt, self.api, 0xA5
        heaps = [torch.full((1 << 18,), poison, dtype=torch.uint8) for _ in range(2)]
        base = [h.data_ptr() for h in heaps]
        api.next = (base[0] + 255) // 256 * 256 + 256
        api.gshmem_ptr = lambda addr, pe: base[pe] + addr - base[0]
        g = torch.Generator().manual_seed(54)
        for name, dt in _torch_dtypes().items():
            with self.subTest(dtype=name):
                k = dt.itemsize
                t = gt.zeros(7, 3, dtype=dt, device="cpu")
                off, nb = t.data_ptr() - base[0], 21 * k
                self.assertLessEqual(off + nb + 64, heaps[0].numel())
                mine, theirs = heaps[0], heaps[1]
                self.assertTrue(bool((mine[off:off + nb] == 0).all()))
                self.assertTrue(bool((mine[off - 64:off] == poison).all()))
                self.assertTrue(bool((mine[off + nb:off + nb + 64] == poison).all()))
                pat = torch.randint(0, 256, (nb,), dtype=torch.uint8, generator=g)
                t.view(torch.uint8).copy_(pat.view(7, 3 * k))
                self.assertTrue(torch.equal(mine[off:off + nb], pat))
                p = gt.peer(t[2:], 1)
                self.assertEqual((p.shape, p.stride(), p.dtype), (torch.Size([5, 3]), (3, 1), dt))
                rows = pat[6 * k:].view(5, 3 * k).flip(0)  # another pattern: the rows reversed
                p.view(torch.uint8).copy_(rows)
                self.assertTrue(torch.equal(theirs[off + 6 * k:off + nb], rows.reshape(-1)))
                self.assertTrue(bool((theirs[off - 64:off + 6 * k] == poison).all()))
                self.assertTrue(bool((theirs[off + nb:off + nb + 64] == poison).all()))
                self.assertTrue(torch.equal(mine[off:off + nb], pat))  # this PE's copy untouched
                gt.free(t)

    def test_peer_keeps_shape_strides_and_offset(self):
        gt = self.gt
        t = gt.empty(4, 6, dtype=torch.bfloat16, device="cpu")
        base = t.data_ptr()
        v = gt.peer(t, 1)
        self.assertEqual((v.shape, v.stride(), v.dtype), (t.shape, t.stride(), t.dtype))
        self.assertEqual(v.data_ptr(), 0x7000_0000_0000 + (1 << 32) + base - 0x10_0000_0000)
        sub = gt.peer(t[1:, 2:], 3)
        self.assertEqual(sub.stride(), (6, 1))
        self.assertEqual(sub.data_ptr() - (0x7000_0000_0000 + 3 * (1 << 32)), base - 0x10_0000_0000 + (6 + 2) * 2)
        with self.assertRaises(gshmem.NotSymmetricError) as cm:
            gt.peer(torch.zeros(3), 0)
        self.assertIn("not in the symmetric heap", str(cm.exception))
        gt.free(t)

    def test_mismatched_free_leaves_the_tensor_live(self):
        gt = self.gt
        t = gt.empty(16, device="cpu")

        def refused(ptr):  # what the library does when another PE freed another block
            self.api.calls.append(("gshmem_free", (ptr,)))
            self.api.error = ("gshmem_free: the PEs made different calls: this PE asked for a free of the block "
                              "at heap offset 0 but PE 1 asked for ... Nothing is freed.")
        self.api.gshmem_free = refused
        with self.assertRaises(gshmem.AllocationMismatchError) as cm:
            gt.free(t)
        del self.api.gshmem_free
        self.assertIn("gshmem.SymmetricBuffer.free", str(cm.exception))
        self.assertTrue(gt.is_symmetric(t))
        gt.free(t)
        self.assertFalse(gt.is_symmetric(t))

    def test_mismatched_allocation(self):
        gt = self.gt
        real_align = self.api.__getattr__("gshmem_align")

        def failing(*args):
            real_align(*args)
            self.api.error = "gshmem_align: the PEs made different calls: ... Returning NULL on every PE."
            return 0
        self.api.gshmem_align = failing
        with self.assertRaises(gshmem.AllocationMismatchError):
            gt.empty(10, device="cpu")


@unittest.skipIf(torch is None, "torch is not installed")
class CollectiveCallsTest(unittest.TestCase):
    """Which C on-stream collective each gshmem.torch collective calls, with which arguments
    (CPU tensors over fake symmetric addresses; the stream and device checks stood in)."""

    def setUp(self):
        from gshmem import _lib
        import gshmem.torch as gt
        from gshmem.torch import _coll
        self.gt, self.coll, self.saved, self.api = gt, _coll, _lib._api, _HeapApi()
        self.api.team_size = 2
        _lib._api = self.api
        self.saved_fns = dict(_coll._fns)
        _coll._fns.clear()
        self.patches = {"stream_of": _coll.stream_of, "_contiguous": _coll._contiguous}
        _coll.stream_of = lambda t: 0x5000
        _coll._contiguous = lambda call, arg, t: None

    def tearDown(self):
        from gshmem import _lib
        from gshmem.torch import _tensors
        _tensors._forget_all()
        self.coll._fns.clear()
        self.coll._fns.update(self.saved_fns)
        for k, v in self.patches.items():
            setattr(self.coll, k, v)
        _lib._api = self.saved

    def calls(self, *names):
        return [c for c in self.api.calls if c[0] in names]

    def test_reductions_by_dtype_and_op(self):
        gt = self.gt
        for dt, op, cname in ((torch.bfloat16, "sum", "gshmemx_bfloat16_sum_reduce_on_stream"),
                              (torch.float32, "max", "gshmemx_float_max_reduce_on_stream"),
                              (torch.int64, "xor", "gshmemx_int64_xor_reduce_on_stream"),
                              (torch.bool, "or", "gshmemx_uint8_or_reduce_on_stream"),
                              (torch.complex64, "prod", "gshmemx_complexf_prod_reduce_on_stream")):
            x, y = gt.empty(1000, dtype=dt, device="cpu"), gt.empty(1000, dtype=dt, device="cpu")
            self.api.calls.clear()
            self.assertIs(gt.all_reduce(x, op, out=y), y)
            self.assertEqual(self.calls(cname), [(cname, (0, y.data_ptr(), x.data_ptr(), 1000, 0x5000))])
            self.api.calls.clear()
            gt.all_reduce(x, op)  # in place
            self.assertEqual(self.calls(cname), [(cname, (0, x.data_ptr(), x.data_ptr(), 1000, 0x5000))])
        with self.assertRaises(gshmem.InvalidValueError) as cm:
            gt.all_reduce(gt.empty(4, dtype=torch.float8_e4m3fn, device="cpu"))
        self.assertIn("gshmem.torch.all_reduce", str(cm.exception))
        out, inp = gt.empty(10, device="cpu"), gt.empty(20, device="cpu")
        self.api.calls.clear()
        gt.reduce_scatter(out, inp, "min")
        name = "gshmemx_float_min_reducescatter_on_stream"
        self.assertEqual(self.calls(name), [(name, (0, out.data_ptr(), inp.data_ptr(), 10, 0x5000))])
        with self.assertRaises(gshmem.InvalidValueError):
            gt.reduce_scatter(out, gt.empty(21, device="cpu"))  # not n_pes x out

    def test_data_movement_sync_first_and_bytes(self):
        gt = self.gt
        inp = gt.empty(6, dtype=torch.float8_e5m2, device="cpu")
        out = gt.empty(12, dtype=torch.float8_e5m2, device="cpu")
        self.api.calls.clear()
        gt.all_gather(out, inp)
        names = [c[0] for c in self.api.calls if c[0].endswith("_on_stream")]
        self.assertEqual(names, ["gshmemx_team_sync_on_stream", "gshmemx_fcollectmem_on_stream"])
        self.assertEqual(self.calls("gshmemx_fcollectmem_on_stream")[0][1],
                         (0, out.data_ptr(), inp.data_ptr(), 6, 0x5000))
        a2a = gt.empty(6, dtype=torch.float8_e5m2, device="cpu")
        self.api.calls.clear()
        gt.all_to_all(a2a, inp, sync=False)
        self.assertEqual([c for c in self.api.calls if c[0].endswith("_on_stream")],
                         [("gshmemx_alltoallmem_on_stream", (0, a2a.data_ptr(), inp.data_ptr(), 3, 0x5000))])
        self.api.calls.clear()
        gt.broadcast(out, 1, team=gt.NODE)
        self.assertEqual([c[0] for c in self.api.calls if c[0].endswith("_on_stream")],
                         ["gshmemx_team_sync_on_stream", "gshmemx_broadcastmem_on_stream"])
        self.assertEqual(self.calls("gshmemx_broadcastmem_on_stream")[0][1],
                         (gt.NODE.handle, out.data_ptr(), out.data_ptr(), 12, 1, 0x5000))
        with self.assertRaises(gshmem.InvalidValueError):
            gt.all_gather(a2a, inp)  # out must hold n_pes x inp
        with self.assertRaises(gshmem.NotSymmetricError):
            gt.all_to_all(torch.empty(6, dtype=torch.float8_e5m2), inp)

    def test_no_elements_calls_nothing(self):
        gt = self.gt
        e = gt.empty(0, device="cpu")
        self.api.calls.clear()
        gt.all_reduce(e)
        gt.all_gather(gt.empty(0, device="cpu"), e)
        gt.broadcast(e)
        self.assertEqual([c for c in self.api.calls if c[0].endswith("_on_stream")], [])


@unittest.skipIf(torch is None, "torch is not installed")
class AllToAllVPlanTest(unittest.TestCase):
    """all_to_all_v's offsets (gshmem.torch._a2av.plan) drive a simulated copy of every PE's runs
    (what the Triton kernel does, with its clamps) into the others' `out`: the result must be
    all_to_all_single's, for uneven and empty splits and a capacity cut."""

    def simulate(self, splits, hidden, cap):
        from gshmem.torch._a2av import plan
        n = len(splits)
        S = torch.tensor(splits, dtype=torch.int64)
        inps = [torch.arange(int(S[p].sum()) * hidden).view(-1, hidden) + 1000 * p for p in range(n)]
        outs = [torch.full((cap, hidden), -1, dtype=torch.int64) for _ in range(n)]
        got_splits = []
        for me in range(n):
            osp = torch.empty(n, dtype=torch.int64)
            send_off, dst_off = plan(S, S[me], me, osp)
            got_splits.append(osp)
            for p in range(n):  # the kernel's run for peer p, clamped as it clamps
                cnt = int(S[me, p])
                cnt = min(cnt, max(inps[me].shape[0] - int(send_off[p]), 0))
                cnt = min(cnt, max(cap - int(dst_off[p]), 0))
                so, do = int(send_off[p]), int(dst_off[p])
                outs[p][do:do + cnt] = inps[me][so:so + cnt]
        for p in range(n):
            self.assertEqual(got_splits[p].tolist(), S[:, p].tolist())
            want = torch.cat([inps[q][int(S[q, :p].sum()):int(S[q, :p + 1].sum())] for q in range(n)])
            m = min(cap, want.shape[0])
            self.assertTrue(torch.equal(outs[p][:m], want[:m]), (splits, p))
            self.assertTrue(bool((outs[p][m:] == -1).all()))  # nothing past the data or the capacity

    def test_uneven_empty_and_capacity(self):
        self.simulate([[1, 2, 3], [0, 0, 5], [4, 0, 0]], 3, 16)
        self.simulate([[0, 0], [0, 0]], 2, 4)
        self.simulate([[7]], 5, 7)
        self.simulate([[3, 4], [5, 6]], 2, 8)  # PE 1 gets 4 + 6 = 10 rows: cut at 8
        g = torch.Generator().manual_seed(5)
        for n in (2, 3, 5, 8):
            S = torch.randint(0, 9, (n, n), generator=g).tolist()
            self.simulate(S, 4, 9 * n)


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

    def _samples(self, device="cpu"):
        """(op, args) for each op, every optional form included: outputs poisoned (-1), inputs
        counting up, so that what a kernel writes shows."""
        ops = torch.ops.gshmem

        def out(*shape, dtype=torch.float32):
            return torch.full(shape, -1, dtype=dtype, device=device)

        def inp(*shape, dtype=torch.float32):
            return torch.arange(1, 1 + torch.Size(shape).numel(), device=device).to(dtype).view(shape)
        return [(ops.all_reduce, (out(8, 3), inp(8, 3), "sum", 0)), (ops.all_reduce, (inp(8, 3), None, "max", 0)),
                (ops.reduce_scatter, (out(5), inp(5), "sum", 0)),
                (ops.all_gather, (out(6, dtype=torch.bfloat16), inp(6, dtype=torch.bfloat16), 0, True)),
                (ops.all_to_all, (out(7), inp(7), 0, False)), (ops.broadcast, (inp(4, 2), 0, 0, True)),
                (ops.all_to_all_v, (out(9, 2), inp(3, 2), torch.tensor([3], device=device),
                                    out(1, dtype=torch.int64), 0))]

    def test_opcheck(self):
        # torch's own check of a custom op's registration: the schema's mutations against what
        # the (stand-in) kernel does, autograd, the fake implementation against the kernel, and
        # AOT dispatch with dynamic shapes
        for op, args in self._samples():
            with self.subTest(op=str(op)):
                got = torch.library.opcheck(op, args)
                self.assertEqual(set(got.values()), {"SUCCESS"}, got)
                self.assertIn("test_faketensor", got)

    def test_fake_tensor_mode(self):
        # every op on fake tensors (as torch.compile traces them): no data, no kernel, no error
        from torch._subclasses.fake_tensor import FakeTensorMode
        with FakeTensorMode():
            for op, args in self._samples():
                with self.subTest(op=str(op)):
                    self.assertIsNone(op(*args))

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
