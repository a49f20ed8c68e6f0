// SPDX-License-Identifier: BSD-3-Clause
// Force-included (-include) when clang compiles gshmem's device headers to LLVM bitcode for
// Triton (gshmem/triton/_bitcode.py): clang's CUDA headers lack the __ldcg overloads of the
// plain integer and vector types with CUDA 13, which gshmem's collectives use. One template
// serves every element size as the same ld.global.cg that nvcc's overloads emit.
#pragma once

template <class T>
__device__ __forceinline__ T __ldcg(const T* p) {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16,
                "__ldcg: unsupported element size");
  T out;
  if constexpr (sizeof(T) == 1) {
    unsigned short r;
    asm volatile("ld.global.cg.u8 %0, [%1];" : "=h"(r) : "l"(p));
    const unsigned char c = static_cast<unsigned char>(r);
    __builtin_memcpy(&out, &c, 1);
  } else if constexpr (sizeof(T) == 2) {
    unsigned short r;
    asm volatile("ld.global.cg.u16 %0, [%1];" : "=h"(r) : "l"(p));
    __builtin_memcpy(&out, &r, 2);
  } else if constexpr (sizeof(T) == 4) {
    unsigned int r;
    asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(r) : "l"(p));
    __builtin_memcpy(&out, &r, 4);
  } else if constexpr (sizeof(T) == 8) {
    unsigned long long r;
    asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(r) : "l"(p));
    __builtin_memcpy(&out, &r, 8);
  } else {
    unsigned long long r[2];
    asm volatile("ld.global.cg.v2.u64 {%0, %1}, [%2];" : "=l"(r[0]), "=l"(r[1]) : "l"(p));
    __builtin_memcpy(&out, r, 16);
  }
  return out;
}
