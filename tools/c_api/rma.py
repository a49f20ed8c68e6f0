# SPDX-License-Identifier: BSD-3-Clause
"""Queries, ordering, barrier/sync, RMA (untyped, sized, typed) and point-to-point waits."""

from .types import RMA_TYPES, WAIT_TYPES, SIZED_BITS, SCOPES

ORDER = 10


def build(a):
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
