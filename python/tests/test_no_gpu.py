# SPDX-License-Identifier: BSD-3-Clause
"""Without a GPU: gshmem.init() raises NoGpuError carrying the library's message (the call, the
cause, the fix) and the process goes on; calls before init raise NotInitializedError."""
import os
import subprocess
import sys
import textwrap
import unittest

from util import library_or_skip

# Run in a child: init's failure must leave a process that exits normally (no fatal exit,
# no hang), and a GPU machine must not keep a half-started gshmem in this test process.
CHILD = textwrap.dedent("""
    import gshmem
    try:
        gshmem.init()
    except gshmem.NoGpuError as e:
        print("NoGpuError|" + str(e))
    else:
        gshmem.finalize()
        print("GPU|")
""")


class NoGpuTest(unittest.TestCase):
    def setUp(self):
        library_or_skip(self)

    def test_init_raises_no_gpu_error_with_the_library_message(self):
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GSHMEM_RANK", "RANK", "WORLD_SIZE"))}
        r = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=60, env=env)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        kind, message = r.stdout.strip().split("|", 1)
        if kind == "GPU":
            self.skipTest("this machine has a GPU")
        self.assertTrue(message.startswith("gshmem.init: "), message)       # the Python call
        self.assertIn("no CUDA GPU is visible", message)                     # the cause
        self.assertIn("CUDA_VISIBLE_DEVICES", message)                       # the fix
        self.assertIn("[GSHMEM_ERROR_CUDA]", message)                        # the status

    def test_calls_before_init_raise_not_initialized(self):
        import gshmem
        if gshmem.is_initialized():
            self.skipTest("initialized")
        for call in (gshmem.my_pe, gshmem.n_pes, lambda: gshmem.malloc(64), lambda: gshmem.quiet(),
                     lambda: gshmem.put(0, 0, 0, nbytes=8)):
            with self.assertRaises(gshmem.NotInitializedError) as cm:
                call()
            self.assertIn("init", str(cm.exception))

    def test_void_c_call_error_becomes_the_library_message(self):
        import gshmem
        with self.assertRaises(gshmem.NotInitializedError) as cm:
            gshmem.barrier_all()
        # the C library's own words, naming the C call
        self.assertIn("gshmem_barrier_all: gshmem is not initialized", str(cm.exception))
        self.assertEqual(gshmem._lib.take_error(), (0, ""))  # taken by the raise

    def test_unique_id_needs_no_gpu(self):
        import gshmem
        uid = gshmem.get_unique_id()
        self.assertEqual(len(bytes(uid)), gshmem._capi.GSHMEMX_UNIQUEID_BYTES)
        self.assertEqual(gshmem.UniqueId(bytes(uid)), uid)
        with self.assertRaises(gshmem.InvalidValueError):
            gshmem.UniqueId(b"short")


if __name__ == "__main__":
    unittest.main()
