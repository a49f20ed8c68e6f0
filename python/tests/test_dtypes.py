# SPDX-License-Identifier: BSD-3-Clause
"""The dtype map: every torch dtype (but the quantized ones) resolves, sizes agree with the
__cuda_array_interface__ type strings, and every reduction it promises is a C name."""
import unittest

from gshmem import _capi, dtypes
from gshmem.errors import InvalidValueError

# torch's dtypes as str(torch.<dtype>) spells them (torch 2.15), quantized ones, the bit containers
# and the sub-byte integers left out (test_torch.py checks this list against torch's own).
TORCH_DTYPES = ["torch.bool", "torch.uint8", "torch.int8", "torch.int16", "torch.int32", "torch.int64",
                "torch.uint16", "torch.uint32", "torch.uint64", "torch.float16", "torch.bfloat16",
                "torch.float32", "torch.float64", "torch.complex32", "torch.bcomplex32", "torch.complex64",
                "torch.complex128",
                "torch.float8_e4m3fn", "torch.float8_e4m3fnuz", "torch.float8_e5m2", "torch.float8_e5m2fnuz",
                "torch.float8_e8m0fnu", "torch.float4_e2m1fn_x2"]


class FakeNumpyDtype:
    name = "float32"


class DtypesTest(unittest.TestCase):
    def test_every_torch_dtype_resolves(self):
        for t in TORCH_DTYPES:
            self.assertEqual(dtypes.resolve(t).name, t.removeprefix("torch."))

    def test_names_aliases_and_objects(self):
        self.assertIs(dtypes.resolve("half"), dtypes.DTYPES["float16"])
        self.assertIs(dtypes.resolve("float"), dtypes.DTYPES["float32"])
        self.assertIs(dtypes.resolve(FakeNumpyDtype()), dtypes.DTYPES["float32"])
        with self.assertRaises(InvalidValueError):
            dtypes.resolve("bf16")

    def test_itemsize_matches_the_typestr(self):
        for d in dtypes.DTYPES.values():
            self.assertEqual(int(d.typestr[2:]), d.itemsize, d.name)
            self.assertIn(d.typestr[0], "<|", d.name)

    def test_every_promised_reduction_is_a_c_name(self):
        count = 0
        for d in dtypes.DTYPES.values():
            for op in d.reduce_ops:
                for on_stream in (True, False):
                    self.assertIn(d.reduce_name(op, on_stream=on_stream), _capi.PROTOTYPES)
                    if d.reducescatter:
                        self.assertIn(d.reduce_name(op, scatter=True, on_stream=on_stream), _capi.PROTOTYPES)
                    count += 1
        self.assertGreater(count, 80)

    def test_c_type_sizes_match(self):
        # the C type behind each TYPENAME has the dtype's size (the "bool as uint8" choice included)
        import ctypes
        widths = {"uint8": 1, "int8": 1, "int16": 2, "int32": 4, "int64": 8, "uint16": 2, "uint32": 4, "uint64": 8,
                  "half": 2, "bfloat16": 2, "float": ctypes.sizeof(ctypes.c_float),
                  "double": ctypes.sizeof(ctypes.c_double), "complexf": 8, "complexd": 16}
        for d in dtypes.DTYPES.values():
            if d.c_name:
                self.assertEqual(widths[d.c_name], d.itemsize, d.name)

    def test_unsupported_reduction_says_what_is(self):
        with self.assertRaises(InvalidValueError) as cm:
            dtypes.resolve("float8_e4m3fn").reduce_name("sum")
        self.assertIn("none", str(cm.exception))
        with self.assertRaises(InvalidValueError) as cm:
            dtypes.resolve("float32").reduce_name("xor")
        self.assertIn("max, min, sum, prod", str(cm.exception))
        with self.assertRaises(InvalidValueError):
            dtypes.resolve("complex64").reduce_name("sum", scatter=True)


if __name__ == "__main__":
    unittest.main()
