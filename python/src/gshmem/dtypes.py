# SPDX-License-Identifier: BSD-3-Clause
"""Element types: each of torch's dtypes (and NumPy's names for them) mapped to its size, its
__cuda_array_interface__ type string and the TYPENAME of gshmem's typed C names
(gshmem_TYPENAME_sum_reduce, ...), with the reductions the C API has for it.

Moving data (put, get, all-to-all, gather, broadcast) needs only the size: it goes through the
byte-count C names, so every type moves, float8 and the packed float4 included. Reductions need
a C TYPENAME and an operator the C table defines for it (tools/c_api/reduce.py). Quantized
torch types (qint8, ...) carry a scale beside the data and are not covered."""
from dataclasses import dataclass

from .errors import InvalidValueError

_ORDERED, _ARITH, _BITWISE = ("max", "min"), ("sum", "prod"), ("and", "or", "xor")


@dataclass(frozen=True)
class DType:
    name: str          # torch's spelling (str(torch.float32) without "torch.")
    itemsize: int      # bytes
    typestr: str       # __cuda_array_interface__ type string; raw bits ('<u2', '|u1') where
                       # NumPy has no such type (bfloat16, float8): consumers view them back
    c_name: str = None     # TYPENAME in the C names, None: no typed names (moved as bytes)
    reduce_ops: tuple = ()  # operators of gshmem_<c_name>_<op>_reduce
    reducescatter: bool = True  # the complex types have no reducescatter (C table)

    def reduce_name(self, op, *, scatter=False, on_stream=True):
        """The C name of a reduction of this type ('gshmemx_float_sum_reduce_on_stream'), or an
        InvalidValueError naming what is supported."""
        if op not in self.reduce_ops or (scatter and not self.reducescatter):
            what = "reducescatter" if scatter else "reduce"
            ops = ", ".join(self.reduce_ops) if self.reduce_ops and (self.reducescatter or not scatter) else "none"
            raise InvalidValueError(f"gshmem {what}", f"{self.name} has no '{op}' {what} (supported: {ops})")
        coll = "reducescatter" if scatter else "reduce"
        return (f"gshmemx_{self.c_name}_{op}_{coll}_on_stream" if on_stream
                else f"gshmem_{self.c_name}_{op}_{coll}")


_ALL = _BITWISE + _ORDERED + _ARITH
DTYPES = {d.name: d for d in [
    # bool: and/or/xor/max/min are its logical operations; sum and prod would leave 0/1.
    DType("bool", 1, "|b1", "uint8", _BITWISE + _ORDERED),
    DType("uint8", 1, "|u1", "uint8", _ALL),
    DType("int8", 1, "|i1", "int8", _ALL),
    DType("int16", 2, "<i2", "int16", _ALL),
    DType("int32", 4, "<i4", "int32", _ALL),
    DType("int64", 8, "<i8", "int64", _ALL),
    DType("uint16", 2, "<u2", "uint16", _ALL),
    DType("uint32", 4, "<u4", "uint32", _ALL),
    DType("uint64", 8, "<u8", "uint64", _ALL),
    DType("float16", 2, "<f2", "half", _ORDERED + _ARITH),
    DType("bfloat16", 2, "<u2", "bfloat16", _ORDERED + _ARITH),
    DType("float32", 4, "<f4", "float", _ORDERED + _ARITH),
    DType("float64", 8, "<f8", "double", _ORDERED + _ARITH),
    DType("complex32", 4, "<u4"),
    DType("bcomplex32", 4, "<u4"),  # bfloat16 real and imaginary parts (torch 2.15 has it)
    DType("complex64", 8, "<c8", "complexf", _ARITH, reducescatter=False),
    DType("complex128", 16, "<c16", "complexd", _ARITH, reducescatter=False),
    DType("float8_e4m3fn", 1, "|u1"),
    DType("float8_e4m3fnuz", 1, "|u1"),
    DType("float8_e5m2", 1, "|u1"),
    DType("float8_e5m2fnuz", 1, "|u1"),
    DType("float8_e8m0fnu", 1, "|u1"),
    DType("float4_e2m1fn_x2", 1, "|u1"),  # two 4-bit values a byte
]}
ALIASES = {"half": "float16", "float": "float32", "double": "float64", "short": "int16", "int": "int32",
           "long": "int64", "chalf": "complex32", "cfloat": "complex64", "cdouble": "complex128"}


def resolve(dtype):
    """The DType of a DType, a name ('float32', 'bf16' is not one: 'bfloat16'), a torch.dtype
    or a NumPy dtype."""
    if isinstance(dtype, DType):
        return dtype
    name = getattr(dtype, "name", None) if not isinstance(dtype, str) else dtype
    if not isinstance(name, str):
        name = str(dtype)
    name = name.removeprefix("torch.")
    name = ALIASES.get(name, name)
    try:
        return DTYPES[name]
    except KeyError:
        raise InvalidValueError("gshmem.dtypes", f"unknown dtype {dtype!r}; known: {', '.join(DTYPES)}") from None
