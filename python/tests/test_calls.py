# SPDX-License-Identifier: BSD-3-Clause
"""The Python calls against a recording stand-in for the C library: which C name each form
calls, with which arguments (no GPU: the GPU runs check the data)."""
import ctypes
import unittest
import warnings

import gshmem
from gshmem import _capi, _lib


class FakeApi:
    """Records (name, args); every name must be a generated prototype."""

    def __init__(self):
        self.calls = []
        self.results = {"gshmemx_initialized": 1, "gshmem_malloc": 0x10000, "gshmem_calloc": 0x20000,
                        "gshmem_align": 0x30000,
                        "gshmem_ptr": 0x90000, "gshmemx_take_error": 0}

    def __getattr__(self, name):
        assert name in _capi.PROTOTYPES, name

        def call(*args):
            if name != "gshmemx_take_error":
                self.calls.append((name, args))
            return self.results.get(name, 0)
        return call

    def last(self):
        return self.calls[-1]


class Stream:
    def __cuda_stream__(self):
        return (0, 0x5000)


class CallsTest(unittest.TestCase):
    def setUp(self):
        self.saved, self.api = _lib._api, FakeApi()
        _lib._api = self.api

    def tearDown(self):
        _lib._api = self.saved

    def test_put_forms(self):
        buf = gshmem.malloc(256)
        sig = gshmem.calloc(8)
        gshmem.put(buf, buf, 1)
        self.assertEqual(self.api.last(), ("gshmem_putmem", (0x10000, 0x10000, 256, 1)))
        gshmem.put(buf, buf, 1, nbytes=64, nbi=True, stream=Stream())
        self.assertEqual(self.api.last(), ("gshmemx_putmem_nbi_on_stream", (0x10000, 0x10000, 64, 1, 0x5000)))
        gshmem.put(buf, buf.view("float32", (8, 8)), 0, signal=sig, signal_value=3, signal_op="add", stream=7)
        self.assertEqual(self.api.last(), ("gshmemx_putmem_signal_on_stream",
                                           (0x10000, 0x10000, 256, 0x20000, 3, _capi.GSHMEM_SIGNAL_ADD, 0, 7)))
        gshmem.get(buf, buf, 1, nbytes=16)
        self.assertEqual(self.api.last(), ("gshmem_getmem", (0x10000, 0x10000, 16, 1)))
        buf.free(), sig.free()

    def test_signals_and_sync(self):
        gshmem.signal_wait(0x20000, ">=", 2, stream=Stream())
        self.assertEqual(self.api.last(), ("gshmemx_signal_wait_until_on_stream",
                                           (0x20000, _capi.GSHMEM_CMP_GE, 2, 0x5000)))
        gshmem.signal_op(0x20000, 1, 3)
        self.assertEqual(self.api.last(), ("gshmemx_signal_op", (0x20000, 1, _capi.GSHMEM_SIGNAL_SET, 3)))
        gshmem.barrier(stream=3)
        self.assertEqual(self.api.last(), ("gshmemx_barrier_on_stream", (0, 3)))
        gshmem.NODE.sync()
        self.assertEqual(self.api.last(), ("gshmem_team_sync", (2,)))
        gshmem.quiet(stream=Stream())
        self.assertEqual(self.api.last(), ("gshmemx_quiet_on_stream", (0x5000,)))
        with self.assertRaises(gshmem.InvalidValueError):
            gshmem.signal_wait(0x20000, "~", 2)

    def test_buffer(self):
        with gshmem.malloc(128, align=4096) as buf:
            self.assertEqual(self.api.last(), ("gshmem_align", (4096, 128)))
            cai = buf.__cuda_array_interface__
            self.assertEqual((cai["shape"], cai["typestr"], cai["data"]), ((128,), "|u1", (0x30000, False)))
        self.assertEqual(self.api.last(), ("gshmem_free", (0x30000,)))

    def test_view_peer_and_leak_warning(self):
        buf = gshmem.malloc(64)
        self.assertEqual(buf.view("bfloat16", (4, 8)).__cuda_array_interface__["shape"], (4, 8))
        peer = buf.peer(1, "int32")
        self.assertEqual(peer.__cuda_array_interface__["data"][0], 0x90000)
        self.assertEqual(self.api.last(), ("gshmem_ptr", (0x10000, 1)))
        self.api.results["gshmem_ptr"] = None
        with self.assertRaises(gshmem.PeerNotAccessibleError):
            buf.peer(5)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            del buf, peer
        self.assertTrue(any(issubclass(x.category, ResourceWarning) for x in w))

    def test_team_split(self):
        t = gshmem.WORLD.split_strided(0, 2, 2)
        name, args = self.api.last()
        self.assertEqual((name, args[:6]), ("gshmem_team_split_strided", (0, 0, 2, 2, None, 0)))
        self.assertIsInstance(args[6], type(ctypes.byref(ctypes.c_int())))
        self.assertIsNone(t)  # the out-parameter stayed GSHMEM_TEAM_INVALID: not a member

    def test_init_with_unique_id(self):
        uid = gshmem.UniqueId(bytes(128))
        gshmem.init(uid=uid, rank=1, world_size=2)
        names = [n for n, _ in self.api.calls]
        self.assertEqual(names, ["gshmemx_set_attr_uniqueid_args", "gshmemx_init_attr"])
        self.assertEqual(self.api.calls[0][1][:2], (1, 2))
        self.assertEqual(self.api.calls[1][1][0], _capi.GSHMEMX_INIT_WITH_UNIQUEID)
        with self.assertRaises(gshmem.InvalidValueError):
            gshmem.init(rank=1)


if __name__ == "__main__":
    unittest.main()
