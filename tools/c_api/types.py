# SPDX-License-Identifier: BSD-3-Clause
"""Type classes of the OpenSHMEM specification, shared by every API family."""

# OpenSHMEM 1.5 standard RMA types: (C type, name in the function name, usable on device)
RMA_TYPES = [
    ("float", "float", True), ("double", "double", True), ("long double", "longdouble", False),
    ("char", "char", True), ("signed char", "schar", True), ("short", "short", True),
    ("int", "int", True), ("long", "long", True), ("long long", "longlong", True),
    ("unsigned char", "uchar", True), ("unsigned short", "ushort", True),
    ("unsigned int", "uint", True), ("unsigned long", "ulong", True),
    ("unsigned long long", "ulonglong", True),
    ("int8_t", "int8", True), ("int16_t", "int16", True), ("int32_t", "int32", True),
    ("int64_t", "int64", True), ("uint8_t", "uint8", True), ("uint16_t", "uint16", True),
    ("uint32_t", "uint32", True), ("uint64_t", "uint64", True), ("size_t", "size", True),
    ("ptrdiff_t", "ptrdiff", True),
]
# Point-to-point synchronisation types (wait_until / test).
WAIT_TYPES = ["int", "long", "longlong", "uint", "ulong", "ulonglong", "int32", "int64",
              "uint32", "uint64", "size", "ptrdiff", "short", "ushort"]
SIZED_BITS = [8, 16, 32, 64, 128]
SCOPES = [("_warp", "gshmem::warp_scope"), ("_block", "gshmem::block_scope")]
