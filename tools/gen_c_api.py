#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Generates gshmem's C names from ONE table over the C++ templates.

Outputs (committed, so every name can be grepped; CI checks they are current):
  include/gshmem/detail/c_api_host.h  C prototypes for C/C++ TUs (library symbols)
  include/gshmem/device/c_api.cuh     CUDA-TU wrappers: host+device names dispatch on
                                      __CUDA_ARCH__, device-only names call the templates
  src/host/rma/c_api.cpp              the library's definitions of the C symbols

Usage: gen_c_api.py [--check]   (--check: exit 1 if a committed file is stale)
"""
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent

# OpenSHMEM 1.5 standard RMA types: (C type, name in the function name, usable on device)
RMA_TYPES = [
    ("float", "float", True), ("double", "double", True), ("long double", "longdouble", False),
    ("char", "char", True), ("signed char", "schar", True), ("short", "short", True),
    ("int", "int", True), ("long", "long", True), ("long long", "longlong", True),
    ("unsigned char", "uchar", True), ("unsigned short", "ushort", True),
    ("unsigned int", "uint", True), ("unsigned long", "ulong", True),
    ("unsigned long long", "ulonglong", True),
    ("int8_t", "int8", True), ("int16_t", "int16", True), ("int32_t", "int32", True),
    ("int64_t", "int64", True), ("uint8_t", "uint8", True), ("uint16_t", "uint16", True),
    ("uint32_t", "uint32", True), ("uint64_t", "uint64", True), ("size_t", "size", True),
    ("ptrdiff_t", "ptrdiff", True),
]
# Point-to-point synchronisation types (wait_until / test).
WAIT_TYPES = ["int", "long", "longlong", "uint", "ulong", "ulonglong", "int32", "int64",
              "uint32", "uint64", "size", "ptrdiff", "short", "ushort"]
SIZED_BITS = [8, 16, 32, 64, 128]
SCOPES = [("_warp", "gshmem::warp_scope"), ("_block", "gshmem::block_scope")]

HD = "static inline __host__ __device__"
DEV = "static inline __device__"


class Api:
    def __init__(self):
        self.c_decls = []      # (prototype, host_and_device?) for c_api_host.h
        self.cuda_defs = []    # wrapper definitions for c_api.cuh
        self.lib_defs = []     # definitions for c_api.cpp

    def dual(self, ret, name, params, device_body, host_body):
        """A name usable on host and device (C symbol + CUDA-mode wrapper)."""
        proto = f"{ret} {name}({params})"
        self.c_decls.append((proto, True))
        self.cuda_defs.append(
            f"{HD} {proto} {{\n#if defined(__CUDA_ARCH__)\n  {device_body}\n#else\n  {host_body}\n#endif\n}}")
        self.lib_defs.append(f"{proto} {{ {host_body} }}")

    def host_only(self, ret, name, params, host_body, cuda_wrapper=False):
        """A host-only name; C symbol in the library (and plain inline in CUDA TUs if asked)."""
        proto = f"{ret} {name}({params})"
        if cuda_wrapper:
            self.c_decls.append((proto, True))
            self.cuda_defs.append(f"static inline {proto} {{ {host_body} }}")
        else:
            self.c_decls.append((proto, False))
        self.lib_defs.append(f"{proto} {{ {host_body} }}")

    def device(self, ret, name, params, body):
        self.cuda_defs.append(f"{DEV} {ret} {name}({params}) {{ {body} }}")


def ret_kw(ret):
    return "" if ret == "void" else "return "


def build():
    a = Api()
    # ---- queries, ordering, synchronisation ----
    a.dual("int", "gshmem_my_pe", "void", "return gshmem::my_pe();", "return gshmemi_host_my_pe();")
    a.dual("int", "gshmem_n_pes", "void", "return gshmem::n_pes();", "return gshmemi_host_n_pes();")
    a.dual("void*", "gshmem_ptr", "const void* dest, int pe", "return gshmem::ptr(dest, pe);",
           "return gshmemi_host_ptr(dest, pe);")
    a.dual("void", "gshmem_quiet", "void", "gshmem::quiet();", "gshmemi_host_quiet();")
    a.dual("void", "gshmem_fence", "void", "gshmem::fence();", "gshmemi_host_fence();")
    a.dual("void", "gshmem_barrier_all", "void", "gshmem::barrier_all();", "gshmemi_host_barrier_all();")
    a.dual("void", "gshmem_sync_all", "void", "gshmem::sync_all();", "gshmemi_host_sync_all();")
    for suffix, scope in SCOPES:
        a.device("void", f"gshmemx_barrier_all{suffix}", "void", f"gshmem::barrier_all<{scope}>();")
        a.device("void", f"gshmemx_sync_all{suffix}", "void", f"gshmem::sync_all<{scope}>();")

    # ---- untyped and sized RMA ----
    def rma_family(stem, elem_bytes, cpp_type=None):
        """putmem/getmem (elem_bytes None: byte count) or put<bits>/typed (elements)."""
        for op in ("put", "get"):
            for nbi in ("", "_nbi"):
                name = f"{stem[0]}{op}{stem[1]}{nbi}"
                if cpp_type is None:
                    dst, src = ("void* dest", "const void* source")
                else:
                    dst, src = (f"{cpp_type}* dest", f"const {cpp_type}* source")
                count = "size_t nelems" if elem_bytes else "size_t nbytes"
                params = f"{dst}, {src}, {count}, int pe"
                nbytes = f"nelems * {elem_bytes}" if elem_bytes else "nbytes"
                dev_fn = f"gshmem::{op}mem{nbi}"
                host = f"gshmemi_host_{op}mem(dest, source, {nbytes}, pe, {1 if nbi else 0});"
                a.dual("void", f"gshmem_{name}", params, f"{dev_fn}(dest, source, {nbytes}, pe);", host)
                for suffix, scope in SCOPES:
                    a.device("void", f"gshmemx_{name}{suffix}", params,
                             f"{dev_fn}<{scope}>(dest, source, {nbytes}, pe);")
            a.host_only("void", f"gshmemx_{stem[0]}{op}{stem[1]}_on_stream", 
                        (f"{'void* dest, const void* source' if cpp_type is None else f'{cpp_type}* dest, const {cpp_type}* source'}, "
                         f"{'size_t nelems' if elem_bytes else 'size_t nbytes'}, int pe, cudaStream_t stream"),
                        f"gshmemi_host_{op}mem_on_stream(dest, source, "
                        f"{f'nelems * {elem_bytes}' if elem_bytes else 'nbytes'}, pe, stream);",
                        cuda_wrapper=True)

    rma_family(("", "mem"), None)
    for bits in SIZED_BITS:
        rma_family(("", str(bits)), bits // 8)

    # ---- typed RMA ----
    for ctype, name, on_device in RMA_TYPES:
        if on_device:
            a.dual("void", f"gshmem_{name}_p", f"{ctype}* dest, {ctype} value, int pe",
                   "gshmem::p(dest, value, pe);", "gshmemi_host_putmem(dest, &value, sizeof(value), pe, 0);")
            a.dual(ctype, f"gshmem_{name}_g", f"const {ctype}* source, int pe",
                   "return gshmem::g(source, pe);",
                   f"{ctype} v; gshmemi_host_getmem(&v, source, sizeof(v), pe, 0); return v;")
        else:
            a.host_only("void", f"gshmem_{name}_p", f"{ctype}* dest, {ctype} value, int pe",
                        "gshmemi_host_putmem(dest, &value, sizeof(value), pe, 0);", cuda_wrapper=True)
            a.host_only(ctype, f"gshmem_{name}_g", f"const {ctype}* source, int pe",
                        f"{ctype} v; gshmemi_host_getmem(&v, source, sizeof(v), pe, 0); return v;",
                        cuda_wrapper=True)
        for op in ("put", "get"):
            for nbi in ("", "_nbi"):
                params = f"{ctype}* dest, const {ctype}* source, size_t nelems, int pe"
                host = f"gshmemi_host_{op}mem(dest, source, nelems * sizeof({ctype}), pe, {1 if nbi else 0});"
                if on_device:
                    a.dual("void", f"gshmem_{name}_{op}{nbi}", params,
                           f"gshmem::{op}{nbi}(dest, source, nelems, pe);", host)
                    for suffix, scope in SCOPES:
                        a.device("void", f"gshmemx_{name}_{op}{nbi}{suffix}", params,
                                 f"gshmem::{op}{nbi}<{scope}>(dest, source, nelems, pe);")
                else:
                    a.host_only("void", f"gshmem_{name}_{op}{nbi}", params, host, cuda_wrapper=True)
            a.host_only("void", f"gshmemx_{name}_{op}_on_stream",
                        f"{ctype}* dest, const {ctype}* source, size_t nelems, int pe, cudaStream_t stream",
                        f"gshmemi_host_{op}mem_on_stream(dest, source, nelems * sizeof({ctype}), pe, stream);",
                        cuda_wrapper=True)

    # ---- point-to-point synchronisation (device) ----
    ctype_of = {n: t for t, n, _ in RMA_TYPES}
    for name in WAIT_TYPES:
        t = ctype_of[name]
        a.device("void", f"gshmem_{name}_wait_until", f"{t}* ivar, int cmp, {t} cmp_value",
                 "gshmem::wait_until(ivar, static_cast<gshmem::cmp>(cmp), cmp_value);")
        a.device("int", f"gshmem_{name}_test", f"{t}* ivar, int cmp, {t} cmp_value",
                 "return gshmem::test(ivar, static_cast<gshmem::cmp>(cmp), cmp_value) ? 1 : 0;")
    return a


HEADER_NOTE = "/* GENERATED by tools/gen_c_api.py from its one table. Do not edit; edit the table. */"


def render(a):
    host_h = [
        "/* SPDX-License-Identifier: BSD-3-Clause */",
        HEADER_NOTE,
        "/* C names of the RMA/sync API for C and C++ translation units. CUDA TUs get the same",
        " * names from <gshmem/device/c_api.cuh> instead, callable from host and device code. */",
        "#ifndef GSHMEM_DETAIL_C_API_HOST_H",
        "#define GSHMEM_DETAIL_C_API_HOST_H",
        "#include <stddef.h>",
        "#include <stdint.h>",
        "#include <cuda_runtime_api.h>",
        '#include "gshmem/detail/export.h"',
        "GSHMEM_EXTERN_C_BEGIN",
        "#if !defined(__CUDACC__)",
    ]
    host_h += [f"GSHMEM_API {p};" for p, dual in a.c_decls if dual]
    host_h += ["#endif /* !__CUDACC__ */", "/* host-only */"]
    host_h += [f"GSHMEM_API {p};" for p, dual in a.c_decls if not dual]
    host_h += ["GSHMEM_EXTERN_C_END", "#endif", ""]

    cuda = [
        "// SPDX-License-Identifier: BSD-3-Clause",
        "// " + HEADER_NOTE[3:-3],
        "// C names for CUDA translation units: one inline wrapper per name over the C++",
        "// templates (scope as a type). Host+device names dispatch on __CUDA_ARCH__.",
        "#pragma once",
        '#include "gshmem/detail/host_entry.h"',
        '#include "gshmem/detail/c_api_host.h"',
        '#include "rma.cuh"',
        '#include "sync.cuh"',
        "",
    ] + a.cuda_defs + [""]

    lib = [
        "// SPDX-License-Identifier: BSD-3-Clause",
        "// " + HEADER_NOTE[3:-3],
        "// Library definitions of the C symbols declared in gshmem/detail/c_api_host.h.",
        '#include "gshmem/detail/host_entry.h"',
        '#include "gshmem/detail/c_api_host.h"',
        "",
        'extern "C" {',
    ] + [f"GSHMEM_API {d}" for d in a.lib_defs] + ['}  // extern "C"', ""]
    return {
        ROOT / "include/gshmem/detail/c_api_host.h": "\n".join(host_h),
        ROOT / "include/gshmem/device/c_api.cuh": "\n".join(cuda),
        ROOT / "src/host/rma/c_api.cpp": "\n".join(lib),
    }


def main():
    check = "--check" in sys.argv[1:]
    stale = []
    for path, text in render(build()).items():
        old = path.read_text() if path.exists() else None
        if old != text:
            stale.append(path.relative_to(ROOT))
            if not check:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text)
    if check and stale:
        print("stale generated files (run tools/gen_c_api.py):", *map(str, stale))
        return 1
    print("up to date" if check else f"wrote {len(stale)} file(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
