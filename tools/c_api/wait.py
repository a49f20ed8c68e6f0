# SPDX-License-Identifier: BSD-3-Clause
"""Point-to-point synchronisation: wait_until/test and their _all/_any/_some(_vector) forms, device and host."""

from .types import RMA_TYPES, WAIT_TYPES
from .amo import kind_of

ORDER = 32

# (C name suffix, C return type, host op, has indices, vector, C++ function, C++ result conversion)
FORMS = [
    ("wait_until", "void", "WAIT_UNTIL", False, False, "wait_until", None),
    ("wait_until_all", "void", "WAIT_UNTIL_ALL", False, False, "wait_until_all", None),
    ("wait_until_any", "size_t", "WAIT_UNTIL_ANY", False, False, "wait_until_any", ""),
    ("wait_until_some", "size_t", "WAIT_UNTIL_SOME", True, False, "wait_until_some", ""),
    ("wait_until_all_vector", "void", "WAIT_UNTIL_ALL", False, True, "wait_until_all_vector", None),
    ("wait_until_any_vector", "size_t", "WAIT_UNTIL_ANY", False, True, "wait_until_any_vector", ""),
    ("wait_until_some_vector", "size_t", "WAIT_UNTIL_SOME", True, True, "wait_until_some_vector", ""),
    ("test", "int", "TEST", False, False, "test", " ? 1 : 0"),
    ("test_all", "int", "TEST_ALL", False, False, "test_all", " ? 1 : 0"),
    ("test_any", "size_t", "TEST_ANY", False, False, "test_any", ""),
    ("test_some", "size_t", "TEST_SOME", True, False, "test_some", ""),
    ("test_all_vector", "int", "TEST_ALL", False, True, "test_all_vector", " ? 1 : 0"),
    ("test_any_vector", "size_t", "TEST_ANY", False, True, "test_any_vector", ""),
    ("test_some_vector", "size_t", "TEST_SOME", True, True, "test_some_vector", ""),
]


def build(a):
    a.needs(host_entry_header="gshmem/detail/host_entry_amo.h", device_header="impl/wait.cuh")
    ctype_of = {n: t for t, n, _ in RMA_TYPES}
    for name in WAIT_TYPES:
        t = ctype_of[name]
        kind = kind_of(name)
        for suffix, ret, op, has_indices, vector, cpp, conv in FORMS:
            fn = f"gshmem_{name}_{suffix}"
            single = suffix in ("wait_until", "test")
            cmp_param = f"{t}* cmp_values" if vector else f"{t} cmp_value"
            if single:
                params = f"{t}* ivar, int cmp, {cmp_param}"
                cpp_args = "ivar, static_cast<gshmem::cmp>(cmp), cmp_value"
                host_args = "ivar, 1, 0, 0"
            else:
                idx = "size_t* indices, " if has_indices else ""
                params = f"{t}* ivars, size_t nelems, {idx}const int* status, int cmp, {cmp_param}"
                cpp_args = (f"ivars, nelems, {'indices, ' if has_indices else ''}status, "
                            f"static_cast<gshmem::cmp>(cmp), {'cmp_values' if vector else 'cmp_value'}")
                host_args = f"ivars, nelems, {'indices' if has_indices else '0'}, status"
            value_args = "0, cmp_values" if vector else "&cmp_value, 0"
            host_call = (f'gshmemi_host_wait("{fn}", GSHMEMI_{op}, {kind}, sizeof({t}), {host_args}, cmp, '
                         f"{value_args})")
            if ret == "void":
                device, host = f"gshmem::{cpp}({cpp_args});", f"{host_call};"
            else:
                device = f"return gshmem::{cpp}({cpp_args}){conv};"
                host = f"return ({ret}){host_call};"
            a.dual(ret, fn, params, device, host)
        # Stream forms (NVSHMEM): later work on `stream` waits until the condition held.
        for suffix, op, params, args in (
                ("wait_until", "WAIT_UNTIL", f"{t}* ivar, int cmp, {t} cmp_value", "ivar, 1, 0, cmp, &cmp_value, 0"),
                ("wait_until_all", "WAIT_UNTIL_ALL",
                 f"{t}* ivars, size_t nelems, const int* status, int cmp, {t} cmp_value",
                 "ivars, nelems, status, cmp, &cmp_value, 0"),
                ("wait_until_all_vector", "WAIT_UNTIL_ALL",
                 f"{t}* ivars, size_t nelems, const int* status, int cmp, {t}* cmp_values",
                 "ivars, nelems, status, cmp, 0, cmp_values")):
            fn = f"gshmemx_{name}_{suffix}_on_stream"
            a.host_only("void", fn, f"{params}, cudaStream_t stream",
                        f'gshmemi_host_wait_on_stream("{fn}", GSHMEMI_{op}, {kind}, sizeof({t}), {args}, stream);',
                        cuda_wrapper=True)
