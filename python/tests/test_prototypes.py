# SPDX-License-Identifier: BSD-3-Clause
"""The generated ctypes prototypes (gshmem/_capi.py) against the C tables they come from:
current, complete, each argument and result of the right C width and kind, and each name a
symbol of the library."""
import ctypes
import re
import unittest

import gshmem
from gshmem import _capi
from util import ROOT, library_or_skip, tables

# An independent reading of the C types (not the generator's table): the size and kind each
# must have in ctypes. "p" = pointer-sized integer, "i"/"u" = signed/unsigned int, "f" = float.
C_WIDTH = {
    "char": (1, "i"), "signed char": (1, "i"), "unsigned char": (1, "u"), "short": (2, "i"),
    "unsigned short": (2, "u"), "int": (4, "i"), "unsigned int": (4, "u"), "long": (8, "i"),
    "unsigned long": (8, "u"), "long long": (8, "i"), "unsigned long long": (8, "u"),
    "float": (4, "f"), "double": (8, "f"), "long double": (16, "f"), "int8_t": (1, "i"), "int16_t": (2, "i"),
    "int32_t": (4, "i"), "int64_t": (8, "i"), "uint8_t": (1, "u"), "uint16_t": (2, "u"),
    "uint32_t": (4, "u"), "uint64_t": (8, "u"), "size_t": (8, "u"), "ptrdiff_t": (8, "i"),
    "gshmem_team_t": (4, "i"), "cudaStream_t": (8, "p"), "__half": (2, "u"), "__nv_bfloat16": (2, "u"),
    "dim3": (12, "s"),
}
SIGNED = {ctypes.c_byte, ctypes.c_short, ctypes.c_int, ctypes.c_long, ctypes.c_longlong, ctypes.c_int8,
          ctypes.c_int16, ctypes.c_int32, ctypes.c_int64, ctypes.c_ssize_t}
FLOATS = {ctypes.c_float, ctypes.c_double, ctypes.c_longdouble}


def kind(ct):
    if ct in (ctypes.c_void_p, ctypes.c_char_p):
        return "p"
    if ct is _capi.dim3:
        return "s"
    if ct in FLOATS:
        return "f"
    return "i" if ct in SIGNED else "u"


def expected(ctype, returned=False):
    t = re.sub(r"\b(const|struct)\b", "", ctype)
    t = " ".join(t.split())
    if "*" in t:
        return (8, "p")
    return None if t == "void" else C_WIDTH[t]


def c_params(proto):
    name, params = re.match(r"^.*?\b(\w+)\s*\((.*)\)$", proto, re.S).groups()
    params = params.strip()
    out = []
    for p in ([] if params in ("", "void") else params.split(",")):
        words = p.replace("*", " * ").split()
        # drop the parameter's name (every parameter of the API has one)
        out.append(" ".join(words[:-1]).replace(" *", "*"))
    ret = re.match(r"^\s*(.*?)\b" + name + r"\s*\(", proto).group(1)
    return name, ret, out


class PrototypesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        gen, py = tables()
        cls.gen, cls.py = gen, py
        cls.api = gen.build()
        cls.protos = py.table_prototypes(cls.api) + py.host_h_prototypes(ROOT)

    def test_generated_file_is_current(self):
        (path, text), = self.py.render(self.api, ROOT, self.gen.HEADER_NOTE[3:-3]).items()
        committed = (ROOT / "python/src/gshmem/_capi.py").read_text()
        self.assertTrue(text == committed, "python/src/gshmem/_capi.py is stale: run tools/gen_c_api.py")

    def test_every_c_name_has_a_prototype(self):
        names = {c_params(p)[0] for _, p in self.protos}
        self.assertGreater(len(names), 1500)
        missing = sorted(names - set(_capi.PROTOTYPES))
        self.assertEqual(missing, [])
        for must in ("gshmem_malloc", "gshmemx_init_attr", "gshmemx_putmem_signal_on_stream",
                     "gshmemx_bfloat16_sum_reduce_on_stream", "gshmem_int_atomic_fetch_add", "gshmemx_take_error"):
            self.assertIn(must, _capi.PROTOTYPES)

    def test_each_argument_and_result_has_the_c_width_and_kind(self):
        checked = 0
        for _, proto in self.protos:
            name, ret, params = c_params(proto)
            restype, argtypes = _capi.PROTOTYPES[name]
            self.assertEqual(len(argtypes), len(params), proto)
            for ctype, ct in zip(params, argtypes):
                size, k = expected(ctype)
                self.assertEqual((ctypes.sizeof(ct), kind(ct)), (size, k), f"{proto}: {ctype} -> {ct}")
            want = expected(ret, returned=True)
            if want is None:
                self.assertIsNone(restype, proto)
            else:
                self.assertEqual((ctypes.sizeof(restype), kind(restype)), want, f"{proto}: returns {restype}")
            checked += 1
        self.assertEqual(checked, len(self.protos))

    def test_a_few_by_hand(self):
        P = _capi.PROTOTYPES
        self.assertEqual(P["gshmem_int_p"], (None, (ctypes.c_void_p, ctypes.c_int, ctypes.c_int)))
        self.assertEqual(P["gshmem_double_g"], (ctypes.c_double, (ctypes.c_void_p, ctypes.c_int)))
        self.assertEqual(P["gshmem_longdouble_g"][0], ctypes.c_longdouble)
        self.assertEqual(P["gshmemx_half_p_on_stream"][1],
                         (ctypes.c_void_p, ctypes.c_uint16, ctypes.c_int, ctypes.c_void_p))
        self.assertEqual(P["gshmemx_status_string"], (ctypes.c_char_p, (ctypes.c_int,)))
        self.assertEqual(P["gshmem_malloc"], (ctypes.c_void_p, (ctypes.c_size_t,)))

    def test_constants_match_types_h(self):
        text = (ROOT / "include/gshmem/types.h").read_text()
        self.assertIn(f"GSHMEM_ERROR_INTERNAL = {_capi.GSHMEM_ERROR_INTERNAL}", text)
        self.assertIn(f"#define GSHMEM_CMP_LE {_capi.GSHMEM_CMP_LE}", text)
        self.assertEqual(_capi.GSHMEM_MALLOC_SIGNAL_REMOTE, 2)  # (1L << 1)
        self.assertEqual(_capi.GSHMEM_TEAM_INVALID, -1)

    def test_every_prototype_is_a_symbol_of_the_library(self):
        library_or_skip(self)
        cdll = gshmem.capi()._cdll
        missing = [n for n in _capi.PROTOTYPES if not hasattr(cdll, n)]
        self.assertEqual(missing, [], f"not exported by {gshmem.library_path()}")

    def test_names_the_python_layer_builds_exist(self):
        for stream in ("", "_on_stream"):
            for nbi in ("", "_nbi"):
                x = "x" if stream else ""
                for stem in ("putmem", "getmem", "putmem_signal"):
                    self.assertIn(f"gshmem{x}_{stem}{nbi}{stream}", _capi.PROTOTYPES)
        for name in ("gshmemx_signal_op", "gshmemx_signal_op_on_stream", "gshmem_signal_wait_until",
                     "gshmemx_signal_wait_until_on_stream", "gshmemx_quiet_on_stream", "gshmem_barrier",
                     "gshmemx_barrier_on_stream", "gshmem_team_sync", "gshmemx_team_sync_on_stream",
                     "gshmemx_barrier_all_on_stream", "gshmemx_sync_all_on_stream", "gshmem_team_split_2d"):
            self.assertIn(name, _capi.PROTOTYPES)


if __name__ == "__main__":
    unittest.main()
