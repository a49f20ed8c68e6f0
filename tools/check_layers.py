#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Checks that every #include in the library points down (src/README.md, "Layers").

    tools/check_layers.py [repository root]

Reads every C/C++/CUDA file under include/gshmem/, src/, tools/ and perftest/, resolves each
quoted #include the way the build does (the including file's folder, then src/, then include/),
and reports each include that reaches a floor above the including file's, a sibling family, or
- from tools/ and perftest/ - a private header that is not part of the declared tool interface.
Exit status 0 when none is found, 1 otherwise (ctest: layers_check).
"""
import os
import re
import sys

# The floors of src/, lowest first. A file may include its own folder and the floors below
# its own; folders that share a floor (the API families) may not include one another.
FLOORS = [
    ["src/host/core"],
    ["src/bootstrap", "src/proxy", "src/transport"],
    ["src/host/mem"],
    ["src/host/launch"],
    ["src/host/proxy"],
    ["src/host/team"],
    ["src/host/rma", "src/host/amo", "src/host/sync", "src/host/coll", "src/host/reduce"],
    ["src/host/init"],
    ["src/host/c_api"],
]

# Private headers that tools/ and perftest/ may use besides the public ones (include/gshmem/).
TOOL_INTERFACE = {
    "src/host/core/config.h",        # gshmem-info prints the configuration table
    "src/host/core/config_table.h",  # (included by config.h)
    "src/host/core/status.h",        # (included by config.h)
    "src/host/core/log.h",           # (included by status.h)
    "src/bootstrap/bootstrap.h",     # gshmrun writes the unique id the bootstrap reads
    "src/bootstrap/init_exchange.h", # the start-up harness runs gshmem_init's host-side exchanges
    "src/host/team/slot_plan.h",     # ... and sizes the team slots as gshmem_init does
    "src/host/proxy/connections.h",  # gshmrun gives proxy jobs the queues the library asks for
}

SOURCE_EXT = (".h", ".hpp", ".c", ".cc", ".cpp", ".cu", ".cuh")
INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
SYSTEM_INCLUDE_RE = re.compile(r'^\s*#\s*include\s+<([^>]+)>', re.M)

# Code that must build and be tested on a host without CUDA or UCX (docs/internode.md section 2):
# the proxy engine, the entry layout it shares with the device, the plugin ABI and the network
# plugins (which load their library at run time and declare what they call: src/transport/ucx/
# ucx_api.h). They include no CUDA or UCX header, and no private header outside their folder
# (core's headers bring CUDA).
NO_CUDA = ("src/proxy/", "src/transport/", "include/gshmem/detail/proxy_abi.h", "include/gshmem/detail/transport_abi.h")
SELF_CONTAINED = {
    "src/proxy/": "the proxy engine includes only its own folder and public headers (no CUDA: core brings it)",
    "src/transport/": "a transport plugin includes only its own folder and public headers (it is built apart "
    "from the library and loaded at run time)",
}
NO_CUDA_SYSTEM_RE = re.compile(r"^(cuda|cu[A-Z_a-z]*\.h|nv|ucp/|ucs/|uct/|ucm/)")


def no_cuda_violation(path, text):
    """The includes of a NO_CUDA file that bring CUDA or UCX, as (offset, name, why)."""
    if not path.startswith(NO_CUDA):
        return []
    found = []
    for m in SYSTEM_INCLUDE_RE.finditer(text):
        if NO_CUDA_SYSTEM_RE.match(m.group(1)):
            found.append((m.start(), m.group(1), "a CUDA or UCX header in code that must build without them"))
    return found


def folder_of(path):
    """The layer folder a src/ file belongs to (src/bootstrap/tcp/x.cpp -> src/bootstrap)."""
    for floor in FLOORS:
        for folder in floor:
            if path == folder or path.startswith(folder + "/"):
                return folder
    return None


def floor_of(folder):
    for level, floor in enumerate(FLOORS):
        if folder in floor:
            return level
    return None


def resolve(root, including, name):
    here = os.path.dirname(including)
    for base in (here, "src", "include"):
        candidate = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(os.path.join(root, candidate)):
            return candidate
    return None  # a system header, or one the build generates


def violation(path, target):
    """Why including `target` from `path` breaks the rules, or None."""
    if target.startswith("include/"):
        return None  # public headers: everyone
    if path.startswith("include/"):
        return "a public header includes a private one"
    if path.startswith(("tools/", "perftest/")):
        if target.startswith(("tools/", "perftest/")) or target in TOOL_INTERFACE:
            return None
        if target.startswith("src/"):
            return "not part of the tool interface (tools/check_layers.py TOOL_INTERFACE)"
        return None
    src_folder, dst_folder = folder_of(path), folder_of(target)
    if src_folder is None or dst_folder is None:
        return "outside the floors of src/README.md" if path.startswith("src/") else None
    if src_folder == dst_folder:
        return None
    for prefix, why in SELF_CONTAINED.items():
        if path.startswith(prefix):
            return why
    src_floor, dst_floor = floor_of(src_folder), floor_of(dst_folder)
    if dst_floor > src_floor:
        return "points up (%s is above %s)" % (dst_folder, src_folder)
    if dst_floor == src_floor:
        return "points sideways (%s and %s share a floor)" % (src_folder, dst_folder)
    return None


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    problems, checked = [], 0
    for top in ("include/gshmem", "src", "tools", "perftest"):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if not f.endswith(SOURCE_EXT):
                    continue
                path = os.path.relpath(os.path.join(dirpath, f), root)
                with open(os.path.join(root, path), encoding="utf-8", errors="replace") as fh:
                    text = fh.read()
                for start, name, why in no_cuda_violation(path, text):
                    line = text.count("\n", 0, start) + 1
                    problems.append("%s:%d: #include <%s>: %s" % (path, line, name, why))
                for m in INCLUDE_RE.finditer(text):
                    target = resolve(root, path, m.group(1))
                    if target is None:
                        continue
                    checked += 1
                    why = violation(path, target)
                    if why:
                        line = text.count("\n", 0, m.start()) + 1
                        problems.append('%s:%d: #include "%s": %s' % (path, line, m.group(1), why))
    for p in problems:
        print(p)
    print("layers: %d includes checked, %d pointing the wrong way (rules: src/README.md)" % (checked, len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
