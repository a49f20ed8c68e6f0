# SPDX-License-Identifier: BSD-3-Clause
"""Kernels that call gshmem, built by torch.utils.cpp_extension: the device API is header-only
(no -rdc): each translation unit that includes <gshmem/gshmem.h> carries its own copy of the
device state, which libgshmem fills when the extension loads (docs/design.md, "Device state
without -rdc"). The extension links libgshmem (the same library this package loaded: one copy
per process), so its kernels see the heap and the PEs of gshmem.init()."""
import gshmem

# torch's nvcc flags hide the half and bfloat16 operators that gshmem's reductions use.
_UNDEFINE = ["-U__CUDA_NO_HALF_OPERATORS__", "-U__CUDA_NO_HALF_CONVERSIONS__", "-U__CUDA_NO_BFLOAT16_CONVERSIONS__",
             "-U__CUDA_NO_HALF2_OPERATORS__"]


def extension_kwargs(**kwargs):
    """Keyword arguments for torch.utils.cpp_extension.load / load_inline (merged into yours)
    that compile against gshmem's headers and link libgshmem."""
    libdir = gshmem.get_library_dir()
    out = dict(kwargs)
    out["extra_include_paths"] = list(kwargs.get("extra_include_paths") or []) + gshmem.include_dirs()
    out["extra_cuda_cflags"] = list(kwargs.get("extra_cuda_cflags") or []) + _UNDEFINE
    out["extra_ldflags"] = list(kwargs.get("extra_ldflags") or []) + [f"-L{libdir}", "-lgshmem",
                                                                       f"-Wl,-rpath,{libdir}"]
    return out


def load_inline(name, cpp_sources, cuda_sources, functions=None, **kwargs):
    """torch.utils.cpp_extension.load_inline with gshmem's include directories and library.
    Call it after gshmem.init() or before: the extension's device state is filled either way."""
    from torch.utils import cpp_extension
    gshmem.capi()  # load libgshmem first, so that the extension binds to this copy
    return cpp_extension.load_inline(name, cpp_sources, cuda_sources=cuda_sources, functions=functions,
                                     **extension_kwargs(**kwargs))
