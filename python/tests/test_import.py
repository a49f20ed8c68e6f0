# SPDX-License-Identifier: BSD-3-Clause
"""`import gshmem` works anywhere: no GPU, no torch, and loads nothing until a call needs it."""
import os
import subprocess
import sys
import unittest


class ImportTest(unittest.TestCase):
    def run_python(self, code):
        return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                              env=dict(os.environ))

    def test_import_loads_neither_torch_nor_the_library(self):
        r = self.run_python("import sys, gshmem, gshmem._lib as l\n"
                            "print('torch' in sys.modules, l._api is None, len(gshmem.__all__))")
        self.assertEqual(r.returncode, 0, r.stderr)
        torch_loaded, lib_unloaded, _ = r.stdout.split()
        self.assertEqual((torch_loaded, lib_unloaded), ("False", "True"))

    def test_public_names_exist(self):
        import gshmem
        for name in gshmem.__all__:
            self.assertTrue(hasattr(gshmem, name), name)

    def test_get_include_has_the_headers(self):
        import gshmem
        self.assertTrue(os.path.exists(os.path.join(gshmem.get_include(), "gshmem", "gshmem.h")))

    def test_gshmem_torch_without_torch_says_what_to_install(self):
        # torch hidden (a None entry in sys.modules makes `import torch` fail), so that this runs
        # where torch is installed too
        r = self.run_python("import sys\nsys.modules['torch'] = None\nimport gshmem\n"
                            "try:\n    gshmem.torch\nexcept ImportError as e:\n    print('ImportError:', e)\n")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("ImportError: gshmem.torch needs PyTorch (pip install torch)", r.stdout)

if __name__ == "__main__":
    unittest.main()
