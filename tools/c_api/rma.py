# SPDX-License-Identifier: BSD-3-Clause
"""Queries, ordering, barrier/sync, RMA (untyped, sized, typed, strided, half/bfloat16).
Point-to-point waits are in wait.py.

RMA names (OpenSHMEM 1.5 + NVSHMEM's thread-group and stream extensions), for ELEM in
mem (bytes), 8/16/32/64/128 (sized) and every standard RMA type plus half/bfloat16:
  host+device  gshmem_ELEM_put/get[_nbi], gshmem_TYPE_p/g, gshmem_TYPE_iput/iget, gshmem_iputN/igetN
  device       gshmemx_..._warp / _block of the put/get[_nbi] and iput/iget forms
  host         gshmemx_..._on_stream of put/get[_nbi], p/g, iput/iget
Every wrapper passes its own C name to the implementation, so debug-check and host error
messages name the call the user made. long double has no device forms; half and bfloat16
(CUDA's C++ types) are C++/CUDA only.
"""

from .types import RMA_TYPES, SIZED_BITS, SCOPES

ORDER = 10

# C++-only RMA types (cuda_fp16.h / cuda_bf16.h): (C++ type, name in the function name).
CXX_RMA_TYPES = [("__half", "half"), ("__nv_bfloat16", "bfloat16")]
# Device element type of the sized forms' strided copies.
SIZED_ELEM = {8: "uint8_t", 16: "uint16_t", 32: "uint32_t", 64: "uint64_t", 128: "gshmem::detail::bits128"}
THREAD = "gshmem::thread_scope"
OPS = {"put": "GSHMEMI_RMA_PUT", "get": "GSHMEMI_RMA_GET"}


class _Emit:
    """a.dual / a.device / a.host_only, with `cxx` marking C++-only names (half, bfloat16):
    their prototypes are declared for C++ translation units only."""

    def __init__(self, a):
        self.a = a

    def dual(self, ret, name, params, dev, host, cxx):
        self.a.dual(ret, name, params, dev, host, cxx_only=cxx)

    def host(self, ret, name, params, host, cxx):
        self.a.host_only(ret, name, params, host, cuda_wrapper=True, cxx_only=cxx)

    def device(self, ret, name, params, body):
        self.a.device(ret, name, params, body)


def _host_rma(call, op, count, elem, mode, dst="1", sst="1", stream="0"):
    return (f'gshmemi_host_rma("{call}", {OPS[op]}, dest, source, {dst}, {sst}, {count}, {elem}, pe, '
            f"GSHMEMI_RMA_{mode}, {stream});")


def _rma(e, ptrs, count_param, count, elem, dev_elem, name_of, on_device, cxx):
    """put/get[_nbi] (+ scopes, + on_stream) and, with dev_elem, iput/iget of one element kind.
    name_of(op, suffix) gives the name without gshmem_/gshmemx_; count is the element or byte
    count expression, elem the host element size in bytes (the *mem forms: bytes, 1)."""
    dest_t, src_t = ptrs
    for op in ("put", "get"):
        for nbi in ("", "_nbi"):
            params = f"{dest_t} dest, {src_t} source, {count_param}, int pe"
            nbytes = count if elem == "1" else f"{count} * {elem}"
            mode = "NBI" if nbi else "BLOCKING"
            name = f"gshmem_{name_of(op, nbi)}"
            host = _host_rma(name, op, count, elem, mode)
            if on_device:
                dev = f"gshmem::detail::{op}mem{nbi}<{THREAD}>(\"{name}\", dest, source, {nbytes}, pe);"
                e.dual("void", name, params, dev, host, cxx)
                for suffix, scope in SCOPES:
                    xname = f"gshmemx_{name_of(op, nbi)}{suffix}"
                    e.device("void", xname, params,
                             f"gshmem::detail::{op}mem{nbi}<{scope}>(\"{xname}\", dest, source, {nbytes}, pe);")
            else:
                e.host("void", name, params, host, cxx)
            sname = f"gshmemx_{name_of(op, nbi)}_on_stream"
            e.host("void", sname, f"{params}, cudaStream_t stream",
                   _host_rma(sname, op, count, elem, "STREAM", stream="stream"), cxx)
        if dev_elem is None:
            continue
        # strided
        params = f"{dest_t} dest, {src_t} source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe"
        name = f"gshmem_{name_of('i' + op, '')}"
        host = _host_rma(name, op, "nelems", elem, "BLOCKING", "dst", "sst")
        cast = "" if dev_elem == "" else f"static_cast<{dev_elem}*>(dest), static_cast<const {dev_elem}*>(source)"
        args = f"{cast or 'dest, source'}, dst, sst, nelems, pe"
        if on_device:
            e.dual("void", name, params, f"gshmem::detail::i{op}<{THREAD}>(\"{name}\", {args});", host, cxx)
            for suffix, scope in SCOPES:
                xname = f"gshmemx_{name_of('i' + op, '')}{suffix}"
                e.device("void", xname, params, f"gshmem::detail::i{op}<{scope}>(\"{xname}\", {args});")
        else:
            e.host("void", name, params, host, cxx)
        sname = f"gshmemx_{name_of('i' + op, '')}_on_stream"
        e.host("void", sname, f"{params}, cudaStream_t stream",
               _host_rma(sname, op, "nelems", elem, "STREAM", "dst", "sst", "stream"), cxx)


