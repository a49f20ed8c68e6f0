# SPDX-License-Identifier: BSD-3-Clause
"""The Api collector: each family module adds its names through it."""

HD = "static inline __host__ __device__"
DEV = "static inline __device__"


class Api:
    def __init__(self):
        # (prototype, host_and_device?, cxx_only?) for detail/c_api_host/<family>.h; C++-only
        # names (CUDA's __half, __nv_bfloat16) are declared for C++ TUs only.
        self.c_decls = []
        self.cuda_defs = []    # wrapper definitions for device/c_api/<family>.cuh
        self.lib_defs = []     # definitions for src/host/c_api/<family>.cpp
        # Headers a family needs: its gshmemi_host_* entry points (C, included by
        # every family file) and its device templates (included by device/c_api/*.cuh).
        self.host_entry_headers = []
        self.device_headers = []
        # Families in build order: (name, start of its c_decls, cuda_defs, lib_defs).
        self.families = []

    def begin_family(self, name):
        """The names added from now on belong to family `name` (one generated file each)."""
        self.families.append((name, len(self.c_decls), len(self.cuda_defs), len(self.lib_defs)))

    def family_slices(self):
        """(name, c_decls, cuda_defs, lib_defs) of each family."""
        ends = [(f[1], f[2], f[3]) for f in self.families[1:]]
        ends.append((len(self.c_decls), len(self.cuda_defs), len(self.lib_defs)))
        return [(name, self.c_decls[c:ce], self.cuda_defs[d:de], self.lib_defs[l:le])
                for (name, c, d, l), (ce, de, le) in zip(self.families, ends)]

    def needs(self, host_entry_header=None, device_header=None):
        if host_entry_header and host_entry_header not in self.host_entry_headers:
            self.host_entry_headers.append(host_entry_header)
        if device_header and device_header not in self.device_headers:
            self.device_headers.append(device_header)

    def dual(self, ret, name, params, device_body, host_body, cxx_only=False):
        """A name usable on host and device (C symbol + CUDA-mode wrapper)."""
        proto = f"{ret} {name}({params})"
        self.c_decls.append((proto, True, cxx_only))
        self.cuda_defs.append(
            f"{HD} {proto} {{\n#if defined(__CUDA_ARCH__)\n  {device_body}\n#else\n  {host_body}\n#endif\n}}")
        self.lib_defs.append(f"{proto} {{ {host_body} }}")

    def host_only(self, ret, name, params, host_body, cuda_wrapper=False, cxx_only=False):
        """A host-only name; C symbol in the library (and plain inline in CUDA TUs if asked)."""
        proto = f"{ret} {name}({params})"
        if cuda_wrapper:
            self.c_decls.append((proto, True, cxx_only))
            self.cuda_defs.append(f"static inline {proto} {{ {host_body} }}")
        else:
            self.c_decls.append((proto, False, cxx_only))
        self.lib_defs.append(f"{proto} {{ {host_body} }}")

    def device(self, ret, name, params, body):
        self.cuda_defs.append(f"{DEV} {ret} {name}({params}) {{ {body} }}")


def ret_kw(ret):
    return "" if ret == "void" else "return "
