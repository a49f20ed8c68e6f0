# SPDX-License-Identifier: BSD-3-Clause
"""Team reductions: OpenSHMEM 1.5's gshmem_TYPE_OP_reduce and NVSHMEM's reducescatter.

For every (TYPE, OP) of the specification's team-reduction table (plus half and bfloat16
for max/min/sum/prod):
  host+device  gshmem_TYPE_OP_reduce(team, dest, source, nreduce)
               gshmem_TYPE_OP_reducescatter(team, dest, source, nreduce)
  device       gshmemx_TYPE_OP_reduce_warp / _block, gshmemx_TYPE_OP_reducescatter_warp / _block
  host         gshmemx_TYPE_OP_reduce_on_stream(team, dest, source, nreduce, stream)
               gshmemx_TYPE_OP_reducescatter_on_stream(...)
long double (longdouble) and the complex types (complexd, complexf: sum, prod) are host-only:
no device forms and no reducescatter (NVSHMEM has none); long double is reduced by the CPU,
so its on-stream form waits for the stream and returns when the result is in dest. half and
bfloat16 are CUDA's C++ types: C++/CUDA only. Every wrapper passes its own C name for
messages.
"""

from .core import DEV, HD
from .types import SCOPES

ORDER = 40

SINT, UINT, FLOAT, CPLX = "GSHMEMI_RK_SINT", "GSHMEMI_RK_UINT", "GSHMEMI_RK_FLOAT", "GSHMEMI_RK_COMPLEX"

# Operators: C name part -> (C++ operator tag, GSHMEMI_ROP_*)
OPS = {
    "and": ("gshmem::op::and_", "GSHMEMI_ROP_AND"),
    "or": ("gshmem::op::or_", "GSHMEMI_ROP_OR"),
    "xor": ("gshmem::op::xor_", "GSHMEMI_ROP_XOR"),
    "max": ("gshmem::op::max", "GSHMEMI_ROP_MAX"),
    "min": ("gshmem::op::min", "GSHMEMI_ROP_MIN"),
    "sum": ("gshmem::op::sum", "GSHMEMI_ROP_SUM"),
    "prod": ("gshmem::op::prod", "GSHMEMI_ROP_PROD"),
}
BITWISE, ORDERED, ARITH = ["and", "or", "xor"], ["max", "min"], ["sum", "prod"]

# Table "Reduction Types, Names, and Supporting Operations for Team-Based Reductions" of
# OpenSHMEM 1.5: (C type, TYPENAME, element kind, operators, on device)
REDUCE_TYPES = (
    [(t, n, k, ORDERED + ARITH, True) for t, n, k in [
        ("char", "char", "GSHMEMI_RK_CHAR"), ("signed char", "schar", SINT), ("short", "short", SINT),
        ("int", "int", SINT), ("long", "long", SINT), ("long long", "longlong", SINT),
        ("ptrdiff_t", "ptrdiff", SINT)]]
    + [(t, n, k, BITWISE + ORDERED + ARITH, True) for t, n, k in [
        ("unsigned char", "uchar", UINT), ("unsigned short", "ushort", UINT), ("unsigned int", "uint", UINT),
        ("unsigned long", "ulong", UINT), ("unsigned long long", "ulonglong", UINT),
        ("int8_t", "int8", SINT), ("int16_t", "int16", SINT), ("int32_t", "int32", SINT),
        ("int64_t", "int64", SINT), ("uint8_t", "uint8", UINT), ("uint16_t", "uint16", UINT),
        ("uint32_t", "uint32", UINT), ("uint64_t", "uint64", UINT), ("size_t", "size", UINT)]]
    + [("float", "float", FLOAT, ORDERED + ARITH, True), ("double", "double", FLOAT, ORDERED + ARITH, True),
       ("long double", "longdouble", FLOAT, ORDERED + ARITH, False),
       ("double _Complex", "complexd", CPLX, ARITH, False), ("float _Complex", "complexf", CPLX, ARITH, False)]
)
# CUDA's 16-bit floating types (C++ only): (C++ type, TYPENAME, element kind)
CXX_REDUCE_TYPES = [("__half", "half", "GSHMEMI_RK_HALF"), ("__nv_bfloat16", "bfloat16", "GSHMEMI_RK_BF16")]

