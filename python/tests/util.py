# SPDX-License-Identifier: BSD-3-Clause
"""Shared by the tests: where the source tree is, and whether the library can be loaded."""
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]  # the repository (tools/c_api, include/)


def tables():
    """The generator's Api (every C name of tools/c_api) and its python render hook."""
    sys.path.insert(0, str(ROOT / "tools"))
    import gen_c_api
    from c_api import python as py_render
    return gen_c_api, py_render


def library_or_skip(test):
    import gshmem
    try:
        return gshmem.capi()
    except gshmem.LibraryNotFoundError as e:
        test.skipTest(f"no libgshmem to load: {e}")