def _typed(e, ctype, tn, on_device, cxx):
    p_params, g_params = f"{ctype}* dest, {ctype} value, int pe", f"const {ctype}* source, int pe"
    p_host = (f'gshmemi_host_rma("gshmem_{tn}_p", GSHMEMI_RMA_PUT, dest, &value, 1, 1, 1, sizeof(value), pe, '
              "GSHMEMI_RMA_BLOCKING | GSHMEMI_RMA_VALUE, 0);")
    g_host = (f'{ctype} v{{}}; gshmemi_host_rma("gshmem_{tn}_g", GSHMEMI_RMA_GET, &v, source, 1, 1, 1, sizeof(v), '
              "pe, GSHMEMI_RMA_BLOCKING | GSHMEMI_RMA_VALUE, 0); return v;")
    if on_device:
        e.dual("void", f"gshmem_{tn}_p", p_params, f'gshmem::detail::p("gshmem_{tn}_p", dest, value, pe);', p_host, cxx)
        e.dual(ctype, f"gshmem_{tn}_g", g_params, f'return gshmem::detail::g("gshmem_{tn}_g", source, pe);', g_host,
               cxx)
    else:
        e.host("void", f"gshmem_{tn}_p", p_params, p_host, cxx)
        e.host(ctype, f"gshmem_{tn}_g", g_params, g_host, cxx)
    e.host("void", f"gshmemx_{tn}_p_on_stream", f"{p_params}, cudaStream_t stream",
           f'gshmemi_host_p_on_stream("gshmemx_{tn}_p_on_stream", dest, &value, sizeof(value), pe, stream);', cxx)
    e.host(ctype, f"gshmemx_{tn}_g_on_stream", f"{g_params}, cudaStream_t stream",
           f'{ctype} v{{}}; gshmemi_host_rma("gshmemx_{tn}_g_on_stream", GSHMEMI_RMA_GET, &v, source, 1, 1, 1, '
           "sizeof(v), pe, GSHMEMI_RMA_STREAM_WAIT | GSHMEMI_RMA_VALUE, stream); return v;", cxx)
    _rma(e, (f"{ctype}*", f"const {ctype}*"), "size_t nelems", "nelems", f"sizeof({ctype})", "",
         lambda op, sfx: f"{tn}_{op}{sfx}", on_device, cxx)


def build(a):
    e = _Emit(a)
    a.needs(device_header="impl/rma.cuh")  # the wrappers call gshmem::detail:: (named-call) bodies
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

    # ---- RMA: untyped (bytes), sized (8..128-bit elements), typed ----
    void_ptrs = ("void*", "const void*")
    _rma(e, void_ptrs, "size_t nbytes", "nbytes", "1", None, lambda op, sfx: f"{op}mem{sfx}", True, False)
    for bits in SIZED_BITS:
        _rma(e, void_ptrs, "size_t nelems", "nelems", str(bits // 8), SIZED_ELEM[bits],
             lambda op, sfx, b=bits: f"{op}{b}{sfx}", True, False)
    for ctype, tn, on_device in RMA_TYPES:
        _typed(e, ctype, tn, on_device, False)
    for ctype, tn in CXX_RMA_TYPES:
        _typed(e, ctype, tn, True, True)
