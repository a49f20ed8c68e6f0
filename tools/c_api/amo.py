# SPDX-License-Identifier: BSD-3-Clause
"""Atomic memory operations (OpenSHMEM 1.5 AMOs): device via gshmem::atomic_*<T>, host via gshmemi_host_amo."""

from .types import RMA_TYPES

ORDER = 30

# OpenSHMEM 1.5 AMO type classes (names as in the C function names).
STANDARD_AMO_TYPES = ["int", "long", "longlong", "uint", "ulong", "ulonglong", "int32", "int64",
                      "uint32", "uint64", "size", "ptrdiff"]
EXTENDED_AMO_TYPES = STANDARD_AMO_TYPES + ["float", "double"]
BITWISE_AMO_TYPES = ["uint", "ulong", "ulonglong", "int32", "int64", "uint32", "uint64"]


def kind_of(name):
    """GSHMEMI_KIND_* of a type name (with sizeof it identifies the C type for the library)."""
    if name in ("float", "double"):
        return "GSHMEMI_KIND_FLOAT"
    if name.startswith("u") or name == "size":
        return "GSHMEMI_KIND_UNSIGNED"
    return "GSHMEMI_KIND_SIGNED"


# (operation, C return type ("T" or "void"), parameters, C++ call, host op, value expr, cond expr, fetch expr)
# `T` is replaced by the C type. Host: value/cond/fetch are pointers handed to gshmemi_host_amo.
BLOCKING = [
    ("fetch", "T", "const T* source, int pe", "atomic_fetch(source, pe)", "FETCH", "0", "0", "&r", "source"),
    ("set", "void", "T* dest, T value, int pe", "atomic_set(dest, value, pe)", "SET", "&value", "0", "0", "dest"),
    ("swap", "T", "T* dest, T value, int pe", "atomic_swap(dest, value, pe)", "SWAP", "&value", "0", "&r", "dest"),
    ("compare_swap", "T", "T* dest, T cond, T value, int pe", "atomic_compare_swap(dest, cond, value, pe)",
     "COMPARE_SWAP", "&value", "&cond", "&r", "dest"),
    ("fetch_inc", "T", "T* dest, int pe", "atomic_fetch_inc(dest, pe)", "FETCH_ADD", "&one", "0", "&r", "dest"),
    ("inc", "void", "T* dest, int pe", "atomic_inc(dest, pe)", "FETCH_ADD", "&one", "0", "0", "dest"),
    ("fetch_add", "T", "T* dest, T value, int pe", "atomic_fetch_add(dest, value, pe)", "FETCH_ADD", "&value", "0",
     "&r", "dest"),
    ("add", "void", "T* dest, T value, int pe", "atomic_add(dest, value, pe)", "FETCH_ADD", "&value", "0", "0",
     "dest"),
]
BITWISE = [
    (f"{fetch}{op}", "T" if fetch else "void", "T* dest, T value, int pe", f"atomic_{fetch}{op}(dest, value, pe)",
     f"FETCH_{op.upper()}", "&value", "0", "&r" if fetch else "0", "dest")
    for op in ("and", "or", "xor") for fetch in ("fetch_", "")
]
# Non-blocking fetching forms: the result goes to *fetch.
NBI = [
    ("fetch_nbi", "void", "T* fetch, const T* source, int pe", "atomic_fetch_nbi(fetch, source, pe)", "FETCH", "0",
     "0", "fetch", "source"),
    ("swap_nbi", "void", "T* fetch, T* dest, T value, int pe", "atomic_swap_nbi(fetch, dest, value, pe)", "SWAP",
     "&value", "0", "fetch", "dest"),
    ("compare_swap_nbi", "void", "T* fetch, T* dest, T cond, T value, int pe",
     "atomic_compare_swap_nbi(fetch, dest, cond, value, pe)", "COMPARE_SWAP", "&value", "&cond", "fetch", "dest"),
    ("fetch_inc_nbi", "void", "T* fetch, T* dest, int pe", "atomic_fetch_inc_nbi(fetch, dest, pe)", "FETCH_ADD",
     "&one", "0", "fetch", "dest"),
    ("fetch_add_nbi", "void", "T* fetch, T* dest, T value, int pe", "atomic_fetch_add_nbi(fetch, dest, value, pe)",
     "FETCH_ADD", "&value", "0", "fetch", "dest"),
]
BITWISE_NBI = [
    (f"fetch_{op}_nbi", "void", "T* fetch, T* dest, T value, int pe",
     f"atomic_fetch_{op}_nbi(fetch, dest, value, pe)", f"FETCH_{op.upper()}", "&value", "0", "fetch", "dest")
    for op in ("and", "or", "xor")
]
EXTENDED_OPS = ("fetch", "set", "swap", "fetch_nbi", "swap_nbi")


def emit(a, name, ctype, op):
    opname, ret, params, cpp, host_op, value, cond, fetch, target = op
    fn = f"gshmem_{name}_atomic_{opname}"
    ret_c = ctype if ret == "T" else "void"
    params_c = params.replace("T*", f"{ctype}*").replace("T ", f"{ctype} ")
    device = f"{'return ' if ret == 'T' else ''}gshmem::{cpp};"
    host = ""
    if value == "&one":
        host += f"{ctype} one = 1; "
    if ret == "T":
        host += f"{ctype} r = 0; "
    host += (f'gshmemi_host_amo("{fn}", GSHMEMI_AMO_{host_op}, {kind_of(name)}, sizeof({ctype}), '
             f"(void*){target}, {value}, {cond}, {fetch}, pe);")
    if ret == "T":
        host += " return r;"
    a.dual(ret_c, fn, params_c, device, host)


def build(a):
    a.needs(host_entry_header="gshmem/detail/host_entry_amo.h", device_header="impl/amo.cuh")
    ctype_of = {n: t for t, n, _ in RMA_TYPES}
    for name in EXTENDED_AMO_TYPES:
        ctype = ctype_of[name]
        standard = name in STANDARD_AMO_TYPES
        for op in BLOCKING + NBI:
            if standard or op[0] in EXTENDED_OPS:
                emit(a, name, ctype, op)
        if name in BITWISE_AMO_TYPES:
            for op in BITWISE + BITWISE_NBI:
                emit(a, name, ctype, op)
