# SPDX-License-Identifier: BSD-3-Clause
"""Signals: put-with-signal (untyped, sized, typed; thread/warp/block; host; on stream), signal_op/fetch/wait."""

from .types import RMA_TYPES, SIZED_BITS, SCOPES

ORDER = 31

SIG = "uint64_t* sig_addr, uint64_t signal, int sig_op, int pe"
SIG_ARGS = "sig_addr, signal, sig_op, pe"


def put_signal_family(a, stem, dst, src, count, nbytes, cpp_fn, on_device=True):
    """gshmem_<stem>_signal[_nbi], gshmemx_<stem>_signal[_nbi]_{warp,block}, gshmemx_<stem>_signal[_nbi]_on_stream.

    stem: "putmem", "put8", "int_put"...; cpp_fn: "putmem_signal" (bytes) or "put_signal" (elements).
    on_device False (long double): host and stream forms only."""
    params = f"{dst}, {src}, {count}, {SIG}"
    count_arg = count.split()[-1]
    for nbi in ("", "_nbi"):
        name = f"{stem}_signal{nbi}"
        cpp_args = f"dest, source, {count_arg if cpp_fn == 'put_signal' else nbytes}, {SIG_ARGS}"
        mode = "GSHMEMI_MODE_NBI" if nbi else "GSHMEMI_MODE_BLOCKING"
        host = f'gshmemi_host_putmem_signal("gshmem_{name}", dest, source, {nbytes}, {SIG_ARGS}, {mode}, 0);'
        if not on_device:
            a.host_only("void", f"gshmem_{name}", params, host, cuda_wrapper=True)
        else:
            a.dual("void", f"gshmem_{name}", params, f"gshmem::{cpp_fn}{nbi}({cpp_args});", host)
        for suffix, scope in SCOPES if on_device else []:
            a.device("void", f"gshmemx_{name}{suffix}", params, f"gshmem::{cpp_fn}{nbi}<{scope}>({cpp_args});")
        a.host_only("void", f"gshmemx_{name}_on_stream", f"{params}, cudaStream_t stream",
                    f'gshmemi_host_putmem_signal("gshmemx_{name}_on_stream", dest, source, {nbytes}, {SIG_ARGS}, '
                    f"GSHMEMI_MODE_STREAM, stream);", cuda_wrapper=True)


def build(a):
    a.needs(host_entry_header="gshmem/detail/host_entry_amo.h", device_header="impl/signal.cuh")
    put_signal_family(a, "putmem", "void* dest", "const void* source", "size_t nbytes", "nbytes", "putmem_signal")
    for bits in SIZED_BITS:
        put_signal_family(a, f"put{bits}", "void* dest", "const void* source", "size_t nelems",
                          f"nelems * {bits // 8}", "putmem_signal")
    for ctype, name, on_device in RMA_TYPES:
        put_signal_family(a, f"{name}_put", f"{ctype}* dest", f"const {ctype}* source", "size_t nelems",
                          f"nelems * sizeof({ctype})", "put_signal", on_device)

    a.dual("void", "gshmemx_signal_op", SIG, f"gshmem::signal_op({SIG_ARGS});",
           f'gshmemi_host_signal_op("gshmemx_signal_op", {SIG_ARGS}, GSHMEMI_MODE_BLOCKING, 0);')
    a.dual("uint64_t", "gshmem_signal_fetch", "const uint64_t* sig_addr", "return gshmem::signal_fetch(sig_addr);",
           'return gshmemi_host_signal_fetch("gshmem_signal_fetch", sig_addr);')
    a.dual("uint64_t", "gshmem_signal_wait_until", "uint64_t* sig_addr, int cmp, uint64_t cmp_value",
           "return gshmem::signal_wait_until(sig_addr, static_cast<gshmem::cmp>(cmp), cmp_value);",
           'return gshmemi_host_signal_wait_until("gshmem_signal_wait_until", sig_addr, cmp, cmp_value);')
    a.host_only("void", "gshmemx_signal_op_on_stream", f"{SIG}, cudaStream_t stream",
                f'gshmemi_host_signal_op("gshmemx_signal_op_on_stream", {SIG_ARGS}, GSHMEMI_MODE_STREAM, stream);',
                cuda_wrapper=True)
    a.host_only("void", "gshmemx_signal_wait_until_on_stream",
                "uint64_t* sig_addr, int cmp, uint64_t cmp_value, cudaStream_t stream",
                'gshmemi_host_signal_wait_until_on_stream("gshmemx_signal_wait_until_on_stream", sig_addr, cmp, '
                "cmp_value, stream);", cuda_wrapper=True)
