# SPDX-License-Identifier: BSD-3-Clause
"""gshmem.triton without a GPU (skipped without Triton, or without clang >= 19 and a prebuilt
bitcode): the device API's bitcode builds, and a kernel per device call (my_pe, n_pes,
putmem_block, putmem_signal_block, signal_op, signal_wait_until, ptr, fence, quiet,
barrier_all_block) and a ring kernel calling them together compile to sm_90 cubins whose modules
carry the device state under the name gshmemx_cumodule_init looks up. The compiling happens in
a child process (triton_compile.py): an LLVM assertion inside Triton aborts its process, as
Triton 3.6's did on the barrier's byval call, and must fail this test, not end the test run."""
import json
import os
import pathlib
import re
import subprocess
import sys
import unittest

try:
    import triton
except ImportError:
    triton = None

_HERE = pathlib.Path(__file__).resolve().parent
_CALLS = ("my_pe", "n_pes", "putmem_block", "putmem_signal_block", "signal_op", "signal_wait_until", "fence", "quiet",
          "barrier_all_block", "ptr")


@unittest.skipIf(triton is None, "Triton is not installed")
class TritonBitcodeTest(unittest.TestCase):
    def setUp(self):
        import gshmem
        from gshmem.triton import bitcode_path
        try:
            self.bc = bitcode_path()
        except gshmem.UnsupportedError as e:
            self.skipTest(str(e))

    def test_every_call_compiles_with_the_device_state(self):
        env = dict(os.environ, GSHMEM_TRITON_BITCODE=self.bc)
        try:
            r = subprocess.run([sys.executable, str(_HERE / "triton_compile.py")], capture_output=True, text=True,
                               env=env, timeout=100)
        except subprocess.TimeoutExpired as e:
            self.fail(f"compiling the Triton kernels took over 100 s; output so far:\n{e.stdout}")
        lines = [json.loads(x) for x in r.stdout.splitlines() if x.startswith("{")]
        done = {x["kernel"]: x for x in lines if "kernel" in x}
        started = [x["compiling"] for x in lines if "compiling" in x]
        if r.returncode:
            where = f"while compiling {started[-1]}" if started and started[-1] not in done else "before any kernel"
            self.fail(f"the compiling process (Triton {triton.__version__}) ended with status {r.returncode} {where} "
                      f"(compiled: {', '.join(done) or 'none'}); its stderr ends:\n{r.stderr[-3000:]}")
        self.assertEqual(len(done), 10, r.stdout)
        for name, k in done.items():
            with self.subTest(kernel=name):
                self.assertTrue(k["state"], f"{name}: no .const gshmemi_tu_state in the PTX")
                self.assertGreater(k["cubin_bytes"], 0)
                # the wrappers were linked in (their bodies inlined or called), not left as externs
                self.assertEqual(k["externs"], [])

    def test_bitcode_names(self):
        from gshmem.triton._bitcode import _tools, byval_functions
        tools = _tools()
        if tools is None:
            self.skipTest("no llvm-dis to read the bitcode")
        ll = subprocess.run([tools[1], self.bc, "-o", "-"], capture_output=True, text=True, check=True).stdout
        self.assertIn("@gshmemi_tu_state = ", ll)
        self.assertNotIn("nvvm-reflect-ftz", ll)
        for name in _CALLS:
            self.assertRegex(ll, rf"define [^@]*@gshmem_triton_{name}\(")
        self.assertFalse(re.search(r"@_ZL\d+gshmemi_tu_state", ll))
        self.assertEqual(byval_functions(ll), [], "Triton 3.6's LLVM aborts on a call passing a struct byval")


class ByvalRewriteTest(unittest.TestCase):
    """_inline_byval_functions on hand-written IR (no clang or Triton needed)."""

    IR = """define internal fastcc void @f(ptr byval(%struct.t) align 8 %0, i32 %1) unnamed_addr #1 {
  ret void
}
define internal i32 @g(i32 %0) #1 {
  ret i32 %0
}
attributes #0 = { nounwind }
attributes #1 = { convergent mustprogress noinline nounwind "target-cpu"="sm_90" }
"""

    def test_byval_function_gets_its_own_alwaysinline_group(self):
        from gshmem.triton._bitcode import _inline_byval_functions, byval_functions
        self.assertEqual(byval_functions(self.IR), ["f"])
        out = _inline_byval_functions(self.IR)
        self.assertIn("%1) unnamed_addr #2 {", out)
        self.assertIn('attributes #2 = { alwaysinline convergent mustprogress nounwind "target-cpu"="sm_90" }', out)
        self.assertIn("define internal i32 @g(i32 %0) #1 {", out)  # untouched: no byval
        self.assertIn("attributes #1 = { convergent mustprogress noinline nounwind", out)
        self.assertEqual(_inline_byval_functions(out.replace("byval(%struct.t) ", "")),
                         out.replace("byval(%struct.t) ", ""))


if __name__ == "__main__":
    unittest.main()