LAZY = "template <int = 0>"  # see _Emit

COLLS = {"reduce": ("GSHMEMI_REDUCE_ALL", "false"), "reducescatter": ("GSHMEMI_REDUCE_SCATTER", "true")}


class _Emit:
    """Adds the names to the table. Names with a device form are emitted in CUDA TUs as
    function templates with one defaulted parameter (`template <int = 0> static inline
    ...`): they are called exactly like functions, but the reduction templates behind an
    unused name are never instantiated, which keeps the ~1300 names from costing every
    CUDA TU seconds of compile time. C/C++ TUs get ordinary prototypes and the library the
    C symbols, as for every other family; C++-only names (half, bfloat16) are declared
    for C++ TUs only."""

    def __init__(self, a):
        self.a = a

    def dual(self, ret, name, params, dev, host, cxx):
        proto = f"{ret} {name}({params})"
        self.a.c_decls.append((proto, True, cxx))
        self.a.cuda_defs.append(
            f"{LAZY} {HD} {proto} {{\n#if defined(__CUDA_ARCH__)\n  {dev}\n#else\n  {host}\n#endif\n}}")
        self.a.lib_defs.append(f"{proto} {{ {host} }}")

    def device(self, ret, name, params, body):
        self.a.cuda_defs.append(f"{LAZY} {DEV} {ret} {name}({params}) {{ {body} }}")

    def host(self, ret, name, params, host, cxx, cuda_wrapper=True):
        self.a.host_only(ret, name, params, host, cuda_wrapper=cuda_wrapper, cxx_only=cxx)


def _names(e, ctype, tn, kind, ops, on_device, cxx):
    params = f"gshmem_team_t team, {ctype}* dest, const {ctype}* source, size_t nreduce"
    rtype = f"GSHMEMI_RTYPE({kind}, sizeof({ctype}))"
    for op in ops:
        cpp_op, rop = OPS[op]
        for coll, (gcoll, scatter) in COLLS.items():
            if coll == "reducescatter" and not on_device:
                continue  # long double, complex: all-reduce only

            def host(call, mode, stream):
                return (f'return gshmemi_host_reduce("{call}", {gcoll}, {rop}, {rtype}, team, dest, source, '
                        f"nreduce, {mode}, {stream});")

            name = f"gshmem_{tn}_{op}_{coll}"
            if on_device:
                dev = (f'return gshmem::detail::reduce_call<{cpp_op}, gshmem::thread_scope>("{name}", team, dest, '
                       f"source, nreduce, {scatter});")
                e.dual("int", name, params, dev, host(name, "GSHMEMI_REDUCE_BLOCKING", "0"), cxx)
                for suffix, scope in SCOPES:
                    xname = f"gshmemx_{tn}_{op}_{coll}{suffix}"
                    e.device("int", xname, params,
                             f'return gshmem::detail::reduce_call<{cpp_op}, {scope}>("{xname}", team, dest, '
                               f"source, nreduce, {scatter});")
            else:
                e.host("int", name, params, host(name, "GSHMEMI_REDUCE_BLOCKING", "0"), cxx, cuda_wrapper=False)
            sname = f"gshmemx_{tn}_{op}_{coll}_on_stream"
            e.host("int", sname, f"{params}, cudaStream_t stream", host(sname, "GSHMEMI_REDUCE_STREAM", "stream"), cxx,
                   cuda_wrapper=on_device or cxx)


def build(a):
    a.needs(host_entry_header="gshmem/detail/host_entry_reduce.h", device_header="impl/reduce.cuh")
    e = _Emit(a)
    for ctype, tn, kind, ops, on_device in REDUCE_TYPES:
        _names(e, ctype, tn, kind, ops, on_device, False)
    for ctype, tn, kind in CXX_REDUCE_TYPES:
        _names(e, ctype, tn, kind, ORDERED + ARITH, True, True)
