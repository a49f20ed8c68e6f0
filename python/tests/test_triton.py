# SPDX-License-Identifier: BSD-3-Clause
"""gshmem.triton without a GPU (skipped without Triton, or without clang >= 19 and a prebuilt
bitcode): the device API's bitcode builds, and a Triton kernel calling putmem_signal_block,
signal_wait_until, my_pe, n_pes and ptr compiles to a sm_90 cubin whose module carries the
device state under the name gshmemx_cumodule_init looks up."""
import re
import unittest

try:
    import triton
    import triton.language as tl
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
except ImportError:
    triton = None


def _kernels():
    import gshmem.triton as gtr

    @triton.jit
    def ring(dst, src, sig, n, value):
        nxt = (gtr.my_pe() + 1) % gtr.n_pes()
        gtr.putmem_signal_block(dst, src, n * 4, sig, value, gtr.SIGNAL_SET, nxt)
        gtr.signal_wait_until(sig, gtr.CMP_EQ, value)
        peer = gtr.ptr(dst, nxt)
        offs = tl.arange(0, 1024)
        m = offs < n
        tl.store(src + offs, tl.load(dst + offs, mask=m) + tl.load(peer + offs, mask=m), mask=m)
        gtr.quiet()
        gtr.barrier_all_block()
    return ring


@unittest.skipIf(triton is None, "Triton is not installed")
class TritonBitcodeTest(unittest.TestCase):
    def setUp(self):
        import gshmem
        from gshmem.triton import bitcode_path
        try:
            self.bc = bitcode_path()
        except gshmem.UnsupportedError as e:
            self.skipTest(str(e))

    def test_kernel_compiles_with_the_device_state(self):
        import gshmem.triton as gtr
        sig = {"dst": "*fp32", "src": "*fp32", "sig": "*u64", "n": "i32", "value": "i64"}
        k = triton.compile(ASTSource(fn=_kernels(), signature=sig, constexprs={}), target=GPUTarget("cuda", 90, 32),
                           options={"num_warps": 4, "extern_libs": gtr.extern_libs()})
        ptx = k.asm["ptx"]
        self.assertRegex(ptx, r"\.visible \.const \.align \d+ \.b8 gshmemi_tu_state\[\d+\]")
        self.assertGreater(len(k.asm["cubin"]), 0)
        # the wrappers were linked in (their bodies inlined or called), not left as externs
        self.assertNotRegex(ptx, r"\.extern \.func[^;]*gshmem_triton_")

    def test_bitcode_names(self):
        import subprocess
        from gshmem.triton._bitcode import _tools
        tools = _tools()
        if tools is None:
            self.skipTest("no llvm-dis to read the bitcode")
        ll = subprocess.run([tools[1], self.bc, "-o", "-"], capture_output=True, text=True, check=True).stdout
        self.assertIn("@gshmemi_tu_state = ", ll)
        self.assertNotIn("nvvm-reflect-ftz", ll)
        for name in ("my_pe", "n_pes", "putmem_block", "putmem_signal_block", "signal_op", "signal_wait_until",
                     "fence", "quiet", "barrier_all_block", "ptr"):
            self.assertRegex(ll, rf"define [^@]*@gshmem_triton_{name}\(")
        self.assertFalse(re.search(r"@_ZL\d+gshmemi_tu_state", ll))


if __name__ == "__main__":
    unittest.main()
