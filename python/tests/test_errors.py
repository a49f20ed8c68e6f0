# SPDX-License-Identifier: BSD-3-Clause
"""Status codes to exceptions, and what the calls accept as memory and streams."""
import unittest

from gshmem import _capi, _convert, errors
from gshmem.memory import _cai


class ErrorsTest(unittest.TestCase):
    def test_every_status_has_a_class(self):
        codes = [v for k, v in vars(_capi).items() if k.startswith("GSHMEM_ERROR_")]
        self.assertEqual(sorted(codes), sorted(errors.BY_STATUS))
        for code in codes:
            self.assertTrue(issubclass(errors.BY_STATUS[code], errors.GshmemError))

    def test_message_names_call_cause_and_status(self):
        e = errors.from_status("gshmem.init", _capi.GSHMEM_ERROR_BOOTSTRAP, "gshmem_init: rendezvous timed out")
        self.assertIsInstance(e, errors.BootstrapError)
        self.assertEqual(str(e), "gshmem.init: gshmem_init: rendezvous timed out [GSHMEM_ERROR_BOOTSTRAP]")
        self.assertEqual((e.call, e.status), ("gshmem.init", _capi.GSHMEM_ERROR_BOOTSTRAP))
        self.assertIsInstance(errors.from_status("x", _capi.GSHMEM_ERROR_CUDA, "no CUDA GPU is visible"),
                              errors.NoGpuError)
        self.assertIsInstance(errors.from_status("x", _capi.GSHMEM_ERROR_INVALID_VALUE, "m"), ValueError)
        self.assertIn("status 99", str(errors.from_status("x", 99, "m")))


class Cai:
    def __init__(self, shape, typestr, strides=None):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr, "data": (0x1000, False),
                                         "version": 3, "strides": strides}


class ConvertTest(unittest.TestCase):
    def test_addresses(self):
        self.assertEqual(_convert.address("c", "a", 0x20), (0x20, None))
        self.assertEqual(_convert.address("c", "a", Cai((4, 8), "<f4")), (0x1000, 128))
        self.assertEqual(_convert.address("c", "a", Cai((4, 8), "<f4", (32, 4))), (0x1000, 128))
        with self.assertRaises(errors.InvalidValueError):
            _convert.address("c", "a", Cai((4, 8), "<f4", (4, 16)))  # transposed
        with self.assertRaises(errors.InvalidValueError) as cm:
            _convert.address("gshmem.put", "dst", "text")
        self.assertIn("gshmem.put: `dst`", str(cm.exception))

    def test_byte_counts(self):
        self.assertEqual(_convert.nbytes_of("c", "nbytes", None, 64, 32), 32)
        self.assertEqual(_convert.nbytes_of("c", "nbytes", 16, None, None), 16)
        with self.assertRaises(errors.InvalidValueError):
            _convert.nbytes_of("c", "nbytes", None, None, None)

    def test_streams(self):
        class Proto:  # the CUDA stream protocol (cuda.core, torch >= 2.10)
            def __cuda_stream__(self):
                return (0, 0xBEEF)

        class OldTorch:
            cuda_stream = 0xCAFE

        self.assertIsNone(_convert.stream_handle("c", None))
        self.assertEqual(_convert.stream_handle("c", 7), 7)
        self.assertEqual(_convert.stream_handle("c", Proto()), 0xBEEF)
        self.assertEqual(_convert.stream_handle("c", OldTorch()), 0xCAFE)
        with self.assertRaises(errors.InvalidValueError):
            _convert.stream_handle("c", "default")

    def test_buffer_interface(self):
        cai = _cai(0x1000, 64, "bfloat16", None)
        self.assertEqual(cai, {"shape": (32,), "typestr": "<u2", "data": (0x1000, False), "version": 3,
                               "strides": None})
        self.assertEqual(_cai(0x1000, 64, "float32", (4, 4))["shape"], (4, 4))
        with self.assertRaises(errors.InvalidValueError):
            _cai(0x1000, 6, "float32", None)


if __name__ == "__main__":
    unittest.main()
