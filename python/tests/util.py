# SPDX-License-Identifier: BSD-3-Clause
"""Shared by the tests: where the source tree is, whether the library can be loaded, and which
prerequisites must be there (GSHMEM_TEST_REQUIRE) so that their tests fail instead of skipping."""
import os
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]  # the repository (tools/c_api, include/)


def tables():
    """The generator's Api (every C name of tools/c_api) and its python render hook."""
    sys.path.insert(0, str(ROOT / "tools"))
    import gen_c_api
    from c_api import python as py_render
    return gen_c_api, py_render


def required():
    """The prerequisites named in GSHMEM_TEST_REQUIRE (comma-separated: library, torch): where a
    run must test them (.ci/run sets it), a missing one fails its tests instead of skipping them,
    so that the run cannot pass without having tested anything."""
    return {w.strip() for w in os.environ.get("GSHMEM_TEST_REQUIRE", "").split(",") if w.strip()}


def skip_unless_required(test, need, reason):
    """test.skipTest(reason), or a failure where GSHMEM_TEST_REQUIRE names `need`."""
    if need in required():
        test.fail(f"GSHMEM_TEST_REQUIRE names {need!r} but {reason}")
    test.skipTest(reason)


def library_or_skip(test):
    import gshmem
    try:
        return gshmem.capi()
    except gshmem.LibraryNotFoundError as e:
        skip_unless_required(test, "library", f"no libgshmem to load: {e}")
