# SPDX-License-Identifier: BSD-3-Clause
"""Tables of gshmem's C names, one module per API family (see tools/gen_c_api.py)."""
