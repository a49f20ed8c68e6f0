# SPDX-License-Identifier: BSD-3-Clause
"""What the installed wheel holds (run by .ci/run after `pip install ./python`; skipped for the
source tree): the library, the headers, gshmrun and gshmem-info (in the package and on PATH),
and the CMake package files."""
import os
import pathlib
import shutil
import subprocess
import unittest

import gshmem

PKG = pathlib.Path(gshmem.__file__).resolve().parent


@unittest.skipIf((PKG.parent.name == "src"), "gshmem is imported from the source tree, not installed")
class InstalledTest(unittest.TestCase):
    def test_library_and_no_versioned_copies(self):
        lib = PKG / "lib"
        self.assertEqual(gshmem.library_path(), lib / "libgshmem.so")
        self.assertTrue((lib / "libgshmem.so").is_file())
        self.assertEqual(sorted(p.name for p in lib.glob("libgshmem.so*")), ["libgshmem.so"])
        self.assertFalse(list(lib.glob("*.a")))  # the static floors stay inside the .so

    def test_headers(self):
        inc = pathlib.Path(gshmem.get_include())
        self.assertEqual(inc, PKG / "include")
        for h in ("gshmem.h", "host.h", "types.h", "version.h", "device/c_api.cuh", "compat/nvshmem.h"):
            self.assertTrue((inc / "gshmem" / h).is_file(), h)

    def test_tools_in_the_package_and_on_path(self):
        for tool in ("gshmrun", "gshmem-info"):
            self.assertTrue(os.access(PKG / "bin" / tool, os.X_OK), tool)
            self.assertIsNotNone(shutil.which(tool), f"{tool} is not on PATH")
        r = subprocess.run([shutil.which("gshmrun"), "--version"], capture_output=True, text=True, timeout=30)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(gshmem.version(), r.stdout + r.stderr)

    def test_cmake_package(self):
        self.assertTrue((PKG / "lib" / "cmake" / "gshmem" / "gshmemConfig.cmake").is_file())
        self.assertEqual(gshmem.cmake_prefix_path(), str(PKG))

    def test_prototypes_match_the_installed_library(self):
        cdll = gshmem.capi()._cdll
        self.assertEqual([n for n in gshmem._capi.PROTOTYPES if not hasattr(cdll, n)], [])


if __name__ == "__main__":
    unittest.main()
