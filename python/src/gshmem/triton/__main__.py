# SPDX-License-Identifier: BSD-3-Clause
"""python -m gshmem.triton [OUT.bc]: build the device API's bitcode (clang >= 19 needed) into OUT.bc,
for a machine without clang (then GSHMEM_TRITON_BITCODE=OUT.bc there). Needs no Triton."""
import sys

from ._bitcode import build

print(build(sys.argv[1] if len(sys.argv) > 1 else "gshmem_triton.bc"))
